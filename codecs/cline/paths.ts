/**
 * Where the VS Code family keeps an extension's data: `<editor user dir>/User/globalStorage/<publisher.extension>`
 * (VS Code's `ExtensionContext.globalStorageUri`), one folder per editor that can host the extension, and each
 * editor's remote server's `~/<server data folder>/data/User/globalStorage`. Cline, Roo Code and Kilo Code keep
 * each task under `<that folder>/tasks/<taskId>/`. See README.md for the sources.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import { distinctFolders, envPathList } from '../../cursors/env-paths.js';

/** The editors whose user folder holds a `User/globalStorage`: VS Code, its Insiders build and its forks. */
export const EDITORS: readonly string[] = ['Code', 'Code - Insiders', 'Cursor', 'Windsurf', 'VSCodium'];

/**
 * The folders in the remote home where each editor's remote server keeps its data (`serverDataFolderName` of
 * the editor's `product.json`), in the order of `EDITORS`: an extension run over SSH, in a container or WSL
 * keeps its globalStorage in `<that folder>/data/User/globalStorage`.
 */
export const SERVER_DATA_FOLDERS: readonly string[] = ['.vscode-server', '.vscode-server-insiders', '.cursor-server', '.windsurf-server', '.vscodium-server'];

/**
 * Every editor's `User/globalStorage` folder on `platform`, then every remote server's; with `leaf` (plain
 * names: no separator, not `.` or `..`), that path under each.
 */
export function globalStorageDirs(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, ...leaf: string[]): string[] {
  const home = env.HOME || homedir();
  let base: string;
  if (platform === 'darwin') base = join(home, 'Library', 'Application Support');
  else if (platform === 'win32') base = env.APPDATA?.trim() || join(env.USERPROFILE || home, 'AppData', 'Roaming');
  else base = env.XDG_CONFIG_HOME?.trim() || join(home, '.config');
  const tail = ['User', 'globalStorage', ...leaf].join(sep);
  const editors = folderPrefix(base);
  const servers = folderPrefix(home);
  return [...EDITORS.map((e) => `${editors}${e}${sep}${tail}`), ...SERVER_DATA_FOLDERS.map((d) => `${servers}${d}${sep}data${sep}${tail}`)];
}

/**
 * `dir` normalized, as the start of a path below it: then `prefix + names.join(sep)` is `join(dir, ...names)`
 * for plain names. Every report computes these roots for three agents, each under ten folders: through
 * `join` they were most of the characters Node's path normalization walked at start, which made V8 compile
 * it with TurboFan (bench/RESULTS.md, startup).
 */
function folderPrefix(dir: string): string {
  const d = join(dir);
  return d === '.' ? '' : d.endsWith(sep) ? d : d + sep;
}

/** A comma-separated folder list from the environment, or undefined when the variable is unset or blank. */
export function envDirs(value: string | undefined): string[] | undefined {
  const list = envPathList(value);
  return list.length > 0 ? list : undefined;
}

/**
 * The storage folders of one extension (each holds `tasks/`): the folders `override` names when set, else
 * the extension's folder in each editor's globalStorage where it exists (VS Code's when none does, so the
 * roots always say where the extension keeps its tasks), then `extra` (an agent's storage outside VS Code).
 */
export function extensionStorageRoots(extensionId: string, env: NodeJS.ProcessEnv, override: string | undefined, extra: readonly string[] = [], platform: NodeJS.Platform = process.platform): string[] {
  const explicit = envDirs(override);
  if (explicit) return explicit;
  const all = globalStorageDirs(env, platform, extensionId);
  const present = all.filter((d) => existsSync(d));
  return [...(present.length > 0 ? present : all.slice(0, 1)), ...extra];
}

export const UI_MESSAGES = 'ui_messages.json';
export const API_HISTORY = 'api_conversation_history.json';
export const TASK_METADATA = 'task_metadata.json';
/** Roo Code's `HistoryItem` of the task (README.md of codecs/roo/). */
export const HISTORY_ITEM = 'history_item.json';

/** A task's id: the name of its folder (the record path is the task's `ui_messages.json`). */
export function taskIdOf(file: string): string {
  return basename(dirname(file));
}

/** A sibling file of the task's `ui_messages.json`. */
export function siblingOf(file: string, name: string): string {
  return join(dirname(file), name);
}

/** A resumed legacy task's write-back record (Cline ≥ 4.1's VS Code extension), in the task folder. */
export const SDK_WRITEBACK = 'sdk_writeback.json';
/** The suffix of a Cline ≥ 4.1 (SDK) session's messages file: `<id>.messages.json`, `<agentId>.messages.json`. */
export const SDK_MESSAGES_SUFFIX = '.messages.json';

/** Whether `file` is an SDK session's messages file rather than a task's `ui_messages.json`. */
export const isSdkMessagesFile = (file: string): boolean => basename(file).endsWith(SDK_MESSAGES_SUFFIX);

/**
 * Cline's storage folders: `SESSIONFOLD_CLINE_DIR` (comma-separated folders, each holding `tasks/`, `sessions/`
 * or SDK session folders) replaces the defaults, which are `saoudrizwan.claude-dev` in every editor's
 * globalStorage, Cline's own data folder outside VS Code (`CLINE_DATA_DIR`, else `$CLINE_DIR/data`, else
 * `~/.cline/data`), whose `sessions/` holds Cline ≥ 4.1's SDK sessions, and `CLINE_SESSION_DATA_DIR`, where
 * the SDK keeps them instead when it is set (cline/cline `sdk/packages/shared/src/storage/paths.ts`,
 * `resolveSessionDataDir`).
 */
export function getClineRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const own = envDirs(env.CLINE_DATA_DIR)?.[0] ?? (env.CLINE_DIR?.trim() ? join(env.CLINE_DIR.trim(), 'data') : join(home, '.cline', 'data'));
  const sessions = envDirs(env.CLINE_SESSION_DATA_DIR)?.[0];
  // The same folder named twice (`CLINE_SESSION_DATA_DIR` = the data folder, or a link to it) is one root.
  return extensionStorageRoots('saoudrizwan.claude-dev', env, env.SESSIONFOLD_CLINE_DIR, sessions === undefined ? [own] : distinctFolders([own, sessions]));
}
