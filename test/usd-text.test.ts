/**
 * One USD formatter for human text: the session tables, `cost report`, `cost blocks`, `statusline` and the
 * Markdown export print the same amount the same way, thousands separators and sub-cent amounts included.
 */
import { describe, expect, it } from 'vitest';
import { renderTable as renderCostTable } from '../src/cli/render/cost.js';
import { summaryCells } from '../src/cli/render/session-table.js';
import { renderStatusLine } from '../src/cli/render/statusline.js';
import type { CostRecord, CostSummary } from '../src/cost/types.js';
import { formatUsd, formatUsdAmount } from '../src/sessions/usd.js';

const record = (totalUsd: number, unpricedCount = 0): CostRecord => ({
  inputTokens: 1,
  outputTokens: 1,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  thinkingTokens: 0,
  cachedTokens: 0,
  totalUsd,
  requestCount: 1,
  unpricedCount,
});

const sessionCost = (totalUsd: number): string =>
  summaryCells({ updatedAt: new Date(0), exact: true, turnCount: 1, messageCount: 2, cost: record(totalUsd), model: 'm' }, 'UTC').cost;

const statusCost = (costUsd: number): string =>
  renderStatusLine({
    agent: 'claude',
    sessionId: 's',
    model: { id: 'm', displayName: 'M' },
    session: { costUsd, requests: 1, unpricedCount: 0 },
    sessionFound: true,
    today: { costUsd, requests: 1, unpricedCount: 0, date: '2026-01-01' },
    block: null,
    context: null,
    now: '2026-01-01T00:00:00.000Z',
  });

const reportTotal = (totalUsd: number): string => {
  const s = { ...record(totalUsd), sessionCount: 1, unpriced: [] } as unknown as CostSummary;
  return renderCostTable(s, { groupBy: undefined }).split('\n').find((l) => l.startsWith('Total'))!.split(/\s+/).at(-1)!;
};

describe('USD in human text', () => {
  it.each([
    [7576.92, '$7,576.92'],
    [1234567.891, '$1,234,567.89'],
    [0.0027, '<$0.01'],
    [0.005, '$0.01'],
    [0, '$0.00'],
    [12.3, '$12.30'],
  ])('prints %d as %s in a session table, a cost report and the status line', (n, text) => {
    expect(formatUsdAmount(n)).toBe(text);
    expect(sessionCost(n)).toBe(text);
    expect(reportTotal(n)).toBe(text);
    expect(statusCost(n)).toContain(`session ${text} · today ${text}`);
  });

  it('marks a cost with unpriced usage after the same amount', () => {
    expect(formatUsd(record(7576.92, 1))).toBe('$7,576.92+?');
    expect(formatUsd(record(0.0004, 1))).toBe('<$0.01+?');
    expect(formatUsd(undefined)).toBe('-');
  });
});
