/**
 * Where MiMo Code keeps its database: `Global.Path.data` = `$MIMOCODE_HOME/data` when `MIMOCODE_HOME` is an
 * absolute path, else `$XDG_DATA_HOME/mimocode` (default `~/.local/share/mimocode`; XiaomiMiMo/MiMo-Code
 * `packages/opencode/drizzle.config.ts`, "Same layout as Global.Path.data"), or what `MIMOCODE_DB` names
 * instead: as OpenCode's `OPENCODE_DB` (MiMo's storage `Path`, `packages/opencode/src/storage/db.ts`; the
 * variable in `packages/opencode/src/flag/flag.ts` @ 011a5504), the one database MiMo then opens, absolute or
 * relative to the data folder, or none for `:memory:` (codecs/opencode/descriptor.ts `getDatabaseRoots`).
 * `SESSIONFOLD_MIMO_DIR` (comma-separated folders or database files) replaces both.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { getDatabaseRoots } from '../opencode/descriptor.js';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'mimo';

export function getMimoRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const own = envPathList(env.SESSIONFOLD_MIMO_DIR);
  if (own.length > 0) return own;
  const home = env.MIMOCODE_HOME?.trim();
  if (home && isAbsolute(home)) return getDatabaseRoots(join(home, 'data'), env.MIMOCODE_DB);
  const data = env.XDG_DATA_HOME?.trim() || join(env.HOME || homedir(), '.local', 'share');
  return getDatabaseRoots(join(data, 'mimocode'), env.MIMOCODE_DB);
}

const MIMO_DATABASE_NAME = /^mimocode(?:-[A-Za-z0-9._-]*)?\.db$/;

/**
 * `mimocode.db`, or `mimocode-<channel>.db` for a channel other than latest, beta and prod when channel
 * databases are on (MiMo-Code's storage `getChannelPath`, the channel's characters outside `[A-Za-z0-9._-]`
 * made `-`).
 */
export function isMimoDatabaseName(name: string): boolean {
  return MIMO_DATABASE_NAME.test(name);
}
