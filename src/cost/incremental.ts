/**
 * The totals fold, incremental across runs. A report's fold state (the dedup table, the slot columns, the
 * interned strings: src/cost/fold-state.ts) is kept in the event cache's `folds` table under a key of
 * everything the result depends on (the query, the sources and their parsers, the price data, overrides and
 * rules, the tags, the time zone and its tz data). The next run with the same key restores it and folds
 * only what changed since: the event cache's incremental scan (ScanDelta) yields the records the state does
 * not hold (appended lines, new files) and lists the ones it holds that are gone.
 *
 * Why that is exact: the fold keeps, per dedup key, the copy that beats every other copy (a total order).
 * Folding the additions into the restored state gives the winner over old ∪ added records; that equals the
 * winner over the current records exactly when no removed record is the one counted (`CostFold.holds`). A
 * removal whose identical twin was added back (a replaced tail re-read unchanged) is no removal at all.
 * Whenever that does not hold, or the scan could not describe the change (another process updated a file
 * the state covers, a covered file left the selection, the cache was rebuilt), the fold starts from scratch
 * over the warm cache, and that state is stored instead. Results never depend on whether a snapshot was used
 * (test/fold-snapshots.test.ts compares both over sequences of appends, rewrites, deletions and resumes).
 *
 * Pricers and tag indexes without a `fingerprint` (made by the caller) are never cached.
 */
import { createHash } from 'node:crypto';
import { getParserString } from '../codec.js';
import { CORE_EVENT_VERSION } from '../events.js';
import { FoldSnapshots, type FoldSnapshot } from '../cache/folds.js';
import { normalizeScanOptions } from '../scan/options.js';
import { scanUsageBatches } from '../scan/index.js';
import { newScanDelta, type ScanDelta, type ScanOptions, type UsageRecord } from '../scan/types.js';
import { createCostFold, foldCost, type CostFold } from './fold.js';
import { FOLD_STATE_VERSION } from './fold-state.js';
import { normalizeCostOptions, type CostFoldOptions, type NormalizedCostOptions } from './filter.js';
import type { ResolvedPrice } from './pricing.js';
import type { CostSummary } from './types.js';

/** Goes up when the meaning of a snapshot key's parts changes. */
const SNAPSHOT_KEY_VERSION = 1;

/** How a run used the fold snapshots. */
export interface FoldRunInfo {
  /**
   * `hit`: a snapshot was restored and only the change folded; `miss`: none stored for this query (one was
   * stored); `fallback`: one was stored but the change was not additive, so the fold started over; `off`:
   * not used (no cache, `snapshots: false`, or a pricer / tag index without a fingerprint).
   */
  snapshot: 'hit' | 'miss' | 'fallback' | 'off';
  /** Records folded this run. */
  folded: number;
  /** Records the restored state held that were gone. */
  removed: number;
  /** Whether a new snapshot was written. */
  saved: boolean;
}

/** The snapshot key of a query: a hash of everything its result depends on besides the records. */
export function snapshotKey(n: NormalizedCostOptions, scan: ReturnType<typeof normalizeScanOptions>): string | undefined {
  if (n.pricer.fingerprint === undefined || (n.tagIndex !== undefined && n.tagIndex.fingerprint === undefined)) return undefined;
  const parts = {
    v: SNAPSHOT_KEY_VERSION,
    state: FOLD_STATE_VERSION,
    core: CORE_EVENT_VERSION,
    sources: scan.sources.map((s) => [s.codec.id, getParserString(s.codec), [...s.roots].sort()]),
    retainDeleted: scan.retainDeleted,
    scanSince: scan.since ?? null,
    agents: n.agents === undefined ? null : [...n.agents].sort(),
    since: Number.isFinite(n.sinceMs) ? n.sinceMs : null,
    until: Number.isFinite(n.untilMs) ? n.untilMs : null,
    model: n.model ?? null,
    tags: n.tags === undefined ? null : [...n.tags].sort(),
    cwd: n.cwd ?? null,
    groupBy: n.groupBy ?? null,
    timeZone: n.calendar.timeZone,
    tzData: process.versions.tz ?? process.versions.icu ?? null,
    mode: n.mode,
    prices: n.pricer.fingerprint,
    tagIndex: n.tagIndex?.fingerprint ?? null,
  };
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

function sameGens(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, gen] of a) if (b.get(id) !== gen) return false;
  return true;
}

