/**
 * A listing taken back from a `ListingMemo` (cursors/protocol/codec.ts) while the files it was made from are
 * unchanged: their stamps (device, inode, size, mtime and ctime in nanoseconds; a missing file as missing)
 * and the codec's listing version, recorded when it was made. Any write to a file changes its mtime, the one
 * thing taken on trust, as the event cache takes a session file's size and mtime.
 *
 * Timestamps have a granularity (the kernel's clock tick; seconds on some file systems): a write within the
 * same tick as the listing could leave the stamps as they were. So a listing is only taken back as it is when
 * every mtime in its stamps was older than RACY_MS before the listing began (git's "racily clean" rule): a
 * later write then has a later mtime. A listing of files written in the last two seconds (a database an agent
 * is writing) is stored under a stamp no file has (`RACY_STAMP`): never taken as it is, only handed to the
 * next listing as the earlier state to bring up to date, which checks the files' contents itself.
 *
 * A SQLite `-wal` is stamped without its ctime (`walStamp`): every open of it as root changes its ctime and
 * nothing else (SQLite re-owns a `-wal` and `-shm` to the database's owner when root opens them, unix VFS
 * `robustFchown`), so with the ctime in its stamp a read by sessionfold itself, as root, would void the stamp
 * it was made under, and a listing of a database the agent keeps open would never be taken back. A commit
 * writes the `-wal` (its size, or its mtime when it rewrites frames after a restart, which also draws new
 * salts) and moves the change counter of the WAL index in its `-shm`, so its stamp is its identity, size,
 * mtime, the header's checkpoint sequence and salts, and that counter (two commits in one mtime tick after a
 * restart leave all but the counter as they were). The
 * database file keeps the ctime in its stamp (no reader touches it), as every other file does: a file
 * rewritten with its mtime restored is still a change.
 */
import { readSync, statSync, type BigIntStats } from 'node:fs';
import type { ListingMemo } from './protocol/codec.js';
import { withFileSync } from './read-file.js';

/** How old every mtime of the files must be for a listing of them to be stored (see the header). */
export const RACY_MS = 2_000;

/**
 * Whether files whose newest mtime (or ctime) is `newestMs` were still enough, at `startedMs` (before they were
 * stat'ed and read), for what was read of them to be kept under their stamps: git's "racily clean" rule (see
 * the header). cursors/sqlite.ts keeps a snapshot's counts by the same rule.
 */
export function settledBefore(newestMs: number, startedMs: number): boolean {
  return newestMs <= startedMs - RACY_MS;
}

/** The stamp of a listing of files written within RACY_MS: equal to no file's stamps (theirs hold `:` or `-`). */
const RACY_STAMP = 'racy';

/** A file's identity, `dev:ino` (a replaced file has another): what a listing records as its file. */
export function fileIdOf(s: BigIntStats): string {
  return `${s.dev}:${s.ino}`;
}

