/**
 * Reading a small input file the user names (a price table, tags): checked for what it is before it is
 * opened, so a FIFO (whose open waits for a writer), a device (`/dev/zero` never ends) or a folder is refused
 * at once instead of hanging or filling memory.
 */
import { readFileSync, statSync } from 'node:fs';

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
