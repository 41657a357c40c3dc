/**
 * Where Zed keeps its Agent panel threads (README.md, "Where"): `paths::data_dir().join("threads")`, the
 * database `threads.db` in it (zed-industries/zed `crates/agent/src/db.rs`, `ThreadsDatabase::new`).
 * `data_dir()` (`crates/paths/src/paths.rs`) is the folder `--user-data-dir` names when Zed was started with
 * it; otherwise `~/Library/Application Support/Zed` on macOS, `$FLATPAK_XDG_DATA_HOME/zed` in a Flatpak,
 * else `$XDG_DATA_HOME/zed` or `~/.local/share/zed` on Linux and FreeBSD (the `dirs` crate's
 * `data_local_dir`), and `%LOCALAPPDATA%\Zed` on Windows. `--user-data-dir` is a command-line flag, not a
 * variable: such a folder is read when given as a root. `ZED_STATELESS` keeps threads in memory (nothing on
 * disk to read).
 *
 * A root is a data folder (its `threads/threads.db` is read); a root that is the `threads` folder or the
 * database itself is taken too.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { namedFileIn } from '../../cursors/discovery.js';

export const CODEC_ID = 'zed';
export const DB_FILE = 'threads.db';
export const THREADS_DIR = 'threads';

/** Zed's data folders: Linux's (Flatpak's first), macOS's, then Windows' when `%LOCALAPPDATA%` is set. */
export function getZedRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  const roots: string[] = [];
  if (env.FLATPAK_XDG_DATA_HOME) roots.push(join(env.FLATPAK_XDG_DATA_HOME, 'zed'));
  roots.push(join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'zed'));
  roots.push(join(home, 'Library', 'Application Support', 'Zed'));
  if (env.LOCALAPPDATA) roots.push(join(env.LOCALAPPDATA, 'Zed'));
  return roots;
}

const dbIn = (root: string, dir: string): SessionFile | undefined => namedFileIn(CODEC_ID, root, dir, DB_FILE);

/** The `threads.db` of each root (one database holds every thread). */
export function* discoverZedFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    const dirs = basename(root) === DB_FILE ? [dirname(root)] : [join(root, THREADS_DIR), root];
    for (const dir of dirs) {
      const f = dbIn(root, dir);
      if (f === undefined || seen.has(f.path)) continue;
      seen.add(f.path);
      yield f;
      break;
    }
  }
}
