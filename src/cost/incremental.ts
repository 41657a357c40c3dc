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
import { getParserString } from '../../cursors/protocol/codec.js';
import { CORE_EVENT_VERSION } from '../../cursors/protocol/events.js';
import { sessionfoldVersion } from '../../cursors/versions.js';
import type { FoldSnapshots, FoldSnapshot } from '../cache/folds.js';
import { normalizeScanOptions } from '../scan/options.js';
import { discoverUsageFiles, discoveryStats, scanUsageBatches } from '../scan/index.js';
import type { Discovery } from '../scan/discover.js';
import { newScanDelta, SkipTally, type ScanDelta, type ScanOptions, type UsageRecord } from '../scan/types.js';
import { createCostFold, foldCost, type CostFold } from './fold.js';
import { FOLD_STATE_VERSION, SnapshotLost, columnSeq } from './fold-state.js';
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
  /**
   * Whether the event cache was scanned. Not when no file changed since the snapshot (same stats) and nothing
   * wrote to the cache's files meanwhile (`meta.changes`): the stored summary is the answer then.
   */
  scanned: boolean;
  /** Whether the fold was the one a resident process kept in memory (no restore from the stored state). */
  kept: boolean;
}

/** The snapshot key of a query: a hash of everything its result depends on besides the records. */
export function snapshotKey(n: NormalizedCostOptions, scan: ReturnType<typeof normalizeScanOptions>): string | undefined {
  if (n.pricer.fingerprint === undefined || (n.tagIndex !== undefined && n.tagIndex.fingerprint === undefined)) return undefined;
  const parts = {
    v: SNAPSHOT_KEY_VERSION,
    state: FOLD_STATE_VERSION,
    core: CORE_EVENT_VERSION,
    sessionfold: sessionfoldVersion(),
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

/**
 * The change count a snapshot of this run may claim: the count at the start plus this run's own writes, when
 * the cache's count is exactly that now (nobody else wrote meanwhile); else the count at the start, which
 * makes the next run scan (safe: a snapshot never claims a write it did not see).
 */
function changesSeen(snaps: FoldSnapshots, start: number, delta: ScanDelta): number {
  const own = start + (delta.writes ?? 0);
  try {
    return snaps.changes() === own ? own : start;
  } catch {
    return start;
  }
}

/**
 * Folds kept in memory after they were stored, by snapshot key, while cache connections are reused (a resident
 * process: `sessionfold serve`). The next run of the same query takes the fold itself instead of restoring it
 * from the stored state, when the stored version is still the one it was kept at (no other process stored a
 * newer one) and it reads through the same open connection. Its lazily read column pieces are read at the
 * version in `at`, which moves with every put. A run that takes one and fails keeps nothing.
 */
interface LiveFold {
  fold: CostFold;
  at: { version: number };
  snaps: FoldSnapshots;
  instance: string;
}
const liveFolds = new Map<string, LiveFold>();
const MAX_LIVE_FOLDS = 4;

function keepLive(key: string, live: LiveFold): void {
  liveFolds.delete(key);
  liveFolds.set(key, live);
  while (liveFolds.size > MAX_LIVE_FOLDS) liveFolds.delete(liveFolds.keys().next().value as string);
}

function dropSnapshot(snaps: FoldSnapshots, key: string): void {
  try {
    snaps.delete(key);
  } catch {
    // read-only or busy: the next put replaces it
  }
}

function sameGens(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, gen] of a) if (b.get(id) !== gen) return false;
  return true;
}

