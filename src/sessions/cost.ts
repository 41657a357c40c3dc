/**
 * Cost records of sessions and messages. Pricing itself belongs to the cost module (`createPricer`): this
 * file only sums its per-event answers into CostRecords. A usage event without a price adds its tokens and
 * `unpricedCount`, never a silent $0.
 */
import { emptyCostRecord, type CostMode, type CostRecord } from '../cost/types.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';
import type { UsagePricer } from './types.js';

/** A zero CostRecord. */
export const emptyCost = emptyCostRecord;

/** Add one usage event (priced at `usd`, undefined when it has no price) to `rec`. */
export function addUsage(rec: CostRecord, u: UsageEvent, usd: number | undefined): void {
  if (usd === undefined) rec.unpricedCount++;
  else rec.totalUsd += usd;
  rec.inputTokens += u.inputTokens;
  rec.outputTokens += u.outputTokens;
  rec.thinkingTokens += u.reasoningTokens;
  rec.cacheReadTokens += u.cacheReadTokens;
  rec.cacheWriteTokens += u.cacheWriteTokens;
  rec.cacheWrite1hTokens += u.cacheWrite1hTokens;
  rec.cachedTokens += u.cacheReadTokens + u.cacheWriteTokens;
  rec.requestCount++;
}

/** A sync `(usage) => usd | undefined` bound to a pricer and a cost mode. */
export type PriceFn = (u: UsageEvent) => number | undefined;

export function bindPricer(pricer: UsagePricer, mode: CostMode): PriceFn {
  return (u) => {
    const r = pricer.price(u, mode);
    return r.usd !== undefined && Number.isFinite(r.usd) ? r.usd : undefined;
  };
}

/** The cost module's pricer, loaded on first use (prices are only needed by folds that read usage). */
export async function loadDefaultPricer(options: { env: NodeJS.ProcessEnv; pricesFile?: string | undefined }): Promise<UsagePricer> {
  const { createPricer } = await import('../cost/pricing.js');
  return createPricer({ env: options.env, ...(options.pricesFile !== undefined && { pricesFile: options.pricesFile }) }) as UsagePricer;
}

