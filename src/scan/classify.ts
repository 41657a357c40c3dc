/**
 * What the cached scan does with each discovered file, decided against its cached row: serve the row (the
 * file is unchanged), or read the file (a parse task: resumed from the row's cursor, from byte 0, or by the
 * codec's native engine). See src/scan/cached.ts for the whole scan.
 */
import { statSync } from 'node:fs';
import type { Codec, ReadCursor, ResumeStart } from '../../cursors/protocol/codec.js';
import type { EventCache } from '../cache/store.js';
import { failureStamp, fileKey, type FileFailure, type FileResult, type FileRow } from '../cache/rows.js';
import { isUnlistedRoot, type ScanFile } from './discover.js';
import type { ParseTask, TaskMessage } from './parse-file.js';

/**
 * A file the cache never read goes to the native engine (no cursor) when it is at most this large or was last
 * written over SETTLED_MS ago (see makeTask). On the 1.8 GB peers history, 90% of the bytes are in files of at
 * most 8 MiB.
 */
export const NATIVE_CACHE_MAX_BYTES = 8 << 20;
export const SETTLED_MS = 24 * 3600 * 1000;

/** A parse task of the cached scan, and what it has posted so far. */
export interface TaskState {
  task: ParseTask;
  file: ScanFile;
  row: FileRow | undefined;
  attempts: number;
  /** Read without writing: the file lost too many races with another process. */
  noWrite: boolean;
  start?: ResumeStart;
  segments: Uint8Array[];
  events: number;
  /** Lines of the file skipped in all, once its read is done (the row's, when resumed, and the read's). */
  skipped?: number;
}

/**
 * Same size, mtime, inode, ctime, dependencies and parser as the row that is not marked deleted: served from
 * the cache. The mtime alone is the user's to set (`cp -p`, `rsync -t`, `touch -d` put it back over other
 * content of the same size); the ctime is not (any write or `utimes` moves it), and a file renamed over the
 * old one has another inode. All four come from the stat discovery takes anyway (the native listing's fstatat,
 * else one statSync): no syscall more per file. The inode is compared as Node's number, which the native
 * listing gives alike (native/walk.c); where a file system has none it is 0 on both sides, and the ctime says
 * a rewrite. A chmod or a hard link also moves the ctime: the file is then checked once (a resume verifies
 * its prefix and parses nothing new). A row whose last read failed for another reason than the file's bytes
 * (`retry`: an I/O error) keeps the identity of its records: it is unchanged while the file is as the failure
 * saw it (`failed_as`), until its `retry` time; then, or once the file changes, the file is read again.
 */
export function isUnchanged(f: ScanFile, row: FileRow | undefined, parser: string): row is FileRow {
  if (row === undefined || row.deleted !== 0 || row.parser !== parser) return false;
  if (row.retry !== 0) return row.failed_as === failureStamp(f) && Date.now() < row.retry;
  return row.size === f.size && row.mtime_ms === f.mtimeMs && row.ctime_ms === f.ctimeMs && row.ino === f.ino && row.deps === f.deps;
}

/**
 * The root a file's row should hold: the one discovery gave, but a root the agent's roots listed the file
 * under is kept over the marker of a read outside them (src/scan/discover.ts `unlistedRoot`), so that a
 * status line run without the agent's config folder does not hide the file from its roots' reports.
 */
export function rowRoot(f: ScanFile, row: FileRow | undefined): string {
  return row !== undefined && isUnlistedRoot(f.root) && !isUnlistedRoot(row.root) ? row.root : f.root;
}

/** The file's part of what the cache stores of a read of it, finished or failed: its row's key and identity. */
function rowFields(state: TaskState, parser: string): Omit<FileFailure, 'warning' | 'retry'> {
  const { file, row } = state;
  const { size, mtimeMs, ino, ctimeMs, deps } = file;
  return { agent: file.codec.id, path: file.path, root: rowRoot(file, row), parser, size, mtimeMs, ino, ctimeMs, deps, baseGen: row?.gen ?? null };
}

/** What the cache stores of a finished parse; `delta`: the consumer holds the file, so its changes are logged. */
export function fileResult(state: TaskState, done: Extract<TaskMessage, { type: 'done' }>, parser: string, delta: boolean): FileResult {
  return {
    ...rowFields(state, parser),
    start: state.start ?? { restarted: true, reason: 'no-cursor', replaced: {} },
    segments: state.segments,
    cursor: done.cursor === undefined ? null : JSON.stringify(done.cursor),
    prefixHash: done.prefixHash ?? null,
    track: done.track,
    skipped: state.skipped ?? 0,
    delta,
  };
}

/** What the cache records of a failed read (`EventCache.recordFailures`). */
export function fileFailure(state: TaskState, parser: string, warning: string, retry: boolean): FileFailure {
  return { ...rowFields(state, parser), warning, retry };
}

