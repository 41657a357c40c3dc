/**
 * How every reader opens a session file, and the one error a file it cannot open gives: a missing file is
 * SESSION_NOT_FOUND (the spec's code for a session that is not there), anything else IO_ERROR; a directory,
 * which open() accepts and the first read refuses with a bare EISDIR, is IO_ERROR at once.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { SessionfoldError } from './protocol/errors.js';

/** The coded error of a failed open of `file` (`agent` undefined: before a codec is known). */
export function openError(file: string, cause: unknown, agent?: string): SessionfoldError {
  const code = (cause as NodeJS.ErrnoException).code;
  return new SessionfoldError(code === 'ENOENT' ? 'SESSION_NOT_FOUND' : 'IO_ERROR', `Cannot open ${file}: ${code ?? cause}`, { ...(agent !== undefined && { agent }), file, cause });
}

/** The coded error of a read of `file` that met a directory (open() accepts one; its first read says EISDIR). */
export function directoryError(file: string, agent?: string): SessionfoldError {
  return new SessionfoldError('IO_ERROR', `Cannot read ${file}: it is a directory`, { ...(agent !== undefined && { agent }), file });
}

/** `file` opened for reading, its descriptor and stat; the caller closes it. */
export function openSessionFile(file: string, agent: string): { fd: number; size: number; mtimeMs: number } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (cause) {
    throw openError(file, cause, agent);
  }
  const st = fstatSync(fd);
  if (!st.isDirectory()) return { fd, size: st.size, mtimeMs: st.mtimeMs };
  closeSync(fd);
  throw directoryError(file, agent);
}
