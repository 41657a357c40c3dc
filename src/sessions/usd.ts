/**
 * A session's cost as one short cell, on its own so the CLI's session table loads it without the registry.
 */
import type { CostRecord } from '../cost/types.js';

/** `$0.00`, `$0.0042` under a cent, `$1.23`; `+?` when some of it is unpriced; `-` without a cost. */
export function formatUsd(cost: CostRecord | undefined): string {
  if (cost === undefined) return '-';
  const v = cost.totalUsd;
  const s = v === 0 ? '$0.00' : v < 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
  return cost.unpricedCount > 0 ? `${s}+?` : s;
}
