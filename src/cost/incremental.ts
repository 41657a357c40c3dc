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
 * Pricers and tag indexes without a `fingerprint` (made by the caller) are never cached. The restored fold and
 * the folds kept in memory: src/cost/snapshot-fold.ts; reading and storing the snapshot: src/cost/snapshot-run.ts.
 */
import { hashesAreReady, hashesReady, hashText128 } from '../../cursors/ids.js';
import { existsSync } from 'node:fs';
import { getParserString } from '../../cursors/protocol/codec.js';
import { CORE_EVENT_VERSION } from '../../cursors/protocol/events.js';
import { sessionfoldVersion } from '../../cursors/versions.js';
import type { FoldSnapshots, FoldSnapshot } from '../cache/folds.js';
import { cacheIdentity, findAnswer, recordAnswer, type AnswerNotes } from '../cache/answer-memo.js';
import { normalizeScanOptions } from '../scan/options.js';
import { discoverUsageFiles, discoveryStats, scanUsageBatches, scanUsageBlocks } from '../scan/index.js';
import type { Discovery } from '../scan/discover.js';
import { newScanDelta, newScanStats, SkipTally, type ScanDelta, type ScanOptions, type UsageRecord } from '../scan/types.js';
import { createCostFold, drainBlocks, foldCost, type CostFold } from './fold.js';
import { FOLD_STATE_VERSION } from './fold-state.js';
import { normalizeCostOptions, type CostFoldOptions, type NormalizedCostOptions } from './filter.js';
import type { CostSummary } from './types.js';
import { SnapshotFold, withRetained, type FoldRunInfo } from './snapshot-fold.js';
import { answerUnchanged, changesSeen, readSnapshot, storeFold, type RunContext } from './snapshot-run.js';

export type { FoldRunInfo } from './snapshot-fold.js';

/** Goes up when the meaning of a snapshot key's parts changes. */
const SNAPSHOT_KEY_VERSION = 1;

/**
 * The snapshot key of a query: a hash of everything its result depends on besides the records (xxh64 twice,
 * `hashText128`: sha256 would load `node:crypto`, about 10 ms of a warm report's CPU).
 */
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
    breakdown: n.breakdown,
    timeZone: n.calendar.timeZone,
    tzData: process.versions.tz ?? process.versions.icu ?? null,
    mode: n.mode,
    prices: n.pricer.fingerprint,
    tagIndex: n.tagIndex?.fingerprint ?? null,
  };
  return hashText128(JSON.stringify(parts));
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
 * Whether discovery finds no file at all for the scan (none to read, none skipped by `since`), over the
 * sources src/scan/select.ts builds. The empty report (src/cost/empty-report.ts) answers the narrowest case of
 * it, no root there, over the same sources and before this chunk loads; discovery runs here even then, as it
 * writes the scan's source report (`ScanOptions.sources`).
 */
