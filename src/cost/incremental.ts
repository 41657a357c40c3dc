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
import { hashesAreReady, hashesReady, hashText128 } from '../../cursors/ids.js';
import { existsSync } from 'node:fs';
import { getParserString } from '../../cursors/protocol/codec.js';
import { CORE_EVENT_VERSION } from '../../cursors/protocol/events.js';
import { sessionfoldVersion } from '../../cursors/versions.js';
import type { Db } from '../cache/db.js';
import type { FoldSnapshots, FoldSnapshot } from '../cache/folds.js';
import { cacheIdentity, findAnswer, recordAnswer } from '../cache/answer-memo.js';
import { normalizeScanOptions } from '../scan/options.js';
import { discoverUsageFiles, discoveryStats, scanUsageBatches } from '../scan/index.js';
import type { Discovery } from '../scan/discover.js';
import { newScanDelta, SkipTally, type ScanDelta, type ScanOptions, type UsageRecord } from '../scan/types.js';
import { createCostFold, drainRecords, foldCost, type CostFold } from './fold.js';
import { FOLD_STATE_VERSION, SnapshotLost, columnSeq } from './fold-state.js';
import { normalizeCostOptions, type CostFoldOptions, type NormalizedCostOptions } from './filter.js';
import type { ResolvedPrice } from './pricing.js';
import type { CostSummary } from './types.js';
import { retainedRecords, retainedSpend } from './retained.js';

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
 * The fold of one run against a stored snapshot: restored only once there is something to fold (a run where
 * nothing changed answers with the stored summary without reading it), taken over from the resident process's
 * memory when it still stands for the stored version, and given up (`lost`) when the stored state stopped
 * reading or did not decode, so the run starts over.
 */
class SnapshotFold {
  fold: CostFold | undefined;
  lost = false;
  /** The version the fold's column pieces are read at (a kept fold's moves with each put). */
  at: { version: number };
  readonly #snaps: FoldSnapshots;
  readonly #key: string;
  readonly #snap: FoldSnapshot | undefined;
  readonly #live: LiveFold | undefined;
  readonly #options: CostFoldOptions;
  readonly #info: FoldRunInfo;

  constructor(snaps: FoldSnapshots, key: string, snap: FoldSnapshot | undefined, options: CostFoldOptions, info: FoldRunInfo) {
    this.#snaps = snaps;
    this.#key = key;
    this.#snap = snap;
    this.#options = options;
    this.#info = info;
    this.at = { version: snap?.version ?? 0 };
    this.#live = liveFolds.get(key);
    liveFolds.delete(key);
  }

  get live(): LiveFold | undefined {
    return this.#live;
  }

