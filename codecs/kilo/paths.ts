/**
 * Where Kilo Code keeps its tasks: `kilocode.kilo-code` in every editor's globalStorage (the Cline family's
 * layout, codecs/cline/). `SESSIONFOLD_KILO_DIR` (comma-separated folders, each holding `tasks/`) replaces
 * them; Kilo Code's `customStoragePath` setting is such a folder.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { extensionStorageRoots } from '../cline/paths.js';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'kilo';
export const KILO_EXTENSION_ID = 'kilocode.kilo-code';

export function getKiloRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return extensionStorageRoots(KILO_EXTENSION_ID, env, env.SESSIONFOLD_KILO_DIR);
}

/**
 * Kilo CLI's data folder: `Global.Path.data` = `$XDG_DATA_HOME/kilo` (default `~/.local/share/kilo`;
 * Kilo-Org/kilocode `packages/opencode/src/global/index.ts`, `const app = "kilo"`). `SESSIONFOLD_KILO_CLI_DIR`
 * (comma-separated) replaces it.
 */
export function getKiloCliRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const own = envPathList(env.SESSIONFOLD_KILO_CLI_DIR);
  if (own.length > 0) return own;
  const data = env.XDG_DATA_HOME?.trim() || join(env.HOME || homedir(), '.local', 'share');
  return [join(data, 'kilo')];
}

/** `kilo.db`: Kilo-Org/kilocode `packages/opencode/src/storage/db.ts` names it so whatever the channel. */
export function isKiloDatabaseName(name: string): boolean {
  return name === 'kilo.db';
}
