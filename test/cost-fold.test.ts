import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { createCostFold, foldCost } from '../src/cost/fold.js';
import { NO_OVERRIDES, parseOverrides } from '../src/cost/overrides.js';
import { createPricer } from '../src/cost/pricing.js';
import type { CostSummary } from '../src/cost/types.js';
import type { UsageRecord } from '../src/scan/types.js';
import { usageRecord } from './helpers/usage-record.js';
import type { TagIndex } from '../src/tags.js';

// Prices of the test models (USD per million tokens), so expectations are written out by hand.
const overrides = parseOverrides(
  {
    models: {
      alpha: { input_mtok: 1, output_mtok: 10, cache_read_mtok: 0.1, cache_write_mtok: 1.25, cache_write_1h_mtok: 2 },
      beta: { input_mtok: 2, output_mtok: 20 },
    },
  },
  '<test>',
);
const pricer = createPricer({ mode: 'calculate', overrides });

let seq = 0;
function rec(over: Partial<UsageRecord> = {}): UsageRecord {
  return usageRecord(++seq, { cwd: '/work/app', ...over });
}

const fold = (records: UsageRecord[], o: Parameters<typeof foldCost>[1] = {}) => foldCost(records, { pricer, timeZone: 'UTC', ...o });

describe('totals', () => {
  it('sums tokens and cost of every record', async () => {
    const s = await fold([
      rec({ inputTokens: 1_000, outputTokens: 2_000, reasoningTokens: 500, cacheReadTokens: 10_000, cacheWriteTokens: 3_000, cacheWrite1hTokens: 1_000 }),
      rec({ model: 'beta', inputTokens: 500, outputTokens: 50 }),
    ]);
    expect(s).toMatchObject({
      inputTokens: 1_500,
      outputTokens: 2_050,
      thinkingTokens: 500,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 3_000,
      cacheWrite1hTokens: 1_000,
      cachedTokens: 13_000,
      requestCount: 2,
      unpricedCount: 0,
      sessionCount: 1,
      runCount: 1,
      unpriced: [],
    });
    const expected = (1_000 * 1 + 2_000 * 10 + 10_000 * 0.1 + 2_000 * 1.25 + 1_000 * 2 + 500 * 2 + 50 * 20) / 1e6;
    expect(s.totalUsd).toBeCloseTo(expected, 9);
    expect(s.breakdowns).toBeUndefined();
  });

  it('counts sessions by (agent, session id) and runs by file', async () => {
    const s = await fold([
      rec({ sessionId: 'a', file: '/h/a.jsonl' }),
      rec({ sessionId: 'a', file: '/h/a/subagents/agent-1.jsonl' }),
      rec({ sessionId: 'b', file: '/h/b.jsonl' }),
      rec({ agent: 'codex', sessionId: 'b', file: '/c/b.jsonl' }),
    ]);
    expect(s.sessionCount).toBe(3);
    expect(s.runCount).toBe(4);
  });

  it('folds to a zero-valued summary when nothing matches', async () => {
    const zero = { totalUsd: 0, inputTokens: 0, outputTokens: 0, requestCount: 0, sessionCount: 0, runCount: 0, unpriced: [] };
    expect(await fold([])).toMatchObject(zero);
    expect(await fold([rec()], { agent: 'codex' })).toMatchObject(zero);
    expect((await fold([rec()], { agent: 'codex', groupBy: 'day' })).breakdowns).toEqual({});
  });
});

