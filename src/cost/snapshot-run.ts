/**
 * One incremental report's dealings with its stored snapshot (src/cost/incremental.ts): reading it, answering
 * with its summary when nothing was folded, and storing the run's fold over it.
 */
import type { FoldSnapshots, FoldSnapshot } from '../cache/folds.js';
import type { normalizeScanOptions } from '../scan/options.js';
import type { ScanDelta } from '../scan/types.js';
import type { CostFold } from './fold.js';
import { SnapshotLost } from './fold-state.js';
import type { NormalizedCostOptions } from './filter.js';
import type { ResolvedPrice } from './pricing.js';
import type { CostSummary } from './types.js';
import { retainedRecords } from './retained.js';
import { keepLive, retainedOf, type FoldRunInfo, type SnapshotFold } from './snapshot-fold.js';

/**
 * The change count a snapshot of this run may claim: the count at the start plus this run's own writes, when
 * the cache's count is exactly that now (nobody else wrote meanwhile); else the count at the start, which
 * makes the next run scan (safe: a snapshot never claims a write it did not see).
 */
export function changesSeen(snaps: FoldSnapshots, start: number, delta: ScanDelta): number {
  const own = start + (delta.writes ?? 0);
  try {
    return snaps.changes() === own ? own : start;
  } catch {
    return start;
  }
}

function sameGens(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, gen] of a) if (b.get(id) !== gen) return false;
  return true;
}

/** What one run needs to store its snapshot. */
export interface RunContext {
  key: string;
  snaps: FoldSnapshots;
  ns: ReturnType<typeof normalizeScanOptions>;
  n: NormalizedCostOptions;
  stats: string;
  info: FoldRunInfo;
  /** Whether cache connections stay open between runs (a resident process): then the fold is kept live. */
  reused: () => boolean;
}

/** The stored snapshot of a query, and the cache's change count at the start; none when it cannot be read. */
export function readSnapshot(snaps: FoldSnapshots, key: string, n: NormalizedCostOptions): { snap: FoldSnapshot | undefined; changesAtStart: number } {
  try {
    const snap = snaps.get(key);
    const changesAtStart = snap?.changesNow ?? snaps.changes();
    if (snap !== undefined) n.pricer.seed?.(JSON.parse(snap.prices) as ResolvedPrice[]);
    return { snap, changesAtStart };
  } catch {
    return { snap: undefined, changesAtStart: -1 };
  }
}

/**
 * Nothing to fold: the stored summary is the answer. Rows that moved on without changing a record (a deletion,
 * a re-read that found the same records) only move the snapshot's gens; a kept fold stands for the new version.
 * Such a move can turn counted lines into retained ones (a truncated file's records go to the cache's ledger
 * unchanged), so then the retained spend is worked out again, on the restored fold, and stored with the gens.
 * Undefined when the restored fold stopped reading meanwhile (another process stored a newer state).
 */
export async function answerUnchanged(run: RunContext, snap: FoldSnapshot, delta: ScanDelta, changes: number, sf: SnapshotFold): Promise<CostSummary | undefined> {
  const { snaps, key, ns, info } = run;
  const summary = JSON.parse(snap.summary) as CostSummary;
  let version: number | undefined = snap.version;
  const moved = !sameGens(snap.gens, delta.gens);
  let newSummary: string | undefined;
  if (moved) {
    const before = JSON.stringify(summary.retained ?? null);
    const records = await retainedRecords(ns, snaps.connection);
    // Restored to check what is retained against it (records may have turned retained, or live again).
    const fold = sf.restore();
    delete summary.retained;
    // Another process replaced the state while it was read, or copies it weighed changed what they are: no
    // answer here; the caller folds again.
    if (fold === undefined || !retainedOf(summary, fold, records, true)) return undefined;
    if (JSON.stringify(summary.retained ?? null) !== before) newSummary = JSON.stringify(summary);
  }
  if ((moved || snap.changesThen !== changes || snap.stats !== run.stats) && delta.usedInstance === snaps.instance) {
    try {
      info.saved = snaps.put(key, { gens: delta.gens, baseVersion: snap.version, changes, stats: run.stats, ...(newSummary !== undefined && { summary: newSummary }) });
      version = info.saved ? snaps.putVersion : undefined;
    } catch (e) {
      version = undefined;
      ns.onWarning(`Could not store the report's fold snapshot in ${ns.cachePath}: ${(e as Error).message}`);
    }
  }
  const live = sf.live;
  if (live !== undefined && (sf.fold === undefined || sf.fold === live.fold) && version !== undefined && live.at.version === snap.version) {
    live.at.version = version;
    keepLive(key, live);
  }
  return summary;
}

/** Store the run's fold (a restored one writes only the pieces it changed, over `baseVersion`) and keep it live. */
export function storeFold(run: RunContext, fold: CostFold, at: { version: number }, summary: CostSummary, delta: ScanDelta, changes: number, baseVersion: number | undefined): void {
  const { snaps, key, ns, n, info } = run;
  if (!delta.exact || delta.usedInstance !== snaps.instance) return;
  try {
    const restored = baseVersion !== undefined;
    const out = fold.exportState(restored);
    const base = {
      gens: delta.gens,
      header: out.header,
      prices: JSON.stringify(n.pricer.exportResolved?.() ?? []),
      summary: JSON.stringify(summary),
      seqCount: out.seqCount,
      changes,
      stats: run.stats,
    };
    // False when another process stored a newer snapshot meanwhile: that one stays.
    info.saved = snaps.put(key, { ...base, pieces: out.pieces, ...(restored && { baseVersion }) });
    if (info.saved && snaps.putVersion !== undefined && run.reused()) {
      fold.rebase();
      at.version = snaps.putVersion;
      keepLive(key, { fold, at, snaps, instance: snaps.instance });
    }
  } catch (e) {
    // Lost: a piece this fold had not read yet was replaced by another process's newer snapshot, which
    // stays (the same race `put`'s version check settles); nothing to warn about.
    if (!(e instanceof SnapshotLost)) ns.onWarning(`Could not store the report's fold snapshot in ${ns.cachePath}: ${(e as Error).message}`);
  }
}
