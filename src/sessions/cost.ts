/**
 * Cost records of sessions and messages. Pricing itself belongs to the cost module (`createPricer`): this
 * file only sums its per-event answers into CostRecords. A usage event without a price adds its tokens and
 * `unpricedCount`, never a silent $0.
 */
import { emptyCostRecord, type CostMode, type CostRecord } from '../cost/types.js';
import { TOKEN_FIELDS, type UsageEvent } from '../../cursors/protocol/events.js';
import type { SessionMessageUsage, UsagePricer } from './types.js';

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

/** One message's usage events as one usage: tokens summed, dedup keys `+`-joined, the first event's model. */
export function sumUsage(events: UsageEvent[]): SessionMessageUsage {
  const first = events[0] as UsageEvent;
  const out = { model: first.model } as SessionMessageUsage;
  for (const f of TOKEN_FIELDS) out[f] = events.reduce((n, e) => n + e[f], 0);
  out.singleRequest = events.length === 1 && first.singleRequest;
  out.dedupKey = events.map((e) => e.dedupKey).join('+');
  out.requests = events.length;
  if (first.provider !== undefined) out.provider = first.provider;
  if (events.every((e) => e.modelFallback === true)) out.modelFallback = true;
  if (first.speed !== undefined && events.every((e) => e.speed === first.speed)) out.speed = first.speed;
  if (events.some((e) => e.webSearchRequests !== undefined)) out.webSearchRequests = events.reduce((a, e) => a + (e.webSearchRequests ?? 0), 0);
  if (events.every((e) => e.copied === true)) out.copied = true;
  if (events.every((e) => e.costUsd !== undefined)) out.costUsd = events.reduce((n, e) => n + (e.costUsd as number), 0);
  return out;
}