async function foldInto(fold: CostFold, scan: ScanOptions): Promise<number> {
  let n = 0;
  for await (const batch of scanUsageBatches(scan)) {
    for (const r of batch as readonly UsageRecord[]) fold.add(r);
    n += batch.length;
  }
  return n;
}

/**
 * `totalCost` through the fold snapshots (see the module header). Same result as a fresh fold, always.
 * @example
 * const info = {} as FoldRunInfo;
 * const s = await totalCostIncremental({ groupBy: 'day' }, {}, info); // info.snapshot: 'hit' on a warm run
 */
export async function totalCostIncremental(
  options: CostFoldOptions & { snapshots?: boolean },
  scan: ScanOptions,
  info: FoldRunInfo = { snapshot: 'off', folded: 0, removed: 0, saved: false },
): Promise<CostSummary> {
  Object.assign(info, { snapshot: 'off', folded: 0, removed: 0, saved: false });
  const n = normalizeCostOptions(options);
  // One pricer and tag index for the key and the folds (normalizing again must not load them again).
  const foldOptions: CostFoldOptions = { ...options, pricer: n.pricer, ...(n.tagIndex !== undefined && { tagIndex: n.tagIndex }) };
  const ns = normalizeScanOptions(scan);
  const key = options.snapshots === false || !ns.cache ? undefined : snapshotKey(n, ns);
  if (key === undefined) return foldCost(scanUsageBatches(scan), foldOptions);

  let snaps: FoldSnapshots;
  try {
    snaps = FoldSnapshots.open(ns.cachePath, ns.onWarning);
  } catch {
    // The scan opens the cache too, and says what is wrong with it.
    return foldCost(scanUsageBatches(scan), foldOptions);
  }
  try {
    let snap: FoldSnapshot | undefined;
    let fold: CostFold | undefined;
    try {
      snap = snaps.get(key);
      if (snap !== undefined) {
        n.pricer.seed?.(JSON.parse(snap.prices) as ResolvedPrice[]);
        fold = createCostFold(foldOptions, { header: snap.header, chunks: snap.chunks });
      }
    } catch {
      // A snapshot that does not decode is dropped; the fold starts over.
      snap = undefined;
      fold = undefined;
      try {
        snaps.delete(key);
      } catch {
        // read-only or busy: the next put replaces it
      }
    }

    let delta: ScanDelta = newScanDelta(snap?.gens ?? new Map(), snaps.instance);
    if (fold === undefined) {
      info.snapshot = 'miss';
      fold = createCostFold(foldOptions);
    } else info.snapshot = 'hit';
    info.folded = await foldInto(fold, { ...scan, delta });
    info.removed = delta.removed.length;

    let exact = delta.exact;
    if (exact) for (const r of delta.removed) if (fold.holds(r)) exact = false;
    if (!exact) {
      info.snapshot = snap === undefined ? 'miss' : 'fallback';
      fold = createCostFold(foldOptions);
      delta = newScanDelta(new Map(), snaps.instance);
      info.folded = await foldInto(fold, { ...scan, delta });
    }
    const summary = fold.result();
    const changed = !exact || snap === undefined || info.folded > 0 || info.removed > 0 || !sameGens(snap.gens, delta.gens);
    if (changed && delta.exact && delta.usedInstance === snaps.instance) {
      try {
        // A restored fold writes only the chunks it changed, over the version it restored.
        const baseVersion = exact ? snap?.version : undefined;
        const restored = baseVersion !== undefined;
        const out = fold.exportState(restored);
        const base = { gens: delta.gens, header: out.header, prices: JSON.stringify(n.pricer.exportResolved?.() ?? []), chunkCount: out.chunkCount };
        info.saved = snaps.put(key, { ...base, chunks: out.chunks, ...(restored && { baseVersion }) });
        if (!info.saved) info.saved = snaps.put(key, { ...base, chunks: fold.exportState(false).chunks });
      } catch (e) {
        ns.onWarning(`Could not store the report's fold snapshot in ${ns.cachePath}: ${(e as Error).message}`);
      }
    }
    return summary;
  } finally {
    snaps.close();
  }
}
