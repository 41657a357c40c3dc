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
import { expandHome } from '../../cursors/env-paths.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'junie';
export const EVENTS_FILE = 'events.jsonl';

/** `$JUNIE_HOME/sessions`, else `~/.junie/sessions`. */
export function getJunieRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  const base = env.JUNIE_HOME?.trim() ? expandHome(env.JUNIE_HOME.trim(), home) : join(home, '.junie');
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
      const dir = join(root, d.name);
      const e = listDir(dir).find((x) => x.kind === FILE && x.name === EVENTS_FILE);
      const st = e === undefined ? undefined : fileStat(dir, e);
      const path = join(dir, EVENTS_FILE);
      if (st === undefined || seen.has(path)) continue;
      seen.add(path);
      yield { agent: CODEC_ID, path, root, sessionId: d.name, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
    }
  }
}
