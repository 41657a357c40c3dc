/** Where the event cache lives: `$SESSIONFOLD_CACHE`, else `$XDG_CACHE_HOME/sessionfold/events.db` (default `~/.cache/…`). */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function getCachePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SESSIONFOLD_CACHE) return env.SESSIONFOLD_CACHE;
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'sessionfold', 'events.db');
}
