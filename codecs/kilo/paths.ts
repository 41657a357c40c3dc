/**
 * Where Kilo Code keeps its tasks: `kilocode.kilo-code` in every editor's globalStorage (the Cline family's
 * layout, codecs/cline/). `SESSIONFOLD_KILO_DIR` (comma-separated folders, each holding `tasks/`) replaces
 * them; Kilo Code's `customStoragePath` setting is such a folder.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { extensionStorageRoots } from '../cline/paths.js';
import { getDatabaseRoots } from '../opencode/descriptor.js';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'kilo';
export const KILO_EXTENSION_ID = 'kilocode.kilo-code';

export function getKiloRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return extensionStorageRoots(KILO_EXTENSION_ID, env, env.SESSIONFOLD_KILO_DIR);
}

/**
 * Kilo CLI's data folder: `Global.Path.data` = `$XDG_DATA_HOME/kilo` (default `~/.local/share/kilo`;
 * Kilo-Org/kilocode `packages/opencode/src/global/index.ts`, `const app = "kilo"`), or what `KILO_DB` names
 * instead: as OpenCode's `OPENCODE_DB` (Kilo-Org/kilocode `packages/core/src/database/database.ts` @ 2855ebbe
 * `path()`), the one database Kilo then opens, absolute or relative to the data folder, or none for
 * `:memory:` (codecs/opencode/descriptor.ts `getDatabaseRoots`). `SESSIONFOLD_KILO_CLI_DIR` (comma-separated)
 * replaces both.
 */
export function getKiloCliRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const own = envPathList(env.SESSIONFOLD_KILO_CLI_DIR);
  if (own.length > 0) return own;
  const data = env.XDG_DATA_HOME?.trim() || join(env.HOME || homedir(), '.local', 'share');
  return getDatabaseRoots(join(data, 'kilo'), env.KILO_DB);
}

/** `kilo.db`: Kilo-Org/kilocode `packages/opencode/src/storage/db.ts` names it so whatever the channel. */
export function isKiloDatabaseName(name: string): boolean {
  return name === 'kilo.db';
}
