/**
 * fx (`~/.fx/sessions/<session id>/events.jsonl`) over the session folders of fixtures/fx, written in the byte
 * order of fx's own encoder (fixtures/fx/README.md): golden events, token totals checked by a deliberately
 * simple second reader (each model's last cumulative snapshot in the log), growth per checkpoint, usage
 * unknown while billing is open or after a state replacement, bad lines skipped and counted, chunk invariance
 * and resume at every cut, discovery and roots. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/fx.test.ts`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fx, getFxRoots } from '../codecs/fx/index.js';
import { isFxSessionId } from '../codecs/fx/paths.js';
import { OPEN_GENERATIONS } from '../codecs/fx/recorded.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { MessageEvent, SessionEvent, SessionfoldEvent, ToolCallEvent, ToolResultEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, discoverAll, expectChunkInvariant, expectResumeEqualsFull, readEvents } from './helpers/codec-harness.js';
import { describeChunkingAndResume } from './helpers/fixture-suite.js';
import { inTempDir as inTempDirOf } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';
import { jsonLines } from './helpers/json-lines.js';

const ROOT = new URL('../fixtures/fx/sessions/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/fx/', import.meta.url).pathname;
const SESSIONS = ['Ch1-child001', 'Cv5_convo0001', 'Cv6_later0001', 'Mx4_mixed001', 'Nw2_later001', 'Pa7_parent01', 'Qz1-R7wVb0Hn', 'Yk3_p2QxLm8a'];
/** The chunking suite wants logs of more than one event: the child's holds only its start. */
const FIXTURES = SESSIONS.filter((s) => s !== 'Ch1-child001').map((s) => `${s}/events.jsonl`);

/**
 * The simple second reader (it counts no responses): each model's totals in the last usage snapshot the log
 * holds, plus each generation's last `usage_recorded` line.
 */
function naiveTotals(text: string): UsageTotals {
  let last: { models: Record<string, number>[] } | undefined;
  const calls = new Map<string, Record<string, number | null>>();
  for (const r of jsonLines(text)) {
    const usage = r?.payload?.usage;
    if (usage !== undefined) last = usage;
    if (r?.kind === 'usage_recorded') calls.set(r.payload.generation_id, r.payload);
  }
  const t = emptyTotals();
  for (const m of [...(last?.models ?? []), ...calls.values()]) {
    t.input += m.input_tokens!;
    t.cached += m.cache_read_tokens!;
    t.output += m.output_tokens!;
    t.reasoning += m.reasoning_tokens ?? 0;
  }
  return t;
}

const inTempDir = <T>(fn: (dir: string) => Promise<T>): Promise<T> => inTempDirOf('sf-fx-', fn);

async function sessionFile(dir: string, text: string | Buffer, id = 'AbCdEfGhIjKl'): Promise<string> {
  await mkdir(join(dir, id), { recursive: true });
  const file = join(dir, id, 'events.jsonl');
  await writeFile(file, text);
  return file;
}

let seq = 0;
const envelope = (ts: number, kind: string, payload: unknown): string =>
  `{"schema_version":1,"log_generation":"00112233445566778899aabbccddeeff","seq":${++seq},"event_id":"${seq.toString(16).padStart(32, '0')}","timestamp_ms":${ts},"kind":"${kind}","payload":${JSON.stringify(payload)}}`;
const started = (ts: number): string =>
  envelope(ts, 'session_started', { id: 'AbCdEfGhIjKl', created_at_ms: ts, origin_workspace_root: '/w', workspace_root: '/w', conversation_language: 'en', preferences: { model: 'openai/gpt-5', effort: 'auto', fast_mode: false, provider: 'gateway' } });
const checkpoint = (ts: number, models: Record<string, unknown>[], billing = 'complete'): string =>
  envelope(ts, 'usage_checkpointed', { usage: { billing, models, pending: [] } });