  restore(): CostFold | undefined {
    if (this.fold !== undefined || this.lost) return this.fold;
    const snap = this.#snap;
    if (snap === undefined) return (this.fold = createCostFold(this.#options));
    const live = this.#live;
    const snaps = this.#snaps;
    if (live !== undefined && live.at.version === snap.version && live.instance === snaps.instance && live.snaps.sameConnection(snaps)) {
      this.at = live.at;
      this.#info.kept = true;
      return (this.fold = live.fold);
    }
    try {
      const state = snaps.state(this.#key, snap.version);
      if (state !== undefined) {
        // Column pieces are read when a slot of theirs is compared; gone meanwhile, the restore is lost.
        const columns = (c: number): Uint8Array => {
          const piece = snaps.piece(this.#key, this.at.version, columnSeq(c)); // `at` moves with each put of a kept fold
          if (piece === undefined) throw new SnapshotLost();
          return piece;
        };
        return (this.fold = createCostFold(this.#options, { header: state.header, hashes: state.hashes, columns }));
      }
    } catch {
      // A state that does not decode: dropped, the fold starts over.
      dropSnapshot(snaps, this.#key);
    }
    this.lost = true; // another process stored a newer one meanwhile, or it did not decode
    return undefined;
  }

  /** Run `fn` on the restored fold; a state that stopped reading loses the restore (the fold starts over). */
  apply(fn: (f: CostFold) => void): void {
    const f = this.restore();
    if (f === undefined) return;
    try {
      fn(f);
    } catch (e) {
      if (!(e instanceof SnapshotLost || e instanceof RangeError)) throw e;
      if (e instanceof RangeError) dropSnapshot(this.#snaps, this.#key);
      this.lost = true;
      this.fold = undefined;
    }
  }
}

/** What one run needs to store its snapshot. */
interface RunContext {
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
function readSnapshot(snaps: FoldSnapshots, key: string, n: NormalizedCostOptions): { snap: FoldSnapshot | undefined; changesAtStart: number } {
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
async function answerUnchanged(run: RunContext, snap: FoldSnapshot, delta: ScanDelta, changes: number, sf: SnapshotFold): Promise<CostSummary | undefined> {
  const { snaps, key, ns, info } = run;
  const summary = JSON.parse(snap.summary) as CostSummary;
  let version: number | undefined = snap.version;
  const moved = !sameGens(snap.gens, delta.gens);
  let newSummary: string | undefined;
  if (moved) {
    const before = JSON.stringify(summary.retained ?? null);
    const records = await retainedRecords(ns, snaps.connection);
    // The stored state is restored only when there is something retained to check against it.
    const fold = records.length > 0 ? sf.restore() : undefined;
    if (records.length === 0) delete summary.retained;
    else if (fold !== undefined) {
      delete summary.retained;
      // Another process replaced the state while it was read: no answer here; the caller folds again.
      if (!retainedOf(summary, fold, records)) return undefined;
    }
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
function storeFold(run: RunContext, fold: CostFold, at: { version: number }, summary: CostSummary, delta: ScanDelta, changes: number, baseVersion: number | undefined): void {
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

/**
 * Whether discovery finds no file at all for the scan (none to read, none skipped by `since`), over the
 * sources src/scan/select.ts builds. The empty report (src/cost/empty-report.ts) answers the narrowest case of
 * it, no root there, over the same sources and before this chunk loads; discovery runs here even then, as it
 * writes the scan's source report (`ScanOptions.sources`).
 */
async function nothingToRead(scan: ScanOptions): Promise<boolean> {
  const d = await discoverUsageFiles(scan);
  return d.files.length === 0 && [...d.seen.values()].every((paths) => paths.size === 0);
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
      if (memo.warning !== undefined) ns.onWarning(memo.warning);
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
  const answered: { warning?: string | undefined } = {};
  let summary: CostSummary;
  try {
    summary = await foldWithSnapshot(snaps, key, n, ns, foldOptions, scan, info, isConnectionReused, discovery, stats, answered);
  } finally {
    snaps.close();
  }
  // A stored summary answered without a scan: kept for the next run (not by a resident process, whose
  // connection stays open and which keeps its folds in memory).
  if (identity !== undefined && info.snapshot === 'hit' && !info.scanned && !isConnectionReused()) {
    recordAnswer(ns.cachePath, identity, startedMs, { key, stats, summary: JSON.stringify(summary), warning: answered.warning ?? null });
  }
  return summary;
}

/** A fold of the whole scan, without snapshots. */
async function foldFresh(scan: ScanOptions, foldOptions: CostFoldOptions, ns: ReturnType<typeof normalizeScanOptions>): Promise<CostSummary> {
  const fold = createCostFold(foldOptions);
  await drainRecords(scanUsageBatches(scan), fold.add);
  const summary = fold.result();
  await withRetained(summary, fold, ns); // a fold of its own: it cannot stop reading
  return summary;
}

/**
 * Sets the summary's `retained` spend (stored with the snapshot's summary, so a run that folds nothing
 * answers with it too: no file changed, so neither did what the files no longer hold). False when `fold` is a
 * restored state that stopped reading meanwhile (see `retainedOf`).
 */
async function withRetained(summary: CostSummary, fold: CostFold, ns: ReturnType<typeof normalizeScanOptions>, connection?: Db): Promise<boolean> {
  const records = await retainedRecords(ns, connection);
  return records.length === 0 || retainedOf(summary, fold, records);
}

/**
 * `summary.retained` from `fold`; false (and nothing set) when the fold is a restored state that stopped
 * reading: the figure cannot be had from it, and a report without it would be wrong, so the caller folds again.
 */
function retainedOf(summary: CostSummary, fold: CostFold, records: readonly UsageRecord[]): boolean {
  try {
    const r = retainedSpend(fold, records);
    if (r !== undefined) summary.retained = r;
    return true;
  } catch (e) {
    if (!(e instanceof SnapshotLost || e instanceof RangeError)) throw e;
    return false;
  }
}

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
  answered: { warning?: string | undefined },
): Promise<CostSummary> {
  const { snap, changesAtStart } = readSnapshot(snaps, key, n);
  const run: RunContext = { key, snaps, ns, n, stats, info, reused };
  // Not one write to the cache's files since the snapshot, and every file as it saw them: its summary is
  // the answer, without reading a row.
  if (snap !== undefined && snap.changesThen === changesAtStart && changesAtStart >= 0 && snap.stats === run.stats) {
    info.snapshot = 'hit';
    info.scanned = false;
    // The warning a scan would give about skipped lines, from the rows (a served run equals a local one).
    const skipped = Object.assign(new SkipTally(), snaps.skipped(ns.sources.map((s) => ({ agent: s.codec.id, roots: s.roots }))));
    const w = skipped.warning();
    if (w !== undefined) ns.onWarning(w);
    answered.warning = w;
    return JSON.parse(snap.summary) as CostSummary;
  }
  const sf = new SnapshotFold(snaps, key, snap, foldOptions, info);
  let delta: ScanDelta = newScanDelta(snap?.gens ?? new Map(), snaps.instance, snaps.connection);
  info.snapshot = snap === undefined ? 'miss' : 'hit';
  for await (const batch of scanUsageBatches({ ...scan, delta }, discovery)) {
    sf.apply((f) => {
      for (const r of batch as readonly UsageRecord[]) f.add(r);
    });
    info.folded += batch.length;
  }
  info.removed = delta.removed.length;
  /** The cache's change count this run's snapshot stands for (see `changesSeen`). */
  let changes = changesSeen(snaps, changesAtStart, delta);
  if (snap !== undefined && info.folded === 0 && info.removed === 0 && delta.exact && !sf.lost) {
    const answer = await answerUnchanged(run, snap, delta, changes, sf);
    if (answer !== undefined) return answer;
    sf.lost = true;
  }
  let held = false;
  if (info.removed > 0)
    sf.apply((f) => {
      for (const r of delta.removed) if (f.holds(r)) held = true;
    });
  let summary: CostSummary | undefined;
  if (!held && sf.fold !== undefined) sf.apply((f) => (summary = f.result()));
  let fold = sf.fold;
  let exact = delta.exact && !sf.lost && fold !== undefined && !held && summary !== undefined;
  if (exact && !(await withRetained(summary as CostSummary, fold as CostFold, ns, snaps.connection))) {
    sf.lost = true;
    exact = false;
  }
  if (!exact || fold === undefined || summary === undefined) {
    if (snap !== undefined) info.snapshot = sf.lost ? 'miss' : 'fallback';
    fold = createCostFold(foldOptions);
    delta = newScanDelta(new Map(), snaps.instance, snaps.connection);
    info.folded = await foldInto(fold, { ...scan, delta }, discovery);
    summary = fold.result();
    changes = changesSeen(snaps, changes, delta);
    await withRetained(summary, fold, ns, snaps.connection); // a fold of its own: it cannot stop reading
  }
  storeFold(run, fold, sf.at, summary, delta, changes, exact ? snap?.version : undefined);
  return summary;
}
