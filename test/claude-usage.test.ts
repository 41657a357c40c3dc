/**
 * The Claude usage rules of issue 3, one test each: one event per API response, the final largest
 * snapshot, dedup keys, spacing-proof pre-filter, synthetic messages, native cost, cache-write split,
 * singleRequest, malformed lines.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claude, claudeCore } from '../codecs/claude/index.js';
import { createClaudeCore } from '../codecs/claude/parse.js';
import { nativeKernel } from '../cursors/native.js';
import { instantiateWasmKernel } from '../cursors/wasm.js';
import { hashKey } from '../src/key-table.js';
import { KEY_HI, KEY_LO, type FoldHints } from '../src/scan/types.js';
import { blankUsageFields, REPEATED, usageOf as usageOfFields, type UsageCandidate, type UsageFields } from '../codecs/claude/usage.js';
import { parseSync } from '../cursors/sync.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectResumeEqualsFull, lineBoundaries, readEvents, resumeAcrossCuts } from './helpers/codec-harness.js';
import { readCore } from './helpers/walk-read.js';

const SID = '0f0f0f0f-1111-4222-8333-444444444444';
const FILE = `/home/u/.claude/projects/-w/${SID}.jsonl`;
const PROJECTS = fileURLToPath(new URL('../fixtures/claude/projects/', import.meta.url));
const PARENT = join(PROJECTS, '-Users-dev-app', '11111111-2222-4333-8444-555555555555.jsonl');
const SUBAGENT = join(PROJECTS, '-Users-dev-app', '11111111-2222-4333-8444-555555555555', 'subagents', 'agent-abc123.jsonl');
const FORK = join(PROJECTS, '-Users-dev-app', '22222222-3333-4444-8555-666666666666.jsonl');

interface Line {
  id?: string;
  req?: string;
  model?: string;
  in?: number;
  out?: number;
  cw?: number;
  cr?: number;
  breakdown?: { m5?: number; h1?: number };
  omitTotalWrite?: boolean;
  cost?: number;
  thinking?: number;
  text?: string;
  ts?: string;
}

function assistant(l: Line): string {
  const usage: Record<string, unknown> = { input_tokens: l.in ?? 10, output_tokens: l.out ?? 20, cache_read_input_tokens: l.cr ?? 0 };
  if (!l.omitTotalWrite) usage.cache_creation_input_tokens = l.cw ?? 0;
  if (l.breakdown) usage.cache_creation = { ephemeral_5m_input_tokens: l.breakdown.m5 ?? 0, ephemeral_1h_input_tokens: l.breakdown.h1 ?? 0 };
  if (l.thinking !== undefined) usage.output_tokens_details = { thinking_tokens: l.thinking };
  const rec: Record<string, unknown> = {
    type: 'assistant',
    sessionId: SID,
    cwd: '/w',
    timestamp: l.ts ?? '2026-03-01T00:00:00.000Z',
    message: {
      ...(l.id !== undefined && { id: l.id }),
      role: 'assistant',
      ...(l.model !== null && { model: l.model ?? 'claude-sonnet-4-5' }),
      content: [{ type: 'text', text: l.text ?? 'x' }],
      usage,
    },
  };
  if (l.req !== undefined) rec.requestId = l.req;
  if (l.cost !== undefined) rec.costUSD = l.cost;
  return JSON.stringify(rec);
}

function usageOf(lines: string[], options: Parameters<typeof parseSync>[2] = {}): UsageEvent[] {
  return parseSync(claudeCore, lines.join('\n') + '\n', { file: FILE, ...options }).filter((e): e is UsageEvent => e.type === 'usage');
}

async function tmpSession(content: string | Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-claude-usage-'));
  const f = join(dir, `${SID}.jsonl`);
  await writeFile(f, content);
  return f;
}

describe('claude usage through Kimi\u2019s Anthropic-compatible API', () => {
  it('input_tokens -1 beside cache reads (a full cache hit) is 0 uncached input, on every path; another negative is refused', async () => {
    const lines = [assistant({ id: 'msg_k', req: 'r_k', in: -1, out: 50, cr: 33_000 }), assistant({ id: 'msg_bad', req: 'r_b', in: -5, out: 9, cr: 100 }), assistant({ id: 'msg_nocache', req: 'r_n', in: -1, out: 7, cr: 0 })];
    const want = [{ messageId: 'msg_k', inputTokens: 0, outputTokens: 50, cacheReadTokens: 33_000 }];
    const info = newReadInfo();
    expect(usageOf(lines, { info })).toMatchObject(want);
    expect(info.skippedLines).toBe(2);
    const body = Buffer.from(lines.join('\n') + '\n');
    const pick = (events: readonly { type: string }[]) => (events.filter((e) => e.type === 'usage') as UsageEvent[]).map(({ messageId, inputTokens, outputTokens, cacheReadTokens }) => ({ messageId, inputTokens, outputTokens, cacheReadTokens }));
    expect(pick(readCore(claudeCore, FILE, body, body.length, instantiateWasmKernel()).events)).toEqual(want);
    expect(pick(readCore(claudeCore, FILE, body, body.length, undefined).events)).toEqual(want);
    const file = await tmpSession(body);
    try {
      // the reader as this process runs it: the native engine bails on the -1 and read() decides
      expect(pick(await readEvents(claude, file, { kinds: ['usage'] }))).toEqual(want);
    } finally {
      await rm(dirname(file), { recursive: true, force: true });
    }
  });
});

describe('claude usage: one event per API response', () => {
  it('counts a response written over several lines (one per content block) once', () => {
    const lines = ['thinking', 'text', 'tool'].map((text) => assistant({ id: 'msg_1', req: 'req_1', in: 5, out: 40, cw: 100, cr: 900, text }));
    const u = usageOf(lines);
    expect(u).toHaveLength(1);
    expect(u[0]).toMatchObject({ inputTokens: 5, outputTokens: 40, cacheWriteTokens: 100, cacheReadTokens: 900, messageId: 'msg_1' });
  });

  it('counts streaming snapshots once with the final, largest record: never the first, never the sum', () => {
    const lines = [assistant({ id: 'msg_s', req: 'r', out: 1 }), assistant({ id: 'msg_s', req: 'r', out: 1 }), assistant({ id: 'msg_s', req: 'r', out: 120, ts: '2026-03-01T00:00:09.000Z' })];
    const u = usageOf(lines);
    expect(u).toHaveLength(1);
    expect(u[0]!.outputTokens).toBe(120);
    expect(u[0]!.timestamp).toBe('2026-03-01T00:00:09.000Z');
    expect(u[0]!.offset).toBe(Buffer.byteLength(lines[0]! + '\n' + lines[1]! + '\n'));
  });

  it('keeps the largest snapshot even when a smaller one comes after it', () => {
    const u = usageOf([assistant({ id: 'm', req: 'r', out: 5 }), assistant({ id: 'm', req: 'r', out: 300 }), assistant({ id: 'm', req: 'r', out: 40 })]);
    expect(u.map((x) => x.outputTokens)).toEqual([300]);
  });

  it('emits each response when the next one starts, in file order', () => {
    const u = usageOf([assistant({ id: 'a', req: '1', out: 1 }), assistant({ id: 'a', req: '1', out: 7 }), assistant({ id: 'b', req: '2', out: 3 }), assistant({ id: 'c', req: '3', out: 4 })]);
    expect(u.map((x) => [x.messageId, x.outputTokens])).toEqual([
      ['a', 7],
      ['b', 3],
      ['c', 4],
    ]);
  });

  it('reports the pending snapshot in `replaced` under resume, and the kept events equal a full read', async () => {
    const lines = [assistant({ id: 'm1', req: 'r1', out: 1 }), assistant({ id: 'm1', req: 'r1', out: 50 }), assistant({ id: 'm2', req: 'r2', out: 1 }), assistant({ id: 'm2', req: 'r2', out: 99 })];
    const content = Buffer.from(lines.join('\n') + '\n');
    const run = await resumeAcrossCuts(claude, content, lineBoundaries(content));
    // Both responses stay open to the end (interleaving is allowed), so a resumed read replaces 1, then 2.
    expect(run.starts.slice(2).map((s) => !s.restarted && s.replaced.usage)).toEqual([1, 1, 2, 2]);
    expect((run.kept.usage as UsageEvent[]).map((u) => u.outputTokens)).toEqual([50, 99]);
    await expectResumeEqualsFull(claude, content, lineBoundaries(content));
  });

  it('counts interleaved responses (parallel subagents in one transcript) with each one\'s final record', async () => {
    const lines = [
      assistant({ id: 'mA', req: 'rA', out: 1 }),
      assistant({ id: 'mB', req: 'rB', out: 1 }),
      assistant({ id: 'mA', req: 'rA', out: 50 }),
      assistant({ id: 'mB', req: 'rB', out: 99 }),
    ];
    expect(usageOf(lines).map((u) => [u.messageId, u.outputTokens])).toEqual([
      ['mA', 50],
      ['mB', 99],
    ]);
    const content = Buffer.from(lines.join('\n') + '\n');
    await expectResumeEqualsFull(claude, content, lineBoundaries(content));
  });

  it('dedups on message.id alone when the line has no requestId', () => {
    const u = usageOf([assistant({ id: 'msg_gw', out: 2 }), assistant({ id: 'msg_gw', out: 30 })]);
    expect(u).toHaveLength(1);
    expect(u[0]).toMatchObject({ outputTokens: 30, dedupKey: 'claude:msg_gw' });
  });

  it('keys a response as claude:<message.id>, whatever its requestId says', () => {
    const u = usageOf([assistant({ id: 'msg_k', req: 'req_1' }), assistant({ id: 'msg_k', req: 'req_2', out: 70 })]);
    expect(u.map((x) => [x.dedupKey, x.outputTokens])).toEqual([['claude:msg_k', 70]]);
  });

  it('counts a response copied once with requestId and once without once, with its larger record', () => {
    // A streamed copy without requestId first, the final record with it later; and the other way round.
    const u = usageOf([
      assistant({ id: 'msg_s', out: 1 }),
      assistant({ id: 'msg_s', req: 'req_s', out: 80 }),
      assistant({ id: 'msg_t', req: 'req_t', out: 60 }),
      assistant({ id: 'msg_t', out: 60 }),
    ]);
    expect(u.map((x) => [x.dedupKey, x.outputTokens])).toEqual([
      ['claude:msg_s', 80],
      ['claude:msg_t', 60],
    ]);
  });

  it('keys a copy without requestId in another file (a resumed session) as the original, so folds count it once', () => {
    const original = usageOf([assistant({ id: 'msg_r', req: 'req_r', out: 50 })]);
    const resumed = usageOf([assistant({ id: 'msg_r', out: 50 })]);
    expect(resumed[0]!.dedupKey).toBe(original[0]!.dedupKey);
  });

  it('keys a line with only a requestId on it, apart from every message id', () => {
    const u = usageOf([assistant({ req: 'req_only', out: 4 }), assistant({ id: 'req_only', out: 5 })]);
    expect(u.map((x) => x.dedupKey)).toEqual(['claude::req_only', 'claude:req_only']);
  });

  it('gives a line without any id its own key, so it is never merged with another', () => {
    const u = usageOf([assistant({ out: 3 }), assistant({ out: 3 })]);
    expect(u).toHaveLength(2);
    expect(u[0]!.dedupKey).not.toBe(u[1]!.dedupKey);
  });

  it('keys a line without a message id alike on every path: walked, native engine, fast scan and JSON.parse', async () => {
    // Only the request id, then neither id (keyed on the uuid), then neither id nor uuid (keyed on the offset).
    const withUuid = (line: string, uuid: string): string => JSON.stringify({ ...(JSON.parse(line) as object), uuid });
    const lines = [
      JSON.stringify({ type: 'user', sessionId: SID, cwd: '/w', uuid: 'u-0', message: { role: 'user', content: 'hi' } }),
      withUuid(assistant({ req: 'req_only', out: 4 }), 'u-1'),
      withUuid(assistant({ out: 3 }), 'u-2'),
      assistant({ out: 5 }),
    ];
    const body = Buffer.from(lines.join('\n') + '\n');
    const last = body.length - Buffer.byteLength(lines[3]! + '\n');
    const want = ['claude::req_only', `claude:line:${SID}:u-2`, `claude:line:${SID}:@${last}`];
    const keys = (events: readonly { type: string }[]) => (events.filter((e) => e.type === 'usage') as UsageEvent[]).map((u) => u.dedupKey);
    const walked = readCore(claudeCore, FILE, body, body.length, instantiateWasmKernel());
    expect(walked.walked).toBe(3);
    expect(keys(walked.events)).toEqual(want);
    expect(keys(readCore(claudeCore, FILE, body, body.length, undefined).events)).toEqual(want);
    expect(keys(readCore(createClaudeCore({ fastScan: false }), FILE, body, body.length, undefined).events)).toEqual(want);
    if (nativeKernel() === undefined) return;
    const f = await tmpSession(body);
    try {
      const got = (await claude.scanUsage?.([f]))?.[0];
      if (got === undefined || got === false) throw new Error('the native engine left the file to read()');
      expect(got.events.map((u) => u.dedupKey)).toEqual(want);
      // The key C hashes for the fold is the one decoded (a line's own key is left to the fold).
      const hints = got.events.map((u) => [(u as UsageEvent & FoldHints)[KEY_HI], (u as UsageEvent & FoldHints)[KEY_LO]]);
      expect(hints[0]).toEqual(hashKey(want[0]!));
      expect(hints.slice(1).map(([hi]) => hi)).toEqual([NaN, NaN]);
    } finally {
      await rm(dirname(f), { recursive: true, force: true });
    }
  });

  it('counts a response repeated later in the same file once', () => {
    const u = usageOf([assistant({ id: 'a', req: '1', out: 9 }), assistant({ id: 'b', req: '2' }), assistant({ id: 'a', req: '1', out: 9 })]);
    expect(u.map((x) => x.messageId)).toEqual(['a', 'b']);
  });

  it('counts the same response in a parent, its fork and its subagent once across files, and the subagent’s own usage fully', async () => {
    const all: UsageEvent[] = [];
    for (const f of [PARENT, SUBAGENT, FORK]) all.push(...((await readEvents(claude, f, { kinds: ['usage'] })) as UsageEvent[]));
    // msg_A appears in all three files, each time as the same response.
    expect(all.filter((u) => u.messageId === 'msg_A').map((u) => u.dedupKey)).toEqual(['claude:msg_A', 'claude:msg_A', 'claude:msg_A']);
    const folded = new Map(all.map((u) => [u.dedupKey, u]));
    expect([...folded.values()].map((u) => u.messageId).sort()).toEqual(['msg_A', 'msg_B', 'msg_C', 'msg_D', 'msg_F1', 'msg_S1', 'msg_S2']);
    const out = [...folded.values()].reduce((n, u) => n + u.outputTokens, 0);
    expect(out).toBe(120 + 40 + 30 + 12 + 50 + 25 + 9);
  });
});

describe('claude usage: what a record holds', () => {
  it('never drops a usage line for its JSON spacing in a usage-only read', async () => {
    const info = newReadInfo();
    const usage = (await readEvents(claude, PARENT, { kinds: ['usage'], info })) as UsageEvent[];
    expect(usage).toEqual(byKind(await readEvents(claude, PARENT)).usage);
    expect(usage.find((u) => u.messageId === 'msg_B')).toMatchObject({ outputTokens: 40, dedupKey: 'claude:msg_B' });
    expect(info.filteredLines).toBeGreaterThan(0);
  });

  it('finds usage under any valid JSON whitespace (property)', () => {
    const ws = fc.array(fc.constantFrom(' ', '\t', '\r', '  '), { maxLength: 3 }).map((a) => a.join(''));
    fc.assert(
      fc.property(fc.array(ws, { minLength: 64, maxLength: 64 }), fc.integer({ min: 1, max: 10_000 }), (spaces, out) => {
        let i = 0;
        const sp = () => spaces[i++ % spaces.length]!;
        // Serialize with random whitespace around every structural token.
        const ser = (v: unknown): string => {
          if (Array.isArray(v)) return `${sp()}[${sp()}${v.map(ser).join(`${sp()},${sp()}`)}${sp()}]${sp()}`;
          if (v !== null && typeof v === 'object')
            return `${sp()}{${sp()}${Object.entries(v)
              .map(([k, x]) => `${JSON.stringify(k)}${sp()}:${sp()}${ser(x)}`)
              .join(`${sp()},${sp()}`)}${sp()}}${sp()}`;
          return JSON.stringify(v);
        };
        const line = ser(JSON.parse(assistant({ id: 'm', req: 'r', out })));
        const text = `${assistant({ id: 'first', req: 'r0' })}\n${line.replace(/\r+$/, '')}\n`;
        const full = parseSync(claudeCore, text, { file: FILE }).filter((e) => e.type === 'usage');
        const only = parseSync(claudeCore, text, { file: FILE, kinds: ['usage'] });
        expect(only).toEqual(full);
        expect(only.map((e) => (e as UsageEvent).outputTokens)).toEqual([20, out]);
      }),
      { numRuns: 200 },
    );
  });

  it('yields no usage for <synthetic> messages', () => {
    const events = parseSync(claudeCore, assistant({ id: 'msg_syn', model: '<synthetic>', in: 0, out: 0, text: 'No response requested.' }) + '\n', { file: FILE });
    expect(events.filter((e) => e.type === 'usage')).toEqual([]);
    expect(events.find((e) => e.type === 'message')).toMatchObject({ subtype: 'synthetic', model: '<synthetic>' });
  });

  it('takes costUSD as the native cost, and sets none when absent', () => {
    const [a, b] = usageOf([assistant({ id: 'a', req: '1', cost: 0.0123 }), assistant({ id: 'b', req: '2' })]);
    expect(a!.costUsd).toBe(0.0123);
    expect(b!.costUsd).toBeUndefined();
    expect(JSON.stringify(b)).not.toContain('"costUsd"');
  });

  it('splits 5-minute and 1-hour cache writes: cacheWriteTokens is all of them, cacheWrite1hTokens the 1-hour part', () => {
    const [u] = usageOf([assistant({ id: 'a', req: '1', cw: 3000, breakdown: { m5: 1000, h1: 2000 } })]);
    expect(u).toMatchObject({ cacheWriteTokens: 3000, cacheWrite1hTokens: 2000 });
    const [v] = usageOf([assistant({ id: 'b', req: '1', omitTotalWrite: true, breakdown: { m5: 10, h1: 5 } })]);
    expect(v).toMatchObject({ cacheWriteTokens: 15, cacheWrite1hTokens: 5 });
    const [w] = usageOf([assistant({ id: 'c', req: '1', cw: 70 })]);
    expect(w).toMatchObject({ cacheWriteTokens: 70, cacheWrite1hTokens: 0 });
  });

  it('marks every Claude usage event singleRequest', async () => {
    const all = [...(await readEvents(claude, PARENT)), ...(await readEvents(claude, SUBAGENT)), ...(await readEvents(claude, FORK))].filter((e) => e.type === 'usage') as UsageEvent[];
    expect(all.length).toBeGreaterThan(5);
    expect(all.every((u) => u.singleRequest === true)).toBe(true);
  });

  it('takes reasoning tokens from output_tokens_details, as a part of output', () => {
    const [u] = usageOf([assistant({ id: 'a', req: '1', out: 100, thinking: 60 })]);
    expect(u).toMatchObject({ outputTokens: 100, reasoningTokens: 60 });
  });

  it('flags a usage record without a model as a fallback', () => {
    const [u] = usageOf([assistant({ id: 'a', req: '1', model: null as unknown as string })]);
    expect(u).toMatchObject({ model: 'unknown', modelFallback: true });
  });

  it('skips and counts malformed lines (truncated JSON, non-object lines), and the rest still counts', async () => {
    const info = newReadInfo();
    const skipped: string[] = [];
    const events = await readEvents(claude, PARENT, { info, onSkip: (e) => skipped.push(e.code) });
    expect(info.skippedLines).toBe(2);
    expect(skipped).toEqual(['MALFORMED_LINE', 'MALFORMED_LINE']);
    expect((byKind(events).usage as UsageEvent[]).map((u) => u.messageId)).toEqual(['msg_A', 'msg_B', 'msg_C', 'msg_D']);
    // The truncated line holds "usage", so a usage-only read parses (and skips) it too.
    const usageInfo = newReadInfo();
    await readEvents(claude, PARENT, { kinds: ['usage'], info: usageInfo });
    expect(usageInfo.skippedLines).toBe(1);
  });

  it('throws PARSE_ERROR on a malformed line in strict mode', async () => {
    await expect(readEvents(claude, PARENT, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
  });

  it('keeps counting after a truncated final line once the line is completed', async () => {
    const good = assistant({ id: 'a', req: '1', out: 5 });
    const later = assistant({ id: 'b', req: '2', out: 6 });
    const f = await tmpSession(`${good}\n${later.slice(0, 40)}`);
    expect(((await readEvents(claude, f, { kinds: ['usage'] })) as UsageEvent[]).map((u) => u.outputTokens)).toEqual([5]);
    await writeFile(f, `${good}\n${later}\n`);
    expect(((await readEvents(claude, f, { kinds: ['usage'] })) as UsageEvent[]).map((u) => u.outputTokens)).toEqual([5, 6]);
    expect((await readFile(f, 'utf8')).endsWith('\n')).toBe(true);
  });
});

describe('claude usage: a line that repeats a held response (usageOf with held responses)', () => {
  const fields = (id: string | undefined, output: number, input: number, extra: Partial<UsageFields> = {}): UsageFields => ({
    ...blankUsageFields(),
    message: true,
    usage: true,
    model: 'claude-sonnet-4-5-20250929',
    messageId: id,
    requestId: 'req_1',
    timestamp: '2026-03-01T00:00:00.000Z',
    input,
    output,
    ...extra,
  });
  const candidate = (f: UsageFields) => usageOfFields(f, 's', 0) as UsageCandidate;

  it('is REPEATED when the response was counted, or is open with a record at least as large', () => {
    const open = candidate(fields('m1', 10, 100));
    const held = { pending: [{ key: open.key as string, event: open.event }], seen: new Set(['claude:m0']) };
    expect(usageOfFields(fields('m0', 999, 999), 's', 0, held)).toBe(REPEATED);
    expect(usageOfFields(fields('m1', 9, 999), 's', 0, held)).toBe(REPEATED);
    expect(usageOfFields(fields('m1', 10, 100), 's', 0, held)).toBe(REPEATED);
    // What `onUsage` would keep is built: a larger record of an open response, another response, no key at all.
    for (const f of [fields('m1', 11, 0), fields('m1', 10, 101), fields('m2', 1, 1), fields(undefined, 1, 1, { requestId: undefined })]) {
      const u = usageOfFields(f, 's', 0, held);
      expect(u).not.toBe(REPEATED);
      expect(u).toEqual(candidate(f));
    }
  });

  it('refuses a repeated line as the full build would: an absurd cost or count throws, a synthetic model is no usage', () => {
    const held = { pending: [], seen: new Set(['claude:m0']) };
    expect(() => usageOfFields(fields('m0', 1, 1, { costUSD: -1 }), 's', 0, held)).toThrow(expect.objectContaining({ code: 'MALFORMED_LINE' }));
    expect(() => usageOfFields(fields('m0', 1, 1.5), 's', 0, held)).toThrow(expect.objectContaining({ code: 'MALFORMED_LINE' }));
    expect(usageOfFields(fields('m0', 1, 1, { model: '<synthetic>' }), 's', 0, held)).toBeUndefined();
  });
});
