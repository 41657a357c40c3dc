/**
 * The WebAssembly kernel's walking pass (native/wasm/exports.c `walk`, cursors/wasm.ts `walk`) and the codecs'
 * readers of its records (`LineCore.walk` / `lineWalked`) against the JSON.parse path:
 * - the splitter hands over the same lines, filtered counts and offsets with the walk as without it, and every
 *   walked line's fields, read back from its spans (`walkedValue`), are what the JavaScript walk gives
 *   (hence JSON.parse); on every Claude and Codex fixture, generated adversarial lines, and a fuzz run;
 * - a codec's core fed through the walk gives the same events and counts as its core reading every line
 *   with JSON.parse, on every fixture and on generated transcripts, in read chunks of several sizes.
 * The kernel is this test's own instance (the process may have the N-API addon loaded).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { mutator, rng } from './helpers/rng.js';
import { mergeFiltered } from './helpers/split-log.js';
import { jsonlFilesSync } from './helpers/files.js';
import { cut, inMemory, readCore } from './helpers/walk-read.js';
import { describe, expect, it } from 'vitest';
import { USAGE_LINE_FIELDS } from '../codecs/claude/usage.js';
import { TITLE_MARKER, USAGE_MARKER } from '../codecs/claude/schema.js';
import { createClaudeCore } from '../codecs/claude/parse.js';
import { CODEX_USAGE_PROJECTION } from '../codecs/codex/prefilter.js';
import { createCodexCore } from '../codecs/codex/parse.js';
import { count, meta } from './codex-helpers.js';
import { codexHeader, codexLine } from './helpers/codex-model.js';
import { compileProjection, scanFieldsJs, walkedFields, walkedIs, walkedObject, walkedValue, type CompiledProjection } from '../cursors/scan-fields.js';
import { LineSplitter } from '../cursors/line-splitter.js';
import type { LineCore, WalkedLine } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { instantiateWasmKernel, WASM_READ_BYTES, type WasmKernel } from '../cursors/wasm.js';
import { applyDamage, damage, type J, noLf, serialize, style, type Style, TRICKY } from './helpers/json-model.js';
import { claudeLine, CLAUDE_SID } from './helpers/claude-model.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REAL = fileURLToPath(new URL('../../shared/fixtures/real/', import.meta.url));

const w = instantiateWasmKernel() as WasmKernel;

const CLAUDE_FILES = [...jsonlFilesSync(join(REAL, 'claude')), ...jsonlFilesSync(join(ROOT, 'fixtures', 'claude'))];
const CODEX_FILES = [...jsonlFilesSync(join(REAL, 'codex')), ...jsonlFilesSync(join(ROOT, 'fixtures', 'codex'))];

const CLAUDE = compileProjection(USAGE_LINE_FIELDS, undefined, w);
const CODEX = compileProjection(CODEX_USAGE_PROJECTION, undefined, w);

/**
 * What the splitter hands over for `chunks` with the markers `sets` (taken in turn after each line), every
 * line logged with its fields: walked ones read back from their spans, the others by the JavaScript walk.
 */
function splitLog(chunks: readonly Buffer[], sets: readonly (readonly Buffer[])[], maxLine: number, p: CompiledProjection, walk: boolean): { log: unknown[]; walked: number } {
  const log: unknown[] = [];
  let k = 0;
  let walked = 0;
  const body = Buffer.concat(chunks);
  const splitter = new LineSplitter({
    startOffset: 0,
    maxLineBytes: maxLine,
    onLine: (line, start, next) => {
      log.push(['line', start, next, scanFieldsJs(line, p) ?? null]);
      k++;
    },
    onLongLine: (start, next, length) => log.push(['long', start, next, length]),
    onWalked: walk
      ? (wl, start, next) => {
          walked++;
          const fields = walkedFields(wl, p);
          // the walk took exactly the lines the JavaScript walk takes, with its fields
          expect(fields).toEqual(scanFieldsJs(w.bytes.subarray(wl.lineAt, wl.lineEnd), p));
          expectWalkedIs(wl, p);
          log.push(['line', start, next, fields]);
          k++;
        }
      : undefined,
    filter: {
      markers: () => sets[k % sets.length],
      onFiltered: () => log.push(['filtered', 1]),
      filteredLines: (n) => log.push(['filtered', n]),
      readAt: (b, position) => body.copy(b, 0, position, position + b.length),
      walk: () => (walk ? p : undefined),
    },
    wasm: walk ? w : undefined,
  });
  for (const c of chunks) {
    if (walk) inMemory(w, c, c.length % 16, (b) => splitter.push(b, c.length));
    else splitter.push(Buffer.from(c), c.length);
  }
  log.push(['end', splitter.lines, splitter.committed, splitter.pendingBytes]);
  return { log: mergeFiltered(log), walked };
}

