/**
 * Where Hermes keeps sessions: `$HERMES_HOME` (default `~/.hermes`, `get_hermes_home()` in
 * `hermes_constants.py`): `state.db`, and the older per-session logs `sessions/session_<id>.json` beside the
 * gateway's routing map `sessions/sessions.json` (not a session). A root may also be a database file, a log
 * file, or a folder of logs.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { isSqliteFile, recordPath } from '../../cursors/sqlite.js';
import { listStateDbSessions } from './db.js';
import { CODEC_ID } from './descriptor.js';

export { getHermesRoots } from './descriptor.js';
import { followEntry } from '../../cursors/list-dir.js';

/** What is at `p`; undefined for nothing, something else, or what cannot be stat'ed (a locked folder). */
const kindOf = (p: string): 'file' | 'dir' | undefined => {
  const k = followEntry(p);
  return k === undefined ? undefined : k === 'dir' ? 'dir' : 'file';
};

/** The sessions of a `state.db`, as record paths with their fingerprints; an unreadable one gives none. */
export function* stateDbFiles(db: string, root: string): Generator<SessionFile> {
  let sessions;
  try {
    sessions = listStateDbSessions(db);
  } catch {
    return;
  }
  for (const s of sessions) {
    const f: SessionFile = { agent: CODEC_ID, path: recordPath(db, s.id), root, sessionId: s.id, size: s.size, mtimeMs: s.mtimeMs };
    if (s.subagent) f.subagent = true;
    yield f;
  }
}

/** Session logs in a folder: `*.json` but the gateway's `sessions.json`. */
function* logFiles(dir: string, root: string): Generator<SessionFile> {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const n of names) if (n.endsWith('.json') && n !== 'sessions.json' && kindOf(join(dir, n)) === 'file') yield { agent: CODEC_ID, path: join(dir, n), root };
}

export function* discoverHermes(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    const kind = kindOf(root);
    if (kind === 'file') {
      if (isSqliteFile(root)) yield* stateDbFiles(root, root);
      else if (root.endsWith('.json')) yield { agent: CODEC_ID, path: root, root };
      continue;
    }
    if (kind !== 'dir') continue;
    const db = join(root, 'state.db');
    const hasDb = kindOf(db) === 'file';
    if (hasDb) yield* stateDbFiles(db, root);
    const sessions = join(root, 'sessions');
    if (kindOf(sessions) === 'dir') yield* logFiles(sessions, root);
    else if (!hasDb) yield* logFiles(root, root);
  }
}