async function nothingToRead(scan: ScanOptions): Promise<boolean> {
  // Counted apart: when there is something to read, the scan's own discovery counts the same files again.
  const stats = newScanStats();
  const d = await discoverUsageFiles({ ...scan, stats });
  const nothing = d.files.length === 0 && [...d.seen.values()].every((paths) => paths.size === 0);
  if (nothing && scan.stats !== undefined) {
    scan.stats.skippedSince += stats.skippedSince;
    scan.stats.unreadableFolders += stats.unreadableFolders;
  }
  return nothing;
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
  if (ns.cache && !existsSync(ns.cachePath) && (await nothingToRead(scan))) {
    // No cache holds records of deleted files, and no file is there: the empty report, without creating
    // the cache (loading SQLite is most of an empty report's time).
    return foldCost([], foldOptions);
  }
  // The key, the stats digest and the stored summary's seal are hashed by xxhash-wasm: the JavaScript XXH64
  // (BigInt arithmetic, not yet compiled by the JIT) took ~25 ms for a 20 KB summary.
  if (ns.cache && options.snapshots !== false && !hashesAreReady()) await hashesReady();
  const key = options.snapshots === false || !ns.cache ? undefined : snapshotKey(n, ns);
  if (key === undefined) return foldFresh(scan, foldOptions, ns);

  // Nothing changed since a run that found nothing changed: its answer, without opening SQLite
  // (src/cache/answer-memo.ts). The cache's identity is taken before discovery, as the snapshot's change
  // count is: a write meanwhile is one the answer did not see, and the next run sees it.
  const startedMs = Date.now();
  const identity = cacheIdentity(ns.cachePath);
  // Listed without loading the codecs' parsers (their descriptors' listings), which the memo's answer needs
  // not; the scan loads those of the files it reads (src/scan/cached.ts), and only those.
  const discovery = await discoverUsageFiles(scan, true);
  const stats = discoveryStats(discovery);
  if (identity !== undefined) {
    const memo = findAnswer(ns.cachePath, key, identity, stats);
    if (memo !== undefined) {
      info.snapshot = 'hit';
      info.scanned = false;
      replayNotes(ns, memo.notes);
      return JSON.parse(memo.summary) as CostSummary;
    }
  }

  // The cache (SQLite) is loaded only by a fold that uses it.
  const [{ FoldSnapshots }, { isConnectionReused }] = await Promise.all([import('../cache/folds.js'), import('../cache/db.js')]);
  let snaps: FoldSnapshots;
  try {
    snaps = FoldSnapshots.open(ns.cachePath, ns.onWarning);
  } catch {
    // The scan opens the cache too, and says what is wrong with it.
    return foldFresh(scan, foldOptions, ns);
  }
  const answered: AnswerNotes = { warnings: [], failed: [] };
  let summary: CostSummary;
  try {
    summary = await foldWithSnapshot(snaps, key, n, ns, foldOptions, scan, info, isConnectionReused, discovery, stats, answered);
  } finally {
    snaps.close();
  }
  // A stored summary answered without a scan: kept for the next run (not by a resident process, whose
  // connection stays open and which keeps its folds in memory).
  if (identity !== undefined && info.snapshot === 'hit' && !info.scanned && !isConnectionReused()) {
    recordAnswer(ns.cachePath, identity, startedMs, { key, stats, summary: JSON.stringify(summary), notes: answered });
  }
  return summary;
}

/** A fold of the whole scan, without snapshots. */
async function foldFresh(scan: ScanOptions, foldOptions: CostFoldOptions, ns: ReturnType<typeof normalizeScanOptions>): Promise<CostSummary> {
  const fold = createCostFold(foldOptions);
  // Blocks undecoded: the fold decodes a native engine's records onto one object, none of its own each.
  await drainBlocks(scanUsageBlocks(scan), fold);
  const summary = fold.result();
  await withRetained(summary, fold, ns, false); // a fold of the whole scan: it stands for every record
  return summary;
}