/** Texts a walked value is compared with as bytes (`walkedIs`): the routing types and a near miss. */
const IS_TEXTS = ['event_msg', 'token_count', 'assistant', 'progress', 'event_ms', ''];

/** `walkedIs` answers as `walkedValue(…) === text` for every field of `p` (collected objects' own slots too). */
function expectWalkedIs(wl: WalkedLine, p: CompiledProjection): void {
  for (const f of p.fields) {
    if (f.sub !== undefined) expectWalkedIs(wl, f.sub);
    const v = walkedObject(wl, f.slot) ? undefined : walkedValue(wl, f.slot);
    // A text without U+FFFD (which an invalid byte decodes to): the line's own value, when it is one, and the routing types.
    for (const text of typeof v === 'string' && !v.includes('\ufffd') ? [v, ...IS_TEXTS] : IS_TEXTS) {
      expect(walkedIs(wl, f.slot, text, Buffer.from(text)), `${f.name} ${text}`).toBe(v === text);
    }
  }
}

function expectSameSplit(chunks: readonly Buffer[], sets: readonly (readonly Buffer[])[], maxLine: number, p: CompiledProjection): number {
  const want = splitLog(chunks, sets, maxLine, p, false);
  const got = splitLog(chunks, sets, maxLine, p, true);
  expect(got.log).toEqual(want.log);
  return got.walked;
}

const CODEX_MARKERS = [Buffer.from('"token_count"'), Buffer.from('"token_usage_record"')];

describe('the walking pass', () => {
  it('finds the fixtures', () => {
    expect(CLAUDE_FILES.length).toBeGreaterThan(5);
    expect(CODEX_FILES.length).toBeGreaterThan(3);
  });

  it('walks every marked line of every fixture to the JavaScript walk\'s fields, in chunks of 1 MiB, 64 KiB and 1000 bytes', () => {
    let walked = 0;
    for (const [files, p, sets] of [
      [CLAUDE_FILES, CLAUDE, [[USAGE_MARKER], [USAGE_MARKER, TITLE_MARKER]]],
      [CODEX_FILES, CODEX, [CODEX_MARKERS]],
      [[...CLAUDE_FILES, ...CODEX_FILES], CODEX, [[Buffer.from('"')]]],
    ] as const) {
      for (const file of files) {
        const body = readFileSync(file);
        for (const size of [WASM_READ_BYTES, 64 << 10, 1000]) walked += expectSameSplit(cut(body, size), sets, 1 << 20, p);
      }
    }
    expect(walked).toBeGreaterThan(1000);
  });

  it('takes more lines than one walk holds, and over-long lines among them', () => {
    const lines = Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? `{"message":{"usage":{"input_tokens":${i}}},"uuid":"u${i}"}` : i % 7 === 0 ? `{"usage":"${'x'.repeat(90)}"}` : `l${i}`));
    const body = Buffer.from(lines.join('\n') + '\n');
    expect(expectSameSplit(cut(body, WASM_READ_BYTES), [[USAGE_MARKER]], 80, CLAUDE)).toBe(1000);
  });

  it('reads adversarial lines (every whitespace style, escapes, numbers of every shape, damage) as the JavaScript walk does (property)', () => {
    let walked = 0;
    const lineBytes = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(claudeLine, style).map(([l, st]) => Buffer.from(serialize(l, { ...st, spaces: st.spaces.filter((x) => x !== '\n') }))) },
      { weight: 2, arbitrary: fc.tuple(claudeLine, style, damage).map(([l, st, d]) => noLf(applyDamage(Buffer.from(serialize(l, { ...st, spaces: st.spaces.filter((x) => x !== '\n') })), d))) },
      { weight: 1, arbitrary: fc.constantFrom(...TRICKY).map((t) => noLf(Buffer.from(t))) },
    );
    fc.assert(
      fc.property(fc.array(lineBytes, { minLength: 1, maxLength: 12 }), fc.integer({ min: 7, max: 5000 }), fc.constantFrom('\n', '\r\n'), (lines, size, eol) => {
        const body = Buffer.concat(lines.flatMap((l) => [l, Buffer.from(eol)]));
        walked += expectSameSplit(cut(body, size), [[USAGE_MARKER]], 1 << 20, CLAUDE);
        walked += expectSameSplit(cut(body, size), [[Buffer.from('"')]], 1 << 20, CODEX);
      }),
      { numRuns: 300, seed: 1616 },
    );
    expect(walked).toBeGreaterThan(300);
  });
});

