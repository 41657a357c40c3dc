/**
 * USD as people read it, in one place so every table, status line and Markdown document prints a cost the same
 * way; JSON and CSV keep the raw number. Outside src/cli/ because the Markdown export (src/sessions/markdown.ts)
 * prints costs too and may not import the CLI; on its own so the CLI's session table loads it without the
 * registry.
 */
import type { CostRecord } from '../cost/types.js';

/**
 * An amount rounded to cents with en-US thousands separators, whatever the machine locale: `$7,576.92`,
 * `$0.00` for nothing. A positive amount that would round to `$0.00` prints `<$0.01`, so a cost that was
 * counted never reads as free.
 */
export function formatUsdAmount(n: number): string {
  const cents = Math.round(n * 100);
  if (cents === 0 && n > 0) return '<$0.01';
  const s = (Math.abs(cents) / 100).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${cents < 0 ? '-' : ''}$${s}`;
}

/** A session's cost as one cell (formatUsdAmount); `+?` when some of it is unpriced; `-` without a cost. */
export function formatUsd(cost: CostRecord | undefined): string {
  if (cost === undefined) return '-';
  const s = formatUsdAmount(cost.totalUsd);
  return cost.unpricedCount > 0 ? `${s}+?` : s;
}
