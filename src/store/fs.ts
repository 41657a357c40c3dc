/**
 * The store's file primitives, synchronous on purpose: a mutation runs start to end inside the store's lock
 * (lock.ts) without yielding, so nothing else in this process can interleave with it either.
 *
 * - `writeAtomic`: a temp file in the same folder (`.<base>.<pid>.<hex>.tmp`, a leading dot no session name
 *   has), written, fsynced, renamed over the target, then the folder fsynced: a reader sees the old file or
 *   the new one, never a torn one, and a crash leaves at worst a temp file the next lock breaker sweeps.
 * - `probeFile`: tells a missing entry from one that is there but unreadable as a file.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SessionfoldError } from '../../cursors/protocol/errors.js';

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException)?.code;
}

/** IO_ERROR for `file`, with the errno error as the cause. */
export function ioError(what: string, file: string, cause: unknown): SessionfoldError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new SessionfoldError('IO_ERROR', `${what} ${file}: ${why}`, { file, cause });
}

/** fsync a folder, so a rename or unlink in it is durable. Best effort: some file systems refuse it. */
export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // not supported here (e.g. some network or Windows file systems): the rename itself is still atomic
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The temp name `writeAtomic` uses for `path` in this process. */
export function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/**
 * Write `data` to `path` atomically (see the file header). `mtimeMs`, when given, is set on the new file
 * before it replaces the old one (a title change keeps the transcript's age).
 */
export function writeAtomic(path: string, data: string | Uint8Array, mtimeMs?: number): void {
  const tmp = tempPath(path);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', 0o644);
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    if (mtimeMs !== undefined) utimesSync(tmp, new Date(), new Date(mtimeMs));
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already renamed
    }
    throw ioError('Cannot write', path, e);
  }
  syncDir(dirname(path));
}

/** What is at a path: nothing, a regular file (through symlinks), or an entry that cannot be read as one. */
export type Probe = { kind: 'absent' } | { kind: 'file'; size: number; mtimeMs: number } | { kind: 'unreadable'; error: SessionfoldError };

/**
 * `lstat`, then `stat` through a symlink: ENOENT on the entry itself is absence; a dangling symlink, a
 * folder or other non-file in its place, or a permission failure is `unreadable`, with an IO_ERROR whose
 * cause is the errno error (ENOENT for the dangling link, EISDIR, EACCES, …).
 */
export function probeFile(path: string): Probe {
  try {
    lstatSync(path);
  } catch (e) {
    if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return { kind: 'absent' };
    return { kind: 'unreadable', error: ioError('Cannot inspect', path, e) };
  }
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    const what = errno(e) === 'ENOENT' ? 'Dangling symlink at' : 'Cannot inspect';
    return { kind: 'unreadable', error: ioError(what, path, e) };
  }
  if (!st.isFile()) {
    const cause = Object.assign(new Error(st.isDirectory() ? 'is a directory' : 'is not a regular file'), { code: st.isDirectory() ? 'EISDIR' : 'EINVAL' });
    return { kind: 'unreadable', error: ioError('Not a file:', path, cause) };
  }
  return { kind: 'file', size: st.size, mtimeMs: st.mtimeMs };
}

/** The file's text when it is there; undefined when absent; IO_ERROR when present but unreadable. */
export function readIfPresent(path: string): string | undefined {
  return readBytesIfPresent(path)?.toString('utf8');
}

/** `readIfPresent`'s bytes, for a copy that must keep them all. */
export function readBytesIfPresent(path: string): Buffer | undefined {
  const p = probeFile(path);
  if (p.kind === 'absent') return undefined;
  if (p.kind === 'unreadable') throw p.error;
  try {
    return readFileSync(path);
  } catch (e) {
    if (errno(e) === 'ENOENT') return undefined; // removed between the probe and the read
    throw ioError('Cannot read', path, e);
  }
}

/** True when something (anything, even a dangling link) is at `path`. */
export function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Rename when the source is there; false when it is not. */
export function moveIfPresent(from: string, to: string): boolean {
  try {
    renameSync(from, to);
    return true;
  } catch (e) {
    if (errno(e) === 'ENOENT') return false;
    throw ioError('Cannot move', from, e);
  }
}

/** Remove a file or a folder tree when there; false when nothing was there. */
export function removeIfPresent(path: string): boolean {
  if (!exists(path)) return false;
  try {
    rmSync(path, { recursive: true, force: true });
    return true;
  } catch (e) {
    throw ioError('Cannot remove', path, e);
  }
}

/** The names in a folder; [] when it is missing or not a folder. */
export function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The names in a folder; [] when nothing is there; IO_ERROR when something is but cannot be listed. */
export function listNamesIfPresent(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (e) {
    if (!exists(dir)) return []; // a dangling link or a file in the folder's place is there: no absence
    throw ioError('Cannot list', dir, e);
  }
}

/** Remove the temp files process `pid` left in `dir` (it died between writing and renaming them). */
export function sweepTemps(dir: string, pid: number): void {
  const mine = new RegExp(`^\\..+\\.${pid}\\.[0-9a-f]{8}\\.tmp$`);
  for (const n of listNames(dir)) {
    if (mine.test(n)) {
      try {
        unlinkSync(join(dir, n));
      } catch {
        // gone already
      }
    }
  }
}
