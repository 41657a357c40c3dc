/**
 * The native usage engines (native/claude.c, native/codex.c, behind `Codec.scanUsage`) against the JavaScript
 * codecs they stand in for. For every file — the real and checked-in fixtures, a generated history, and
 * adversarial generated transcripts (helpers/claude-model.ts, helpers/codex-model.ts: odd keys, values and
 * numbers, damaged lines, interleaved responses, counter resets, copied headers) — an engine either leaves the
 * file to `read()` (`false`) or gives exactly what `read(file, { kinds: ['session', 'usage'], titles: false })` (the cost scan's read) gives: the
 * same usage events in the same order, the cwd of the first session event, and the same counts. The reference
 * read runs with the JavaScript line splitter (SESSIONFOLD_NATIVE_LINES=0), so no native code is on both sides.
 * The engines only read: bytes and mtimes stay as they were.
 */
import { isAscii } from 'node:buffer';
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claude } from '../codecs/claude/index.js';
import { codex } from '../codecs/codex/index.js';
import type { Codec, ReadInfo, UsageBlock, UsageScanResult } from '../cursors/protocol/codec.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { SessionEvent, UsageEvent } from '../cursors/protocol/events.js';
import { nativeKernel } from '../cursors/native.js';
import { ABSENT, blockValue, JSON_TEXT, PLAIN as PLAIN_TEXT, TIME } from '../cursors/native-engine.js';
import { eventTime } from '../src/cost/filter.js';
import { hashKey } from '../src/key-table.js';
import { blankBlockRecord, KEY_HI, KEY_LO, KEY_OF, TIME_MS, TIME_OF, type FoldHints } from '../src/scan/types.js';
import { CLAUDE_SID, claudeLine } from './helpers/claude-model.js';
import { codexLine } from './helpers/codex-model.js';
import { applyDamage, damage, noLf, PLAIN, serialize, style } from './helpers/json-model.js';
import { count, LOCAL_FIXTURES, meta, record, REAL_DIR, REAL_FIXTURES, ts, tu, turn } from './codex-helpers.js';
import { jsonlFiles } from './helpers/files.js';

const REAL_CLAUDE = fileURLToPath(new URL('../../shared/fixtures/real/claude/', import.meta.url));
const LOCAL_CLAUDE = fileURLToPath(new URL('../fixtures/claude/projects/', import.meta.url));
const PROGRESS_CLAUDE = fileURLToPath(new URL('../fixtures/claude/progress/projects/-Users-dev-progress/', import.meta.url));
const CODEX_ID = '0199a000-0000-7000-8000-000000000099';
/** Turn ids minted before and after CODEX_ID (UUIDv7), and ids that are not a lowercase UUIDv7. */
const TURN_BEFORE = '01999fff-ffff-7fff-bfff-000000000001';
const TURN_AFTER = '0199a000-0001-7000-8000-000000000002';
const TURN_IDS = [undefined, TURN_BEFORE, TURN_AFTER, TURN_BEFORE.toUpperCase(), '01999fff-ffff-4fff-bfff-000000000001', 'turn-1'] as const;

interface Reference {
  usage: UsageEvent[];
  cwd: string | undefined;
  info: ReadInfo;
}

/** The cost scan's `read()` (kinds session and usage, no titles), through the JavaScript line splitter. */
async function reference(codec: Codec, file: string): Promise<Reference> {
  const info = newReadInfo();
  const usage: UsageEvent[] = [];
  let cwd: string | undefined;
  let cwdSeen = false;
  const was = process.env.SESSIONFOLD_NATIVE_LINES;
  process.env.SESSIONFOLD_NATIVE_LINES = '0';
  try {
    for await (const e of codec.read(file, { kinds: ['session', 'usage'], titles: false, info })) {
      if (e.type === 'usage') usage.push(e);
      else if (e.type === 'session' && !cwdSeen && typeof (e as SessionEvent).cwd === 'string') {
        cwd = (e as SessionEvent).cwd;
        cwdSeen = true;
      }
    }
  } finally {
    if (was === undefined) delete process.env.SESSIONFOLD_NATIVE_LINES;
    else process.env.SESSIONFOLD_NATIVE_LINES = was;
  }
  return { usage, cwd, info };
}

