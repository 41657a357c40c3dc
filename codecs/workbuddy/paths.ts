/**
 * Where WorkBuddy (Tencent's desktop agent) keeps its transcripts. The app runs the CodeBuddy CLI it bundles, and
 * at start points the CLI's config folder at its own (`configureElectronApp`: `CODEBUDDY_CONFIG_DIR` = the
 * WorkBuddy config dir), so a session is `<config dir>/projects/<cwd slug>/<id>.jsonl`, in CodeBuddy's layout.
 * The config dir is `$WORKBUDDY_CONFIG_DIR` (trimmed, not `~`-expanded, as the app reads it), else
 * `~/<dataFolderName>`: `.workbuddy` for WorkBuddy, `.workbuddy-ai` for the international WorkBuddy AI, on
 * every OS (`os.homedir()`). README.md "Where" has the sources.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { envDir, envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'workbuddy';
/** The variable that moves WorkBuddy's whole config folder (the app's `getWorkbuddyConfigDir`). */
export const WORKBUDDY_ENV = 'WORKBUDDY_CONFIG_DIR';
/** sessionfold's own: `projects` folders to read instead of the defaults (comma-separated). */
export const SESSIONFOLD_WORKBUDDY_ENV = 'SESSIONFOLD_WORKBUDDY_DIR';
/** The config folders the two editions name in their `product.json` (`dataFolderName`). */
export const WORKBUDDY_DATA_FOLDERS = ['.workbuddy', '.workbuddy-ai'] as const;

/** `$SESSIONFOLD_WORKBUDDY_DIR`, else `$WORKBUDDY_CONFIG_DIR/projects`, else `~/.workbuddy/projects` and `~/.workbuddy-ai/projects`. */
export function getWorkBuddyRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env[SESSIONFOLD_WORKBUDDY_ENV]);
  if (explicit.length > 0) return explicit;
  const config = envDir(env, WORKBUDDY_ENV);
  if (config !== undefined) return [join(config, 'projects')];
  const home = env.HOME || env.USERPROFILE || homedir();
  return WORKBUDDY_DATA_FOLDERS.map((folder) => join(home, folder, 'projects'));
}
