/**
 * A report's fold against its stored snapshot (src/cost/incremental.ts): restored lazily, or taken over from
 * the folds a resident process keeps in memory, and given up when the stored state stops reading. With it, the
 * retained spend worked out on such a fold, which can stop reading too.
 */
import type { Db } from '../cache/db.js';
import type { FoldSnapshots, FoldSnapshot } from '../cache/folds.js';
import type { normalizeScanOptions } from '../scan/options.js';
import type { UsageRecord } from '../scan/types.js';
import { createCostFold, type CostFold } from './fold.js';
import { SnapshotLost, columnSeq } from './fold-state.js';
import type { CostFoldOptions } from './filter.js';
import type { CostSummary } from './types.js';
import { retainedRecords, retainedSpend } from './retained.js';

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
 * Folds kept in memory after they were stored, by snapshot key, while cache connections are reused (a resident
 * process: `sessionfold serve`). The next run of the same query takes the fold itself instead of restoring it
 * from the stored state, when the stored version is still the one it was kept at (no other process stored a
 * newer one) and it reads through the same open connection. Its lazily read column pieces are read at the
 * version in `at`, which moves with every put. A run that takes one and fails keeps nothing.
 */
export interface LiveFold {
  fold: CostFold;
  at: { version: number };
  snaps: FoldSnapshots;
  instance: string;
}
const liveFolds = new Map<string, LiveFold>();
const MAX_LIVE_FOLDS = 4;

export function keepLive(key: string, live: LiveFold): void {
  liveFolds.delete(key);
  liveFolds.set(key, live);
  while (liveFolds.size > MAX_LIVE_FOLDS) liveFolds.delete(liveFolds.keys().next().value as string);
}

export function dropSnapshot(snaps: FoldSnapshots, key: string): void {
  try {
    snaps.delete(key);
  } catch {
    // read-only or busy: the next put replaces it
  }
}

/**
 * The fold of one run against a stored snapshot: restored only once there is something to fold (a run where
 * nothing changed answers with the stored summary without reading it), taken over from the resident process's
 * memory when it still stands for the stored version, and given up (`lost`) when the stored state stopped
 * reading or did not decode, so the run starts over.
 */
export class SnapshotFold {
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

  /** Whether the fold goes on from a stored state (else it folds the whole scan). */
  get restored(): boolean {
    return this.#snap !== undefined;
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

/**
 * Sets the summary's `retained` spend (stored with the snapshot's summary, so a run that folds nothing
 * answers with it too: no file changed, so neither did what the files no longer hold). False when `fold` is a
 * restored state that no longer stands for the records (see `retainedOf`). `restored`: the fold went on from
 * a stored state (else it folded the whole scan).
 */
export async function withRetained(summary: CostSummary, fold: CostFold, ns: ReturnType<typeof normalizeScanOptions>, restored: boolean, connection?: Db): Promise<boolean> {
  const records = await retainedRecords(ns, connection);
  return retainedOf(summary, fold, records, restored);
}

/**
 * `summary.retained` from `fold`; false (and nothing set) when the fold is a restored state that stopped
 * reading, or that weighed copies as retained or live that are no longer so (`CostFold.sameRetained`): the
 * figure cannot be had from it, or its copies may not be the ones that count, so the caller folds again.
 */
export function retainedOf(summary: CostSummary, fold: CostFold, records: readonly UsageRecord[], restored: boolean): boolean {
  try {
    if (!fold.retain(records, !restored)) return false;
    if (records.length === 0) return true;
    const r = retainedSpend(fold, records);
    if (r !== undefined) summary.retained = r;
    return true;
  } catch (e) {
    if (!(e instanceof SnapshotLost || e instanceof RangeError)) throw e;
    return false;
  }
}