describe('dedup across files', () => {
  it('counts a dedup key once, keeping the copy with the most output tokens', async () => {
    const s = await fold([
      rec({ dedupKey: 'r1', file: '/h/a.jsonl', outputTokens: 10 }),
      rec({ dedupKey: 'r1', file: '/h/b.jsonl', sessionId: 's2', outputTokens: 300 }),
      rec({ dedupKey: 'r1', file: '/h/c.jsonl', sessionId: 's3', outputTokens: 20 }),
    ]);
    expect(s.requestCount).toBe(1);
    expect(s.outputTokens).toBe(300);
    expect(s.sessionCount).toBe(1);
    expect(s.runCount).toBe(1);
  });

  it('gives the same summary whatever order the records arrive in', async () => {
    const base = [
      rec({ dedupKey: 'x', file: '/h/a.jsonl', outputTokens: 5, inputTokens: 7 }),
      rec({ dedupKey: 'x', file: '/h/b.jsonl', sessionId: 'other', outputTokens: 5, inputTokens: 7 }),
      rec({ dedupKey: 'x', file: '/h/c.jsonl', outputTokens: 5, inputTokens: 9 }),
      // Copies made in another session, in files that sort first: they lose every tie, whatever the order.
      rec({ dedupKey: 'x', file: '/h/0.jsonl', sessionId: 'copy', outputTokens: 5, inputTokens: 9, copied: true }),
      rec({ dedupKey: 'y', file: '/h/0.jsonl', sessionId: 'copy', model: 'beta', copied: true }),
      // A copy the cache retained from a file gone since loses a tie to a live one, whatever the order.
      rec({ dedupKey: 'z', file: '/h/0.jsonl', model: 'unknown-zz', sessionId: 'gone', retained: true }),
      rec({ dedupKey: 'y', file: '/h/a.jsonl', model: 'beta' }),
      rec({ dedupKey: 'z', file: '/h/b.jsonl', model: 'unknown-zz', sessionId: 'other' }),
      rec({ dedupKey: 'z', file: '/h/a.jsonl', model: 'unknown-zz' }),
      ...Array.from({ length: 20 }, (_, i) => rec({ dedupKey: `m${i % 7}`, outputTokens: i % 3, file: `/h/f${i % 4}.jsonl`, sessionId: `s${i % 4}` })),
    ];
    const expected = JSON.stringify(await fold(base, { groupBy: 'session' }));
    expect(Object.keys((await fold(base, { groupBy: 'session' })).breakdowns ?? {}).filter((k) => k === 'claude:copy' || k === 'claude:gone')).toEqual([]);
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(base, { minLength: base.length, maxLength: base.length }), async (order) => {
        expect(JSON.stringify(await fold(order, { groupBy: 'session' }))).toBe(expected);
      }),
      { numRuns: 50, seed: 7 },
    );
  });
});

describe('filters', () => {
  const records = () => [
    rec({ agent: 'claude', model: 'alpha', timestamp: '2026-01-01T10:00:00Z', cwd: '/work/app', sessionId: 'c1' }),
    rec({ agent: 'codex', model: 'beta', timestamp: '2026-01-05T10:00:00Z', cwd: '/work/app/sub', sessionId: 'x1' }),
    rec({ agent: 'codex', model: 'beta-mini', timestamp: '2026-02-01T10:00:00Z', cwd: '/work/application', sessionId: 'x2' }),
    rec({ agent: 'pi', model: 'alpha', timestamp: '2026-02-10T10:00:00Z', sessionId: 'p1', cwd: undefined }),
  ];
  const count = async (o: Parameters<typeof foldCost>[1]) => (await fold(records(), o)).requestCount;

  it('since / until (inclusive)', async () => {
    expect(await count({ since: new Date('2026-01-05T10:00:00Z') })).toBe(3);
    expect(await count({ until: new Date('2026-01-05T10:00:00Z') })).toBe(2);
    expect(await count({ since: new Date('2026-01-02T00:00:00Z'), until: new Date('2026-02-01T00:00:00Z') })).toBe(1);
  });

  it('agent and agents', async () => {
    expect(await count({ agent: 'codex' })).toBe(2);
    expect(await count({ agents: ['claude', 'pi'] })).toBe(2);
  });

  it('model (case-insensitive substring of the recorded id)', async () => {
    expect(await count({ model: 'BETA' })).toBe(2);
    expect(await count({ model: 'beta-mini' })).toBe(1);
  });

  it('cwd selects the directory and everything under it, not siblings sharing a prefix', async () => {
    expect(await count({ cwd: '/work/app' })).toBe(2);
    expect(await count({ cwd: '/work/app/' })).toBe(2);
    expect(await count({ cwd: '/work' })).toBe(3);
  });

  it('tags (any of them)', async () => {
    const tagIndex: TagIndex = { empty: false, tagsFor: (agent, id) => (agent === 'codex' && id === 'x1' ? ['billing', 'x'] : agent === 'pi' ? ['ops'] : []) };
    expect(await count({ tags: ['billing'], tagIndex })).toBe(1);
    expect(await count({ tags: ['ops', 'billing'], tagIndex })).toBe(2);
  });

  it('rejects bad options with INVALID_OPTION', async () => {
    await expect(fold([], { groupBy: 'year' as never })).rejects.toThrow(/Invalid option groupBy/);
    await expect(fold([], { timeZone: 'Mars/Olympus' })).rejects.toThrow(/Invalid option timeZone/);
    await expect(fold([], { since: new Date('nope') })).rejects.toThrow(/Invalid option since/);
  });
});

