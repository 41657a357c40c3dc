/**
 * The contract between the scan engine (discovery, event cache, worker pool) and the folds that consume
 * usage (totals, export). `scanUsage()` yields usage records of every selected file; the same response can
 * appear in several files (resumed / forked sessions), so consumers count each `dedupKey` once.
 */
import type { UsageBlock } from '../../cursors/protocol/codec.js';
import { blockEvents } from '../../cursors/native-engine.js';
import { blankUsageEvent, type UsageEvent } from '../../cursors/protocol/events.js';
import { KEY_HI, KEY_LO, KEY_OF, TIME_MS, TIME_OF, type FoldHints } from '../../cursors/protocol/hints.js';
import type { Db } from '../cache/db.js';
import type { SourceReport } from './sources.js';

export { KEY_HI, KEY_LO, KEY_OF, TIME_MS, TIME_OF, type FoldHints } from '../../cursors/protocol/hints.js';

export interface UsageRecord extends UsageEvent, FoldHints {
  /** The file the event came from. */
  file: string;
  /** The session's working directory (from the file's `session` event), when known. */
  cwd?: string;
  /**
   * True when the file no longer holds this usage: it was rewritten away (Claude Code rewrites session files
   * on resume and compaction) or the file was deleted, and the event cache's ledger kept it. Only cached
   * scans yield such records; a `cache: false` scan cannot know them.
   */
  retained?: boolean;
}

/**
 * The events of one file as its records: each event gets `file` and `cwd` in place (no copy). For events the
 * caller owns and hands over: those of a parse on the main thread, and the native lane's. Every usage event is
 * built on `blankUsageEvent` (cursors/protocol/events.ts), by `read()` and the native engines alike, so every
 * codec's records share one shape (absent fields undefined) and the fold's property reads stay monomorphic.
 */
export function asRecords(events: readonly UsageEvent[], file: string, cwd: string | undefined): UsageRecord[] {
  const out = events as UsageRecord[];
  for (const r of out) {
    r.file = file;
    // unset, not undefined, without one: as a record decoded from a segment (UsageRecord.cwd's contract)
    if (cwd !== undefined) r.cwd = cwd;
  }
  return out;
}

/**
 * A file's usage records not yet decoded: a native engine's block (UsageBlock), with the file and cwd every
 * record of it gets. What a scan that opted in (`scanUsageBlocks`) yields for a file the native lane read; a
 * consumer that keeps no record past its use decodes them onto one object (the cost fold's `addBlock`),
 * any other takes `blockRecords`.
 */
export interface UsageRecordBlock {
  readonly block: UsageBlock;
  readonly file: string;
  readonly cwd: string | undefined;
}

/** The records of a block, each an object of its own (as `asRecords` makes them of a file's events). */
export function blockRecords(u: UsageRecordBlock): UsageRecord[] {
  return asRecords(blockEvents(u.block), u.file, u.cwd);
}

/**
 * The one record a consumer decodes a block's records onto (`UsageBlock.decode`), made with every field a
 * decoded record has (the blank's, the fold hints, `file`, `cwd`) in the order they get them: the same shape as
 * the records of `blockRecords`, so a fold's reads stay monomorphic whichever it is given.
 */
export function blankBlockRecord(): UsageRecord {
  const r = blankUsageEvent() as UsageRecord;
  r[KEY_HI] = NaN;
  r[KEY_LO] = NaN;
  r[KEY_OF] = '';
  r[TIME_MS] = NaN;
  r[TIME_OF] = '';
  r.file = '';
  r.cwd = undefined;
  return r;
}

