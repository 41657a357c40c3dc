/**
 * Retained spend: how much of a cached report's total comes from lines no longer in their file. The event
 * cache's ledger (src/cache/store.ts) keeps usage it has seen after its file was rewritten, truncated or
 * deleted, and the scan yields it as `retained` records, so a cached report never loses spend; a `cache: false`
 * run counts only what the files hold now and is lower by exactly this amount.
 *
 * The fold is the judge: a retained record is retained spend when it is the copy the fold counts for its
 * dedup key (`CostFold.holds`), so a selection that leaves it out, or a live copy of the same response in
 * another file, counts nothing here; a live copy wins a tie of tokens (`copyRank`: a moved folder, a
 * compressed rollout), so spend still in a file is never called retained. The incremental fold never sees a record turn retained (the cache's
 * deltas compare records without the flag), which is why the records come from the cache's rows, not the
 * stream the fold read.
 */
import type { Db } from '../cache/db.js';
import type { EventCache as EventCacheType } from '../cache/store.js';
import type { NormalizedScanOptions } from '../scan/options.js';
import type { UsageRecord } from '../scan/types.js';
import type { CostFold } from './fold.js';
import { emptyCostRecord, type CostRecord } from './types.js';

/**
 * The cached records of the scanned sources that their files no longer hold (ledger, deleted files); read
 * through `connection` (the run's fold snapshots') while it is open on the cache.
 */
export async function retainedRecords(ns: NormalizedScanOptions, connection?: Db): Promise<UsageRecord[]> {
  if (!ns.cache) return [];
  const { EventCache } = await import('../cache/store.js');
  let cache: EventCacheType;
  try {
    cache = EventCache.open(ns.cachePath, () => undefined, connection);
  } catch {
    return []; // the scan said what is wrong with the cache
  }
  try {
    // Only the rows that hold any (every row of a long history, loaded again, was most of this pass).
    const rows = cache.retainingFiles(ns.sources.map((s) => s.codec.id));
    const roots = new Map(ns.sources.map((s) => [s.codec.id, new Set(s.roots)]));
    const holding = rows.filter((r) => roots.get(r.agent)?.has(r.root) === true);
    if (holding.length === 0) return [];
    return cache.readFiles(holding).records.filter((r) => r.retained === true);
  } finally {
    cache.close();
  }
}

/** The retained records the fold counts, summed and priced as the fold prices them; undefined when none. */
export function retainedSpend(fold: CostFold, records: readonly UsageRecord[]): CostRecord | undefined {
  const out = emptyCostRecord();
  const { pricer, mode } = fold.options;
  for (const r of records) {
    if (!fold.holds(r)) continue;
    out.requestCount++;
    out.inputTokens += r.inputTokens;
    out.outputTokens += r.outputTokens;
    out.thinkingTokens += r.reasoningTokens ?? 0;
    out.cacheReadTokens += r.cacheReadTokens;
    out.cacheWriteTokens += r.cacheWriteTokens;
    out.cacheWrite1hTokens += r.cacheWrite1hTokens ?? 0;
    const usd = pricer.priceUsd(r, mode);
    if (Number.isNaN(usd)) out.unpricedCount++;
    // Nano-dollars, as the fold sums them, so the figure does not depend on the records' order.
    else out.totalUsd += Math.round(usd * 1e9);
  }
  if (out.requestCount === 0) return undefined;
  out.totalUsd /= 1e9;
  out.cachedTokens = out.cacheReadTokens + out.cacheWriteTokens;
  return out;
}
