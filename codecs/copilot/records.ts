/**
 * Sessions of `session-store.db` that have no log: rows in `assistant_usage_events` for a session whose
 * `session-state/<id>` folder (or flat `<id>.jsonl`) is gone from the home. Each is a record path
 * `<home>/session-store.db#<id>` (cursors/record-path.ts), read from the database alone: one session event from
 * its `sessions` row and one usage event per call, keyed as a log's read of the same calls keys them. A session
 * with a log is read through its log (store.ts hands its calls to the core) and never listed here, so a call
 * counts once. Sources and semantics: README.md ("Sessions without a log").
 */
import { basename, dirname, join } from 'node:path';
import type { DiscoverOptions, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf } from '../../cursors/protocol/events.js';
import { followEntry } from '../../cursors/list-dir.js';
import { readCollected } from '../../cursors/read-collected.js';
import { recordPath, splitRecordPath } from '../../cursors/record-path.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { CODEC_ID, SESSION_STATE_DIR } from './paths.js';
import { createdAtMs, currentStamps, RECORD_KEY, SESSION_STORE_DB, storeWalk } from './store.js';
import { callUsage } from './usage.js';

/**
 * The `session-store.db` of a root: beside its `session-state` folder, or beside the root when the root is a
 * `session-state` folder; a home whose `session-state` is gone holds it directly. Undefined when there is none.
 */
export function storeOfRoot(root: string): string | undefined {
  const db = basename(root) === SESSION_STATE_DIR ? join(dirname(root), SESSION_STORE_DB) : join(root, SESSION_STORE_DB);
  const kind = followEntry(db);
  return kind !== undefined && kind !== 'dir' ? db : undefined;
}

/**
 * The sessions of a root's database that have calls and no log among `logs` (the ids of the root's session
 * files), as record paths: size the count of calls, mtime the last call's time, so that `--since` and the
 * event cache's fingerprint see them as they would a file. Their stamps come from the listing memo while
 * the database is unchanged (store.ts `stampTable`), so a scan with nothing changed opens no database.
 */
export function* recordFiles(root: string, logs: ReadonlySet<string>, options?: DiscoverOptions): Generator<SessionFile> {
  const db = storeOfRoot(root);
  if (db === undefined) return;
  for (const [key, stamp] of Object.entries(currentStamps(db, options))) {
    if (!key.startsWith(RECORD_KEY)) continue;
    const id = key.slice(RECORD_KEY.length);
    if (logs.has(id)) continue;
    const [size, mtimeMs] = stamp.split(':').map(Number);
    yield { agent: CODEC_ID, path: recordPath(db, id), root, sessionId: id, subagent: undefined, size, mtimeMs, ino: undefined, ctimeMs: undefined };
  }
}

/** A record path of a `session-store.db` (`<db>#<id>`): its database and session id; undefined for any other path. */
export function storeRecord(file: string): { db: string; id: string } | undefined {
  const { db, key } = splitRecordPath(file);
  return key !== undefined && basename(db) === SESSION_STORE_DB ? { db, id: key } : undefined;
}

/**
 * `read()` of a record path: the session (cwd, branch, `summary` as its title, started at the row's
 * `created_at`, else its first call) and its calls, each at its offset in time order. Whole: no cursor, the
 * database's stamp for this session (`recordStamp`) says when to read it again.
 */
export async function* readRecord(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const r = storeRecord(file);
  if (r === undefined) throw new SessionfoldError('SESSION_NOT_FOUND', `Not a session of ${SESSION_STORE_DB}: ${file}`, { agent: CODEC_ID, file });
  yield* readCollected(CODEC_ID, file, options, (o, emit) => {
    const walk = storeWalk(r.db);
    const s = walk?.sessions.get(r.id);
    if (s === undefined || s.calls.length === 0) throw new SessionfoldError('SESSION_NOT_FOUND', `No calls of ${r.id} in ${r.db}`, { agent: CODEC_ID, file });
    const row = walk?.rows.get(r.id);
    const first = s.calls[0];
    if (o.kinds.has('session')) {
      const created = createdAtMs(row?.createdAt);
      emit(
        sessionEventOf(CODEC_ID, r.id, 0, {
          startedAt: created === undefined ? first?.timestamp : new Date(created).toISOString(),
          cwd: row?.cwd,
          gitBranch: row?.branch,
          title: o.titles ? row?.summary : undefined,
          model: first?.model,
        }),
      );
    }
    if (o.kinds.has('usage')) s.calls.forEach((c, i) => emit(callUsage(r.id, i + 1, c)));
    return { records: s.calls.length + s.skipped, bytes: 0, skipped: s.skipped };
  });
}
