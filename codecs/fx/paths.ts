/**
 * Where fx keeps its sessions (README.md, "Where"): `$HOME/.fx/sessions/<session id>/events.jsonl`, the home
 * being `$HOME` (fx reads no variable of its own for it), and `$SESSIONFOLD_FX_DIR` naming a sessions folder
 * instead. The sessions folder's `v2` entry is fx's newer store, not a session (fx never gives that name to
 * one); a session folder's `session.json`, `usage-v2.json` and sub-folders are not session logs. A session's
 * file is its `events.jsonl`, and its id is the folder's name.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { expandHome } from '../../cursors/env-paths.js';
import { namedFileIn } from '../../cursors/discovery.js';
import { DIR, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'fx';
export const EVENTS_FILE = 'events.jsonl';
/** fx's newer session root inside the sessions folder (`session_layout.zig` `sessions_v2_dir`): no session. */
const V2_DIR = 'v2';

/** `$SESSIONFOLD_FX_DIR` when set, else `~/.fx/sessions`. */
export function getFxRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  const own = env.SESSIONFOLD_FX_DIR?.trim();
  if (own) return [expandHome(own, home)];
  return [join(home, '.fx', 'sessions')];
}

/** The session id of a session log: the name of its folder (`-`, stdin, has none). */
export function fxSessionIdOf(file: string): string {
  return file === '-' ? '-' : basename(dirname(file));
}

/** Every session folder's `events.jsonl` under the roots, synchronously; missing roots are skipped. */
export function* discoverFxSync(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    for (const d of listDir(root)) {
      if (d.kind !== DIR || d.name.toLowerCase() === V2_DIR) continue;
      const f = namedFileIn(CODEC_ID, root, join(root, d.name), EVENTS_FILE);
      if (f === undefined || seen.has(f.path)) continue;
      seen.add(f.path);
      yield { ...f, sessionId: d.name };
    }
  }
}
