/**
 * The blocks fold against the totals fold when copies of a response lack a usable timestamp: the copy that
 * counts is chosen among all copies (`beatsCopy`), timed or not, so a window never holds a copy the totals
 * leave out, and a response whose counted copy is untimed is one `untimedCount`, however many copies it has.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBlocksFold, type BlocksReport } from '../src/cost/blocks.js';
import { foldCost } from '../src/cost/fold.js';
import { parseOverrides } from '../src/cost/overrides.js';
import { createPricer } from '../src/cost/pricing.js';
import type { UsageRecord } from '../src/scan/types.js';
import { usageRecord } from './helpers/usage-record.js';

const pricer = createPricer({ mode: 'auto', overrides: parseOverrides({ models: { alpha: { input_mtok: 1, output_mtok: 10 } } }, '<test>') });
const NOW = new Date('2026-01-10T13:00:00Z');
const EPOCH = '1970-01-01T00:00:00.000Z';

function blocksOf(records: readonly UsageRecord[]): BlocksReport {
  const fold = createBlocksFold({ pricer, now: NOW });
  for (const r of records) fold.add(r);
  return fold.result();
}

const windowsOut = (r: BlocksReport): number => r.blocks.reduce((a, b) => a + b.tokenCounts.outputTokens, 0);
const windowsEntries = (r: BlocksReport): number => r.blocks.reduce((a, b) => a + b.entries, 0);

describe('blocks fold: copies without a timestamp', () => {
  it('an untimed copy that beats the timed one takes the response out of the windows, as the totals count it', async () => {
    const timed = usageRecord(1, { dedupKey: 'K', outputTokens: 10, file: '/h/a.jsonl' });
    const untimed = usageRecord(2, { dedupKey: 'K', outputTokens: 20, file: '/h/b.jsonl', timestamp: 'garbage' });
    for (const order of [[timed, untimed], [untimed, timed]]) {
      const totals = await foldCost(order, { pricer });
      expect(totals.outputTokens).toBe(20);
      const report = blocksOf(order);
      expect(report.blocks).toEqual([]);
      expect(report.untimedCount).toBe(1);
    }
  });

  it('a timed copy that beats an untimed one stays in its window and is not counted untimed', () => {
    const timed = usageRecord(1, { dedupKey: 'K', outputTokens: 30 });
    const untimed = usageRecord(2, { dedupKey: 'K', outputTokens: 20, timestamp: EPOCH });
    for (const order of [[timed, untimed], [untimed, timed]]) {
      const report = blocksOf(order);
      expect(report.blocks.map((b) => [b.entries, b.tokenCounts.outputTokens])).toEqual([[1, 30]]);
      expect(report.untimedCount).toBe(0);
    }
  });

  it('counts a response with several untimed copies once', () => {
    const a = usageRecord(1, { dedupKey: 'U', timestamp: 'garbage', file: '/h/a.jsonl' });
    const b = usageRecord(2, { dedupKey: 'U', timestamp: EPOCH, file: '/h/b.jsonl' });
    const c = usageRecord(3, { dedupKey: 'V', timestamp: 'garbage' });
    expect(blocksOf([a, b, c]).untimedCount).toBe(2);
  });

  it('windows plus untimed responses are the totals’ requests and output tokens, in any order', async () => {
    const copy = fc.record({ key: fc.integer({ min: 0, max: 5 }), hour: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }), out: fc.integer({ min: 0, max: 3 }), file: fc.integer({ min: 0, max: 2 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(copy, { maxLength: 20 }), async (copies) => {
        const records = copies.map((c, i) =>
          usageRecord(i + 1, {
            dedupKey: `k${c.key}`,
            outputTokens: c.out,
            file: `/h/f${c.file}.jsonl`,
            timestamp: c.hour === undefined ? EPOCH : new Date(Date.UTC(2026, 0, 10) + c.hour * 3_600_000).toISOString(),
          }),
        );
        const report = blocksOf(records);
        const untimedOnly = blocksOf(records.map((r) => ({ ...r, timestamp: EPOCH })));
        const totals = await foldCost(records, { pricer });
        expect(windowsEntries(report) + report.untimedCount).toBe(totals.requestCount);
        expect(untimedOnly.untimedCount).toBe(totals.requestCount);
        // Each untimed winner holds the copy the totals count: the windows hold the rest of the output.
        const winners = new Map<string, UsageRecord>();
        for (const r of records) {
          const old = winners.get(r.dedupKey);
          if (old === undefined || r.outputTokens > old.outputTokens || (r.outputTokens === old.outputTokens && (r.file < old.file || (r.file === old.file && r.offset < old.offset)))) winners.set(r.dedupKey, r);
        }
        const untimedOut = [...winners.values()].filter((r) => r.timestamp === EPOCH).reduce((a, r) => a + r.outputTokens, 0);
        expect(windowsOut(report) + untimedOut).toBe(totals.outputTokens);
        expect(blocksOf([...records].reverse())).toEqual(report);
      }),
      { numRuns: 200 },
    );
  });
});

describe('blocks fold: the active window\u2019s projection', () => {
  it('extends the burn rate over the exact time left and rounds only the minutes shown (ccusage projectBlockUsage)', () => {
    const now = new Date('2026-01-10T11:47:15.900Z'); // the window 10:00–15:00 has 192.735 minutes left
    const fold = createBlocksFold({ pricer, now });
    fold.add(usageRecord(1, { dedupKey: 'a', timestamp: '2026-01-10T10:00:00.000Z' }));
    fold.add(usageRecord(2, { dedupKey: 'b', timestamp: '2026-01-10T11:00:00.000Z' }));
    const active = fold.result(now).blocks.find((b) => b.isActive);
    const left = (Date.parse('2026-01-10T15:00:00Z') - now.getTime()) / 60_000;
    const perMinute = (active?.totalTokens as number) / 60;
    expect(active?.projection).toMatchObject({ remainingMinutes: 193, totalTokens: Math.round((active?.totalTokens as number) + perMinute * left) });
    // whole minutes (192) would project a different count
    expect(active?.projection?.totalTokens).not.toBe(Math.round((active?.totalTokens as number) + perMinute * 192));
  });
});
