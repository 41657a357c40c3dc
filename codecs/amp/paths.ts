/**
 * Where Amp keeps its threads: `$XDG_DATA_HOME/amp/threads` (default `~/.local/share/amp/threads`), one
 * `T-<id>.json` per thread. `SESSIONFOLD_AMP_DIR` (comma-separated threads folders) replaces it.
 */
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'amp';

export function getAmpRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.SESSIONFOLD_AMP_DIR);
  if (explicit.length > 0) return explicit;
  const data = env.XDG_DATA_HOME?.trim() || join(env.HOME || homedir(), '.local', 'share');
  return [join(data, 'amp', 'threads')];
}

/** A thread's id: its file name without `.json` (Amp names each file after its thread, `T-<uuid>.json`). */
export function threadIdOf(file: string): string {
  return basename(file).replace(/\.json$/, '');
}
