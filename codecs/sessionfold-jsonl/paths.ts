/** Where sessionfold keeps JSONL exports by default: `$SESSIONFOLD_EXPORT_DIR`, else `$XDG_DATA_HOME/sessionfold/exports`. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { envPathList } from '../../cursors/env-paths.js';

export function getExportRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.SESSIONFOLD_EXPORT_DIR);
  if (explicit.length > 0) return explicit;
  const data = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return [join(data, 'sessionfold', 'exports')];
}

/** The session store's root (src/store/): `$SESSIONFOLD_STORE_DIR`, else `$XDG_DATA_HOME/sessionfold/sessions`. */
export function getStoreRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = env.SESSIONFOLD_STORE_DIR?.trim();
  if (explicit) return [explicit];
  const data = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return [join(data, 'sessionfold', 'sessions')];
}