describe('fuzz (fixed seed, bounded time)', () => {
  it('random and mutated fixture bytes through the walking pass give the JavaScript walk\'s lines and fields', () => {
    const next = rng(0x16e9);
    const pieces = [...TRICKY, '"usage":{"input_tokens":123456789012345}', '"message":{"id":"m","usage":{}}', '\\u0041', '1e5', '-0', '0.5', 'null', '}}]]', '{', '\r'].map((t) => Buffer.from(t));
    const lines = [...CLAUDE_FILES, ...CODEX_FILES].flatMap((f) => readFileSync(f).toString('latin1').split('\n').filter((l) => l.length > 0 && l.length < 20000)).map((l) => Buffer.from(l, 'latin1'));
    const mutate = mutator(next, pieces);
    const deadline = Date.now() + 3000;
    let runs = 0;
    let walked = 0;
    let walkedIn200 = 0;
    while (Date.now() < deadline || runs < 200) {
      const picked = Array.from({ length: 1 + (next() % 6) }, () => mutate(lines[next() % lines.length] as Buffer));
      const body = Buffer.concat(picked.flatMap((l) => [l, Buffer.from('\n')]));
      const size = 1 + (next() % (body.length + 1));
      const maxLine = next() % 3 === 0 ? next() % 2000 : 1 << 20;
      walked += expectSameSplit(cut(body, size), [[USAGE_MARKER]], maxLine, CLAUDE);
      walked += expectSameSplit(cut(body, size), [CODEX_MARKERS], maxLine, CODEX);
      runs++;
      if (runs === 200) walkedIn200 = walked;
    }
    expect(runs).toBeGreaterThanOrEqual(200);
    // how many runs fit in the time follows the machine's load (a loaded CI host makes only the 200), so the
    // floor is on the first 200, the same inputs on any host (the seed): 17 of their lines are walked
    expect(walkedIn200).toBeGreaterThan(10);
  });
});

/** `walking` through the walk and `parsing` by JSON.parse give the same events and counts for `body`; the lines walked. */
function expectSameCore<S>(walking: LineCore<S>, parsing: LineCore<S>, file: string, body: Buffer, size: number): { walked: number; events: SessionfoldEvent[] } {
  const got = readCore(walking, file, body, size, w);
  const want = readCore(parsing, file, body, size, undefined);
  expect(got.events).toEqual(want.events);
  expect(got.info).toEqual(want.info);
  return got;
}