describe('breakdowns', () => {
  const keysOf = (s: CostSummary) => Object.keys(s.breakdowns ?? {});

  it('by agent, model, session and project, with per-group session counts', async () => {
    const rs = [
      rec({ agent: 'claude', sessionId: 'a', model: 'alpha', cwd: '/p/one' }),
      rec({ agent: 'claude', sessionId: 'b', model: 'alpha', cwd: '/p/one' }),
      rec({ agent: 'codex', sessionId: 'a', model: 'beta', cwd: undefined }),
    ];
    const byAgent = await fold(rs, { groupBy: 'agent' });
    expect(byAgent.breakdowns?.claude).toMatchObject({ key: 'claude', requestCount: 2, sessionCount: 2 });
    expect(byAgent.breakdowns?.codex).toMatchObject({ requestCount: 1, sessionCount: 1 });
    expect(keysOf(await fold(rs, { groupBy: 'model' })).sort()).toEqual(['alpha', 'beta']);
    expect(keysOf(await fold(rs, { groupBy: 'session' })).sort()).toEqual(['claude:a', 'claude:b', 'codex:a']);
    expect(keysOf(await fold(rs, { groupBy: 'project' })).sort()).toEqual(['(unknown)', '/p/one']);
  });

  it('breakdown totals add up to the summary', async () => {
    const rs = Array.from({ length: 30 }, (_, i) => rec({ model: i % 3 ? 'alpha' : 'beta', timestamp: `2026-01-${String(1 + (i % 20)).padStart(2, '0')}T08:00:00Z`, outputTokens: i * 13 }));
    const s = await fold(rs, { groupBy: 'day' });
    const rows = Object.values(s.breakdowns ?? {});
    expect(rows.reduce((a, r) => a + r.outputTokens, 0)).toBe(s.outputTokens);
    expect(rows.reduce((a, r) => a + r.totalUsd, 0)).toBeCloseTo(s.totalUsd, 9);
    expect(keysOf(s)).toEqual([...keysOf(s)].sort());
  });

  it('by tag: a session with two tags counts in both; untagged usage has its own row', async () => {
    const tagIndex: TagIndex = { empty: false, tagsFor: (_a, id) => (id === 't' ? ['x', 'y'] : []) };
    const s = await fold([rec({ sessionId: 't' }), rec({ sessionId: 'u' })], { groupBy: 'tag', tagIndex });
    expect(keysOf(s).sort()).toEqual(['(untagged)', 'x', 'y']);
    expect(s.breakdowns?.x?.requestCount).toBe(1);
    expect(s.requestCount).toBe(2);
  });

  it('buckets days in the chosen time zone', async () => {
    const rs = [rec({ timestamp: '2026-01-01T23:30:00Z' }), rec({ timestamp: '2026-01-01T18:45:00Z' })];
    expect(keysOf(await fold(rs, { groupBy: 'day', timeZone: 'UTC' }))).toEqual(['2026-01-01']);
    expect(keysOf(await fold(rs, { groupBy: 'day', timeZone: 'Europe/Paris' }))).toEqual(['2026-01-01', '2026-01-02']);
    expect(keysOf(await fold(rs, { groupBy: 'day', timeZone: 'Asia/Kolkata' }))).toEqual(['2026-01-02']);
    expect(keysOf(await fold(rs, { groupBy: 'day', timeZone: 'America/Los_Angeles' }))).toEqual(['2026-01-01']);
  });

  it('buckets ISO weeks (Monday first) and months', async () => {
    const rs = [rec({ timestamp: '2024-12-29T12:00:00Z' }), rec({ timestamp: '2024-12-30T12:00:00Z' }), rec({ timestamp: '2025-01-05T12:00:00Z' })];
    expect(keysOf(await fold(rs, { groupBy: 'week' }))).toEqual(['2024-W52', '2025-W01']);
    expect(keysOf(await fold(rs, { groupBy: 'month' }))).toEqual(['2024-12', '2025-01']);
  });

  it('puts usage without a timestamp in an (unknown) bucket', async () => {
    const s = await fold([rec({ timestamp: '1970-01-01T00:00:00.000Z' }), rec()], { groupBy: 'day' });
    expect(keysOf(s)).toEqual(['(unknown)', '2026-01-10']);
  });
});