async function foldInto(fold: CostFold, scan: ScanOptions, discovery: Discovery): Promise<number> {
  let n = 0;
  for await (const batch of scanUsageBatches(scan, discovery)) {
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
  info: FoldRunInfo = { snapshot: 'off', folded: 0, removed: 0, saved: false, scanned: false, kept: false },
): Promise<CostSummary> {
  Object.assign(info, { snapshot: 'off', folded: 0, removed: 0, saved: false, scanned: true, kept: false });
  const n = normalizeCostOptions(options);
  // One pricer and tag index for the key and the folds (normalizing again must not load them again).
  const foldOptions: CostFoldOptions = { ...options, pricer: n.pricer, ...(n.tagIndex !== undefined && { tagIndex: n.tagIndex }) };
  const ns = normalizeScanOptions(scan);
  const key = options.snapshots === false || !ns.cache ? undefined : snapshotKey(n, ns);
  if (key === undefined) return foldCost(scanUsageBatches(scan), foldOptions);

  // The cache (SQLite) is loaded only by a fold that uses it.
  const [{ FoldSnapshots }, { isConnectionReused }] = await Promise.all([import('../cache/folds.js'), import('../cache/db.js')]);
  let snaps: FoldSnapshots;
  try {
    snaps = FoldSnapshots.open(ns.cachePath, ns.onWarning);
  } catch {
    // The scan opens the cache too, and says what is wrong with it.
    return foldCost(scanUsageBatches(scan), foldOptions);
  }
  try {
    let snap: FoldSnapshot | undefined;
    let changesAtStart = -1;
    try {
      snap = snaps.get(key);
      changesAtStart = snap?.changesNow ?? snaps.changes();
      if (snap !== undefined) n.pricer.seed?.(JSON.parse(snap.prices) as ResolvedPrice[]);
    } catch {
      snap = undefined;
    }
    const discovery = await discoverUsageFiles(scan);
    const stats = discoveryStats(discovery);
    // Not one write to the cache's files since the snapshot, and every file as it saw them: its summary is
    // the answer, without reading a row.
    if (snap !== undefined && snap.changesThen === changesAtStart && changesAtStart >= 0 && snap.stats === stats) {
      info.snapshot = 'hit';
      info.scanned = false;
      // The warning a scan would give about skipped lines, from the rows (a served run equals a local one).
      const skipped = Object.assign(new SkipTally(), snaps.skipped(ns.sources.map((s) => ({ agent: s.codec.id, roots: s.roots }))));
      const w = skipped.warning();
      if (w !== undefined) ns.onWarning(w);
      return JSON.parse(snap.summary) as CostSummary;
    }
    // The stored state is read and restored only once there is something to fold: a run where nothing
    // changed answers with the stored summary without reading it.
    let fold: CostFold | undefined;
    let lost = false;
    /** The version the fold's column pieces are read at (a kept fold's moves with each put). */
    let at = { version: snap?.version ?? 0 };
    const live = liveFolds.get(key);
    liveFolds.delete(key);
    const restore = (): CostFold | undefined => {
      if (fold !== undefined || lost) return fold;
      if (snap === undefined) return (fold = createCostFold(foldOptions));
      if (live !== undefined && live.at.version === snap.version && live.instance === snaps.instance && live.snaps.sameConnection(snaps)) {
        at = live.at;
        info.kept = true;
        return (fold = live.fold);
      }
      const version = snap.version;
      try {
        const state = snaps.state(key, version);
        if (state !== undefined) {
          // Column pieces are read when a slot of theirs is compared; gone meanwhile, the restore is lost.
          const columns = (c: number): Uint8Array => {
            const piece = snaps.piece(key, at.version, columnSeq(c)); // `at` moves with each put of a kept fold
            if (piece === undefined) throw new SnapshotLost();
            return piece;
          };
          return (fold = createCostFold(foldOptions, { header: state.header, hashes: state.hashes, columns }));
        }
      } catch {
        // A state that does not decode: dropped below, the fold starts over.
        dropSnapshot(snaps, key);
      }
      lost = true; // another process stored a newer one meanwhile, or it did not decode
      return undefined;
    };
    /** Run `fn` on the restored fold; a state that stopped reading loses the restore (the fold starts over). */
    const onFold = (fn: (f: CostFold) => void): void => {
      const f = restore();
      if (f === undefined) return;
      try {
        fn(f);
      } catch (e) {
        if (!(e instanceof SnapshotLost || e instanceof RangeError)) throw e;
        if (e instanceof RangeError) dropSnapshot(snaps, key);
        lost = true;
        fold = undefined;
      }
    };

    let delta: ScanDelta = newScanDelta(snap?.gens ?? new Map(), snaps.instance);
    info.snapshot = snap === undefined ? 'miss' : 'hit';
    for await (const batch of scanUsageBatches({ ...scan, delta }, discovery)) {
      onFold((f) => {
        for (const r of batch as readonly UsageRecord[]) f.add(r);
      });
      info.folded += batch.length;
    }
    info.removed = delta.removed.length;
    /** The cache's change count this run's snapshot stands for (see `changesSeen`). */
    let changes = changesSeen(snaps, changesAtStart, delta);
    if (snap !== undefined && info.folded === 0 && info.removed === 0 && delta.exact && !lost) {
      // Nothing to fold: the stored summary is the answer; rows that moved on without changing a record
      // (a deletion, a re-read that found the same records) only move the snapshot's gens.
      let version: number | undefined = snap.version;
      if ((!sameGens(snap.gens, delta.gens) || snap.changesThen !== changes || snap.stats !== stats) && delta.usedInstance === snaps.instance) {
        try {
          info.saved = snaps.put(key, { gens: delta.gens, baseVersion: snap.version, changes, stats });
          version = info.saved ? snaps.putVersion : undefined;
        } catch (e) {
          version = undefined;
          ns.onWarning(`Could not store the report's fold snapshot in ${ns.cachePath}: ${(e as Error).message}`);
        }
      }
      // The state did not change: a kept fold stands for the new version too.
      if (live !== undefined && (fold === undefined || fold === live.fold) && version !== undefined && live.at.version === snap.version) {
        live.at.version = version;
        keepLive(key, live);
      }
      return JSON.parse(snap.summary) as CostSummary;
    }
    let held = false;
    if (info.removed > 0)
      onFold((f) => {
        for (const r of delta.removed) if (f.holds(r)) held = true;
      });
    let summary: CostSummary | undefined;
    if (!held && fold !== undefined) onFold((f) => (summary = f.result()));
    let exact = delta.exact && !lost && fold !== undefined && !held && summary !== undefined;
    if (!exact || fold === undefined || summary === undefined) {
      if (snap !== undefined) info.snapshot = lost ? 'miss' : 'fallback';
      fold = createCostFold(foldOptions);
      delta = newScanDelta(new Map(), snaps.instance);
      info.folded = await foldInto(fold, { ...scan, delta }, discovery);
      exact = false;
      summary = fold.result();
      changes = changesSeen(snaps, changes, delta);
    }
    if (delta.exact && delta.usedInstance === snaps.instance) {
      try {
        // A restored fold writes only the pieces it changed, over the version it restored.
        const baseVersion = exact ? snap?.version : undefined;
        const restored = baseVersion !== undefined;
        const out = fold.exportState(restored);
        const base = {
          gens: delta.gens,
          header: out.header,
          prices: JSON.stringify(n.pricer.exportResolved?.() ?? []),
          summary: JSON.stringify(summary),
          seqCount: out.seqCount,
          changes,
          stats,
        };
        // False when another process stored a newer snapshot meanwhile: that one stays.
        info.saved = snaps.put(key, { ...base, pieces: out.pieces, ...(restored && { baseVersion }) });
        if (info.saved && snaps.putVersion !== undefined && isConnectionReused()) {
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
    return summary;
  } finally {
    snaps.close();
  }
}