async function engine(codec: Codec, file: string): Promise<UsageScanResult | false | undefined> {
  const r = await codec.scanUsage?.([file]);
  return r?.[0];
}

/** An engine's event without its fold hints (src/scan/types.ts FoldHints), as read() gives it. */
function withoutHints(e: UsageEvent): UsageEvent {
  const { [KEY_HI]: _hi, [KEY_LO]: _lo, [KEY_OF]: _k, [TIME_MS]: _t, [TIME_OF]: _ts, ...rest } = e as UsageEvent & FoldHints;
  return rest as UsageEvent;
}

/**
 * Every event carries the hints, each what the fold would compute (hashKey of its dedupKey, eventTime of its
 * time) or NaN (left to the fold): a key on ids and a canonical time always get them.
 */
function expectHints(events: readonly UsageEvent[]): void {
  for (const e of events) {
    const h = e as UsageEvent & FoldHints;
    expect(typeof h[KEY_HI] === 'number' && typeof h[KEY_LO] === 'number' && typeof h[TIME_MS] === 'number').toBe(true);
    expect([h[KEY_OF], h[TIME_OF]]).toEqual([e.dedupKey, e.timestamp]);
    const onIds = !e.dedupKey.startsWith('claude:line:');
    if (onIds) expect([h[KEY_HI], h[KEY_LO]]).toEqual(hashKey(e.dedupKey));
    else expect(h[KEY_HI]).toBeNaN();
    const t = eventTime(e.timestamp);
    if (Number.isNaN(h[TIME_MS])) expect(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/.test(e.timestamp) && t > 0 && Number(e.timestamp.slice(0, 4)) >= 100).toBe(false);
    else expect(h[TIME_MS]).toBe(t);
  }
}

/** Every own key and value of `x` (symbols too), but a record's `file` and `cwd`. */
function fields(x: object): Map<PropertyKey, unknown> {
  return new Map(Reflect.ownKeys(x).filter((k) => k !== 'file' && k !== 'cwd').map((k) => [k, (x as Record<PropertyKey, unknown>)[k]]));
}

/**
 * The engine's block decoded onto one object, event after event (as the cost fold decodes it), is each event as
 * `events` has it, hints and absent fields included: nothing of the event before stays.
 */
function expectBlockDecodes(got: UsageScanResult): void {
  const block = got.block as UsageBlock;
  expect(block.count).toBe(got.events.length);
  const onto = blankBlockRecord();
  got.events.forEach((e, k) => {
    expect(block.decode(k, onto)).toBe(onto);
    expect(fields(onto)).toStrictEqual(fields(e));
  });
}

/** Usage events the engines answered with in expectSame (what a test checks the engine itself on). */
let engineEvents = 0;