/** A run through the stored snapshot of `key` (see the module header): the change folded onto it, or a fold from scratch. */
async function foldWithSnapshot(
  snaps: FoldSnapshots,
  key: string,
  n: NormalizedCostOptions,
  ns: ReturnType<typeof normalizeScanOptions>,
  foldOptions: CostFoldOptions,
  scan: ScanOptions,
  info: FoldRunInfo,
  reused: () => boolean,
  discovery: Discovery,
  stats: string,
  answered: AnswerNotes,
): Promise<CostSummary> {
  const { snap, changesAtStart } = readSnapshot(snaps, key, n);
  const run: RunContext = { key, snaps, ns, n, stats, info, reused };
  // Not one write to the cache's files since the snapshot, and every file as it saw them: its summary is
  // the answer, without reading a row.
  if (snap !== undefined && snap.changesThen === changesAtStart && changesAtStart >= 0 && snap.stats === run.stats) {
    const stored = answerStored(run, snap, answered);
    if (stored !== undefined) return stored;
  }
  const sf = new SnapshotFold(snaps, key, snap, foldOptions, info);
  const delta: ScanDelta = newScanDelta(snap?.gens ?? new Map(), snaps.instance, snaps.connection);
  // Files changed: the stored state is restored while they are read (the native engine reads on its own
  // thread), not once their records arrive. A run whose reads yield nothing then restored it for nothing, off
  // the wall time.
  if (snap !== undefined) delta.whileReading = () => void sf.restore();
  info.snapshot = snap === undefined ? 'miss' : 'hit';
  for await (const batch of scanUsageBatches({ ...scan, delta }, discovery)) {
    sf.apply((f) => {
      for (const r of batch as readonly UsageRecord[]) f.add(r);
    });
    info.folded += batch.length;
  }
  info.removed = delta.removed.length;
  /** The cache's change count this run's snapshot stands for (see `changesSeen`). */
  const changes = changesSeen(snaps, changesAtStart, delta);
  if (snap !== undefined && info.folded === 0 && info.removed === 0 && delta.exact && !sf.lost) {
    const answer = await answerUnchanged(run, snap, delta, changes, sf);
    if (answer !== undefined) return answer;
    sf.lost = true;
  }
  const summary = await exactSummary(run, sf, delta);
  if (summary !== undefined) {
    storeFold(run, sf.fold as CostFold, sf.at, summary, delta, changes, snap?.version);
    return summary;
  }
  if (snap !== undefined) info.snapshot = sf.lost ? 'miss' : 'fallback';
  const fresh = createCostFold(foldOptions);
  const again = newScanDelta(new Map(), snaps.instance, snaps.connection);
  info.folded = await foldInto(fresh, { ...scan, delta: again }, discovery);
  const freshSummary = fresh.result();
  const freshChanges = changesSeen(snaps, changes, again);
  await withRetained(freshSummary, fresh, ns, false, snaps.connection); // a fold of the whole scan: it stands for every record
  storeFold(run, fresh, sf.at, freshSummary, again, freshChanges, undefined);
  return freshSummary;
}

/**
 * The stored summary, as the answer of a run that found nothing changed; with the warnings a scan would give,
 * from the rows (a served run equals a local one): the failed reads, then the skipped lines. Undefined when a
 * failed read is one a scan would try again now (an I/O error whose retry time came): the file may read now.
 */
function answerStored(run: RunContext, snap: FoldSnapshot, answered: AnswerNotes): CostSummary | undefined {
  const { info, snaps, ns } = run;
  const notes = snaps.notes(ns.sources.map((s) => ({ agent: s.codec.id, roots: s.roots })));
  if (notes.retry) return undefined;
  info.snapshot = 'hit';
  info.scanned = false;
  answered.failed = notes.failed.map((f) => [f.agent, f.root]);
  answered.warnings = notes.failed.map((f) => f.warning);
  if (notes.retryAt !== undefined) answered.retryAt = notes.retryAt;
  const w = Object.assign(new SkipTally(), notes.skipped).warning();
  if (w !== undefined) answered.warnings.push(w);
  replayNotes(ns, answered);
  return JSON.parse(snap.summary) as CostSummary;
}

/** The warnings and failed files of an answer given without a scan, as the scan would have given them. */
function replayNotes(ns: ReturnType<typeof normalizeScanOptions>, notes: AnswerNotes): void {
  for (const [agent, root] of notes.failed) {
    ns.stats.failed++;
    ns.sourceReport?.tally.failed(agent, root);
  }
  for (const w of notes.warnings) ns.onWarning(w);
}

/**
 * The summary of the restored fold with this run's additions, retained spend included, when it is exact: the
 * scan described the change, no removed record is one the fold counts, and the stored state still reads
 * (else `sf.lost`). Undefined otherwise: the fold starts over.
 */
async function exactSummary(run: RunContext, sf: SnapshotFold, delta: ScanDelta): Promise<CostSummary | undefined> {
  let held = false;
  if (delta.removed.length > 0)
    sf.apply((f) => {
      for (const r of delta.removed) if (f.holds(r)) held = true;
    });
  let summary: CostSummary | undefined;
  if (!held && sf.fold !== undefined) sf.apply((f) => (summary = f.result()));
  const fold = sf.fold;
  if (!delta.exact || sf.lost || fold === undefined || held || summary === undefined) return undefined;
  if (!(await withRetained(summary, fold, run.ns, sf.restored, run.snaps.connection))) {
    sf.lost = true;
    return undefined;
  }
  return summary;
}
