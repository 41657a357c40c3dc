/**
 * Where Z Code (Z.ai's coding agent, `zcode`) keeps its usage database: `<home>/cli/db/db.sqlite`, home being
 * `$ZCODE_HOME` when set, else `.zcode` in `$ZCODE_DATA_BASE_DIR` or the home folder (README.md, "Where", has
 * the sources). One database holds every
 * session; a root is the home (a root that is the `db` folder itself, or the database, is taken too).
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envDir } from '../../cursors/env-paths.js';
import { namedFileIn } from '../../cursors/discovery.js';

export const CODEC_ID = 'zcode';
export const DB_FILE = 'db.sqlite';

/**
 * `$ZCODE_HOME` (the readers' name for Z Code's home), else `<$ZCODE_DATA_BASE_DIR>/.zcode` (Z Code's own
 * data base directory), else `~/.zcode`.
 */
export function getZcodeRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  const zcodeHome = envDir(env, 'ZCODE_HOME', { home });
  if (zcodeHome !== undefined) return [zcodeHome];
  return [join(envDir(env, 'ZCODE_DATA_BASE_DIR', { home }) ?? home, '.zcode')];
}

const dbIn = (root: string, dir: string): SessionFile | undefined => namedFileIn(CODEC_ID, root, dir, DB_FILE);

/** The database of each root: `<root>/cli/db/db.sqlite`, or `<root>/db.sqlite`. */
export function* discoverZcodeFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    const f = basename(root) === DB_FILE ? dbIn(root, dirname(root)) : (dbIn(root, join(root, 'cli', 'db')) ?? dbIn(root, root));
    if (f === undefined || seen.has(f.path)) continue;
    seen.add(f.path);
    yield f;
  }
}
