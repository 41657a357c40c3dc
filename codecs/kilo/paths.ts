/**
 * Where Kilo Code keeps its tasks: `kilocode.kilo-code` in every editor's globalStorage (the Cline family's
 * layout, codecs/cline/). `SESSIONFOLD_KILO_DIR` (comma-separated folders, each holding `tasks/` or, without
 * one, the task folders themselves) replaces them; Kilo Code's `customStoragePath` setting is such a folder, and
 * so is a project's dialogs folder in the fork that has one (README.md, "Project-local tasks").
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

const KILO_DATABASE_NAME = /^(?:kilo(?:-[A-Za-z0-9._-]*)?|opencode-[A-Za-z0-9._-]*)\.db$/;

/**
 * The names Kilo CLI gives its database in its data folder. `kilo.db` for the release channels (`latest`,
 * `beta`, `prod`) or with `KILO_DISABLE_CHANNEL_DB` set, and for any build whose database is
 * `packages/opencode/src/storage/db.ts` @ f10b24fc (one name whatever the channel); another channel's build
 * names it `opencode-<channel>.db` (`packages/core/src/database/database.ts` @ 2855ebbe and @ 27700289, the
 * channel's characters outside `[A-Za-z0-9._-]` made `-`). Kilo forks that keep Kilo's folder name it
 * `kilo-<channel>.db` and fall back to an `opencode-<channel>.db` already there (JorkeyLiu/kilocode, same path,
 * @ 76b3eb85): read too, since only a Kilo build writes either name in Kilo's folder.
 */
export function isKiloDatabaseName(name: string): boolean {
  return KILO_DATABASE_NAME.test(name);
}