/** A file's stamp (see the header) from its stat: `dev:ino:size:mtimeNs:ctimeNs`. */
export function statsStamp(s: BigIntStats): string {
  return `${fileIdOf(s)}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/** A file's stamp (see the header), its identity (`fileIdOf`) and its mtime in ms. */
export interface FileStamp {
  /** `-` when there is no file. */
  id: string;
  fileId: string;
  /** -Infinity when there is no file. */
  mtimeMs: number;
}

const NO_FILE: FileStamp = { id: '-', fileId: '-', mtimeMs: -Infinity };

/** A file's stamp (see the header): `dev:ino:size:mtimeNs:ctimeNs`. */
export function fileStamp(path: string): FileStamp {
  const s = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (s === undefined) return NO_FILE;
  return { id: statsStamp(s), fileId: fileIdOf(s), mtimeMs: Number(s.mtimeNs / 1_000_000n) };
}

/** The WAL header's checkpoint sequence and salts (bytes 12–24, which a restart of the log draws anew), in hex; `-` when shorter. */
function walHeaderSalt(path: string): string {
  return withFileSync(path, '-', (fd) => {
    const b = Buffer.alloc(12);
    return readSync(fd, b, 0, 12, 12) === 12 ? b.toString('hex') : '-';
  });
}

/**
 * The change counter and last valid frame of the WAL index beside a `-wal` (its `-shm`; the first copy of the
 * index header: `iChange` at bytes 8–12, then `isInit`, `bigEndCksum`, `szPage`, and `mxFrame` at 16–20;
 * sqlite.org/walformat.html), in hex; `-` without one. Every commit moves both, also one that rewrites the frames
 * of a restarted log at the log's old size within one mtime tick, which leaves the `-wal`'s size, salts and
 * mtime as they were. Read, never mapped or locked: a torn read only reads as a change.
 */
function shmCounter(walPath: string): string {
  return withFileSync(`${walPath.slice(0, -'-wal'.length)}-shm`, '-', (fd) => {
    const b = Buffer.alloc(12);
    return readSync(fd, b, 0, 12, 8) === 12 ? b.toString('hex') : '-';
  });
}

/** A SQLite `-wal`'s stamp (see the header): `dev:ino:size:mtimeNs:w<checkpoint sequence and salts>:s<its index's counters>`, no ctime. */
export function walStamp(path: string): FileStamp {
  const s = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (s === undefined) return NO_FILE;
  const id = `${fileIdOf(s)}:${s.size}:${s.mtimeNs}:w${walHeaderSalt(path)}:s${shmCounter(path)}`;
  return { id, fileId: fileIdOf(s), mtimeMs: Number(s.mtimeNs / 1_000_000n) };
}

/** The stamp of a SQLite database's file (`fileStamp`) or of its `-wal` (`walStamp`), by its name. */
export function sqliteFileStamp(path: string): FileStamp {
  return path.endsWith('-wal') ? walStamp(path) : fileStamp(path);
}

interface Entry {
  stamp: string;
  value: unknown;
}

/**
 * The listing of `files` (the first is the one listed; the others are what its contents also depend on, a
 * `-wal`): from `memo` when what it stored under `key` has the same stamps and `version` and `valid` holds for
 * it; else `list(previous, ids)`, stored (taken back as it is only when old enough: see the header).
 * `previous` is the listing stored of an earlier state of the files under the same version, for a codec that
 * can bring it up to date cheaper than it lists afresh; undefined when there is none. `ids` is each file's
 * `dev:ino` as stat'ed for its stamp, so the list need not stat it again. Without a memo, `list(undefined)`.
 * `stampOf` stamps each file: `fileStamp`, or `sqliteFileStamp` for a database and its `-wal`.
 */
export function memoizedListing<T>(
  memo: ListingMemo | undefined,
  key: string,
  version: string,
  files: readonly string[],
  valid: (v: unknown) => v is T,
  list: (previous: T | undefined, ids?: readonly string[]) => T,
  stampOf: (path: string) => FileStamp = fileStamp,
): T {
  if (memo === undefined) return list(undefined);
  let stamp: string;
  let newest = -Infinity;
  let stamps: FileStamp[];
  try {
    stamps = files.map(stampOf);
    newest = Math.max(...stamps.map((s) => s.mtimeMs));
    stamp = `${version}|${stamps.map((s) => s.id).join('|')}`;
  } catch {
    return list(undefined); // a file that cannot be stat'ed: its listing says what it can
  }
  const got = memo.get(key) as Entry | undefined;
  const stored = got !== undefined && got !== null && typeof got === 'object' && typeof got.stamp === 'string' && got.stamp.startsWith(`${version}|`) && valid(got.value) ? got.value : undefined;
  if (stored !== undefined && got?.stamp === stamp) return stored;
  const started = Date.now();
  const value = list(stored, stamps.map((x) => x.fileId));
  memo.set(key, { stamp: settledBefore(newest, started) ? stamp : `${version}|${RACY_STAMP}`, value } satisfies Entry);
  return value;
}
