/**
 * The WebAssembly kernel (native/wasm/kernel.wasm, cursors/wasm.ts) against the JavaScript loops it stands in
 * for where the N-API addon is absent: the same marker positions as `indexOfJs`, the same projected fields as
 * the JavaScript walk (hence as JSON.parse), the same XXH64 digests as xxhash-wasm. On every Claude and Codex
 * fixture (real ones in ../shared and the checked-in ones), on generated adversarial input, and in a fuzz run
 * of random and mutated bytes (fixed seed, bounded time). Lines are put both inside the module's memory (as a
 * read puts them) and outside it (copied in to be walked), at every alignment. Last, a cost report through the
 * CLI reads the same with the WebAssembly kernel and with the JavaScript loops.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { mutator, rng } from './helpers/rng.js';
import { mergeFiltered } from './helpers/split-log.js';
import { jsonlFilesSync } from './helpers/files.js';
import xxhash from 'xxhash-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { USAGE_LINE_FIELDS } from '../codecs/claude/usage.js';
import { TITLE_MARKER, USAGE_MARKER } from '../codecs/claude/schema.js';
import { CODEX_USAGE_PROJECTION } from '../codecs/codex/prefilter.js';
import { compileProjection, scanFieldsJs, scanFieldsWasm, type CompiledProjection, type FieldProjection } from '../cursors/scan-fields.js';
import { indexOfJs } from '../cursors/native.js';
import { createHash64Wasm } from '../cursors/ids.js';
import { LineSplitter } from '../cursors/line-splitter.js';
import { instantiateWasmKernel, PASS_RECORDS, WASM_READ_BYTES, WASM_SCRATCH_BYTES, type WasmKernel } from '../cursors/wasm.js';
import { makeHistory } from './cost-history.js';
import { anyValue, applyDamage, damage, key, obj, serialize, style, TRICKY } from './helpers/json-model.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REAL = fileURLToPath(new URL('../../shared/fixtures/real/', import.meta.url));

const w = instantiateWasmKernel() as WasmKernel;
const memory = w.bytes.buffer;
const api = await xxhash();

const FIXTURES = [
  ...jsonlFilesSync(join(REAL, 'claude')),
  ...jsonlFilesSync(join(REAL, 'codex')),
  ...jsonlFilesSync(join(ROOT, 'fixtures', 'claude')),
  ...jsonlFilesSync(join(ROOT, 'fixtures', 'codex')),
];

/** Projections compiled for the WebAssembly walk (the native kernel is not asked, loaded or not). */
const wasmProjection = (p: FieldProjection): CompiledProjection => compileProjection(p, undefined, w);
const CLAUDE = wasmProjection(USAGE_LINE_FIELDS);
const CODEX = wasmProjection(CODEX_USAGE_PROJECTION);
const MARKERS = [USAGE_MARKER, TITLE_MARKER, Buffer.from('"token_count"'), Buffer.from('"type":"'), Buffer.from('"'), Buffer.from('x'), Buffer.alloc(0)];

/** A read buffer of the module's, with `bytes` copied in at `pad`; given back by `done`. */
function inMemory(bytes: Uint8Array, pad = 0): { b: Buffer; done: () => void } {
  const buf = w.takeReadBuffer(WASM_READ_BYTES);
  if (buf === undefined) throw new Error('no read buffer free');
  buf.set(bytes, pad);
  return { b: buf.subarray(pad, pad + bytes.length), done: () => void w.giveReadBuffer(buf) };
}

/** The walk's answer equals the JavaScript walk's, the line inside and outside the module's memory. */
function expectSameWalk(line: Buffer, p: CompiledProjection, pad = 0): boolean {
  const want = scanFieldsJs(line, p);
  expect(scanFieldsWasm(line, p, w)).toEqual(want);
  if (line.length + pad <= WASM_READ_BYTES) {
    const m = inMemory(line, pad);
    try {
      expect(scanFieldsWasm(m.b, p, w)).toEqual(want);
    } finally {
      m.done();
    }
  }
  return want !== undefined;
}