/** The discovered files split by their rows: those served from the cache, and those read. */
export interface Triage {
  /** The rows of the unchanged files, in discovery order. */
  unchanged: FileRow[];
  /** Unchanged rows whose file is found under another root (`rowRoot`): served, and moved to it. */
  moved: { row: FileRow; root: string }[];
  /** The files to read, in discovery order, with their rows (if any). */
  changed: { file: ScanFile; row: FileRow | undefined }[];
  /**
   * The codecs of the files read. A discovery made without the parsers (src/cost/incremental.ts) has loaded
   * none: only these are, so a report after an append to a Claude session does not load the Codex parser
   * (~5 ms of CPU), nor the reverse.
   */
  readers: Set<Codec>;
}

/** Each discovered file checked once against its row (`isUnchanged`). */
export function triage(files: readonly ScanFile[], rows: ReadonlyMap<string, FileRow>, parsers: ReadonlyMap<Codec, string>): Triage {
  const out: Triage = { unchanged: [], moved: [], changed: [], readers: new Set() };
  for (const file of files) {
    const row = rows.get(fileKey(file.codec.id, file.path));
    if (isUnchanged(file, row, parsers.get(file.codec) as string)) {
      out.unchanged.push(row);
      const root = rowRoot(file, row);
      if (root !== row.root) out.moved.push({ row, root });
    } else {
      out.changed.push({ file, row });
      out.readers.add(file.codec);
    }
  }
  return out;
}

/** The parse task of a file that is not served from the cache: a resume from its row's cursor, or a full read. */
export function makeTask(cache: EventCache, id: number, f: ScanFile, row: FileRow | undefined, parser: string, noWrite: boolean): ParseTask {
  const resume = f.codec.capabilities.incremental && !noWrite;
  let cursor: ReadCursor | undefined;
  /** The row holds no cursor: the native engine read the file (bulk rows say -1, "not loaded": asked here). */
  let noCursor = row !== undefined && row.has_cursor === 0;
  if (resume && row !== undefined && row.parser === parser && row.has_cursor !== 0) {
    try {
      const stored = cache.getCursor(row.id);
      noCursor = stored === null;
      cursor = JSON.parse(stored ?? 'null') as ReadCursor | undefined;
    } catch {
      cursor = undefined;
    }
    if (cursor === null || typeof cursor !== 'object') cursor = undefined;
    if (cursor?.format === 'jsonl' && (row.prefix_hash === null || row.deps !== f.deps)) cursor = undefined;
    // A fingerprint cursor vouches for its own document only: a changed dependency (a Cline-family task's
    // prompt history) reads the document again. Read with `verifyPrefix: false`, its size and mtime decide
    // (cursors/read-document.ts), so a document whose ctime or inode moved (rewritten, its mtime put back) is
    // read again too.
    if (cursor?.format === 'json' && (row.deps !== f.deps || row.ctime_ms !== f.ctimeMs || row.ino !== f.ino)) cursor = undefined;
    // A database's RowCursor checks the rows themselves (replaced file, changed or deleted rows), so a
    // changed dependency (its -wal, which every commit moves) resumes from it instead of reading all again.
  }
  if (cursor === undefined) {
    // A file the cache has never read (or read with another parser) may go to the native engine, which leaves
    // no cursor: if it grows, it is read whole again. So only a file that is small (read again in a few
    // milliseconds) or settled (not written for a day: an old session) goes there; a large live session is
    // read by read() now, and its next append resumes. A small file the native engine read before (a row
    // without a cursor) goes back to it when it grows: a resume would read its prefix anyway (to verify the
    // fingerprint) and parse the tail in JavaScript, and on the bench's +1 MB append to a 5 MB session
    // read() of the whole file took ~60 ms of CPU where the engine reads it in a few.
    const first = row === undefined || row.deleted !== 0 || row.parser !== parser || row.deps !== f.deps;
    const nativeBefore = !first && noCursor;
    const cheap = f.size <= NATIVE_CACHE_MAX_BYTES || f.mtimeMs < Date.now() - SETTLED_MS;
    return { id, agent: f.codec.id, path: f.path, weight: f.size, resume, native: (first || nativeBefore) && resume && cheap };
  }
  return {
    id,
    agent: f.codec.id,
    path: f.path,
    weight: cursor.format === 'jsonl' ? Math.max(0, f.size - cursor.offset) : f.size,
    resume,
    cursor,
    prefixHash: row?.prefix_hash ?? undefined,
    track: { events: row?.session_events ?? 0, cwdIndex: row?.cwd_index ?? null, cwd: row?.cwd ?? null },
  };
}

/**
 * Whether a cached file not seen by discovery is still on disk: a stat that fails for another reason than
 * its absence (a folder made unreadable) keeps it, and its cached usage, rather than crash or drop it.
 */
export function stillThere(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}
