/**
 * The native kernel (native/, loaded by cursors/native.ts) against the JavaScript loops it stands in for:
 * the same substring positions as Buffer#indexOf, the same field spans as the JavaScript walk (hence the same
 * fields as JSON.parse, which test/claude-usage-scan.test.ts and test/codex-fast-scan.test.ts check), at every
 * byte alignment and around every SIMD block edge; and a cost report that reads the same with the kernel
 * turned off (`SESSIONFOLD_NATIVE=0`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USAGE_LINE_FIELDS } from '../codecs/claude/usage.js';
import { CODEX_USAGE_PROJECTION } from '../codecs/codex/prefilter.js';
import { compileProjection, scanFields, scanFieldsJs, type FieldProjection } from '../cursors/scan-fields.js';
import { indexOfJs, indexOfKind, KERNEL_ABI, limitMallocArenas, nativeKernel } from '../cursors/native.js';
import { makeHistory } from './cost-history.js';
import { anyValue, applyDamage, damage, key, obj, serialize, style, type J } from './helpers/json-model.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const hasCompiler = process.platform !== 'win32' && spawnSync(process.env.CC ?? 'cc', ['--version']).status === 0;
const hasHeaders = existsSync(join(dirname(process.execPath), '..', 'include', 'node', 'node_api.h'));

describe('the native kernel', () => {
  it.runIf(hasCompiler && hasHeaders && process.env.SESSIONFOLD_NATIVE !== '0')('is built by `npm run build` and loaded where a C compiler and Node headers are', () => {
    expect(existsSync(join(ROOT, 'build', 'kernel.node'))).toBe(true);
    expect(nativeKernel()?.abi).toBe(KERNEL_ABI);
    expect(indexOfKind()).toBe('native');
  });

  it('never fails an install: a compiler that fails leaves a note and the built kernel as it was', () => {
    const script = join(ROOT, 'scripts', 'build-native.mjs');
    const built = join(ROOT, 'build', 'kernel.node');
    const before = existsSync(built) ? statSync(built).mtimeMs : undefined;
    // a compiler that fails, and one that is not there at all
    for (const cc of ['false', join(ROOT, 'no-such-compiler')]) {
      const failing = spawnSync(process.execPath, [script], { env: { ...process.env, CC: cc }, encoding: 'utf8' });
      expect(failing.status).toBe(0);
      if (process.platform !== 'win32') expect(failing.stderr).toMatch(/native kernel not built \(.+\); the JavaScript loops run/);
    }
    expect(existsSync(built) ? statSync(built).mtimeMs : undefined).toBe(before);
    const skipped = spawnSync(process.execPath, [script], { env: { ...process.env, CC: 'false', SESSIONFOLD_NATIVE_BUILD: '0' }, encoding: 'utf8' });
    expect([skipped.status, skipped.stderr]).toEqual([0, '']);
  });

  it('is not loaded when SESSIONFOLD_NATIVE=0', () => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', `import('${join(ROOT, 'dist/cursors/native.js')}').then((m) => process.stdout.write(String(m.nativeKernel() === undefined)))`], {
      env: { ...process.env, SESSIONFOLD_NATIVE: '0' },
      encoding: 'utf8',
    });
    expect(r.stdout).toBe('true');
  });
});

const kernel = nativeKernel();

/** The AVX2 loops where the CPU has them, and the plain C loops every other machine runs. */
const SIMD = kernel === undefined ? [] : [...new Set([kernel.simd(), false])];

describe.runIf(kernel !== undefined).each(SIMD)('native indexOf = Buffer#indexOf (AVX2 loops: %s)', (simd) => {
  const k = kernel as NonNullable<typeof kernel>;
  beforeAll(() => void k.simd(simd));
  afterAll(() => void k.simd(true));
  const alphabet = fc.constantFrom(...'"usage:{}\n ab'.split('').map((c) => c.charCodeAt(0)), 0xe4, 0x00);

  it('finds the same first start inside [from, to) (property)', () => {
    let found = 0;
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 300 }), fc.array(alphabet, { minLength: 1, maxLength: 12 }), fc.option(fc.nat(), { nil: undefined }), fc.nat(), fc.nat(), fc.nat({ max: 7 }), (h, random, sliceAt, a, b, pad) => {
        // half the needles are cut from the hay itself, so that most of those are found
        const at = sliceAt === undefined || h.length === 0 ? -1 : sliceAt % h.length;
        const n = at === -1 ? random : h.slice(at, at + random.length);
        // the hay sits at an offset inside a larger buffer, as a read chunk's lines do
        const big = Buffer.alloc(h.length + pad + 40, 0x22);
        const hay = big.subarray(pad, pad + h.length);
        hay.set(h);
        const needle = Buffer.from(n);
        const from = h.length === 0 ? 0 : a % (h.length + 1);
        const to = from + (h.length === 0 ? 0 : b % (h.length - from + 1));
        const want = indexOfJs(hay, needle, from, to);
        if (want !== -1) found++;
        expect(k.indexOf(hay, needle, from, to)).toBe(want);
      }),
      { numRuns: 3000, seed: 85 },
    );
    expect(found).toBeGreaterThan(250);
  });

  it('finds a marker at every position around the 16- and 32-byte blocks', () => {
    const marker = Buffer.from('"usage"');
    for (let len = 0; len < 100; len++) {
      for (let at = 0; at + marker.length <= len; at++) {
        const hay = Buffer.alloc(len, 'x');
        marker.copy(hay, at);
        expect(k.indexOf(hay, marker, 0, len)).toBe(at);
        expect(k.indexOf(hay, marker, at + 1, len)).toBe(-1);
        expect(k.indexOf(hay, marker, 0, at + marker.length - 1)).toBe(-1);
      }
    }
  });
});