const recordedLine = (ts: number, gen: string, input: number, output: number, cacheRead = 0, cost: number | null = null): string =>
  `{"schema_version":1,"kind":"usage_recorded","session_id":"AbCdEfGhIjKl","ts":${ts},"seq":${++seq},"payload":${JSON.stringify({ generation_id: gen, model: 'openai/gpt-5', input_tokens: input, output_tokens: output, cache_read_tokens: cacheRead, cache_write_tokens: 0, reasoning_tokens: null, total_cost: cost, billable_web_search_calls: 0 })}}`;
const model = (input: number, output: number, cacheRead = 0, cost = 0): Record<string, unknown> => ({ model: 'openai/gpt-5', first_sequence: 1, total_cost: cost, input_tokens: input, output_tokens: output, cache_read_tokens: cacheRead, cache_write_tokens: 0, billable_web_search_calls: 0 });

describe('fx golden files', () => {
  it.each(SESSIONS)('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (id) => {
    const file = `${ROOT}${id}/events.jsonl`;
    const events = await readEvents(fx, file);
    await expectGolden(EXPECTED_DIR, id, events);
    expect(events[0]).toMatchObject({ type: 'session', sessionId: id });
    const { responses: _, ...tokens } = codecUsageTotals(events);
    const { responses: __, ...naive } = naiveTotals(await readFile(file, 'utf8'));
    expect(tokens).toEqual(naive);
  });

  it('books each checkpoint\u2019s growth per model, dated by the checkpoint, input without its cache', async () => {
    const events = await readEvents(fx, `${ROOT}Yk3_p2QxLm8a/events.jsonl`);
    const usage = byKind(events).usage as UsageEvent[];
    expect(usage.map((u) => [u.model, u.timestamp, u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.costUsd])).toEqual([
      ['anthropic/claude-sonnet-4.5', new Date(1790000004000).toISOString(), 1000, 9000, 2000, 800, 0.0315],
      ['anthropic/claude-sonnet-4.5', new Date(1790000009000).toISOString(), 1400, 12000, 600, 1100, 0.0624 - 0.0315],
      ['openai/gpt-5', new Date(1790000031000).toISOString(), 2200, 3200, 0, 700, 0.0121],
      ['openai/gpt-5', new Date(1790000040000).toISOString(), 900, 1800, 0, 400, 0.0188 - 0.0121],
    ]);
    expect(usage.every((u) => !u.singleRequest && u.reasoningTokens === 0)).toBe(true);
    expect(usage[2]!.webSearchRequests).toBe(1);
    const last = (byKind(events).session as SessionEvent[]).at(-1)!;
    expect(last).toMatchObject({ cwd: '/home/dev/acme/pkg', model: 'openai/gpt-5', startedAt: new Date(1790000000000).toISOString(), usageUnknown: false });
    // while the ledger still waited on a generation, the session's usage was a lower bound
    expect((byKind(events).session as SessionEvent[]).some((s) => s.usageUnknown === true)).toBe(true);
  });

  it('a carried-over ledger counts at the start; a state replacement makes usage unknown until the next checkpoint, which adds only its growth', async () => {
    const events = await readEvents(fx, `${ROOT}Qz1-R7wVb0Hn/events.jsonl`);
    const usage = byKind(events).usage as UsageEvent[];
    expect(usage.map((u) => [u.inputTokens, u.cacheReadTokens, u.outputTokens])).toEqual([[8000, 12000, 2500], [1500, 2000, 400]]);
    const flags = (byKind(events).session as SessionEvent[]).map((s) => s.usageUnknown);
    expect(flags.slice(-2)).toEqual([true, false]);
  });
});