/** Every marker's every occurrence, in order, found alike in `hay` (which lies in the module's memory). */
function expectSameSearch(hay: Buffer, needle: Buffer, from = 0, to = hay.length): number {
  let found = 0;
  for (let at = from; ; ) {
    const want = indexOfJs(hay, needle, at, to);
    expect(w.indexOf(hay, needle, at, to)).toBe(want);
    if (want === -1 || want >= to) return found;
    found++;
    at = want + 1;
    if (at > to) return found;
  }
}

afterAll(() => {
  // The memory never grows: every view taken at load is still the memory's.
  expect(w.bytes.buffer).toBe(memory);
  expect(w.bytes.length).toBeGreaterThan(0);
});

describe('the WebAssembly kernel', () => {
  it('is shipped in the package, imports nothing and loads on Node 20 with no flags', () => {
    const bytes = readFileSync(join(ROOT, 'native', 'wasm', 'kernel.wasm'));
    const WA = (globalThis as unknown as { WebAssembly: { Module: { new (b: Uint8Array): object; imports(m: object): unknown[] } } }).WebAssembly;
    expect(WA.Module.imports(new WA.Module(bytes))).toEqual([]);
    expect(w).toBeDefined();
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[]; scripts: Record<string, string> };
    expect(pkg.files).toContain('native');
  });

  it('is the one the JavaScript paths use when the native kernel is off, unless SESSIONFOLD_WASM=0', () => {
    const probe = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', `import('${join(ROOT, 'dist/cursors/native.js')}').then((m) => process.stdout.write(String(m.nativeKernel() === undefined) + ' ' + String(m.wasmKernel() !== undefined)))`], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      }).stdout;
    expect(probe({ SESSIONFOLD_NATIVE: '0' })).toBe('true true');
    expect(probe({ SESSIONFOLD_NATIVE: '0', SESSIONFOLD_WASM: '0' })).toBe('true false');
  });

  it('has an instance of its own in each Worker (the scan pool\'s threads), with its read buffers', async () => {
    const { Worker } = await import('node:worker_threads');
    const source = `const { parentPort } = await import('node:worker_threads'); const m = await import(${JSON.stringify(join(ROOT, 'dist/cursors/native.js'))}); parentPort.postMessage([m.wasmKernel() !== undefined, m.wasmKernel()?.freeReadBuffers]);`;
    const worker = new Worker(source, { eval: true, env: { ...process.env, SESSIONFOLD_NATIVE: '0' } });
    try {
      const [loaded, buffers] = await new Promise<[boolean, number]>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      expect(loaded).toBe(true);
      expect(buffers).toBeGreaterThanOrEqual(8);
    } finally {
      await worker.terminate();
    }
  });

  it('hands out its read buffers once each, and takes back only its own', () => {
    const free = w.freeReadBuffers;
    expect(free).toBeGreaterThanOrEqual(4);
    const taken = Array.from({ length: free }, () => w.takeReadBuffer(1000) as Buffer);
    expect(new Set(taken.map((b) => b.byteOffset)).size).toBe(free);
    expect(w.takeReadBuffer(1)).toBeUndefined();
    expect(w.takeReadBuffer(WASM_READ_BYTES + 1)).toBeUndefined();
    expect(w.giveReadBuffer(Buffer.alloc(10))).toBe(false);
    expect(w.giveReadBuffer((taken[0] as Buffer).subarray(1))).toBe(false);
    for (const b of taken) expect(w.giveReadBuffer(b)).toBe(true);
    expect(w.freeReadBuffers).toBe(free);
  });
});

