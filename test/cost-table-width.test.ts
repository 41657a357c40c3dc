/**
 * `cost report`'s table cuts and pads its labels by terminal columns (src/cli/render/width.ts): a `--compact`
 * label of emoji or CJK is cut between whole characters (a cut inside a surrogate pair printed U+FFFD), and
 * every row still fits 80 columns with its numbers lined up.
 */
import { describe, expect, it } from 'vitest';
import { renderTable } from '../src/cli/render/cost.js';
import { displayWidth } from '../src/cli/render/width.js';
import type { CostBreakdown, CostRecord, CostSummary } from '../src/cost/types.js';

const record = (n: number): CostRecord & { sessionCount: number } => ({
  inputTokens: 1000 * n,
  outputTokens: 100 * n,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  thinkingTokens: 0,
  cachedTokens: 0,
  totalUsd: 1.5 * n,
  requestCount: n,
  unpricedCount: 0,
  sessionCount: 1,
});

function summary(keys: string[]): CostSummary {
  const breakdowns: Record<string, CostBreakdown> = {};
  keys.forEach((key, i) => (breakdowns[key] = { key, ...record(i + 1) } as CostBreakdown));
  return { ...record(keys.length), breakdowns, unpriced: [] } as unknown as CostSummary;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('cost report table labels', () => {
  const keys = [`/home/uuu/${'🚀'.repeat(40)}`, `/home/uuu/${'項目'.repeat(30)}`, `/home/uuu/cafe\u0301-${'x'.repeat(60)}`, '/short'];

  it.each([true, false])('cuts whole characters and keeps the numbers lined up (compact %s)', (compact) => {
    const out = renderTable(summary(keys), { groupBy: 'project', compact });
    expect(out).not.toContain('\uFFFD');
    expect(out).not.toMatch(LONE_SURROGATE);
    const rows = out.split('\n').filter((l) => l.startsWith('/') || l.startsWith('Total'));
    expect(rows).toHaveLength(keys.length + 1);
    const ends = new Set(rows.map((l) => displayWidth(l)));
    expect(ends.size).toBe(1);
    if (compact) for (const l of out.trimEnd().split('\n')) expect(displayWidth(l), l).toBeLessThanOrEqual(80);
  });

  it('marks a cut label with one ellipsis after whole rockets', () => {
    const row = renderTable(summary(keys), { groupBy: 'project', compact: true }).split('\n').find((l) => l.includes('🚀'))!;
    expect(row).toMatch(/^\/home\/uuu\/(🚀)+… +\d/u);
  });
});