/** Every fixture in read chunks of 1 MiB, 4 KiB and 61 bytes: the lines walked. */
function expectSameOnFixtures<S>(walking: LineCore<S>, parsing: LineCore<S>, files: readonly string[]): number {
  let walked = 0;
  for (const file of files) {
    const body = readFileSync(file);
    for (const size of [WASM_READ_BYTES, 4096, 61]) walked += expectSameCore(walking, parsing, file, body, size).walked;
  }
  return walked;
}

describe('the Claude core through the walk', () => {
  const walking = createClaudeCore();
  const parsing = createClaudeCore({ fastScan: false });

  it('gives the JSON.parse path\'s events and counts on every fixture, in read chunks of 1 MiB, 4 KiB and 61 bytes', () => {
    expect(expectSameOnFixtures(walking, parsing, CLAUDE_FILES)).toBeGreaterThan(80);
  });

  it('gives the JSON.parse path\'s events on generated adversarial transcripts (property)', () => {
    let walked = 0;
    let events = 0;
    const file = `/x/.claude/projects/-w/${CLAUDE_SID}.jsonl`;
    const first = Buffer.from(JSON.stringify({ type: 'user', sessionId: CLAUDE_SID, cwd: '/w', message: { role: 'user', content: 'hi' } }));
    fc.assert(
      fc.property(fc.array(fc.tuple(claudeLine, style), { minLength: 1, maxLength: 20 }), fc.integer({ min: 50, max: 4096 }), (lines, size) => {
        const body = Buffer.concat([first, ...lines.map(([l, st]) => Buffer.from(serialize(l, { ...st, spaces: st.spaces.filter((x) => x !== '\n') })))].flatMap((b) => [b, Buffer.from('\n')]));
        const got = expectSameCore(walking, parsing, file, body, size);
        walked += got.walked;
        events += got.events.length;
      }),
      { numRuns: 200, seed: 16 },
    );
    expect(walked).toBeGreaterThan(100);
    expect(events).toBeGreaterThan(200);
  });
});

