/**
 * Reading a small input file the user names (a price table, tags): checked for what it is before it is
 * opened, so a FIFO (whose open waits for a writer), a device (`/dev/zero` never ends) or a folder is refused
 * at once instead of hanging or filling memory.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';

/** Larger than any settings file: such a file is refused rather than read into memory. */
export const MAX_SETTINGS_FILE_BYTES = 64 << 20;

/**
 * The text of the regular file at `path`. Errors as `readFileSync` throws them (ENOENT for a missing file);
 * a path that is not a regular file, or one over `maxBytes`, throws an Error with code EINVAL or EFBIG.
 */
export function readRegularFileSync(path: string, maxBytes = MAX_SETTINGS_FILE_BYTES): string {
  const st = statSync(path);
  if (!st.isFile()) throw Object.assign(new Error(`${path} is not a regular file (a FIFO, a device or a folder is never read)`), { code: 'EINVAL' });
  if (st.size > maxBytes) throw Object.assign(new Error(`${path} holds ${st.size} bytes, over ${maxBytes}`), { code: 'EFBIG' });
  return readFileSync(path, 'utf8');
}

/**
 * A small JSON file (an agent's sidecar or state file) parsed, read synchronously into `buf`: the caller may
 * reuse one buffer, reads never overlap. Undefined when the file cannot be opened or read, fills `buf` (it is
 * then larger than such a file ever is), or is not JSON.
 */
export function readSmallJsonSync(path: string, buf: Buffer): unknown {
  return withFileSync(path, undefined, (fd) => {
    let n = 0;
    for (let got = 1; got > 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, n);
    return n < buf.length ? (JSON.parse(buf.toString('utf8', 0, n)) as unknown) : undefined;
  });
}

/**
 * `use` of the file at `path` opened for reading, closed after it; `fallback` when the file cannot be opened
 * or `use` throws (a directory, a file that cannot be read, bytes that do not parse).
 */
export function withFileSync<T>(path: string, fallback: T, use: (fd: number) => T): T {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return fallback;
  }
  try {
    return use(fd);
  } catch {
    return fallback;
  } finally {
    closeSync(fd);
  }
}
