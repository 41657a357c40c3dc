/**
 * Agreement between tools: per-day tokens of each tool against the generator's expected.json (the truth,
 * independent of every tool), and per-day cost of each peer against ours, to the cent.
 */
import { totalsByDay, type ExpectedDocument } from '../../fixtures/generate/index.js';
import type { DailyReport } from './tools.js';

export interface Agreement {
  days: number;
  /** Days whose input/output/cache tokens differ from expected.json. */
  tokenDays: string[];
  /** Sum over all days of (tool − expected), per field. */
  delta: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
  /** Days whose cost differs from ours by more than half a cent (only for peers). */
  costDays?: string[];
  maxCostDiff?: number;
  totalCost: number;
}

const FIELDS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

export function agreement(expected: ExpectedDocument, report: DailyReport, ours?: DailyReport): Agreement {
  const want = totalsByDay(expected);
  const days = [...new Set([...Object.keys(want), ...Object.keys(report)])].sort();
  const a: Agreement = { days: days.length, tokenDays: [], delta: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, totalCost: 0 };
  if (ours) {
    a.costDays = [];
    a.maxCostDiff = 0;
  }
  for (const day of days) {
    const w = want[day];
    const g = report[day];
    const wv = { inputTokens: w?.inputTokens ?? 0, outputTokens: w?.outputTokens ?? 0, cacheReadTokens: w?.cacheReadTokens ?? 0, cacheWriteTokens: w?.cacheWriteTokens ?? 0 };
    let off = false;
    for (const f of FIELDS) {
      const d = (g?.[f] ?? 0) - wv[f];
      a.delta[f] += d;
      if (d !== 0) off = true;
    }
    if (off) a.tokenDays.push(day);
    a.totalCost += g?.costUsd ?? 0;
    if (ours) {
      const diff = Math.abs((g?.costUsd ?? 0) - (ours[day]?.costUsd ?? 0));
      a.maxCostDiff = Math.max(a.maxCostDiff ?? 0, diff);
      if (diff >= 0.005) a.costDays!.push(day);
    }
  }
  return a;
}

function signed(n: number): string {
  return n === 0 ? '0' : `${n > 0 ? '+' : '−'}${Math.abs(n).toLocaleString('en-US')}`;
}

/** One cell: `exact` or what is off. */
export function describeAgreement(a: Agreement): string {
  const parts: string[] = [];
  if (a.tokenDays.length === 0) parts.push(`tokens exact on ${a.days} days`);
  else {
    const d = FIELDS.filter((f) => a.delta[f] !== 0).map((f) => `${f.replace('Tokens', '')} ${signed(a.delta[f])}`);
    parts.push(`tokens off on ${a.tokenDays.length}/${a.days} days (${d.join(', ') || 'offsetting'})`);
  }
  if (a.costDays !== undefined) parts.push(a.costDays.length === 0 ? 'cost = ours to the cent' : `cost ≠ ours on ${a.costDays.length} days (max $${(a.maxCostDiff ?? 0).toFixed(2)})`);
  return parts.join('; ');
}