describe('the Codex core through the walk', () => {
  const walking = createCodexCore();
  const parsing = createCodexCore({ fastScan: false });
  const FILE = '/h/.codex/sessions/2025/11/05/rollout-2025-11-05T12-00-00-0199a000-0000-7000-8000-000000000099.jsonl';

  it('gives the JSON.parse path\'s events and counts on every fixture, in read chunks of 1 MiB, 4 KiB and 61 bytes', () => {
    expect(expectSameOnFixtures(walking, parsing, CODEX_FILES)).toBeGreaterThan(60);
  });

  it('gives the JSON.parse path\'s events on generated adversarial rollouts (property)', () => {
    let walked = 0;
    let usage = 0;
    const header = Buffer.from(JSON.stringify(meta('0199a000-0000-7000-8000-000000000099', 0)));
    const fileLine: fc.Arbitrary<Buffer> = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(codexLine, style).map(([l, st]) => Buffer.from(serialize(l, { ...st, spaces: st.spaces.filter((x) => x !== '\n') }))) },
      { weight: 1, arbitrary: fc.tuple(codexLine, style, damage).map(([l, st, d]) => noLf(applyDamage(Buffer.from(serialize(l, { ...st, spaces: st.spaces.filter((x) => x !== '\n') })), d))) },
    );
    fc.assert(
      fc.property(fc.array(fileLine, { minLength: 1, maxLength: 14 }), fc.integer({ min: 50, max: 4096 }), (lines, size) => {
        const body = Buffer.concat([header, ...lines].flatMap((b) => [b, Buffer.from('\n')]));
        const got = expectSameCore(walking, parsing, FILE, body, size);
        walked += got.walked;
        usage += got.events.filter((e) => e.type === 'usage').length;
      }),
      { numRuns: 300, seed: 95 },
    );
    expect(walked).toBeGreaterThan(100);
    expect(usage).toBeGreaterThan(15);
  });

  // A later duplicate key that is not an object leaves the walk's slots under the earlier object set, where
  // JSON.parse keeps only the later value: the walked path must check that payload and info are objects.
  it('counts nothing of a token_count payload or info object that a later non-object duplicate overrides (every line walked)', () => {
    const tok = (input: number, output: number) => ({ input_tokens: input, cached_input_tokens: 0, output_tokens: output, reasoning_output_tokens: 0, total_tokens: input + output });
    const line = (o: Record<string, unknown>) => JSON.stringify(o);
    const lines = [
      line(meta('0199a000-0000-7000-8000-000000000099', 0)),
      line(count(10, tok(100, 10))),
      line(count(20, tok(5000, 500))).replace(/}$/, ',"payload":"x"}'),
      line(count(30, tok(7000, 700))).replace(/}}$/, ',"info":null}}'),
      line(count(40, tok(300, 30))),
    ];
    // Each decoy holds the counters, and JSON.parse keeps the later value.
    expect(JSON.parse(lines[2] as string).payload).toBe('x');
    expect(JSON.parse(lines[3] as string).payload).toEqual({ type: 'token_count', info: null });
    expect(lines.filter((l) => l.includes('"total_token_usage":{"input_tokens"'))).toHaveLength(4);
    const body = Buffer.from(`${lines.join('\n')}\n`);
    for (const size of [WASM_READ_BYTES, 4096]) {
      const got = expectSameCore(walking, parsing, FILE, body, size);
      expect(got.walked).toBe(4);
      const usage = got.events.filter((e) => e.type === 'usage');
      expect(usage.map((e) => [e.inputTokens, e.outputTokens])).toEqual([
        [100, 10],
        [200, 20],
      ]);
    }
  });

  // A walked token_count line is read from its slots (parse.ts `onWalkedTokenCount`), where the inherited
  // rules need the header's fields: a copied history's start ordinal, a fork's birth time; and adversarial headers.
  it('gives the JSON.parse path\'s events on generated rollouts of forks and copied histories (property)', () => {
    let walked = 0;
    let usage = 0;
    let heldBack = 0;
    const plainHeader = Buffer.from(JSON.stringify(meta('0199a000-0000-7000-8000-000000000099', 0)));
    const entries = (v: J): [string, J][] => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v.entries : []);
    const isOwnerHeader = (h: J): boolean => entries(h).some(([k, v]) => k === 'type' && v === 'session_meta') && entries(h).some(([k, v]) => k === 'payload' && entries(v).length > 0);
    const flat = (st: Style): Style => ({ ...st, spaces: st.spaces.filter((x) => x !== '\n') });
    const header = fc.oneof(
      fc.record({ second: fc.integer({ min: 0, max: 3600 }), start: fc.option(fc.nat({ max: 40 })), forked: fc.boolean() }).map(({ second, start, forked }) =>
        Buffer.from(JSON.stringify(meta('0199a000-0000-7000-8000-000000000099', second, { ...(start !== null && { subagent_history_start_ordinal: start }), ...(forked && { forked_from_id: '0199a000-0000-7000-8000-000000000002' }) }))),
      ),
      fc.tuple(codexHeader.filter(isOwnerHeader), style).map(([h, st]) => Buffer.from(serialize(h, flat(st)))),
    );
    // Mostly as Codex writes them (so most token_count lines are walked), some in any style.
    const plain = fc.constant<Style>({ spaces: [''], escapeKeys: new Set(), escapeValues: false, seed: [0] });
    const adversarial = fc.tuple(codexLine, fc.oneof({ weight: 4, arbitrary: plain }, { weight: 1, arbitrary: style })).map(([l, st]) => Buffer.from(serialize(l, flat(st))));
    // Sane cumulative counters (mostly growing) with an ordinal, so most lines count unless inherited.
    // The cached count under either name, or a null cached_input_tokens beside cache_read_input_tokens (readTok's `??`).
    const cachedAs = fc.constantFrom<(n: number) => Record<string, number | null>>((n) => ({ cached_input_tokens: n }), (n) => ({ cache_read_input_tokens: n }), (n) => ({ cached_input_tokens: null, cache_read_input_tokens: n }));
    const tok = fc
      .record({ input: fc.nat({ max: 9000 }), cached: fc.nat({ max: 3000 }), as: cachedAs, output: fc.nat({ max: 2000 }), reasoning: fc.nat({ max: 500 }) })
      .map(({ input, cached, as, output, reasoning }) => ({ input_tokens: input, ...as(cached), output_tokens: output, reasoning_output_tokens: reasoning }) as Record<string, number>);
    const counter = fc.record({ second: fc.integer({ min: 0, max: 3600 }), ordinal: fc.nat({ max: 40 }), total: tok, last: fc.option(tok) }).map(({ second, ordinal, total, last }) => {
      const c = count(second, total, last ?? undefined);
      return Buffer.from(JSON.stringify({ ...c, ordinal }));
    });
    const line = fc.oneof({ weight: 3, arbitrary: counter }, { weight: 1, arbitrary: adversarial });
    fc.assert(
      fc.property(header, fc.array(line, { minLength: 1, maxLength: 14 }), fc.integer({ min: 50, max: 8192 }), (head, lines, size) => {
        const body = Buffer.concat([head, ...lines].flatMap((b) => [b, Buffer.from('\n')]));
        const got = expectSameCore(walking, parsing, FILE, body, size);
        walked += got.walked;
        const counted = got.events.filter((e) => e.type === 'usage').length;
        usage += counted;
        // Runs where the header's rules held usage back: fewer events than after a plain header.
        const unforked = Buffer.concat([plainHeader, ...lines].flatMap((b) => [b, Buffer.from('\n')]));
        if (counted < readCore(parsing, FILE, unforked, size, undefined).events.filter((e) => e.type === 'usage').length) heldBack++;
      }),
      { numRuns: 300, seed: 61 },
    );
    expect(walked).toBeGreaterThan(600);
    expect(usage).toBeGreaterThan(400);
    expect(heldBack).toBeGreaterThan(80);
  });

  // The walked turn_context lines are read through `onRecord` with the projection's `turn_id`, the token_count
  // lines from their slots: a fork's copied turns are marked copied on both paths, its own turns are not.
  it('marks a fork\'s copied turns copied and its own turns after them not, as the JSON.parse path does (every line walked)', () => {
    const tok = (input: number, output: number) => ({ input_tokens: input, cached_input_tokens: 0, output_tokens: output, reasoning_output_tokens: 0, total_tokens: input + output });
    const copy = (o: Record<string, unknown>) => JSON.stringify({ ...o, timestamp: '2025-11-05T12:00:21.000Z' });
    const turn = (turnId: string) => ({ timestamp: '2025-11-05T12:00:22.000Z', type: 'turn_context', payload: { cwd: '/w', model: 'gpt-5', turn_id: turnId } });
    const lines = [
      JSON.stringify(meta('0199a000-0000-7000-8000-000000000099', 20)),
      JSON.stringify(count(20, tok(50, 5), tok(50, 5))),
      copy(meta('0199a000-0000-7000-8000-000000000002', 0)),
      copy(turn('01999fff-ffff-7fff-bfff-000000000001')),
      copy(count(1, tok(100, 10), tok(100, 10))),
      copy(count(2, tok(300, 30), tok(200, 20))),
      JSON.stringify(turn('0199a000-0001-7000-8000-000000000002')),
      JSON.stringify(count(22, tok(400, 40), tok(100, 10))),
    ];
    const body = Buffer.from(`${lines.join('\n')}\n`);
    for (const size of [WASM_READ_BYTES, 4096]) {
      const got = expectSameCore(walking, parsing, FILE, body, size);
      expect(got.walked).toBe(7);
      const usage = got.events.filter((e) => e.type === 'usage');
      expect(usage.map((e) => [e.outputTokens, e.copied])).toEqual([
        [5, undefined],
        [10, true],
        [20, true],
        [10, undefined],
      ]);
    }
  });
});
