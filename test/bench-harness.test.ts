/**
 * The benchmark harness's promises (not its timings): a case is checked before it is timed, a wrong result
 * never becomes a number, and the expected.json comparison names where a reader went wrong.
 */
import { describe, expect, it } from 'vitest';
import { FAST_CASE_ITERATIONS, runCase, type BenchEnv } from '../bench/lib/harness.js';
import { compareTotals, Ledger, UsageCollector } from '../fixtures/generate/index.js';

const env: BenchEnv = { scale: 0.01, seed: 't', iterations: 3, dir: '/nonexistent', bigBytes: 1 };

describe('bench harness', () => {
  it('times a case only after its first result verifies, then reports throughput', async () => {
    let runs = 0;
    const r = await runCase('t', { name: 'ok', bytes: 2e6, run: () => ({ events: ++runs }), verify: (x) => expect(x.events).toBe(1) }, env);
    expect(r.status).toBe('ok');
    // A case this fast gets FAST_CASE_ITERATIONS samples.
    expect(runs).toBe(1 + FAST_CASE_ITERATIONS);
    expect(r.iterations).toBe(FAST_CASE_ITERATIONS);
    expect(r.mbPerSec).toBeGreaterThan(0);
    expect(r.peakRssMb).toBeGreaterThan(0);
  });

  it('throws instead of timing a case whose result is wrong', async () => {
    let runs = 0;
    const wrong = runCase('t', { name: 'wrong', run: () => ({ events: ++runs }), verify: () => { throw new Error('12 events, expected 13'); } }, env);
    await expect(wrong).rejects.toThrow('12 events, expected 13');
    expect(runs).toBe(1);
  });

  it('lists a skipped case with its reason and runs nothing', async () => {
    const r = await runCase('t', { name: 's', skip: 'codec x is not registered yet', run: () => { throw new Error('ran'); }, verify: () => undefined }, env);
    expect(r).toMatchObject({ status: 'skipped', message: 'codec x is not registered yet' });
  });

  it('names the agent, day, model and field where a reader differs from expected.json', () => {
    const ledger = new Ledger();
    const u = { inputTokens: 10, outputTokens: 5, reasoningTokens: 0, cacheReadTokens: 100, cacheWriteTokens: 7, cacheWrite1hTokens: 0 };
    ledger.usage('claude', Date.parse('2025-06-01T10:00:00Z'), 'claude-sonnet-4-5-20250929', u);
    const found = new UsageCollector();
    const e = { agent: 'claude', model: 'claude-sonnet-4-5-20250929', timestamp: '2025-06-01T10:00:00.000Z', dedupKey: 'k', ...u };
    found.add({ ...e, outputTokens: 1 });
    found.add(e); // the later, larger record of the same response wins
    found.add(e);
    expect(compareTotals(ledger.toJSON(), found.totals())).toEqual([]);
    const off = new UsageCollector();
    off.add({ ...e, outputTokens: 4 });
    expect(compareTotals(ledger.toJSON(), off.totals())).toEqual([
      'claude outputTokens: expected 5, found 4',
      'claude 2025-06-01 outputTokens: expected 5, found 4',
      'claude 2025-06-01 claude-sonnet-4-5-20250929 outputTokens: expected 5, found 4',
    ]);
  });
});