describe('fx subagents and later logs', () => {
  it('lists a child its parent’s registry names as a subagent; the parent’s ledger holds only the parent’s calls', async () => {
    const found = await discoverAll(fx, [ROOT]);
    expect(found.filter((f) => f.subagent === true).map((f) => f.sessionId)).toEqual(['Ch1-child001']);
    const child = await readEvents(fx, `${ROOT}Ch1-child001/events.jsonl`);
    expect(byKind(child).usage ?? []).toEqual([]);
    // its turn ran calls that no ledger of this log holds
    expect((byKind(child).session as SessionEvent[]).at(-1)).toMatchObject({ usageUnknown: true });
    const parent = byKind(await readEvents(fx, `${ROOT}Pa7_parent01/events.jsonl`)).usage as UsageEvent[];
    expect(parent.map((u) => [u.inputTokens, u.cacheReadTokens, u.outputTokens])).toEqual([[5000, 4000, 1200]]);
  });

  it('a later fx’s usage_recorded lines: one event per generation, the late-settled line replacing the first', async () => {
    const events = await readEvents(fx, `${ROOT}Nw2_later001/events.jsonl`);
    const usage = byKind(events).usage as UsageEvent[];
    expect(usage.map((u) => [u.dedupKey, u.model, u.timestamp, u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.reasoningTokens, u.costUsd])).toEqual([
      ['fx:gen_01', 'openai/gpt-5', new Date(1790300005000).toISOString(), 4000, 1000, 0, 300, 120, 0.009],
      ['fx:gen_02', 'openai/gpt-5', new Date(1790300012000).toISOString(), 3000, 4000, 0, 500, 200, 0.0115],
      ['fx:gen_03', 'anthropic/claude-sonnet-4.5', new Date(1790300030000).toISOString(), 1500, 8000, 2500, 900, 0, 0.0301],
    ]);
    expect(usage.every((u) => u.singleRequest)).toBe(true);
    expect(usage[1]!.webSearchRequests).toBe(1);
    const sessions = byKind(events).session as SessionEvent[];
    expect(sessions.some((s) => s.usageUnknown === true)).toBe(false);
    expect(sessions.at(-1)).toMatchObject({ cwd: '/home/dev/cli', model: 'anthropic/claude-sonnet-4.5', startedAt: new Date(1790300000000).toISOString() });
  });

  it('a log with both ledgers counts each call once: a checkpoint after per-call lines adds only what they lack', async () => {
    const mixed = byKind(await readEvents(fx, `${ROOT}Mx4_mixed001/events.jsonl`)).usage as UsageEvent[];
    expect(mixed.map((u) => [u.singleRequest, u.inputTokens, u.cacheReadTokens, u.outputTokens])).toEqual([[false, 4000, 2000, 900], [true, 1500, 1500, 200]]);
    await inTempDir(async (dir) => {
      const call = recordedLine(3, 'g1', 100, 10, 40);
      const lines = [started(1), call, checkpoint(4, [model(150, 12, 60)])];
      const usage = byKind(await readEvents(fx, await sessionFile(dir, lines.join('\n') + '\n'))).usage as UsageEvent[];
      expect(codecUsageTotals(usage)).toMatchObject({ input: 150, cached: 60, output: 12 });
    });
  });

  /** A `usage_recorded` line with every count named, and a ledger model with its cache writes. */
  const callOf = (ts: number, gen: string, m: string, c: { input: number; output: number; read?: number; write?: number }): string =>
    `{"schema_version":1,"kind":"usage_recorded","session_id":"AbCdEfGhIjKl","ts":${ts},"seq":${++seq},"payload":${JSON.stringify({ generation_id: gen, model: m, input_tokens: c.input, output_tokens: c.output, cache_read_tokens: c.read ?? 0, cache_write_tokens: c.write ?? 0, reasoning_tokens: null, total_cost: null, billable_web_search_calls: 0 })}}`;
  const ledgerOf = (m: string, c: { input: number; output: number; read?: number; write?: number }): Record<string, unknown> => ({ model: m, first_sequence: 1, total_cost: 0, input_tokens: c.input, output_tokens: c.output, cache_read_tokens: c.read ?? 0, cache_write_tokens: c.write ?? 0, billable_web_search_calls: 0 });
  const CLAUDE = 'anthropic/claude-sonnet-4.5';
  const GPT = 'openai/gpt-5';
  const read = async (lines: string[]): Promise<UsageEvent[]> =>
    inTempDir(async (dir) => byKind(await readEvents(fx, await sessionFile(dir, lines.join('\n') + '\n'))).usage as UsageEvent[]);
  const nonNegative = (usage: UsageEvent[]): boolean => usage.every((u) => [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens].every((n) => n >= 0));

  it('a replacement under another model takes its first line off that model: a later checkpoint of the call counts nothing more', async () => {
    const usage = await read([started(1), callOf(2, 'g1', GPT, { input: 100, output: 10 }), callOf(3, 'g1', CLAUDE, { input: 100, output: 10 }), checkpoint(4, [ledgerOf(CLAUDE, { input: 100, output: 10 })]), checkpoint(5, [ledgerOf(CLAUDE, { input: 100, output: 10 }), ledgerOf(GPT, { input: 30, output: 3 })])]);
    // the call once, under the model its last line names; the first line's model only counts its own later growth
    expect(usage.map((u) => [u.model, u.inputTokens, u.outputTokens])).toEqual([[GPT, 30, 3], [CLAUDE, 100, 10]]);
    expect(codecUsageTotals(usage)).toMatchObject({ input: 130, output: 13 });
  });

  it('a count clamped at zero (cache above the uncached input) moves the baseline by what was counted, never below zero', async () => {
    // a call whose cache reads and writes together pass its input: 0 uncached, 16 cached; replaced late, then
    // the whole ledger of it: the call counts once, its last line's figures
    const replaced = await read([started(1), callOf(2, 'g1', GPT, { input: 10, output: 1, read: 8, write: 8 }), callOf(3, 'g1', GPT, { input: 20, output: 2, read: 5, write: 5 }), checkpoint(4, [ledgerOf(GPT, { input: 20, output: 2, read: 5, write: 5 })])]);
    expect(codecUsageTotals(replaced)).toMatchObject({ input: 20, cached: 5, output: 2, responses: 1 });
    // a clamped call left as it is, then a checkpoint of it and of 100 more: the ledger's 110, not 116
    const kept = await read([started(1), callOf(2, 'g1', GPT, { input: 10, output: 1, read: 8, write: 8 }), checkpoint(3, [ledgerOf(GPT, { input: 10, output: 1, read: 8, write: 8 })]), checkpoint(4, [ledgerOf(GPT, { input: 110, output: 2, read: 8, write: 8 })])]);
    expect(codecUsageTotals(kept)).toMatchObject({ input: 110, output: 2 });
    // the same clamp in a checkpoint's growth, then a call, then the ledger of both: 110 again
    const grown = await read([started(1), checkpoint(2, [ledgerOf(GPT, { input: 10, output: 1, read: 8, write: 8 })]), callOf(3, 'g2', GPT, { input: 100, output: 1 }), checkpoint(4, [ledgerOf(GPT, { input: 110, output: 2, read: 8, write: 8 })]), checkpoint(5, [ledgerOf(GPT, { input: 140, output: 3, read: 8, write: 8 })])]);
    expect(codecUsageTotals(grown)).toMatchObject({ input: 140, output: 3 });
    for (const u of [replaced, kept, grown]) expect(nonNegative(u)).toBe(true);
  });

  it('a replacing line resumed apart from its first counts once, with the last line’s figures, at every cut', async () => {
    const content = await readFile(`${ROOT}Nw2_later001/events.jsonl`);
    const cuts = Array.from({ length: content.length + 1 }, (_, i) => i);
    await expectResumeEqualsFull(fx, content, cuts, {}, 'Nw2_later001/events.jsonl');
  });

  it('a generation replaced after OPEN_GENERATIONS newer ones comes again under the same key, so it counts once', async () => {
    await inTempDir(async (dir) => {
      const lines = [started(1), ...Array.from({ length: OPEN_GENERATIONS + 1 }, (_, i) => recordedLine(2 + i, `g${i}`, 100, 10)), recordedLine(999, 'g0', 100, 10, 0, 0.5)];
      const usage = byKind(await readEvents(fx, await sessionFile(dir, lines.join('\n') + '\n'))).usage as UsageEvent[];
      expect(usage).toHaveLength(OPEN_GENERATIONS + 2);
      expect(usage.filter((u) => u.dedupKey === 'fx:g0')).toHaveLength(2);
      expect(codecUsageTotals(usage).responses).toBe(OPEN_GENERATIONS + 1);
    });
  });

  it('a turn completed before any usage line makes usage unknown', async () => {
    await inTempDir(async (dir) => {
      const done = `{"schema_version":1,"kind":"turn_completed","session_id":"AbCdEfGhIjKl","ts":2,"turn_id":"t1","seq":2,"payload":{"outcome":"completed"}}`;
      const events = await readEvents(fx, await sessionFile(dir, [started(1), done, recordedLine(3, 'g1', 100, 10)].join('\n') + '\n'));
      expect((byKind(events).session as SessionEvent[]).at(-1)).toMatchObject({ usageUnknown: true });
      expect(byKind(events).usage).toHaveLength(1);
    });
  });

  it('a turn committed before any ledger makes usage unknown for good; one after a checkpoint does not', async () => {
    await inTempDir(async (dir) => {
      const turn = (ts: number): string => envelope(ts, 'history_turn_committed', { conversation_language: 'en', total_input_tokens: 1, total_output_tokens: 1, turn: {} });
      const late = await readEvents(fx, await sessionFile(dir, [started(1), turn(2), checkpoint(3, [model(100, 10)])].join('\n') + '\n', 'late'));
      expect((byKind(late).session as SessionEvent[]).at(-1)).toMatchObject({ usageUnknown: true });
      const booked = await readEvents(fx, await sessionFile(dir, [started(1), checkpoint(2, [model(100, 10)]), turn(3)].join('\n') + '\n', 'booked'));
      expect((byKind(booked).session as SessionEvent[]).some((e) => e.usageUnknown === true)).toBe(false);
    });
  });

  it('a later fx’s session_started.subagent_child marks the session a subagent', async () => {
    await inTempDir(async (dir) => {
      const line = `{"schema_version":1,"kind":"session_started","session_id":"AbCdEfGhIjKl","ts":5,"seq":1,"payload":{"id":"AbCdEfGhIjKl","created_at_ms":5,"workspace_root":"/w","subagent_child":true}}\n`;
      const events = await readEvents(fx, await sessionFile(dir, line));
      expect((byKind(events).session as SessionEvent[])[0]).toMatchObject({ subagent: true, cwd: '/w' });
    });
  });
});

