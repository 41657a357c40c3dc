/**
 * The event cache's row types (src/cache/store.ts keeps them): a row of `files`, what a parse brings to it, and
 * what applying that gives back. Apart from the store, so that the row memo (row-memo.ts) and the scan
 * (src/scan/cached.ts) import them without importing the store.
 */
import type { ResumeStart } from '../../cursors/protocol/codec.js';
import type { UsageRecord } from '../scan/types.js';
import type { SessionTrack } from '../scan/parse-file.js';

/** A row of `files`. */
export interface FileRow {
  id: number;
  agent: string;
  path: string;
  root: string;
  parser: string;
  size: number;
  mtime_ms: number;
  /** The file's inode and ctime when it was read (-1: a row of an older cache, not yet checked). */
  ino: number;
  ctime_ms: number;
  deps: string;
  /**
   * 1 when the row holds a cursor (fetched with `getCursor`, it is not loaded with every row), 0 when not,
   * -1 when unknown (`loadFiles` does not test it: `getCursor` answers null for a row without one).
   */
  has_cursor: number;
  prefix_hash: string | null;
  session_events: number;
  cwd_index: number | null;
  cwd: string | null;
  live_count: number;
  segment_count: number;
  ledger_count: number;
  deleted: number;
  gen: number;
  /** Lines of the file its reads skipped (their usage is not in the cache). */
  skipped: number;
  /** The warning the last read of the file gave when it failed (null: it read); its records are the earlier reads'. */
  error: string | null;
  /**
   * 0: no failure, or one of the file's bytes (served with its warning while the row's identity is the
   * file's). Else the failure was not of the file's bytes (an I/O error): the time (epoch ms) from which it
   * is read again (`IO_RETRY_MS` after the failure); before it, while the file is as `failed_as` says, the
   * row is served with its warning (src/scan/classify.ts `isUnchanged`).
   */
  retry: number;
  /** With `retry`: the identity of the file the failure was seen on (`failureStamp`); the row keeps its records'. */
  failed_as: string | null;
}

/**
 * How long an I/O failure (`FileRow.retry`) stands for a file that did not change: a warm report within it
 * answers as the failing read did, from the stored answers, and the first one after it reads the file again
 * (a failure that passed, such as a network file system back, shows without the file changing).
 */
export const IO_RETRY_MS = 60_000;

/** The identity of a file as a failed read saw it: its size, mtime, inode, ctime and dependencies. */
export function failureStamp(f: { size: number; mtimeMs: number; ino: number; ctimeMs: number; deps: string }): string {
  return `${f.size}|${f.mtimeMs}|${f.ino}|${f.ctimeMs}|${f.deps}`;
}

/** What a finished parse of one file brings to the cache. */
export interface FileResult {
  agent: string;
  path: string;
  root: string;
  parser: string;
  size: number;
  mtimeMs: number;
  ino: number;
  ctimeMs: number;
  deps: string;
  /** The `gen` of the row the task was built from (null: no row). */
  baseGen: number | null;
  start: ResumeStart;
  /** Encoded usage segments of this read. */
  segments: Uint8Array[];
  /** The new cursor (JSON), or null for codecs without one. */
  cursor: string | null;
  prefixHash: string | null;
  track: SessionTrack;
  /** Lines of the file skipped in all (the row's, when resumed, plus this read's). */
  skipped?: number;
  /**
   * The caller's state already holds this file's records at `baseGen` (an incremental fold): the outcome's
   * `records` are only the ones this parse added and `removed` the ones it took away, instead of all of them.
   */
  delta?: boolean;
}

/** A failed read of one file, as the cache records it (`EventCache.recordFailures`). */
export type FileFailure = Pick<FileResult, 'agent' | 'path' | 'root' | 'parser' | 'size' | 'mtimeMs' | 'ino' | 'ctimeMs' | 'deps' | 'baseGen'> & {
  /** The warning the failure gave. */
  warning: string;
  /** The failure was not of the file's bytes (see `FileRow.retry`). */
  retry: boolean;
};

export type ApplyOutcome =
  | {
      ok: true;
      /** The file's records now (live, then ledger); with `delta`, only the added ones. */
      records: UsageRecord[];
      retained: number;
      /** With `delta`: records the file held at `baseGen` that it no longer holds (a replaced tail, ledger keys that came back, everything on a restart). */
      removed?: UsageRecord[];
      /** The row's id and new `gen`. */
      id: number;
      gen: number;
    }
  | { ok: false };

export function fileKey(agent: string, path: string): string {
  return `${agent}\0${path}`;
}
