/**
 * Codex usage rules, one test each (issue 3): token_usage_record rows first, token_count deltas otherwise,
 * the token field split, model and provider, replayed parent history in forks / branches / subagents,
 * counters that go down, and dedup keys that stay stable across files.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { codex } from '../codecs/codex/index.js';
import { FALLBACK_MODEL } from '../codecs/codex/parse.js';
import { mayHoldUsage } from '../codecs/codex/prefilter.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { readEvents } from './helpers/codec-harness.js';
import {
  count, FILE_A, FILE_A_ARCHIVED, FILE_B, FILE_C, foldTotal, ID_A, ID_B, jsonl, meta, record, REAL_DIR, tmpRollout, tokens, tu, turn, usages,
} from './codex-helpers.js';

async function usageOf(rows: readonly (Record<string, unknown> | string)[], name?: string): Promise<UsageEvent[]> {
  return usages(await readEvents(codex, await tmpRollout(jsonl(rows), name)));
}

const T1 = tu(1000, 200, 50, 10);
const T2 = tu(2500, 1200, 80, 30); // T1 + one response of 1500/1000/30/20
const STEP = tu(1500, 1000, 30, 20);

describe('codex usage: token_usage_record rows', () => {
  it('prefers token_usage_record rows: one event per response, singleRequest, keyed by response_id', async () => {
    const u = await usageOf([meta('s1', 0), turn(1, 'gpt-5.2'), count(2, T1, T1), record(2, 'resp_1', T1), record(3, 'resp_2', STEP), count(3, T2, STEP)]);
    expect(u.map((e) => [e.dedupKey, e.singleRequest, e.messageId, e.inputTokens, e.cacheReadTokens])).toEqual([
      ['codex:resp:resp_1', true, 'resp_1', 800, 200],
      ['codex:resp:resp_2', true, 'resp_2', 500, 1000],
    ]);
  });

  it('replaces a token_count written just before its record, whichever comes first', async () => {
    const countFirst = await usageOf([meta('s1', 0), turn(1, 'gpt-5.2'), count(2, T1, T1), record(2, 'resp_1', T1)]);
    const recordFirst = await usageOf([meta('s1', 0), turn(1, 'gpt-5.2'), record(2, 'resp_1', T1), count(2, T1, T1)]);
    expect(countFirst).toHaveLength(1);
    expect(countFirst.map((e) => e.dedupKey)).toEqual(['codex:resp:resp_1']);
    expect(recordFirst.map((e) => e.dedupKey)).toEqual(['codex:resp:resp_1']);
  });

  it('keeps token_count usage written before the first record when it is another response', async () => {
    const u = await usageOf([meta('s1', 0), turn(1, 'gpt-5'), count(2, T1, T1), record(3, 'resp_2', STEP), count(3, T2, STEP)]);
    expect(u.map((e) => tokens(e))).toEqual([1050, 1530]);
  });

  it('dedups records by response_id within a file', async () => {
    const u = await usageOf([meta('s1', 0), record(1, 'r1', T1), record(2, 'r1', T1), record(3, 'r2', STEP)]);
    expect(u.map((e) => e.messageId)).toEqual(['r1', 'r2']);
  });

  it('ignores records of another thread and records without usage', async () => {
    const u = await usageOf([meta('s1', 0), record(1, 'r1', T1, { thread_id: 'someone-else' }), record(2, 'r2', T1, { thread_id: 's1' }), { timestamp: 'x', type: 'token_usage_record', payload: { response_id: 'r3', thread_token_usage: T1 } }]);
    expect(u.map((e) => e.messageId)).toEqual(['r2']);
  });
});

describe('codex usage: token_count deltas', () => {
  it('counts the delta of total_token_usage between token_count events', async () => {
    const u = await usageOf([meta('s1', 0), turn(1, 'gpt-5'), count(2, T1, T1), count(3, T2, STEP)]);
    expect(u.map((e) => [e.inputTokens, e.cacheReadTokens, e.outputTokens, e.reasoningTokens])).toEqual([[800, 200, 50, 10], [500, 1000, 30, 20]]);
    expect(u.map((e) => e.dedupKey)).toEqual(['codex:s1:1000/200/0/50/10/1050', 'codex:s1:2500/1200/0/80/30/2580']);
  });

  it('yields nothing for a repeated token_count with unchanged totals (or info: null)', async () => {
    const u = await usageOf([meta('s1', 0), count(1, T1, T1), count(2, T1, T1), count(3), count(4, T1, T1)]);
    expect(u).toHaveLength(1);
  });

  it('marks a delta equal to that row’s last_token_usage singleRequest, and one spanning several responses not', async () => {
    const u = await usageOf([meta('s1', 0), count(1, T1, T1), count(2, T2, tu(700, 500, 10, 5)), count(3, tu(3000, 1500, 90, 35), tu(500, 300, 10, 5))]);
    expect(u.map((e) => e.singleRequest)).toEqual([true, false, true]);
  });

  it('splits input that includes cached (and cache-write) tokens: inputTokens = input − cached − cacheWrite', async () => {
    const [e] = await usageOf([meta('s1', 0), record(1, 'r', tu(1000, 600, 40, 0, 150))]);
    expect(e).toMatchObject({ inputTokens: 250, cacheReadTokens: 600, cacheWriteTokens: 150, cacheWrite1hTokens: 0 });
    expect(e!.inputTokens + e!.cacheReadTokens + e!.cacheWriteTokens).toBe(1000);
  });

  it('keeps reasoning inside output: outputTokens = output_tokens, reasoningTokens = reasoning_output_tokens', async () => {
    const [e] = await usageOf([meta('s1', 0), count(1, tu(100, 0, 500, 400), tu(100, 0, 500, 400))]);
    expect(e).toMatchObject({ outputTokens: 500, reasoningTokens: 400 });
    expect(tokens(e!)).toBe(600);
  });

  it('takes the model from the latest turn_context, with a flagged gpt-5 fallback before any', async () => {
    const u = await usageOf([meta('s1', 0), count(1, T1, T1), turn(2, 'gpt-5-codex'), count(3, T2, STEP), turn(4, 'gpt-5.2'), count(5, tu(3000, 1500, 90, 35), tu(500, 300, 10, 5))]);
    expect(u.map((e) => [e.model, e.modelFallback])).toEqual([[FALLBACK_MODEL, true], ['gpt-5-codex', undefined], ['gpt-5.2', undefined]]);
  });

  it('takes the provider from session_meta.model_provider, else from turn_context', async () => {
    const fromMeta = await usageOf([meta('s1', 0, { model_provider: 'azure' }), turn(1, 'gpt-5', { model_provider: 'openai' }), count(2, T1, T1)]);
    const fromTurn = await usageOf([meta('s1', 0, { model_provider: undefined }), turn(1, 'gpt-5', { model_provider: 'oss' }), count(2, T1, T1)]);
    expect(fromMeta[0]!.provider).toBe('azure');
    expect(fromTurn[0]!.provider).toBe('oss');
  });

  it('never yields negative usage when totals go down: the row starts a new epoch counted by its last_token_usage', async () => {
    const u = await usageOf([meta('s1', 0), count(1, T2, T2), count(2, T1, tu(300, 100, 20, 5)), count(3, tu(1400, 300, 60, 15), tu(400, 100, 10, 5))]);
    expect(u.map((e) => [e.inputTokens + e.cacheReadTokens, e.outputTokens])).toEqual([[2500, 80], [300, 20], [400, 10]]);
    expect(u.every((e) => e.inputTokens >= 0 && e.cacheReadTokens >= 0 && e.outputTokens >= 0 && e.reasoningTokens >= 0)).toBe(true);
    expect(u.map((e) => e.dedupKey)).toEqual(['codex:s1:2500/1200/0/80/30/2580', 'codex:s1#1:1000/200/0/50/10/1050', 'codex:s1#1:1400/300/0/60/15/1460']);
  });

  it('counts no request for the row an older Codex writes after a context-window error (every counter 0 but total_tokens)', async () => {
    const fill = { ...tu(0, 0, 0, 0), total_tokens: 272_000 };
    const u = await usageOf([meta('s1', 0), count(1, T1, T1), count(2, T2, STEP), count(3, fill, fill), count(4, tu(5000, 0, 100, 0), tu(5000, 0, 100, 0))]);
    expect(u.map((e) => [e.inputTokens + e.cacheReadTokens, e.outputTokens])).toEqual([[1000, 50], [1500, 30], [5000, 100]]);
  });

  it('counts a reset row without last_token_usage by its totals', async () => {
    const u = await usageOf([meta('s1', 0), count(1, T2), count(2, T1)]);
    expect(u.map((e) => tokens(e))).toEqual([2580, 1050]);
  });

  it('counts only last_token_usage when a thread’s totals start above zero (a fork continuing its parent’s counter)', async () => {
    const u = await usageOf([meta('fork', 10, { forked_from_id: 'parent', history_base: { thread_id: 'parent', end_ordinal_exclusive: 7, end_byte_offset: 900 } }), count(11, T2, STEP)]);
    expect(u.map((e) => [tokens(e), e.singleRequest])).toEqual([[1530, true]]);
  });

  it('skips token_count shapes without total or last usage (the 0.50 {prompt, completion} fixture)', async () => {
    expect(usages(await readEvents(codex, `${REAL_DIR}agent-sessions-codex_050_legacy.jsonl`))).toEqual([]);
  });

  it('does not count a token_usage_record snapshot nested in another record', async () => {
    const u = await usageOf([meta('s1', 0), { timestamp: 'x', type: 'compacted', payload: { message: '', latest_token_usage_record: { response_id: 'r0', usage: T1 } } }]);
    expect(u).toEqual([]);
  });
});

describe('codex usage: replayed parent history', () => {
  it('does not count a fork’s copied parent history (lines timestamped before the fork’s own start)', async () => {
    const b = usages(await readEvents(codex, FILE_B));
    expect(b.map((e) => [e.sessionId, tokens(e), e.singleRequest])).toEqual([[ID_B, 12300, true]]);
    const a = usages(await readEvents(codex, FILE_A));
    expect(foldTotal([...a, ...b]).tokens).toBe(a.reduce((s, e) => s + tokens(e), 0) + 12300);
  });

  it('does not count a subagent’s copied parent history below subagent_history_start_ordinal', async () => {
    const c = usages(await readEvents(codex, FILE_C));
    expect(c.map((e) => e.messageId)).toEqual(['resp_c1', 'resp_c2']);
  });

  it('keys a copy that neither ordinal nor timestamp reveals to the parent’s thread, so a fold counts it once', async () => {
    const parentRows = [meta('parent', 0), turn(1, 'gpt-5'), count(2, T1, T1), count(3, T2, STEP)];
    const parent = await usageOf(parentRows);
    // An older fork: its own header, then the parent's header and history re-written at the fork's time.
    const child = await usageOf([meta('child', 20, { forked_from_id: 'parent' }), ...parentRows.map((r) => ({ ...r, timestamp: '2025-11-05T12:00:21.000Z' })), count(22, tu(3000, 1500, 100, 40), tu(500, 300, 20, 10))]);
    expect(child.map((e) => e.dedupKey).slice(0, 2)).toEqual(parent.map((e) => e.dedupKey));
    expect(foldTotal([...parent, ...child]).tokens).toBe(3100);
  });

  it('starts a fresh baseline at every session_meta, so a copied row counts exactly as in its own file', async () => {
    const parent = await usageOf([meta('parent', 0), count(1, tu(5000, 1000, 100, 0), tu(5000, 1000, 100, 0))]);
    const child = await usageOf([meta('child', 20, { parent_thread_id: 'parent' }), count(21, tu(1000, 0, 10, 0), tu(1000, 0, 10, 0)), { ...meta('parent', 0), timestamp: '2025-11-05T12:00:22.000Z' }, { ...count(1, tu(5000, 1000, 100, 0), tu(5000, 1000, 100, 0)), timestamp: '2025-11-05T12:00:22.000Z' }]);
    expect(child[1]).toEqual({ ...parent[0], sessionId: 'child', offset: child[1]!.offset, timestamp: child[1]!.timestamp });
  });

  it('keeps the baseline across a repeated header of the same thread (a resumed process re-announcing its totals)', async () => {
    const u = await usageOf([meta('s1', 0), count(1, T1, T1), meta('s1', 5), count(6, T1, T1), count(7, T2, STEP)]);
    expect(u.map((e) => tokens(e))).toEqual([1050, 1530]);
  });

  it('folds the ccusage branch-history pair to the branch’s final totals, not parent + branch', async () => {
    const parent = usages(await readEvents(codex, `${REAL_DIR}ccusage-branch-history-parent.jsonl`));
    const branch = usages(await readEvents(codex, `${REAL_DIR}ccusage-branch-history-branch.jsonl`));
    expect(parent.reduce((s, e) => s + tokens(e), 0) + branch.reduce((s, e) => s + tokens(e), 0)).toBe(3250);
    expect(foldTotal([...parent, ...branch])).toEqual({ tokens: 2050, keys: 2 });
  });

  it('gives a copied rollout the same dedup keys, so both files fold to one', async () => {
    const content = await readFile(FILE_A);
    const copy = usages(await readEvents(codex, await tmpRollout(content, 'copied.jsonl')));
    const original = usages(await readEvents(codex, FILE_A));
    expect(copy.map((e) => e.dedupKey)).toEqual(original.map((e) => e.dedupKey));
    expect(foldTotal([...original, ...copy]).keys).toBe(original.length);
    expect(original.every((e) => e.sessionId === ID_A)).toBe(true);
  });

  it('folds a session and its archived partial copy without counting anything twice', async () => {
    const all = [...usages(await readEvents(codex, FILE_A)), ...usages(await readEvents(codex, FILE_A_ARCHIVED))];
    expect(foldTotal(all).tokens).toBe(foldTotal(usages(await readEvents(codex, FILE_A))).tokens);
  });
});

describe('codex usage-only pre-filter', () => {
  const line = (s: string) => Buffer.from(s);

  it('decides Codex-shaped lines from the record type in the head, whatever the rest mentions', () => {
    expect(mayHoldUsage(line('{"timestamp":"t","type":"response_item","payload":{"type":"message","content":"token_count turn_context"}}'))).toBe(false);
    expect(mayHoldUsage(line('{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"token_count"}}'))).toBe(false);
    expect(mayHoldUsage(line('{"timestamp":"t","type":"compacted","payload":{"latest_token_usage_record":{"usage":{}}}}'))).toBe(false);
    expect(mayHoldUsage(line('{"timestamp":"t","ordinal":7,"type":"event_msg","payload":{"type":"token_count","info":null}}'))).toBe(true);
    for (const t of ['session_meta', 'turn_context', 'token_usage_record']) expect(mayHoldUsage(line(`{"timestamp":"t","ordinal":1,"type":"${t}","payload":{}}`)), t).toBe(true);
  });

  it('falls back to the byte markers for any other JSON spacing or key order, never dropping a usage line', () => {
    expect(mayHoldUsage(line('{"timestamp": "t", "type": "event_msg", "payload": {"type": "token_count"}}'))).toBe(true);
    expect(mayHoldUsage(line('{"payload":{"type":"token_count"},"type":"event_msg"}'))).toBe(true);
    expect(mayHoldUsage(line('{ "type":"token_usage_record","payload":{}}'))).toBe(true);
    expect(mayHoldUsage(line('{"timestamp": "t", "type": "response_item", "payload": {"type": "message"}}'))).toBe(false);
  });

  it('counts usage from spaced JSON in a usage-only read exactly as in a full read', async () => {
    const rows = [meta('s1', 0), turn(1, 'gpt-5'), count(2, T1, T1), count(3, T2, STEP)].map((r) => JSON.stringify(r, null, 1).replace(/\n/g, ''));
    const f = await tmpRollout(rows.join('\n') + '\n');
    const fast = await readEvents(codex, f, { kinds: ['usage'] });
    expect(fast).toHaveLength(2);
    expect(fast).toEqual(usages(await readEvents(codex, f)));
  });
});
