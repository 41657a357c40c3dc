/**
 * Where Devin CLI keeps `sessions.db` (README.md, "Where"): `$XDG_DATA_HOME/devin/cli`, else
 * `~/.local/share/devin/cli`, and `%APPDATA%\devin\cli` on Windows. Installs from before the database was
 * renamed hold `cli_sessions.db` in the same folder; it is read only where `sessions.db` is absent, since
 * Devin's upgrade copies its sessions into `sessions.db` and both would list them. `SESSIONFOLD_DEVIN_DIR`
 * (comma-separated folders) replaces the defaults. A root is the `cli` folder; a root holding
 * `cli/sessions.db` (the `devin` data folder), or the database itself, is taken too.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { namedFileIn } from '../../cursors/discovery.js';
import { distinctFolders, envDir, envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'devin';
export const SESSIONS_DB = 'sessions.db';
/** The database's name before Devin renamed it. */
export const LEGACY_DB = 'cli_sessions.db';

/** `SESSIONFOLD_DEVIN_DIR`, else the XDG data folder's `devin/cli` (and `%APPDATA%\devin\cli` when set). */
export function getDevinRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.SESSIONFOLD_DEVIN_DIR);
  if (explicit.length > 0) return explicit;
  const data = envDir(env, 'XDG_DATA_HOME') ?? join(env.HOME || env.USERPROFILE || homedir(), '.local', 'share');
  const roots = [join(data, 'devin', 'cli')];
  const appData = envDir(env, 'APPDATA');
  if (appData !== undefined) roots.push(join(appData, 'devin', 'cli'));
  // two spellings of one folder (APPDATA pointing where XDG does) are one root, so its database is listed once
  return distinctFolders(roots);
}

/** The database of one folder: `sessions.db`, else the older `cli_sessions.db`. */
function dbIn(root: string, dir: string): SessionFile | undefined {
  return namedFileIn(CODEC_ID, root, dir, SESSIONS_DB) ?? namedFileIn(CODEC_ID, root, dir, LEGACY_DB);
}

/** The database of each root: in the root, in its `cli` folder, or the root itself when it names one. */
export function* discoverDevinFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    const name = basename(root);
    const f = name === SESSIONS_DB || name === LEGACY_DB ? namedFileIn(CODEC_ID, root, dirname(root), name) : (dbIn(root, root) ?? dbIn(root, join(root, 'cli')));
    if (f === undefined || seen.has(f.path)) continue;
    seen.add(f.path);
    yield f;
  }
}