describe('on every Claude and Codex fixture', () => {
  it('finds the fixtures', () => {
    expect(FIXTURES.filter((f) => f.startsWith(REAL)).length).toBeGreaterThanOrEqual(10);
    expect(FIXTURES.length).toBeGreaterThanOrEqual(20);
  });

  it('walks every line to the JavaScript walk\'s fields, for both codecs\' projections', () => {
    let answered = 0;
    for (const file of FIXTURES) {
      const lines = readFileSync(file).toString('latin1').split('\n').map((l) => Buffer.from(l, 'latin1'));
      lines.forEach((line, i) => {
        if (expectSameWalk(line, CLAUDE, i % 16)) answered++;
        expectSameWalk(line, CODEX, (i * 7) % 16);
      });
    }
    expect(answered).toBeGreaterThan(200);
  });

  it('finds every marker occurrence in each file read into the module\'s memory', () => {
    let found = 0;
    for (const file of FIXTURES) {
      const body = readFileSync(file);
      for (let at = 0; at < body.length; at += WASM_READ_BYTES) {
        const m = inMemory(body.subarray(at, at + WASM_READ_BYTES));
        try {
          for (const marker of MARKERS.slice(0, 4)) {
            found += expectSameSearch(m.b, marker);
            // a range that ends inside a marker, as a line's end does
            expectSameSearch(m.b, marker, 3, Math.max(3, m.b.length - 5));
          }
          // short needles (one byte, none): from a few places each
          for (const marker of MARKERS.slice(4)) {
            for (let from = 0; from < m.b.length; from += 997) expect(w.indexOf(m.b, marker, from, m.b.length)).toBe(indexOfJs(m.b, marker, from, m.b.length));
          }
        } finally {
          m.done();
        }
      }
    }
    expect(found).toBeGreaterThan(500);
  });

  it('hashes every file to xxhash-wasm\'s XXH64, from bytes and from the file, however split', () => {
    for (const file of FIXTURES) {
      const body = readFileSync(file);
      const want = api.h64Raw(body).toString(16).padStart(16, '0');
      const a = createHash64Wasm(w);
      for (let at = 0; at < body.length; at += 1000 + (at % 77)) a.update(body.subarray(at, Math.min(body.length, at + 1000 + (at % 77))));
      expect(a.digest()).toBe(want);
      const fd = openSync(file, 'r');
      try {
        const b = createHash64Wasm(w);
        expect(b.updateFromFile(fd, 0, body.length + 100)).toBe(body.length);
        expect(b.digest()).toBe(want);
        const c = createHash64Wasm(w);
        c.updateFromFile(fd, 0, 17);
        c.updateFromFile(fd, 17, body.length);
        expect(c.digest()).toBe(want);
      } finally {
        closeSync(fd);
      }
    }
  });
});

// ---- generated adversarial input ----

const alphabet = fc.constantFrom(...'"usage:{}\n ab'.split('').map((c) => c.charCodeAt(0)), 0xe4, 0x00);

/** A random projection over the model's key names. */
const { projection } = fc.letrec<{ projection: FieldProjection }>((tie) => ({
  projection: fc.dictionary(key.filter((k) => k !== '__proto__'), fc.oneof({ weight: 3, arbitrary: fc.constant(true as const) }, { weight: 1, arbitrary: tie('projection') }), { maxKeys: 4 }),
}));