describe('fx conversation', () => {
  const file = (id: string): string => `${ROOT}${id}/events.jsonl`;
  const messages = (events: SessionfoldEvent[]): MessageEvent[] => byKind(events).message as MessageEvent[];

  it('an older fx’s committed turns: user, each step’s text and thinking, its calls and their results, the answer', async () => {
    const events = await readEvents(fx, file('Cv5_convo0001'));
    const turn = events.filter((e) => e.offset === events.find((x) => x.type === 'message')!.offset);
    expect(turn.map((e) => (e.type === 'message' ? `${e.role}${e.subtype ? `/${e.subtype}` : ''}` : e.type))).toEqual(['user', 'assistant', 'tool_call', 'tool_call', 'tool_result', 'tool_result', 'assistant', 'tool_call', 'tool_result', 'user/steer', 'assistant']);
    const calls = byKind(events).tool_call as ToolCallEvent[];
    const results = byKind(events).tool_result as ToolResultEvent[];
    // every result answers a call read before it; the interrupted turn's call in flight has none
    for (const r of results) expect(calls.findIndex((c) => c.callId === r.callId)).toBeGreaterThanOrEqual(0);
    expect(calls.filter((c) => !results.some((r) => r.callId === c.callId)).map((c) => c.callId)).toEqual(['call_d']);
    expect(results.find((r) => r.callId === 'call_b')).toMatchObject({ isError: true, toolName: 'bash', output: 'error: FileNotFound' });
    expect(calls.find((c) => c.callId === 'call_a')!.input).toEqual({ path: 'build.zig' });
    expect(calls.find((c) => c.callId === 'call_c')!.input).toBe('not json');
    const m = messages(events);
    expect(m.at(-1)).toMatchObject({ role: 'system', subtype: 'compaction' });
    // fx writes bytes that are not UTF-8 as base64: decoded, the stray byte replaced
    expect(m.some((x) => x.role === 'user' && x.text === 'caf\uFFFD au lait')).toBe(true);
    expect(m.find((x) => x.role === 'assistant' && x.text.startsWith('The import path'))).toMatchObject({ thinking: 'The error names build.zig line 12.', model: 'anthropic/claude-sonnet-4.5' });
  });

  it('a later fx’s items: the user’s turn, thinking once though fx repeats it for a retry, a failed message marked', async () => {
    const m = messages(await readEvents(fx, file('Cv6_later0001')));
    expect(m.map((x) => [x.role, x.nativeId, x.subtype])).toEqual([['user', 't1', undefined], ['assistant', 'rs_1', undefined], ['assistant', 'msg_1', 'error'], ['assistant', 'msg_2', undefined]]);
    expect(m[1]).toMatchObject({ text: '', thinking: 'The flag lives in args.zig.' });
  });

  it('a usage-only read parses no conversation line: torn ones are skipped in a full read only, the usage the same', async () => {
    await inTempDir(async (dir) => {
      const tornTurn = envelope(3, 'history_turn_committed', { conversation_language: 'en', turn: { kind: 'assistant' } }).slice(0, 200);
      const tornItem = `{"schema_version":1,"kind":"assistant_message_completed","session_id":"AbCdEfGhIjKl","ts":4,"turn_id":"t1","item_id":"m1","seq":9,"payload":{"text":"cut`;
      const f = await sessionFile(dir, [started(1), checkpoint(2, [model(100, 10)]), tornTurn, tornItem, checkpoint(5, [model(300, 30)])].join('\n') + '\n');
      const full = newReadInfo();
      const all = await readEvents(fx, f, { info: full });
      const usageOnly = newReadInfo();
      const usage = await readEvents(fx, f, { kinds: ['usage'], info: usageOnly });
      expect([full.skippedLines, usageOnly.skippedLines]).toEqual([2, 0]);
      expect(usage).toEqual(byKind(all).usage);
      expect(usage).toHaveLength(2);
    });
  });
});

