/**
 * Which files hold zstd-compressed bytes: told by name, as Codex tells its compressed rollouts
 * (`….jsonl.zst`). A module of its own, importing nothing, so that discovery (a codec's paths.ts, loaded at
 * every start) and the scan can ask without loading the reader (read-zstd.ts) and its line feed.
 */

/** The suffix of a zstd-compressed file. */
export const ZSTD_SUFFIX = '.zst';

/** True for a path whose bytes are zstd (`<name>.zst`): read through read-zstd.ts, never as raw lines. */
export function isZstdPath(path: string): boolean {
  return path.endsWith(ZSTD_SUFFIX);
}