/** The engine's answer for `file` equals the reference read's; true when it answered (not `false`). */
async function expectSame(codec: Codec, file: string): Promise<boolean> {
  const before = await stat(file);
  const bytes = await readFile(file);
  const got = await engine(codec, file);
  const want = await reference(codec, file);
  const after = await stat(file);
  expect(after.mtimeMs).toBe(before.mtimeMs);
  expect((await readFile(file)).equals(bytes)).toBe(true);
  expect(got).not.toBeUndefined();
  if (got === false || got === undefined) return false;
  expect(got.events.map(withoutHints)).toEqual(want.usage);
  expectHints(got.events);
  expectBlockDecodes(got);
  expect(got.cwd).toBe(want.cwd);
  const { lines, bytes: read, bytesCommitted, skippedLines, filteredLines } = want.info;
  expect({ lines: got.info.lines, bytes: got.info.bytes, bytesCommitted: got.info.bytesCommitted, skippedLines: got.info.skippedLines, filteredLines: got.info.filteredLines }).toEqual({
    lines,
    bytes: read,
    bytesCommitted,
    skippedLines,
    filteredLines,
  });
  expect(got.info.events).toBe(want.usage.length);
  engineEvents += got.events.length;
  return true;
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sf-engines-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

let serial = 0;
/** A transcript at a path whose name is its session id (the engine answers only for those). */
async function claudeFile(content: string | Buffer): Promise<string> {
  const file = join(tmp, `c${serial++}`, 'projects', '-w', `${CLAUDE_SID}.jsonl`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

async function codexFile(content: string | Buffer): Promise<string> {
  const file = join(tmp, `x${serial++}`, 'sessions', '2025', '11', '05', `rollout-2025-11-05T12-00-00-${CODEX_ID}.jsonl`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

const describeNative = nativeKernel() === undefined ? describe.skip : describe;

describeNative('native engines: the same usage as read() on the fixtures', () => {
  it('Claude: every real and checked-in transcript', async () => {
    const files = [...(await jsonlFiles(REAL_CLAUDE)), ...(await jsonlFiles(LOCAL_CLAUDE))];
    let answered = 0;
    const before = engineEvents;
    for (const f of files) {
      // A name that is not a session id leaves the file to read(): its bytes are read again under one.
      const named = (await engine(claude, f)) === undefined ? await claudeFile(await readFile(f)) : f;
      if (await expectSame(claude, named)) answered++;
    }
    expect(files.length).toBeGreaterThan(5);
    expect(answered).toBeGreaterThanOrEqual(10);
    expect(engineEvents - before).toBeGreaterThan(40); // the engine's own events, real files' included
  });

  it('Claude: leaves a parent holding agent_progress usage to read(), and answers for its subagent', async () => {
    // Only read() counts a progress line's copy of a subagent response (codecs/claude/README.md).
    const parent = join(PROGRESS_CLAUDE, 'aaaaaaaa-1111-4222-8333-444444444444.jsonl');
    expect(await engine(claude, parent)).toBe(false);
    expect(await expectSame(claude, join(PROGRESS_CLAUDE, 'aaaaaaaa-1111-4222-8333-444444444444', 'subagents', 'agent-a1b2c3d4e5f6a7b8c.jsonl'))).toBe(true);
  });

  it('Codex: every real and checked-in rollout', async () => {
    const files = [...REAL_FIXTURES.map((n) => `${REAL_DIR}${n}.jsonl`), ...LOCAL_FIXTURES];
    const left: string[] = [];
    for (const f of files) if (!(await expectSame(codex, f))) left.push(f.slice(f.lastIndexOf('/') + 1));
    // Left to read(): a fork and a subagent (their inherited lines are found by date), and a sanitized
    // rollout whose timestamps read "[trimmed for fixture]" (only Date.parse can say it is no date).
    expect(left.sort()).toEqual(['agent-sessions-v0.146-sanitized.jsonl', 'rollout-2025-10-02T10-00-00-01999f37-0000-7b00-8000-00000000000b.jsonl', 'rollout-2026-01-15T10-30-00-019bc0fd-89c0-7c00-8000-00000000000c.jsonl']);
  });
});

describeNative('native engines: adversarial transcripts (property)', () => {
  const opening = JSON.stringify({ type: 'user', cwd: '/w', sessionId: CLAUDE_SID, uuid: 'u0', message: { role: 'user', content: 'go' } });
  const noNl = <T extends { spaces: string[] }>(st: T): T => ({ ...st, spaces: st.spaces.filter((x) => x !== '\n') });

  it('Claude: generated lines, damaged lines, titles; any opening', async () => {
    const title = fc.constantFrom(JSON.stringify({ type: 'custom-title', customTitle: 'T', sessionId: CLAUDE_SID }), '{"type" : "ai-title","aiTitle":"A usage title"}');
    const fileLine: fc.Arbitrary<Buffer> = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(claudeLine, style).map(([l, st]) => Buffer.from(serialize(l, noNl(st)))) },
      { weight: 2, arbitrary: fc.tuple(claudeLine, style, damage).map(([l, st, d]) => noLf(applyDamage(Buffer.from(serialize(l, noNl(st))), d))) },
      { weight: 1, arbitrary: title.map((t) => Buffer.from(t)) },
      { weight: 1, arbitrary: fc.constantFrom(Buffer.from(''), Buffer.from('\r'), Buffer.from('[1,2]'), Buffer.from('{"project":"/legacy","sessionId":"x"}')) },
    );
    const opened = fc.constantFrom<(Buffer | string)[]>([opening], [], ['{"type":"queue-operation","sessionId":"s"}', opening], ['{"cwd":'], [`{"sessionId":"${CLAUDE_SID}","message":{}}`]);
    let answered = 0;
    const before = engineEvents;
    await fc.assert(
      fc.asyncProperty(opened, fc.array(fileLine, { minLength: 1, maxLength: 12 }), fc.boolean(), async (head, ls, lastLf) => {
        const parts = [...head, ...ls].map((l) => Buffer.from(l));
        let content = Buffer.concat(parts.flatMap((l) => [l, Buffer.from('\n')]));
        if (!lastLf) content = content.subarray(0, content.length - 1);
        const file = await claudeFile(content);
        if (await expectSame(claude, file)) answered++;
      }),
      { numRuns: 200, seed: 7 },
    );
    // Most files hold a line only JSON.parse can read (escaped keys, fractions): those are left to read().
    expect(answered).toBeGreaterThan(20);
    expect(engineEvents - before).toBeGreaterThan(0); // few: a random usage line rarely has nothing JSON.parse alone reads; the plain test and the rules tests below carry the usage
  });

  it('Claude: generated lines written plainly (as Claude Code writes them) are read by the engine', async () => {
    const plainLine = fc.tuple(claudeLine, fc.array(fc.nat(), { minLength: 1, maxLength: 4 })).map(([l, seed]) => serialize(l, { ...PLAIN, seed }));
    let answered = 0;
    const before = engineEvents;
    await fc.assert(
      fc.asyncProperty(fc.array(plainLine, { minLength: 1, maxLength: 10 }), async (ls) => {
        const file = await claudeFile([opening, ...ls].join('\n') + '\n');
        if (await expectSame(claude, file)) answered++;
      }),
      { numRuns: 150, seed: 7 },
    );
    // Random fractions and negative counts (refused lines: cursors/sane.ts), and keys or values escaped where
    // the model's text has them, leave most files to read().
    expect(answered).toBeGreaterThan(15); // 22 with this seed
    expect(engineEvents - before).toBeGreaterThan(15);
  });

  it('Claude: responses interleaved, repeated, growing, without ids (the open-response rules)', async () => {
    const assistant = fc.record({ m: fc.integer({ min: 0, max: 11 }), r: fc.integer({ min: 0, max: 2 }), out: fc.integer({ min: 0, max: 4 }), input: fc.integer({ min: 0, max: 3 }), ids: fc.integer({ min: 0, max: 9 }) }).map(({ m, r, out, input, ids }) =>
      JSON.stringify({
        type: 'assistant',
        sessionId: CLAUDE_SID,
        uuid: `u-${m}-${out}`,
        timestamp: ts(m),
        // ids 0: neither id; 1: requestId only; 3, 6, 9: message id only; else both (copies of one response differ).
        ...(ids % 3 !== 0 && { requestId: `req_${r}` }),
        message: { ...(ids > 1 && { id: `msg_${m}` }), model: m === 7 ? '<synthetic>' : 'claude-opus-4-1-20250805', content: [], usage: { input_tokens: input, output_tokens: out, cache_read_input_tokens: m } },
      }),
    );
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(assistant, { minLength: 1, maxLength: 40 }), async (ls) => {
        const file = await claudeFile([opening, ...ls].join('\n') + '\n');
        if (await expectSame(claude, file)) answered++;
      }),
      { numRuns: 150 },
    );
    expect(answered).toBe(150);
  });

  const header = JSON.stringify(meta(CODEX_ID, 0));
  it('Claude: lines copied from another session (resumed, branched) are marked copied in both engines', async () => {
    const line = (id: string, fields: object) =>
      JSON.stringify({ type: 'assistant', ...fields, timestamp: ts(1), message: { id, model: 'claude-opus-4-1-20250805', content: [], usage: { input_tokens: 1, output_tokens: 2 } } });
    const origin = '11111111-2222-4333-8444-555555555555';
    const lines = [
      opening,
      line('msg_resumed', { sessionId: origin }),
      line('msg_branched', { sessionId: CLAUDE_SID, forkedFrom: { sessionId: origin, messageUuid: 'u-1' } }),
      line('msg_own', { sessionId: CLAUDE_SID }),
      line('msg_stamped_own', { sessionId: CLAUDE_SID, forkedFrom: { sessionId: CLAUDE_SID } }),
      line('msg_no_session', {}),
    ];
    const file = await claudeFile(lines.join('\n') + '\n');
    expect(await expectSame(claude, file)).toBe(true);
    const got = await engine(claude, file);
    expect(got && got.events.map((e) => [e.messageId, e.copied])).toEqual([
      ['msg_resumed', true],
      ['msg_branched', true],
      ['msg_own', undefined],
      ['msg_stamped_own', undefined],
      ['msg_no_session', undefined],
    ]);
    // An escaped session id is compared decoded: the engine leaves the file to read().
    const escaped = await claudeFile([opening, line('msg_e', { sessionId: origin }).replace(origin, `\\u0031${origin.slice(1)}`)].join('\n') + '\n');
    expect(await engine(claude, escaped)).toBe(false);
    // A subagent's transcript names its parent's session in every line: none of them is a copy.
    const sub = join(dirname(file), CLAUDE_SID, 'subagents', 'agent-a1.jsonl');
    await mkdir(dirname(sub), { recursive: true });
    await writeFile(sub, lines.join('\n') + '\n');
    expect((await reference(claude, sub)).usage.map((e) => e.copied)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('Claude: a response copied with and without requestId is one event in both engines', async () => {
    const line = (req: string | undefined, out: number) =>
      JSON.stringify({ type: 'assistant', sessionId: CLAUDE_SID, timestamp: ts(1), ...(req !== undefined && { requestId: req }), message: { id: 'msg_copy', model: 'claude-opus-4-1-20250805', content: [], usage: { input_tokens: 1, output_tokens: out } } });
    const file = await claudeFile([opening, line(undefined, 3), line('req_copy', 40), line(undefined, 40)].join('\n') + '\n');
    expect(await expectSame(claude, file)).toBe(true);
    const got = await engine(claude, file);
    expect(got && got.events.map((e) => [e.dedupKey, e.outputTokens])).toEqual([['claude:msg_copy', 40]]);
  });

  it('Codex: generated lines after a header, damaged lines', async () => {
    const fileLine: fc.Arbitrary<Buffer> = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(codexLine, style).map(([l, st]) => Buffer.from(serialize(l, noNl(st)))) },
      { weight: 1, arbitrary: fc.tuple(codexLine, style, damage).map(([l, st, d]) => noLf(applyDamage(Buffer.from(serialize(l, noNl(st))), d))) },
    );
    const heads = fc.constantFrom<string[]>(
      [header],
      [JSON.stringify(meta(CODEX_ID, 0, { subagent_history_start_ordinal: 3 }))],
      [JSON.stringify({ id: CODEX_ID, timestamp: ts(0), instructions: '' })],
      ['{"broken', header],
      [JSON.stringify(turn(0, 'gpt-5'))],
      [JSON.stringify(meta(CODEX_ID, 0, { source: 'exec', model_provider: 'azure', cwd: '/héllo' }))],
      [JSON.stringify(meta(CODEX_ID, 0, { cwd: 'C:\\Users\\me "q"' }))],
    );
    let answered = 0;
    const before = engineEvents;
    await fc.assert(
      fc.asyncProperty(heads, fc.array(fileLine, { minLength: 1, maxLength: 14 }), async (head, ls) => {
        const file = await codexFile(Buffer.concat([...head.map((h) => Buffer.from(h)), ...ls].flatMap((l) => [l, Buffer.from('\n')])));
        if (await expectSame(codex, file)) answered++;
      }),
      { numRuns: 200, seed: 7 },
    );
    expect(answered).toBeGreaterThan(60);
    expect(engineEvents - before).toBeGreaterThan(0); // the rules on usage are held by the counters test below
  });

  it('Codex: counters that grow, reset and repeat; records that replace counts; copied headers', async () => {
    const row = fc.oneof(
      { weight: 5, arbitrary: fc.tuple(fc.nat({ max: 59 }), fc.nat({ max: 6 }), fc.nat({ max: 3 }), fc.boolean()).map(([s, t, l, hasLast]) => count(s, tu(t * 100, t * 10, t * 7, t), hasLast ? tu(l * 100, l * 10, l * 7, l) : undefined)) },
      { weight: 2, arbitrary: fc.tuple(fc.nat({ max: 59 }), fc.nat({ max: 3 }), fc.nat({ max: 3 })).map(([s, r, l]) => record(s, r === 0 ? undefined : `resp_${r}`, tu(l * 100, l * 10, l * 7, l), r === 3 ? { thread_id: 'other' } : {})) },
      // a turn minted before the owner (copied when under another thread's region), after it, or not a UUIDv7 one
      { weight: 2, arbitrary: fc.tuple(fc.nat({ max: 59 }), fc.constantFrom('gpt-5', 'gpt-5-codex', 'o3'), fc.constantFrom(...TURN_IDS)).map(([s, m, t]) => turn(s, m, { model_provider: 'openai', ...(t !== undefined && { turn_id: t }) })) },
      { weight: 1, arbitrary: fc.tuple(fc.nat({ max: 59 }), fc.constantFrom(CODEX_ID, 'parent-1')).map(([s, id]) => meta(id, s)) },
      // a copied parent's header and the turn after it, as a fork copies them
      { weight: 1, arbitrary: fc.tuple(fc.nat({ max: 59 }), fc.constantFrom(TURN_BEFORE, TURN_AFTER)).map(([s, t]) => [meta('parent-1', s), turn(s, 'gpt-5', { turn_id: t })]) },
      { weight: 1, arbitrary: fc.nat({ max: 59 }).map((s) => count(s, undefined, tu(5, 1, 2, 0))) },
      { weight: 1, arbitrary: fc.nat({ max: 59 }).map((s) => ({ type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: tu(s, 0, s, 0) } } })) },
      // an older Codex's row after a context-window error: every counter 0 but total_tokens
      { weight: 1, arbitrary: fc.nat({ max: 59 }).map((s) => count(s, { ...tu(0, 0, 0, 0), total_tokens: 272_000 }, { ...tu(0, 0, 0, 0), total_tokens: 272_000 })) },
    );
    let answered = 0;
    const copied = [0, 0];
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 30 }), async (rows) => {
        const file = await codexFile([header, ...rows.flat().map((r) => JSON.stringify(r))].join('\n') + '\n');
        if (await expectSame(codex, file)) answered++;
        // expectSame held the engine's `copied` to read()'s: both marks, copied and own, must come up.
        for (const e of (await reference(codex, file)).usage) copied[e.copied === true ? 1 : 0]!++;
      }),
      { numRuns: 150, seed: 7 },
    );
    expect(answered).toBe(150);
    expect(copied, "copied and own usage events").toSatisfy((c: number[]) => c.every((n) => n > 20));
  });

  it('Codex: a fork\'s copied turns (minted before it) are marked copied, its own turns after them are not, as read() marks them', async () => {
    // The fork names no parent, so the engine reads it; its copies carry the write time, as older forks wrote them.
    const copy = (r: Record<string, unknown>) => JSON.stringify({ ...r, timestamp: ts(21) });
    const rows = [
      JSON.stringify(meta(CODEX_ID, 20)),
      JSON.stringify(count(20, tu(50, 0, 5, 0), tu(50, 0, 5, 0))),
      copy(meta('parent-1', 0)),
      copy(turn(1, 'gpt-5', { turn_id: TURN_BEFORE })),
      copy(count(2, tu(100, 10, 7, 1), tu(100, 10, 7, 1))),
      copy(record(3, 'resp_p', tu(40, 0, 4, 0), { thread_id: 'parent-1' })),
      JSON.stringify(turn(22, 'gpt-5', { turn_id: TURN_AFTER })),
      JSON.stringify(record(22, 'resp_own', tu(30, 0, 3, 0), { thread_id: CODEX_ID })),
    ];
    const file = await codexFile(rows.join('\n') + '\n');
    expect(await expectSame(codex, file)).toBe(true);
    const got = await engine(codex, file);
    expect(got && got.events.map((e) => [e.outputTokens, e.copied])).toEqual([
      [5, undefined],
      [7, true],
      [4, true],
      [3, undefined],
    ]);
  });
});