describeChunkingAndResume(fx, ROOT, FIXTURES);

describe('fx bad input', () => {
  it('skips and counts a torn checkpoint and one with an absurd count; the rest is read', async () => {
    await inTempDir(async (dir) => {
      const torn = checkpoint(1790000002000, [model(100, 10)]).slice(0, 220);
      const absurd = checkpoint(1790000003000, [model(-5, 10)]);
      const file = await sessionFile(dir, [started(1790000000000), torn, absurd, checkpoint(1790000004000, [model(300, 30, 100)])].join('\n') + '\n');
      const info = newReadInfo();
      const events = await readEvents(fx, file, { info });
      expect(info.skippedLines).toBe(2);
      expect((byKind(events).usage as UsageEvent[]).map((u) => [u.inputTokens, u.cacheReadTokens, u.outputTokens])).toEqual([[200, 100, 30]]);
      await expect(readEvents(fx, file, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    });
  });

  it('skips and counts a usage_recorded line fx would refuse: cache above input, no generation id, reasoning above output', async () => {
    await inTempDir(async (dir) => {
      const noId = recordedLine(3, '', 100, 10);
      const reasoning = recordedLine(4, 'g2', 100, 10).replace('"reasoning_tokens":null', '"reasoning_tokens":11');
      const file = await sessionFile(dir, [started(1), recordedLine(2, 'g1', 100, 10, 101), noId, reasoning, recordedLine(5, 'g3', 100, 10, 50)].join('\n') + '\n');
      const info = newReadInfo();
      const usage = byKind(await readEvents(fx, file, { info })).usage as UsageEvent[];
      expect(info.skippedLines).toBe(3);
      expect(usage.map((u) => u.dedupKey)).toEqual(['fx:g3']);
    });
  });

  it('a ledger that falls back is no growth, and only what rises past the highest seen counts', async () => {
    await inTempDir(async (dir) => {
      const lines = [started(1), checkpoint(2, [model(100, 10)]), checkpoint(3, [model(40, 4)]), checkpoint(4, [model(150, 12)])];
      const usage = byKind(await readEvents(fx, await sessionFile(dir, lines.join('\n') + '\n'))).usage as UsageEvent[];
      expect(usage.map((u) => [u.inputTokens, u.outputTokens])).toEqual([[100, 10], [50, 2]]);
    });
  });

  it('a copied session folder keeps its checkpoints\u2019 keys, so folds count them once', async () => {
    await inTempDir(async (dir) => {
      const text = [started(1), checkpoint(2, [model(100, 10)])].join('\n') + '\n';
      const a = byKind(await readEvents(fx, await sessionFile(dir, text, 'one'))).usage as UsageEvent[];
      const b = byKind(await readEvents(fx, await sessionFile(dir, text, 'two'))).usage as UsageEvent[];
      expect(codecUsageTotals([...a, ...b]).responses).toBe(1);
    });
  });

  it('CRLF line ends and multi-byte paths read the same in every chunking, and resumed at every cut', async () => {
    await inTempDir(async (dir) => {
      const rebound = envelope(5, 'workspace_rebound', { previous_workspace_root: '/w', workspace_root: '/home/dév/日本語 🚀' });
      const content = Buffer.from([started(1), checkpoint(2, [model(100, 10)]), rebound, checkpoint(6, [model(180, 20, 50)])].join('\r\n') + '\r\n');
      const file = await sessionFile(dir, content);
      const events = await expectChunkInvariant(fx, file);
      expect((byKind(events).session as SessionEvent[]).at(-1)!.cwd).toBe('/home/dév/日本語 🚀');
      const cuts = Array.from({ length: content.length + 1 }, (_, i) => i);
      await expectResumeEqualsFull(fx, content, cuts, {}, 'AbCdEfGhIjKl/events.jsonl');
    });
  });
});

describe('fx discovery and roots', () => {
  it('~/.fx/sessions, or the folder $SESSIONFOLD_FX_DIR names', () => {
    expect(getFxRoots({ HOME: '/h' })).toEqual(['/h/.fx/sessions']);
    expect(getFxRoots({ HOME: '/h', SESSIONFOLD_FX_DIR: '/s' })).toEqual(['/s']);
    expect(getFxRoots({ HOME: '/h', SESSIONFOLD_FX_DIR: '~/fs' })).toEqual(['/h/fs']);
  });

  it('finds each session folder\u2019s events.jsonl, and not fx\u2019s v2 store, a staging folder, a folder without a log or a sidecar', async () => {
    const found = await discoverAll(fx, [ROOT, join(ROOT, 'missing')]);
    expect(found.map((f) => f.sessionId).sort()).toEqual(SESSIONS);
    expect(await fx.locate?.([ROOT], 'Yk3_p2QxLm8a')).toMatchObject({ sessionId: 'Yk3_p2QxLm8a' });
    expect(await fx.locate?.([ROOT], 'v2')).toBeUndefined();
    expect(await fx.locate?.([ROOT], 'creating+5d41402abc4b2a76')).toBeUndefined();
  });

  it('takes a folder name as fx takes a v1 session id', () => {
    for (const id of ['Yk3_p2QxLm8a', 'session.v3', 'shell-abc_DEF', 'v2x']) expect(isFxSessionId(id)).toBe(true);
    for (const id of ['v2', 'V2', '.', '..', 'trash+v1', 'creating+00ff', 'a b', 'x'.repeat(256)]) expect(isFxSessionId(id)).toBe(false);
  });
});
