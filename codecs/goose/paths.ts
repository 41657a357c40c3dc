/**
 * Where Goose keeps `sessions.db` (README.md, "Where"): `Paths::data_dir().join("sessions")`
 * (block/goose `crates/goose/src/session/session_manager.rs`). `data_dir()` (`crates/goose/src/config/
 * paths.rs`) is `$GOOSE_PATH_ROOT/data` when `GOOSE_PATH_ROOT` is set to an absolute path; otherwise the
 * etcetera crate's `choose_app_strategy`, which is XDG on Linux and macOS alike (`$XDG_DATA_HOME/goose` when
 * that is absolute, else `~/.local/share/goose`) and `%APPDATA%\Block\goose\data` on Windows.
 * A root is the `sessions` folder; a root holding `sessions/sessions.db` (the data folder) is accepted too.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { namedFileIn } from '../../cursors/discovery.js';

export const CODEC_ID = 'goose';
export const SESSIONS_DB = 'sessions.db';

/** The sessions folders to read, honouring `GOOSE_PATH_ROOT`, `XDG_DATA_HOME` and (Windows) `APPDATA`. */
export function getGooseRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const root = env.GOOSE_PATH_ROOT;
  if (root !== undefined && isAbsolute(root)) return [join(root, 'data', 'sessions')];
  const home = env.HOME || homedir();
  const xdg = env.XDG_DATA_HOME;
  const data = xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.local', 'share');
  const roots = [join(data, 'goose', 'sessions')];
  if (env.APPDATA) roots.push(join(env.APPDATA, 'Block', 'goose', 'data', 'sessions'));
  return roots;
}

const dbIn = (root: string, dir: string): SessionFile | undefined => namedFileIn(CODEC_ID, root, dir, SESSIONS_DB);

/** The `sessions.db` of each root (one database holds every session). */
export function* discoverGooseFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    const f = dbIn(root, root) ?? dbIn(root, join(root, 'sessions'));
    if (f === undefined || seen.has(f.path)) continue;
    seen.add(f.path);
    yield f;
  }
}