/** `ScanOptions.keep`: files read whatever their mtime, and (out) those of them `since` would have skipped. */
export interface KeepFiles {
  readonly paths: readonly string[];
  readonly beforeSince: Set<string>;
  /**
   * Given: a kept path that no selected codec's roots list (a transcript copied elsewhere, an agent run with
   * another config folder) is read too, by the selected codec that claims it (`Codec.detect` scores its head;
   * the highest, the first on a tie), and added here. A path no selected codec claims, or no regular file, is
   * left out. A fold over the agent's history leaves such a file out (no scan of the roots reads it).
   */
  readonly unlisted?: Set<string>;
  /**
   * Given: a kept path discovery lists spelled otherwise (the same real path: a linked config folder, `//`,
   * `..`) is mapped here to the path as listed, which its records carry as `file`. Such a path is read once,
   * as the listed file, never as an unlisted one; `beforeSince` and `unlisted` hold kept paths as given.
   */
  readonly listedAs?: Map<string, string>;
}

export interface ScanOptions {
  /** Codec ids or aliases; default: every registered codec. */
  agents?: string[];
  /** Per-agent roots overriding the codecs' defaults (keyed by codec id or alias). */
  roots?: Record<string, string[]>;
  /** Files whose mtime is before this can be skipped when the codec declares `eventsPrecedeMtime`. */
  since?: Date;
  /**
   * Files `since` never skips: they are read whatever their mtime (paths as discovery lists them; with the
   * event cache, from the cache and resumed like any other file), e.g. the status line's own session file,
   * whose figures need all of it. Each one `since` would have skipped is added to `beforeSince`, and a fold
   * bounded by `since` leaves out every record of it, as a scan bounded by `since` skips the file by its
   * mtime (`cost report` does): not because its records all precede `since` (a line can be stamped later
   * than its file's mtime), but so the bounded folds give what that scan gives.
   */
  keep?: KeepFiles;
  /** Use the event cache (default true). */
  cache?: boolean;
  /** Path of the cache database (default `$SESSIONFOLD_CACHE`, else `$XDG_CACHE_HOME/sessionfold/events.db`). */
  cachePath?: string;
  /**
   * Worker threads. Default: min(cores − 1, 4) (the main thread parses too), but the main thread alone when there is little to parse (a warm
   * run); an explicit number is honoured (capped at the number of files to parse); 0 parses on the main thread.
   */
  workers?: number;
  env?: NodeJS.ProcessEnv;
  /** Progress: bytes done of total bytes to read. */
  onProgress?: (done: number, total: number) => void;
  /** Warnings (corrupt cache moved aside, unreadable files). Default: `process.emitWarning`. */
  onWarning?: (message: string) => void;
  /**
   * Keep yielding the cached usage of files that were deleted from disk (Claude Code deletes transcripts
   * after `cleanupPeriodDays`), as `retained` records. Default true. Only files under the scanned roots count.
   */
  retainDeleted?: boolean;
  /** Filled in as the scan goes (like a read's `info`). */
  stats?: ScanStats;
  /**
   * Filled in by discovery: every selected agent's roots, each found (with its session files), unreadable
   * (and why) or missing, and what under it could not be read (src/scan/sources.ts).
   */
  sources?: SourceReport[];
  /**
   * An incremental scan for a consumer that keeps state across runs (the totals fold's snapshots): records
   * the state already holds are not yielded again. Cached scans only; see ScanDelta.
   */
  delta?: ScanDelta;
}

/**
 * The contract of an incremental scan. The consumer says which cache rows (file id → `gen`) its state was
 * built from; the scan then yields only records those rows did not hold (new files, appended lines, files
 * the state does not cover) and lists in `removed` the covered records that are gone (a replaced tail, a
 * ledger key that came back, the old records of a rewritten file). When the scan cannot tell the change as
 * additions and removals (another process updated a covered row, a covered file left the selection), it sets
 * `exact` to false and the consumer must fold from scratch. `gens` is what the next state covers.
 */