describe('on generated adversarial input', () => {
  it('indexOf: the same first start inside [from, to) (property)', () => {
    let found = 0;
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 300 }), fc.array(alphabet, { minLength: 1, maxLength: 12 }), fc.option(fc.nat(), { nil: undefined }), fc.nat(), fc.nat(), fc.nat({ max: 40 }), (h, random, sliceAt, a, b, pad) => {
        const at = sliceAt === undefined || h.length === 0 ? -1 : sliceAt % h.length;
        const needle = Buffer.from(at === -1 ? random : h.slice(at, at + random.length));
        const m = inMemory(Uint8Array.from(h), pad);
        try {
          const from = h.length === 0 ? 0 : a % (h.length + 1);
          const to = from + (h.length === 0 ? 0 : b % (h.length - from + 1));
          const want = indexOfJs(m.b, needle, from, to);
          if (want !== -1) found++;
          expect(w.indexOf(m.b, needle, from, to)).toBe(want);
          expect(w.indexOf(Buffer.from(m.b), needle, from, to)).toBe(want); // a hay outside the memory
        } finally {
          m.done();
        }
      }),
      { numRuns: 3000, seed: 16 },
    );
    expect(found).toBeGreaterThan(250);
  });

  it('indexOf: a marker at every position around the 16- and 32-byte blocks', () => {
    const marker = Buffer.from('"usage"');
    for (let len = 0; len < 100; len++) {
      for (let at = 0; at + marker.length <= len; at++) {
        const hay = Buffer.alloc(len, 'x');
        marker.copy(hay, at);
        const m = inMemory(hay, len % 16);
        try {
          expect(w.indexOf(m.b, marker, 0, len)).toBe(at);
          expect(w.indexOf(m.b, marker, at + 1, len)).toBe(-1);
          expect(w.indexOf(m.b, marker, 0, at + marker.length - 1)).toBe(-1);
        } finally {
          m.done();
        }
      }
    }
  });

  it('the walk: the same fields for any projection, on valid and damaged lines (property)', () => {
    let answered = 0;
    fc.assert(
      fc.property(projection, fc.array(fc.tuple(key, anyValue), { maxLength: 6 }), style, fc.option(damage, { nil: undefined }), fc.nat({ max: 15 }), (p, entries, st, d, pad) => {
        const text = Buffer.from(serialize(obj(entries), st));
        const line = d === undefined ? text : applyDamage(text, d);
        if (expectSameWalk(line, wasmProjection(p), pad)) answered++;
        expectSameWalk(line, CLAUDE, pad);
        expectSameWalk(line, CODEX, pad);
      }),
      { numRuns: 2000, seed: 16 },
    );
    expect(answered).toBeGreaterThan(250);
  });

  it('the walk: every byte of strings of every length and alignment (the SIMD blocks and their tails)', () => {
    const p = wasmProjection({ a: true, b: true });
    const special = ['"', '\\', '\u0001', '\u001f', 'é', '\u007f', '\\n', '\\"', '\\u00e9', '\\x'];
    let answered = 0;
    for (let len = 0; len < 40; len++) {
      for (let at = 0; at <= len; at++) {
        for (const sp of special) {
          const s = `${'x'.repeat(at)}${sp}${'y'.repeat(len - at)}`;
          const line = Buffer.from(`{"a":"${s}","c":"${s}","b":1}`);
          for (const pad of [0, 1, 3, 15]) if (expectSameWalk(line, p, pad)) answered++;
        }
      }
    }
    expect(answered).toBeGreaterThan(1000);
  });

  it('the walk: the same nesting depth refused, and duplicate keys taken alike', () => {
    const p = wasmProjection({ a: true, z: true, m: { a: true, b: true } });
    for (const depth of [254, 255, 256, 257, 300]) {
      for (const open of ['[', '{"k":']) {
        const close = open === '[' ? ']' : '}';
        expectSameWalk(Buffer.from(`{"z":${open.repeat(depth)}1${close.repeat(depth)},"a":2}`), p);
      }
    }
    const dup = Buffer.from('{"m":{"a":1,"b":2},"m":{"a":3},"a":1,"a":"x"}');
    expect(expectSameWalk(dup, p)).toBe(true);
    expect(scanFieldsWasm(dup, p, w)).toEqual({ m: { a: 3 }, a: 'x' });
  });

  it('the walk: a line larger than the scratch area is walked by JavaScript, and many projections take turns in the slots', () => {
    const big = Buffer.from(`{"a":"${'x'.repeat(WASM_SCRATCH_BYTES)}","b":2}`);
    const p = wasmProjection({ b: true });
    expect(scanFieldsWasm(big, p, w)).toEqual({ b: 2 });
    const many = Array.from({ length: 40 }, (_, i) => wasmProjection({ [`k${i}`]: true, b: true }));
    for (let round = 0; round < 3; round++) {
      many.forEach((q, i) => expect(scanFieldsWasm(Buffer.from(`{"k${i}":${i},"b":${round}}`), q, w)).toEqual({ [`k${i}`]: i, b: round }));
    }
    // a projection too large for a slot is not compiled for the module: the JavaScript walk reads with it
    const huge = wasmProjection(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key-${i}`, true as const])));
    expect(huge.wasm).toBeUndefined();
    expect(scanFieldsWasm(Buffer.from('{"key-7":1}'), huge, w)).toEqual({ 'key-7': 1 });
  });

  it('hash64: xxhash-wasm\'s digest on any bytes, however split, inside or outside the memory (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), fc.array(fc.nat({ max: 80 }), { maxLength: 20 }), fc.boolean(), (bytes, cuts, inside) => {
        const want = api.h64Raw(bytes).toString(16).padStart(16, '0');
        const m = inMemory(bytes, 3);
        try {
          const src = inside ? m.b : Buffer.from(bytes);
          const h = createHash64Wasm(w);
          let at = 0;
          for (const c of cuts) {
            const to = Math.min(bytes.length, at + c);
            h.update(src.subarray(at, to));
            at = to;
          }
          h.update(src.subarray(at));
          expect(h.digest()).toBe(want);
          h.update(Buffer.from('more')); // the state goes on after a digest
          expect(h.digest()).toBe(api.h64Raw(Buffer.concat([bytes, Buffer.from('more')])).toString(16).padStart(16, '0'));
        } finally {
          m.done();
        }
      }),
      { numRuns: 500, seed: 16 },
    );
  });

  it('hashStringInto: xxhash-wasm\'s h64 of any string, as [high, low] halves, leaving no trace in the next', () => {
    const out = new Uint32Array(2);
    const check = (s: string) => {
      expect(w.hashStringInto(s, out), s.slice(0, 40)).toBe(true);
      const h = api.h64(s);
      expect([out[0], out[1]]).toEqual([Number(h >> 32n), Number(h & 0xffffffffn)]);
    };
    for (const s of ['', 'a', 'claude:msg_01ABC', 'codex:r0:e0:1:2:3', 'é', '日本語', '\ud800 lone', 'x'.repeat(31), 'x'.repeat(32), 'x'.repeat(33), 'y'.repeat(70000)]) check(s);
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => check(s)), { numRuns: 500, seed: 18 });
    // Longer than the scratch area could take in UTF-8: refused, for the caller's own hash.
    expect(w.hashStringInto('z'.repeat(WASM_SCRATCH_BYTES), out)).toBe(false);
  });

  it('hash64: states interleaved step by step stay apart', () => {
    const parts = ['a', 'bb', 'sessionfold '.repeat(9), 'c'].map((t) => Buffer.from(t));
    const hashers = [0, 1, 2].map(() => createHash64Wasm(w));
    parts.forEach((p, k) => hashers.forEach((h, i) => k <= i + 1 && h.update(p)));
    hashers.forEach((h, i) => expect(h.digest()).toBe(api.h64Raw(Buffer.concat(parts.slice(0, i + 2))).toString(16).padStart(16, '0')));
  });

  it('hash64: file ranges longer than the scratch area, and bytes larger than it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-wasm-hash-'));
    try {
      const body = Buffer.alloc(WASM_SCRATCH_BYTES * 2 + 12345);
      for (let i = 0; i < body.length; i++) body[i] = (i * 2654435761) >>> 24;
      const file = join(dir, 'f');
      writeFileSync(file, body);
      const fd = openSync(file, 'r');
      try {
        for (const [from, to] of [[0, body.length], [5, WASM_SCRATCH_BYTES + 9], [body.length, body.length]] as const) {
          const h = createHash64Wasm(w);
          expect(h.updateFromFile(fd, from, to)).toBe(to - from);
          expect(h.digest()).toBe(api.h64Raw(body.subarray(from, to)).toString(16).padStart(16, '0'));
        }
      } finally {
        closeSync(fd);
      }
      const h = createHash64Wasm(w);
      h.update(body);
      expect(h.digest()).toBe(api.h64Raw(body).toString(16).padStart(16, '0'));
      expect(statSync(file).size).toBe(body.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---- the whole-chunk pass ----

/** What a LineSplitter with a marker filter hands over for `chunks`, the chunks read into the module's memory or not. */
function splitLog(chunks: readonly Buffer[], markerSets: readonly (readonly Buffer[] | undefined)[], maxLine: number, inMem: boolean): unknown[] {
  const log: unknown[] = [];
  let seen = 0;
  // markers change after some lines handed over, as a core's do once its session is out
  const markers = () => markerSets[Math.min(seen, markerSets.length - 1)];
  const splitter = new LineSplitter({
    startOffset: 0,
    maxLineBytes: maxLine,
    onLine: (line, start, next) => {
      log.push(['line', line.toString('latin1'), start, next]);
      seen++;
    },
    onLongLine: (start, next, length) => log.push(['long', start, next, length]),
    filter: {
      markers,
      onFiltered: () => log.push(['filtered', 1]),
      filteredLines: (n) => log.push(['filtered', n]),
      readAt: (b, position) => Buffer.concat(chunks).copy(b, 0, position, position + b.length),
    },
    wasm: inMem ? w : undefined,
  });
  for (const c of chunks) {
    if (inMem) {
      const m = inMemory(c, c.length % 16);
      try {
        splitter.push(m.b, c.length);
      } finally {
        m.done();
      }
    } else splitter.push(Buffer.from(c), c.length);
  }
  log.push(['end', splitter.lines, splitter.committed, splitter.pendingBytes]);
  return mergeFiltered(log);
}

describe('the whole-chunk pass (LineSplitter in the module\'s memory)', () => {
  const piece = fc.constantFrom('"usage"', '-title"', 'ab', 'x', ' ', '\r', '\r\n', '\n', '\n\n', '"', '{"type":"a"}', 'é');
  const markerSet = fc.constantFrom<readonly Buffer[] | undefined>(undefined, [], [USAGE_MARKER], [USAGE_MARKER, TITLE_MARKER], [Buffer.from('ab'), Buffer.from('"'), Buffer.from('x"'), Buffer.from('\r')]);

  it('hands over the same lines, long lines, filtered counts and offsets as the JavaScript loop (property)', () => {
    let handed = 0;
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 120 }), fc.array(fc.integer({ min: 1, max: 90 }), { minLength: 1, maxLength: 6 }), fc.array(markerSet, { minLength: 1, maxLength: 3 }), fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(1 << 20)), (parts, cuts, sets, maxLine) => {
        const body = Buffer.from(parts.join(''));
        const chunks: Buffer[] = [];
        for (let at = 0, k = 0; at < body.length; k++) {
          const n = cuts[k % cuts.length] as number;
          chunks.push(body.subarray(at, at + n));
          at += n;
        }
        const want = splitLog(chunks, sets, maxLine, false);
        handed += want.filter((e) => (e as unknown[])[0] === 'line').length;
        expect(splitLog(chunks, sets, maxLine, true)).toEqual(want);
      }),
      { numRuns: 1500, seed: 16 },
    );
    expect(handed).toBeGreaterThan(300);
  });

  it('finds one to four markers in long lines as the JavaScript loop does, wherever they fall in the SIMD blocks (property)', () => {
    // The search compares 32 positions per block with the needle count fixed per call site (native/kernel.c
    // find_any_wasm_n) and the LF search 64 bytes per block: lines of hundreds of bytes, with markers near
    // block edges, at the chunk's end and straddling the last bytes the blocks reach.
    const needles = [USAGE_MARKER, Buffer.from('token_'), Buffer.from('turn_context'), Buffer.from('session_meta'), Buffer.from('"x"')];
    const filler = fc.constantFrom('a', 'usag', '"usage', 'token', 'turn_contex', 'session_met', ' ', '""', 'é', '\n');
    const part = fc.oneof(fc.constantFrom(...needles.map((n) => n.toString())), fc.array(filler, { minLength: 1, maxLength: 40 }).map((a) => a.join('')));
    const sets = fc.subarray(needles, { minLength: 1, maxLength: 4 });
    let hits = 0;
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 60 }), sets, fc.integer({ min: 0, max: 70 }), (parts, set, pad) => {
        const chunk = Buffer.from('x'.repeat(pad) + parts.join('') + '\n');
        const want = splitLog([chunk], [set], 1 << 20, false);
        hits += want.filter((e) => (e as unknown[])[0] === 'line').length;
        expect(splitLog([chunk], [set], 1 << 20, true)).toEqual(want);
      }),
      { numRuns: 800, seed: 17 },
    );
    expect(hits).toBeGreaterThan(200);
  });

  it('takes more lines than one pass returns, and a chunk of many short lines', () => {
    const lines = Array.from({ length: 3 * PASS_RECORDS + 7 }, (_, i) => (i % 3 === 0 ? `{"usage":${i}}` : i % 5 === 0 ? 'x'.repeat(50) : `l${i}`));
    const chunk = Buffer.from(lines.join('\n') + '\n');
    for (const sets of [[[USAGE_MARKER]], [undefined, [USAGE_MARKER]], [[USAGE_MARKER], [], undefined]] as (readonly Buffer[] | undefined)[][]) {
      const want = splitLog([chunk], sets, 40, false);
      expect(splitLog([chunk], sets, 40, true)).toEqual(want);
    }
  });
});

// ---- fuzz: random and mutated bytes through every entry ----


describe('fuzz (fixed seed, bounded time)', () => {
  it('random and mutated fixture bytes give the JavaScript reference\'s answers through indexOf, the walk, hash64 and the pass', () => {
    const next = rng(0x5e55f01d);
    const pieces = [...TRICKY, '{"a":', '"usage":{"input_tokens":1}', '"message":{"id":"m","usage":{}}', '\\u0041', '1e5', '-0', 'true', 'null', '}}]]', '{'].map((t) => Buffer.from(t));
    const lines = FIXTURES.flatMap((f) => readFileSync(f).toString('latin1').split('\n').filter((l) => l.length > 0 && l.length < 20000)).map((l) => Buffer.from(l, 'latin1'));
    expect(lines.length).toBeGreaterThan(100);
    const mutate = mutator(next, pieces);
    const random = (): Buffer => Buffer.from(Array.from({ length: next() % 200 }, () => (next() % 3 === 0 ? (pieces[next() % pieces.length] as Buffer)[0] ?? 0 : next() & 0xff)));
    const deadline = Date.now() + 3000;
    let runs = 0;
    while (Date.now() < deadline || runs < 500) {
      const line = next() % 4 === 0 ? random() : mutate(lines[next() % lines.length] as Buffer);
      const pad = next() % 16;
      expectSameWalk(line, CLAUDE, pad);
      expectSameWalk(line, CODEX, pad);
      const m = inMemory(line, pad);
      try {
        const needle = next() % 2 === 0 ? (MARKERS[next() % MARKERS.length] as Buffer) : line.subarray(next() % (line.length + 1)).subarray(0, 1 + (next() % 12));
        const from = next() % (line.length + 1);
        const to = from + (next() % (line.length - from + 1));
        expect(w.indexOf(m.b, needle, from, to)).toBe(indexOfJs(m.b, needle, from, to));
        const h = createHash64Wasm(w);
        const cut = next() % (line.length + 1);
        h.update(m.b.subarray(0, cut));
        h.update(line.subarray(cut));
        expect(h.digest()).toBe(api.h64Raw(line).toString(16).padStart(16, '0'));
      } finally {
        m.done();
      }
      if (runs % 4 === 0) {
        // the pass, over the line and its neighbours as one chunk cut at random
        const body = Buffer.concat([line, Buffer.from('\n'), lines[next() % lines.length] as Buffer, Buffer.from('\r\n'), random()]);
        const cut = next() % (body.length + 1);
        const sets = [[MARKERS[next() % 4] as Buffer], [USAGE_MARKER, TITLE_MARKER]];
        const maxLine = next() % 2 === 0 ? 1 << 20 : next() % 300;
        expect(splitLog([body.subarray(0, cut), body.subarray(cut)], sets, maxLine, true)).toEqual(splitLog([body.subarray(0, cut), body.subarray(cut)], sets, maxLine, false));
      }
      runs++;
    }
    expect(runs).toBeGreaterThanOrEqual(500);
  });
});

describe('reads through the codecs give the same events with the WebAssembly kernel and with the JavaScript loops', () => {
  it('every fixture, every kind and usage only, in read chunks of 1 MiB, 4 KiB and 61 bytes (lines spanning chunks)', () => {
    // A child process per mode: the kernel is chosen when cursors/native.ts loads.
    const script = `
      const { getCodec } = await import(${JSON.stringify(join(ROOT, 'dist/src/registry.js'))});
      const { wasmKernel } = await import(${JSON.stringify(join(ROOT, 'dist/cursors/native.js'))});
      const files = JSON.parse(process.argv[1]);
      const out = [wasmKernel() !== undefined];
      for (const file of files) {
        const codec = getCodec(file.includes('codex') ? 'codex' : 'claude');
        for (const bufferSize of [1 << 20, 4096, 61]) {
          for (const opts of [{}, { kinds: ['session', 'usage'], titles: false }]) {
            const events = [];
            const info = {};
            try {
              for await (const e of codec.read(file, { ...opts, bufferSize, info })) events.push(e);
              out.push([file, bufferSize, events, info]);
            } catch (e) {
              out.push([file, bufferSize, String(e)]);
            }
          }
        }
      }
      process.stdout.write(JSON.stringify(out));`;
    const run = (env: Record<string, string>) => {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(FIXTURES)], { env: { ...process.env, SESSIONFOLD_NATIVE: '0', ...env }, encoding: 'utf8', maxBuffer: 1 << 28 });
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout) as unknown[];
    };
    const wasm = run({});
    const js = run({ SESSIONFOLD_WASM: '0' });
    expect([wasm[0], js[0]]).toEqual([true, false]);
    expect(wasm.length).toBe(1 + FIXTURES.length * 6);
    expect(wasm.slice(1)).toEqual(js.slice(1));
    const usage = (wasm.slice(1) as [string, number, { type: string }[]][]).flatMap((r) => (Array.isArray(r[2]) ? r[2] : [])).filter((e) => e.type === 'usage').length;
    expect(usage).toBeGreaterThan(100);
  });
});

describe('a cost report reads the same with the WebAssembly kernel and with the JavaScript loops', () => {
  it('over the real Claude and Codex fixtures, without the cache', () => {
    const args = [join(ROOT, 'dist/src/cli/main.cjs'), 'cost', 'report', '--json', '--no-cache', '--group-by', 'session', '--agent', 'claude,codex'];
    const history = makeHistory({ real: true });
    try {
      const env = { ...history.env, SESSIONFOLD_SOCKET: 'off', SESSIONFOLD_NATIVE: '0' };
      const wasm = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
      const js = spawnSync(process.execPath, args, { env: { ...env, SESSIONFOLD_WASM: '0' }, encoding: 'utf8' });
      expect(wasm.status).toBe(0);
      expect(js.status).toBe(0);
      const report = JSON.parse(wasm.stdout) as { runCount: number; totalUsd: number };
      expect(report.runCount).toBeGreaterThan(3);
      expect(report.totalUsd).toBeGreaterThan(0);
      expect(wasm.stdout).toBe(js.stdout);
    } finally {
      rmSync(history.home, { recursive: true, force: true });
    }
  });
});