describe('unpriced usage and modes', () => {
  it('lists unpriced models with counts and tokens, and never adds them as $0', async () => {
    const s = await fold([
      rec({ model: 'mystery-1', inputTokens: 10, outputTokens: 5, cacheReadTokens: 3 }),
      rec({ model: 'mystery-1', inputTokens: 20, outputTokens: 5 }),
      rec({ model: 'mystery-2', provider: 'acme', inputTokens: 1, outputTokens: 1 }),
      rec({ model: 'beta', inputTokens: 1_000_000, outputTokens: 0 }),
    ]);
    expect(s.totalUsd).toBeCloseTo(2, 9);
    expect(s.unpricedCount).toBe(3);
    expect(s.unpriced).toEqual([
      { model: 'mystery-1', count: 2, inputTokens: 30, outputTokens: 10, cacheReadTokens: 3, cacheWriteTokens: 0 },
      { model: 'mystery-2', provider: 'acme', count: 1, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    ]);
  });

  it('auto prefers the recorded cost, calculate ignores it, display uses only it', async () => {
    const rs = [rec({ costUsd: 1.5 }), rec({ inputTokens: 1_000_000, outputTokens: 0 })];
    const p = createPricer({ overrides });
    expect((await foldCost(rs, { pricer: p, mode: 'auto' })).totalUsd).toBeCloseTo(2.5, 9);
    expect((await foldCost(rs, { pricer: p, mode: 'calculate' })).totalUsd).toBeCloseTo(1.002, 9);
    const display = await foldCost(rs, { pricer: p, mode: 'display' });
    expect(display.totalUsd).toBeCloseTo(1.5, 9);
    expect(display.unpriced).toEqual([{ model: 'alpha', count: 1, inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }]);
  });

  it('the sync core folds the same as the async wrapper', async () => {
    const rs = [rec(), rec({ model: 'beta' }), rec({ dedupKey: 'dup' }), rec({ dedupKey: 'dup', outputTokens: 1 })];
    const f = createCostFold({ pricer, groupBy: 'model', timeZone: 'UTC' });
    for (const r of rs) f.add(r);
    expect(f.result()).toEqual(await fold(rs, { groupBy: 'model' }));
    expect(f.counts).toEqual({ records: 4, selected: 4, keys: 3 });
  });
});

describe('records read through the sessionfold-jsonl codec', () => {
  it('folds usage of exported sessions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-fold-'));
    const file = join(dir, 'sess-1.jsonl');
    const lines = [
      { type: 'sessionfold.session', version: 1, agent: 'claude', sessionId: 'sess-1', cwd: '/work/site', model: 'claude-sonnet-4-20250514' },
      { type: 'sessionfold.message', index: 0, role: 'user', content: 'hi', timestamp: '2026-03-01T10:00:00Z' },
      {
        type: 'sessionfold.message',
        index: 1,
        role: 'assistant',
        content: 'hello',
        timestamp: '2026-03-01T10:00:05Z',
        id: 'msg_1',
        usage: { inputTokens: 100, outputTokens: 1_000, cacheReadTokens: 20_000, cacheWriteTokens: 4_000, cacheWrite1hTokens: 4_000, singleRequest: true, dedupKey: 'claude:msg_1:req_1' },
      },
      {
        type: 'sessionfold.message',
        index: 2,
        role: 'assistant',
        content: 'again',
        timestamp: '2026-03-02T10:00:05Z',
        id: 'msg_2',
        usage: { model: 'gpt-5', provider: 'openai', inputTokens: 2_000, outputTokens: 500, reasoningTokens: 200, cacheReadTokens: 1_000, singleRequest: true },
      },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const records: UsageRecord[] = [];
    let cwd: string | undefined;
    for await (const e of sessionfoldJsonl.read(file, { kinds: ['session', 'usage'] })) {
      if (e.type === 'session') cwd = e.cwd;
      else if (e.type === 'usage') records.push({ ...e, file, ...(cwd !== undefined && { cwd }) });
    }
    const s = await foldCost(records, { pricer: createPricer({ mode: 'calculate', overrides: NO_OVERRIDES }), groupBy: 'model', timeZone: 'UTC', cwd: '/work/site' });
    // claude-sonnet-4: input 3, output 15, cache read 0.3, cache write 1h 6; gpt-5: input 1.25, output 10, cache read 0.125.
    const sonnet = (100 * 3 + 1_000 * 15 + 20_000 * 0.3 + 4_000 * 6) / 1e6;
    const gpt = (2_000 * 1.25 + 500 * 10 + 1_000 * 0.125) / 1e6;
    expect(s.totalUsd).toBeCloseTo(sonnet + gpt, 9);
    expect(s.breakdowns?.['claude-sonnet-4-20250514']?.totalUsd).toBeCloseTo(sonnet, 9);
    expect(s).toMatchObject({ requestCount: 2, thinkingTokens: 200, cacheWrite1hTokens: 4_000, sessionCount: 1, runCount: 1 });
  });
});
