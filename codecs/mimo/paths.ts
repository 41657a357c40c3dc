/**
 * Where MiMo Code keeps its database: `Global.Path.data` = `$MIMOCODE_HOME/data` when `MIMOCODE_HOME` is an
 * absolute path, else `$XDG_DATA_HOME/mimocode` (default `~/.local/share/mimocode`; XiaomiMiMo/MiMo-Code
 * `packages/opencode/drizzle.config.ts`, "Same layout as Global.Path.data"). `SESSIONFOLD_MIMO_DIR`
 * (comma-separated folders or database files) replaces it.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'mimo';

export function getMimoRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const own = envPathList(env.SESSIONFOLD_MIMO_DIR);
  if (own.length > 0) return own;
  const home = env.MIMOCODE_HOME?.trim();
  if (home && isAbsolute(home)) return [join(home, 'data')];
  const data = env.XDG_DATA_HOME?.trim() || join(env.HOME || homedir(), '.local', 'share');
  return [join(data, 'mimocode')];
}

/**
 * `mimocode.db`, or `mimocode-<channel>.db` for a channel other than latest, beta and prod (MiMo-Code's
 * storage `getChannelPath`).
 */
export function isMimoDatabaseName(name: string): boolean {
  return name === 'mimocode.db' || (name.startsWith('mimocode-') && name.endsWith('.db'));
}