describeNative('native engines: what they leave to read()', () => {
  it('leaves Codex forks and subagents, non-canonical times and escaped ids to read(), and reads clean ones', async () => {
    const body = [JSON.stringify(turn(1, 'gpt-5')), JSON.stringify(count(2, tu(100, 10, 7, 1)))];
    const cases: [string, boolean][] = [
      [JSON.stringify(meta(CODEX_ID, 0)), true],
      [JSON.stringify(meta(CODEX_ID, 0, { forked_from_id: 'p' })), false],
      [JSON.stringify(meta(CODEX_ID, 0, { source: { subagent: { thread_spawn: { parent_thread_id: 'p' } } } })), false],
      [JSON.stringify(meta(CODEX_ID, 0, { source: 'subagent' })), false],
      [JSON.stringify(meta(CODEX_ID, 0, { history_base: { end_ordinal_exclusive: 2 } })), false],
      [JSON.stringify({ ...meta(CODEX_ID, 0), timestamp: 'Nov 5, 2025' }), false],
      [JSON.stringify(meta(CODEX_ID, 0)).replace(`"id":"${CODEX_ID}"`, `"id":"\\u0030${CODEX_ID.slice(1)}"`), false],
    ];
    for (const [head, answers] of cases) {
      const file = await codexFile([head, ...body].join('\n') + '\n');
      expect((await engine(codex, file)) !== false).toBe(answers);
      await expectSame(codex, file);
    }
  });

  const opening = JSON.stringify({ type: 'user', cwd: '/w', sessionId: CLAUDE_SID, message: { role: 'user', content: 'x' } });

  it('leaves Claude lines only JSON.parse can read to read(), and skips malformed ones as it does', async () => {
    const usage = (extra: string) => `{"type":"assistant","sessionId":"${CLAUDE_SID}","requestId":"r","message":{"id":"m","model":"claude-opus-4-1-20250805","usage":{"input_tokens":1,"output_tokens":2}${extra}},"timestamp":"2025-01-01T00:00:00.000Z"}`;
    const cases: [string, boolean][] = [
      [usage(''), true],
      [usage(',"us\\u0061ge":{"input_tokens":9}'), false], // an escaped key JSON.parse reads as `usage`
      [usage('').replace('"output_tokens":2', '"output_tokens":2.5'), false], // a fraction: JavaScript's count
      [usage('').replace('{"type"', '{\t"type"'), false], // a tab JSON.parse takes as a space
      [usage('').replace('"id":"m"', '"id":"\\u006d"'), false], // an escaped id
      [usage('').slice(0, -3), true], // truncated: malformed, skipped and counted alike
    ];
    for (const [line, answers] of cases) {
      const file = await claudeFile(`${opening}\n${line}\n${usage('')}\n`);
      expect((await engine(claude, file)) !== false).toBe(answers);
      await expectSame(claude, file);
    }
  });

  it('hands over the time of every canonical timestamp form as eventTime reads it', async () => {
    const forms = ['2025-06-01T10:00:00Z', '2025-06-01T10:00:00.5Z', '2025-06-01T10:00:00.25Z', '2025-06-01T10:00:00.1234Z', '2025-06-01T10:00:00.123456789Z', '1969-12-31T23:59:59.999Z', '0099-01-01T00:00:00Z', '2025-02-31T23:59:59.000Z', '1970-01-01T00:00:00.000Z'];
    const lines = forms.map((t, i) => `{"type":"assistant","sessionId":"${CLAUDE_SID}","requestId":"r${i}","message":{"id":"m${i}","model":"claude-opus-4-1-20250805","usage":{"input_tokens":1,"output_tokens":2}},"timestamp":"${t}"}`);
    const before = engineEvents;
    expect(await expectSame(claude, await claudeFile([opening, ...lines].join('\n') + '\n'))).toBe(true);
    expect(engineEvents - before).toBe(forms.length); // expectHints held each time to eventTime
  });

  it('reads empty and nearly empty files as read() does', async () => {
    const usage = `{"type":"assistant","sessionId":"${CLAUDE_SID}","requestId":"r","message":{"id":"m","model":"claude-opus-4-1-20250805","usage":{"input_tokens":1,"output_tokens":2}}}`;
    for (const content of ['', '\n', '\n\n\r\n', opening, `${opening}\n${usage}`, `${opening}\n${usage}\n`, `\r\n${usage}\n`]) {
      expect(await expectSame(claude, await claudeFile(content))).toBe(true);
    }
    for (const content of ['', '\n', JSON.stringify(meta(CODEX_ID, 0)), `${JSON.stringify(meta(CODEX_ID, 0))}\n${JSON.stringify(count(2, tu(100, 10, 7, 1)))}`]) {
      expect(await expectSame(codex, await codexFile(content))).toBe(true);
    }
  });

  it('reads lines of megabytes (line buffers mapped on their own, grown again) as read() does', async () => {
    // 2.5 MB and 5 MB lines take the engines' 256 KiB buffer past 2 MiB, where it becomes a mapping of its own
    // (native/lines.c `grow_buffer`), and past it again; the usage of the large responses follows their content.
    const mb = (n: number) => 'y'.repeat(Math.round(n * 1e6));
    const lines = [
      opening,
      JSON.stringify({ type: 'user', sessionId: CLAUDE_SID, message: { role: 'user', content: mb(2.5) } }),
      JSON.stringify({ type: 'assistant', sessionId: CLAUDE_SID, requestId: 'r1', message: { id: 'm1', model: 'claude-opus-4-1-20250805', content: [{ type: 'text', text: mb(2.5) }], usage: { input_tokens: 1, output_tokens: 2 } } }),
      JSON.stringify({ type: 'assistant', sessionId: CLAUDE_SID, requestId: 'r2', message: { id: 'm2', model: 'claude-opus-4-1-20250805', content: [{ type: 'text', text: mb(5) }], usage: { input_tokens: 3, output_tokens: 4 } } }),
      JSON.stringify({ type: 'assistant', sessionId: CLAUDE_SID, requestId: 'r3', message: { id: 'm3', model: 'claude-opus-4-1-20250805', usage: { input_tokens: 5, output_tokens: 6 } } }),
    ];
    const before = engineEvents;
    expect(await expectSame(claude, await claudeFile(lines.join('\n') + '\n'))).toBe(true);
    expect(engineEvents - before).toBe(3);
    // A file whose last large line has no LF yet (a response being written): pending, as read() leaves it.
    expect(await expectSame(claude, await claudeFile(lines.slice(0, 4).join('\n')))).toBe(true);
  });

  it('answers for a path without a session id with undefined (read() takes the id from the lines)', async () => {
    const file = join(tmp, 'named', 'projects', '-w', 'notes.jsonl');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, '{"type":"user","cwd":"/w","sessionId":"abc","message":{}}\n');
    expect(await engine(claude, file)).toBeUndefined();
    expect(await engine(claude, join(tmp, 'missing', `${CLAUDE_SID}.jsonl`))).toBe(false);
  });
});

describe('blockValue: one decoding per ASCII block', () => {
  it('gives the same values from the block string as from the bytes, and decodes non-ASCII text as UTF-8', () => {
    const text = Buffer.from('claude-sonnet-4-5msg_01"3.5e-3"2025-06-01T00:00:00.000Z');
    const strs = Int32Array.from([0, 17, PLAIN_TEXT, 17, 6, PLAIN_TEXT, 23, 8, JSON_TEXT, 31, 24, TIME, 0, 0, ABSENT]);
    const values = (ascii: string | undefined) => [0, 3, 6, 9, 12].map((at) => blockValue(text, ascii, strs, at));
    expect(isAscii(text)).toBe(true);
    expect(values(text.toString('latin1'))).toEqual(['claude-sonnet-4-5', 'msg_01', '3.5e-3', '2025-06-01T00:00:00.000Z', undefined]);
    expect(values(undefined)).toEqual(values(text.toString('latin1')));
    const utf8 = Buffer.from('modèle-ü');
    expect(isAscii(utf8)).toBe(false);
    expect(blockValue(utf8, undefined, Int32Array.from([0, utf8.length, PLAIN_TEXT]), 0)).toBe('modèle-ü');
  });
});