export interface ScanDelta {
  /** In: cache rows (file id → gen) the consumer's state holds every record of. */
  readonly covered: ReadonlyMap<number, number>;
  /** In: the cache database (`meta.instance`) `covered` refers to; another one makes the scan not exact. */
  readonly instance?: string;
  /** Out: the instance of the cache database the scan used (`gens` refers to it). */
  usedInstance?: string;
  /** Out: the writes this scan counted in the cache's `meta.changes`. */
  writes?: number;
  /** Out: covered records that are gone. */
  removed: UsageRecord[];
  /** Out: false when the records yielded plus `removed` do not describe the change. */
  exact: boolean;
  /** Out: the rows (file id → gen) whose records the consumer now holds. */
  gens: Map<number, number>;
  /**
   * In: the consumer's open connection to the cache (its fold snapshots'), which the scan uses instead of
   * opening its own while it is open on the same file (src/cache/db.ts `borrowCacheDb`); the consumer closes it.
   */
  readonly connection?: Db;
  /**
   * In: called once, when files are being read (the native engine's thread, the workers) and the scan has
   * nothing else to do until the first of them is done: the consumer readies what it will fold into (a
   * restored fold) meanwhile, instead of after the first records arrive.
   */
  whileReading?: () => void;
}

/** A fresh ScanDelta over a state built from `covered` (empty: the scan yields everything, and fills `gens`). */
export function newScanDelta(covered: ReadonlyMap<number, number> = new Map(), instance?: string, connection?: Db): ScanDelta {
  return { covered, ...(instance !== undefined && { instance }), removed: [], exact: true, gens: new Map(), ...(connection !== undefined && { connection }) };
}

/** Counters of one scan. */
export interface ScanStats {
  /** Session files discovered (those skipped by `since` included). */
  files: number;
  /** Files skipped by `since` without being opened. */
  skippedSince: number;
  /** Files served from the cache without reading them. */
  unchanged: number;
  /** Files read from a cursor: only their appended bytes. */
  resumed: number;
  /** Files read from byte 0 (new, rewritten, parser or dependency changed, or no cache). */
  fullReads: number;
  /** Of `fullReads`, those a codec's native engine read (`Codec.scanUsage`; scans without the cache). */
  nativeReads: number;
  /** Cached files no longer on disk whose usage was kept (`retainDeleted`). */
  deleted: number;
  /** Files that could not be read (each with a warning). */
  failed: number;
  /** Bytes the codecs read (verified prefixes excluded). */
  bytesRead: number;
  /** Bytes of prefixes read to verify the cache's fingerprint of grown files. */
  bytesVerified: number;
  /** Usage records yielded. */
  records: number;
  /** Of `records`, how many are `retained` (ledger) records. */
  retainedRecords: number;
  /** Lines the codecs skipped (malformed, over-long). */
  skippedLines: number;
  /** Folders discovery could not list (each named in a warning). */
  unreadableFolders: number;
  /** Worker threads used (0: the main thread parsed). */
  workers: number;
  /** Whether the cache was used; `rebuilt` when a corrupt or foreign one was moved aside. */
  cache: 'off' | 'used' | 'rebuilt';
  /** Cache writes skipped because another process had updated the same file first. */
  conflicts: number;
}

export function newScanStats(): ScanStats {
  return {
    files: 0,
    skippedSince: 0,
    unchanged: 0,
    resumed: 0,
    fullReads: 0,
    nativeReads: 0,
    deleted: 0,
    failed: 0,
    bytesRead: 0,
    bytesVerified: 0,
    records: 0,
    retainedRecords: 0,
    skippedLines: 0,
    unreadableFolders: 0,
    workers: 0,
    cache: 'off',
    conflicts: 0,
  };
}

/**
 * The lines a scan's files skipped (malformed JSON, an absurd usage value, a line over `maxLineBytes`), read
 * now or counted by the cache when they were: their usage is in no total, so a report says so, on every run
 * (a served one equals a local one), in one warning.
 */
export class SkipTally {
  lines = 0;
  files = 0;
  first: string | undefined;

  add(path: string, lines: number): void {
    if (lines <= 0) return;
    this.lines += lines;
    this.files++;
    if (this.first === undefined || path < this.first) this.first = path; // the same whatever the read order
  }

  warning(): string | undefined {
    if (this.lines === 0) return undefined;
    const where = this.files === 1 ? (this.first as string) : `${this.files} files (${this.first as string} and others)`;
    return `skipped ${this.lines} line${this.lines === 1 ? '' : 's'} of ${where}: malformed, an absurd usage value, or longer than maxLineBytes; their usage is not counted`;
  }
}
