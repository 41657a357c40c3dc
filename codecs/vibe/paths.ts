/**
 * Where Mistral Vibe (mistralai/mistral-vibe) keeps its session logs (README.md, "Where"): one folder per
 * session, `<home>/logs/session/<prefix>_<YYYYMMDD_HHMMSS>_<short id>/` holding `meta.json` and
 * `messages.jsonl`; the home is `$VIBE_HOME`, else `~/.vibe` (newer releases fall back to
 * `$XDG_CONFIG_HOME/vibe`, else `~/.config/vibe`, when `~/.vibe` does not exist). A root is a `logs/session`
 * folder; a session's file is its `meta.json`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { expandHome } from '../../cursors/env-paths.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'vibe';
export const META_FILE = 'meta.json';
export const MESSAGES_FILE = 'messages.jsonl';

/** `$VIBE_HOME/logs/session`, else `~/.vibe/logs/session` and the XDG home's (`$XDG_CONFIG_HOME/vibe`, `~/.config/vibe`). */
export function getVibeRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  if (env.VIBE_HOME) return [join(expandHome(env.VIBE_HOME, home), 'logs', 'session')];
  const xdg = env.XDG_CONFIG_HOME ? expandHome(env.XDG_CONFIG_HOME, home) : join(home, '.config');
  return [join(home, '.vibe', 'logs', 'session'), join(xdg, 'vibe', 'logs', 'session')];
}

/** The id a session folder's name ends with (`shorten_session_id`), lower-cased; undefined when it has none. */
export function shortIdOf(folder: string): string | undefined {
  const m = /_(\d{8})_(\d{6})_([^_]+)$/.exec(folder);
  return m?.[3]?.toLowerCase();
}

/** Every session folder's `meta.json` under the roots. */
export function* discoverVibeFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    for (const d of listDir(root)) {
      if (d.kind !== DIR || shortIdOf(d.name) === undefined) continue;
      const dir = join(root, d.name);
      const e = listDir(dir).find((x) => x.kind === FILE && x.name === META_FILE);
      const st = e === undefined ? undefined : fileStat(dir, e);
      const path = join(dir, META_FILE);
      if (st === undefined || seen.has(path)) continue;
      seen.add(path);
      yield { agent: CODEC_ID, path, root, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
    }
  }
}