// ---- the field walk ----

/** A random projection over the model's key names. */
const { projection } = fc.letrec<{ projection: FieldProjection }>((tie) => ({
  projection: fc.dictionary(key.filter((k) => k !== '__proto__'), fc.oneof({ weight: 3, arbitrary: fc.constant(true as const) }, { weight: 1, arbitrary: tie('projection') }), { maxKeys: 4 }),
}));

describe.runIf(kernel !== undefined).each(SIMD)('native field walk = the JavaScript walk (AVX2 loops: %s)', (simd) => {
  beforeAll(() => void kernel?.simd(simd));
  afterAll(() => void kernel?.simd(true));
  const claude = compileProjection({ ...USAGE_LINE_FIELDS, type: true });
  const codex = compileProjection(CODEX_USAGE_PROJECTION);

  it('locates the same fields for any projection, on valid and damaged lines (property)', () => {
    let answered = 0;
    fc.assert(
      fc.property(projection, fc.array(fc.tuple(key, anyValue), { maxLength: 6 }), style, fc.option(damage, { nil: undefined }), (p, entries, st, d) => {
        const compiled = compileProjection(p);
        const text = Buffer.from(serialize(obj(entries), st));
        const line = d === undefined ? text : applyDamage(text, d);
        const want = scanFieldsJs(line, compiled);
        if (want !== undefined) answered++;
        expect(scanFields(line, compiled)).toEqual(want);
        expect(scanFields(line, claude)).toEqual(scanFieldsJs(line, claude));
        expect(scanFields(line, codex)).toEqual(scanFieldsJs(line, codex));
      }),
      { numRuns: 2000, seed: 130 },
    );
    expect(answered).toBeGreaterThan(250);
  });

  it('checks every byte of strings of every length and alignment (the SIMD blocks and their tails)', () => {
    const p = compileProjection({ a: true, b: true });
    const special = ['"', '\\', '\u0001', '\u001f', 'é', '\u007f', '\\n', '\\"', '\\u00e9', '\\x'];
    for (let len = 0; len < 70; len++) {
      for (let at = 0; at <= len; at++) {
        for (const sp of special) {
          const s = `${'x'.repeat(at)}${sp}${'y'.repeat(len - at)}`;
          for (const shift of [0, 1, 3]) {
            const body = `{"a":"${s}","c":"${s}","b":1}`;
            const big = Buffer.from(' '.repeat(shift) + body);
            const line = big.subarray(shift);
            expect(scanFields(line, p), body).toEqual(scanFieldsJs(line, p));
          }
        }
      }
    }
  });

  it('refuses the same nesting depth', () => {
    const p = compileProjection({ a: true, z: true });
    for (const depth of [254, 255, 256, 257, 300]) {
      for (const open of ['[', '{"k":']) {
        const close = open === '[' ? ']' : '}';
        const line = Buffer.from(`{"z":${open.repeat(depth)}1${close.repeat(depth)},"a":2}`);
        expect(scanFields(line, p)).toEqual(scanFieldsJs(line, p));
      }
    }
  });

  it('takes the last of duplicate keys, and a collected object that comes again starts empty', () => {
    const p = compileProjection({ m: { a: true, b: true }, x: true });
    const cases: J[] = [
      obj([['m', obj([['a', 1], ['b', 2]])], ['m', obj([['a', 3]])]]),
      obj([['m', obj([['a', 1]])], ['m', 'text'], ['x', 1], ['x', obj([['m', 1]])]]),
      obj([['m', 'text'], ['m', obj([['b', 'v']])]]),
    ];
    for (const c of cases) {
      const line = Buffer.from(serialize(c, { spaces: [''], escapeKeys: new Set(), escapeValues: false, seed: [0] }));
      expect(scanFields(line, p)).toEqual(scanFieldsJs(line, p));
      expect(scanFields(line, p)).toEqual(JSON.parse(line.toString()));
    }
  });
});

