/**
 * Where fx keeps its sessions (README.md, "Where"): `$HOME/.fx/sessions/<session id>/events.jsonl`, the home
 * being `$HOME` (fx reads no variable of its own for it), and `$SESSIONFOLD_FX_DIR` naming a sessions folder
 * instead. Only a folder named as fx names a session (`session_layout.zig` `validateSessionId`) holds one:
 * the `v2` store, v1's `creating+…` staging and the `trash+v1` folder a converted session leaves on its way
 * out are not sessions. A session folder's `session.json`, `usage-v2.json` and sub-folders are not session
 * logs. A session's file is its `events.jsonl`, and its id is the folder's name. A subagent child is a session
 * folder of its own that its parent's `subagent/children.json` lists (`child_state.zig`): listed as a subagent.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envDir } from '../../cursors/env-paths.js';
import { namedFileIn } from '../../cursors/discovery.js';
import { DIR, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'fx';
export const EVENTS_FILE = 'events.jsonl';
/** fx's sessions-v2 root inside the sessions folder (`session_layout.zig` `sessions_v2_dir`): no session. */
const V2_DIR = 'v2';
/** The bytes of a v1 session id (`validateSessionId`); `+` marks fx's staging and trash folders. */
const SESSION_ID_RE = /^[A-Za-z0-9._-]{1,255}$/;

/** Whether fx would take `name` as a v1 session id. */
export function isFxSessionId(name: string): boolean {
  return SESSION_ID_RE.test(name) && name !== '.' && name !== '..' && name.toLowerCase() !== V2_DIR;
}

/** `$SESSIONFOLD_FX_DIR` when set, else `~/.fx/sessions`. */
export function getFxRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  const own = envDir(env, 'SESSIONFOLD_FX_DIR', { home });
  if (own !== undefined) return [own];
  return [join(home, '.fx', 'sessions')];
}

/** The session id of a session log: the name of its folder (`-`, stdin, has none). */
export function fxSessionIdOf(file: string): string {
  return file === '-' ? '-' : basename(dirname(file));
}

/** fx's registry of a parent session's subagent children (`child_state.zig`), inside the parent's folder. */
const CHILDREN_FILE = join('subagent', 'children.json');

/** The ids of the children a session folder's registry lists; none when it is missing or not fx's shape. */
export function fxChildIdsIn(sessionDir: string): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(join(sessionDir, CHILDREN_FILE), 'utf8'));
  } catch {
    return [];
  }
  const children = (doc as { children?: unknown } | null)?.children;
  if (!Array.isArray(children)) return [];
  return children.map((c) => (c as { id?: unknown } | null)?.id).filter((id): id is string => typeof id === 'string' && isFxSessionId(id));
}

/** Every session folder's `events.jsonl` under the roots, synchronously; missing roots are skipped. */
export function* discoverFxSync(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    const dirs = listDir(root).filter((d) => d.kind === DIR && isFxSessionId(d.name));
    const children = new Set(dirs.flatMap((d) => fxChildIdsIn(join(root, d.name))));
    for (const d of dirs) {
      const f = namedFileIn(CODEC_ID, root, join(root, d.name), EVENTS_FILE);
      if (f === undefined || seen.has(f.path)) continue;
      seen.add(f.path);
      yield { ...f, sessionId: d.name, ...(children.has(d.name) && { subagent: true }) };
    }
  }
}
