/**
 * Where Hermes keeps sessions: `$HERMES_HOME`, else the platform's default home (`get_hermes_home()` →
 * `_get_platform_default_hermes_home()` in `hermes_constants.py`, NousResearch/hermes-agent @ `00067189`):
 * `~/.hermes`, and on Windows `%LOCALAPPDATA%\hermes` since PR #38592 (commit `40fbb0f3c`, issue #30081) with
 * the old `~/.hermes` read after it, as nothing moves its sessions across (`getHermesRoots`, descriptor.ts).
 * In each home: `state.db`, and the older per-session logs `sessions/session_<id>.json` beside the
 * gateway's routing map `sessions/sessions.json` (not a session); and each named profile's home,
 * `profiles/<name>/` with a `state.db` of its own (`hermes_cli/profiles.py`). A root may also be a database
 * file, a log file, or a folder of logs.
 */
import { readdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { isSqliteFile, recordPath } from '../../cursors/sqlite.js';
import { listStateDbSessions } from './db.js';
import { CODEC_ID } from './descriptor.js';
import { PROFILE_ID_RE, profileOfDb, sessionIdIn } from './parse.js';

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
  const profile = profileOfDb(db);
  for (const s of sessions) {
    const f: SessionFile = { agent: CODEC_ID, path: recordPath(db, s.id), root, sessionId: sessionIdIn(profile, s.id), size: s.size, mtimeMs: s.mtimeMs };
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

/**
 * The live named profiles' databases of a Hermes home, by name: `profiles/<name>/state.db` for a valid profile
 * id but `default` (the home itself), leaving out a profile Hermes tombstoned (`profiles/.deleted/<name>`,
 * `named_profile_is_deleted`), as its own `_iter_named_profile_dirs` does.
 */
export function profileDatabases(home: string): string[] {
  const dir = join(home, 'profiles');
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names
    .filter((n) => n !== 'default' && PROFILE_ID_RE.test(n) && kindOf(join(dir, '.deleted', n)) === undefined)
    .map((n) => join(dir, n, 'state.db'))
    .filter((db) => kindOf(db) === 'file');
}

/** A database's real path, so that a root listed twice (a home and one of its profiles) is read once. */
function realOf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

export function* discoverHermes(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  function* once(db: string, root: string): Generator<SessionFile> {
    const real = realOf(db);
    if (seen.has(real)) return;
    seen.add(real);
    yield* stateDbFiles(db, root);
  }
  for (const root of roots) {
    const kind = kindOf(root);
    if (kind === 'file') {
      if (isSqliteFile(root)) yield* once(root, root);
      else if (root.endsWith('.json')) yield { agent: CODEC_ID, path: root, root };
      continue;
    }
    if (kind !== 'dir') continue;
    const db = join(root, 'state.db');
    const hasDb = kindOf(db) === 'file';
    if (hasDb) yield* once(db, root);
    const sessions = join(root, 'sessions');
    if (kindOf(sessions) === 'dir') yield* logFiles(sessions, root);
    else if (!hasDb) yield* logFiles(root, root);
    for (const p of profileDatabases(root)) yield* once(p, root);
  }
}
