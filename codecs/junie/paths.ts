/**
 * Where JetBrains Junie keeps its sessions (README.md, "Where"): one folder per session,
 * `<junie home>/sessions/<session id>/events.jsonl`, the home being `$JUNIE_HOME`, else `~/.junie`. The
 * sessions folder also holds Junie's `index.jsonl` and each session folder a `state.json`, a `transcript.md`
 * and `task-*` folders, none of which is a session log. A root is a `sessions` folder; a session's file is its
 * `events.jsonl`, and its id is the folder's name.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envDir } from '../../cursors/env-paths.js';
import { namedFileIn } from '../../cursors/discovery.js';
import { DIR, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'junie';
export const EVENTS_FILE = 'events.jsonl';

/** `$JUNIE_HOME/sessions`, else `~/.junie/sessions`. */
export function getJunieRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  const base = envDir(env, 'JUNIE_HOME', { home }) ?? join(home, '.junie');
  return [join(base, 'sessions')];
}

/** The session id of a session log: the name of its folder (`-`, stdin, has none). */
export function junieSessionIdOf(file: string): string {
  return file === '-' ? '-' : basename(dirname(file));
}

/** Every session folder's `events.jsonl` under the roots, synchronously; missing roots are skipped. */
export function* discoverJunieSync(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    for (const d of listDir(root)) {
      if (d.kind !== DIR) continue;
      const f = namedFileIn(CODEC_ID, root, join(root, d.name), EVENTS_FILE);
      if (f === undefined || seen.has(f.path)) continue;
      seen.add(f.path);
      yield { ...f, sessionId: d.name };
    }
  }
}