describe('a cost report reads the same with and without the kernel', () => {
  it.runIf(kernel !== undefined)('over the real Claude and Codex fixtures, without the cache', () => {
    const args = [join(ROOT, 'dist/src/cli/main.cjs'), 'cost', 'report', '--json', '--no-cache', '--group-by', 'session', '--agent', 'claude,codex'];
    const env = { ...makeHistory({ real: true }).env, SESSIONFOLD_SOCKET: 'off' };
    const on = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    const off = spawnSync(process.execPath, args, { env: { ...env, SESSIONFOLD_NATIVE: '0' }, encoding: 'utf8' });
    expect(on.status).toBe(0);
    expect(off.status).toBe(0);
    const report = JSON.parse(on.stdout) as { runCount: number; totalUsd: number };
    expect(report.runCount).toBeGreaterThan(3);
    expect(report.totalUsd).toBeGreaterThan(0);
    expect(on.stdout).toBe(off.stdout);
  });
});

describe('limitMallocArenas', () => {
  it('caps glibc arenas where the kernel is built on glibc, and says so', () => {
    const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime !== undefined;
    expect(limitMallocArenas()).toBe(nativeKernel() !== undefined && glibc);
    if (nativeKernel() !== undefined) expect(() => nativeKernel()?.limitArenas(0)).toThrow(/limitArenas/);
  });
});

describe('hash64 (native/hash.c)', () => {
  it.runIf(nativeKernel() !== undefined)('gives xxhash-wasm’s XXH64 on any bytes, however they are split, and over file ranges', async () => {
    const { createHash64 } = await import('../cursors/ids.js');
    const { mkdtempSync, writeFileSync, openSync, closeSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const wasm = () => {
      process.env.SESSIONFOLD_NATIVE_HASH = '0';
      try {
        return createHash64();
      } finally {
        delete process.env.SESSIONFOLD_NATIVE_HASH;
      }
    };
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), fc.array(fc.nat({ max: 80 }), { maxLength: 20 }), (bytes, cuts) => {
        const a = createHash64();
        const b = wasm();
        let at = 0;
        for (const c of cuts) {
          const to = Math.min(bytes.length, at + c);
          a.update(bytes.subarray(at, to));
          at = to;
        }
        a.update(bytes.subarray(at));
        b.update(bytes);
        expect(a.digest()).toBe(b.digest());
      }),
      { numRuns: 400, seed: 5 },
    );
    const dir = mkdtempSync(join(tmpdir(), 'sf-hash-'));
    const file = join(dir, 'f');
    const body = Buffer.alloc(600_000 + 13, 7).fill('sessionfold\n', 0, 500_000);
    writeFileSync(file, body);
    const fd = openSync(file, 'r');
    try {
      for (const [from, to] of [[0, body.length], [0, 31], [5, 262_144 + 9], [1000, body.length + 500], [body.length, body.length]] as const) {
        const a = createHash64();
        const b = wasm();
        expect(a.updateFromFile(fd, from, to)).toBe(b.updateFromFile(fd, from, to));
        expect(a.digest()).toBe(b.digest());
        a.update(Buffer.from('appended'));
        b.update(Buffer.from('appended'));
        expect(a.digest()).toBe(b.digest()); // the state goes on after a digest
      }
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
    expect(() => createHash64().updateFromFile(-1, 0, 10)).toThrow(/errno 9/);
  });
});

describe.runIf(kernel !== undefined)('the kernel\'s handles', () => {
  it('are never taken for one another (type tags): a wrong kind is a TypeError, not memory read as another', () => {
    const k = kernel as NonNullable<typeof kernel>;
    const hash = k.hash64();
    const projection = compileProjection(USAGE_LINE_FIELDS, k).native?.handle as object;
    expect(projection).toBeDefined();
    const line = Buffer.from('{"a":1}');
    expect(() => k.scan(line, hash, new Int32Array(64))).toThrow(TypeError);
    expect(() => k.scanFiles(0, [], [], 1, 1, hash, new Int32Array(0))).toThrow(TypeError);
    expect(() => k.hash64Update(projection, line)).toThrow(TypeError);
    expect(() => k.hash64Digest({})).toThrow(TypeError);
    expect(k.scan(line, projection, new Int32Array(3 * 64))).toBe(true); // the right kind still works
  });
});
