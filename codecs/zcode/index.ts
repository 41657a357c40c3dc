/**
 * `zcode`: Z Code (Z.ai's coding agent), which records every model request in one SQLite database,
 * `~/.zcode/cli/db/db.sqlite` (`$ZCODE_HOME` moves the home; README.md has the schema and its sources). Each
 * session is a record path `<db.sqlite>#<session id>` (cursors/record-path.ts); the database's own path reads
 * every session. Reads go through `withSqliteSnapshot` (one consistent snapshot; nothing beside the database
 * is created, changed or removed) and are whole: a changed database, or its `-wal`, is read again, once for
 * all its sessions. Per session: a session event (a subagent's marked, with its parent) and one usage event
 * per `model_usage` row; no messages (README "Events").
 */
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { normalizeReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { DatabaseEvents, SnapshotEvents } from '../../cursors/sqlite-events.js';
import { readDatabaseRecord } from '../../cursors/database-record.js';
import { databaseRecords, fromListing, type DatabaseRecord } from '../../cursors/discovery.js';
import { createHash64, type Hash64 } from '../../cursors/ids.js';
import { hashRow, recordStamper } from '../../cursors/record-stamps.js';
import { recordDependencies } from '../../cursors/record-path.js';
import { columnsOf, hasTable, type SqliteDatabase } from '../../cursors/sqlite.js';
import { isSubagentSession, msIso, sessionEvent, usageEvent, type Row } from './parse.js';
import { CODEC_ID, discoverZcodeFiles } from './paths.js';
import { PARSER_VERSION, zcodeDescriptor } from './descriptor.js';

export { msIso, sessionEvent, usageEvent, zcodeCount, zcodeTokens, type Row, type ZcodeTokens } from './parse.js';
export { CODEC_ID as ZCODE_CODEC_ID, discoverZcodeFiles, getZcodeRoots } from './paths.js';

export { PARSER_VERSION } from './descriptor.js';

/** Every session id of the database (requests first, then sessions without any), in first-use order. */
function sessionIds(db: SqliteDatabase): string[] {
  const ids = db.prepare("SELECT session_id AS id FROM model_usage WHERE session_id IS NOT NULL AND session_id <> '' GROUP BY session_id ORDER BY min(rowid)").all() as { id: unknown }[];
  const out = ids.map((r) => String(r.id));
  if (hasTable(db, 'session')) {
    const seen = new Set(out);
    for (const r of db.prepare('SELECT id FROM session ORDER BY rowid').all() as { id: unknown }[]) {
      if (typeof r.id === 'string' && r.id !== '' && !seen.has(r.id)) out.push(r.id);
    }
  }
  return out;
}

/** Every session with its usage rows in request order (none without the `model_usage` table). */
function sessionsOf(db: SqliteDatabase): DatabaseEvents {
  const out: DatabaseEvents = { sessions: new Map(), skipped: 0 };
  if (!hasTable(db, 'model_usage')) return out;
  const sessionRow = hasTable(db, 'session') ? db.prepare('SELECT * FROM session WHERE id = ?') : undefined;
  const usage = db.prepare('SELECT rowid AS _rowid, * FROM model_usage WHERE session_id = ? ORDER BY COALESCE(started_at, completed_at), rowid');
  for (const id of sessionIds(db)) out.sessions.set(id, sessionOf(id, usage.all(id) as Row[], sessionRow?.get(id) as Row | undefined));
  return out;
}

/** A session's events: its session event, then one usage event per request row. */
function sessionOf(id: string, rows: readonly Row[], sessionRow: Row | undefined): SnapshotEvents {
  const first = rows.map((r) => msIso(r.started_at) ?? msIso(r.completed_at)).find((t) => t !== undefined);
  const events: SessionfoldEvent[] = [];
  let counted = 0;
  for (const r of rows) if (usageEvent(id, r, (e) => events.push(e)) !== undefined) counted++;
  events.unshift(sessionEvent(id, sessionRow, first, counted === 0));
  return { events, skipped: 0 };
}

/** `read()`: the session's events from one read of its database per state (cursors/sqlite-events.ts `databaseEvents`). */
async function* readZcode(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  yield* readDatabaseRecord(CODEC_ID, file, normalizeReadOptions(options), 'all', sessionsOf);
}

/** Every session of every database under the roots, as record paths; the SQLite driver loads only for one. */
/**
 * A database's sessions (`sessionIds`), each with its request rows' count and latest time as its stat
 * (`DatabaseRecord`) when it has requests: a request of one session leaves the others' as they were, and
 * `zcodeDependencyStamp` sees what these do not. A session without requests keeps the database's stat.
 */
function sessionList(d: SqliteDatabase): DatabaseRecord[] {
  if (!hasTable(d, 'model_usage')) return [];
  const typed = taskTypes(d);
  const rows = d.prepare("SELECT session_id AS id, count(*) AS n, max(COALESCE(completed_at, started_at)) AS at FROM model_usage WHERE session_id IS NOT NULL AND session_id <> '' GROUP BY session_id").all() as { id: unknown; n: unknown; at: unknown }[];
  const stats = new Map(rows.map((r) => [String(r.id), r]));
  return sessionIds(d).map((id) => {
    const r = stats.get(id);
    const out: DatabaseRecord = typeof r?.n === 'number' && typeof r.at === 'number' && Number.isFinite(r.at) ? { id, size: r.n, mtimeMs: r.at } : { id };
    if (isSubagentSession(id, typed.get(id))) out.subagent = true;
    return out;
  });
}

/** Each session row's task type (`isSubagentSession` reads it), when the `session` table has the column. */
function taskTypes(d: SqliteDatabase): Map<string, Row> {
  const out = new Map<string, Row>();
  if (!hasTable(d, 'session')) return out;
  if (!columnsOf(d, 'session').has('task_type')) return out;
  for (const r of d.prepare('SELECT id, task_type FROM session').all() as Row[]) if (typeof r.id === 'string') out.set(r.id, r);
  return out;
}

function discoverZcode(roots: readonly string[]): AsyncGenerator<SessionFile> {
  return databaseRecords(CODEC_ID, discoverZcodeFiles(roots), sessionList);
}

/** Goes up whenever the stamps of the same rows would differ. */
const STAMP_VERSION = 1;

/**
 * Every session's stamp: what `sessionsOf` reads of it, its `session` row (when the table has one) and its
 * `model_usage` rows in request order, every column (`hashRow`).
 */
function sessionStamps(d: SqliteDatabase): Record<string, string> {
  if (!hasTable(d, 'model_usage')) return {};
  const hashes = new Map<string, Hash64>();
  const of = (id: string): Hash64 => {
    let h = hashes.get(id);
    if (h === undefined) hashes.set(id, (h = createHash64()));
    return h;
  };
  if (hasTable(d, 'session')) for (const row of d.prepare('SELECT * FROM session').iterate() as IterableIterator<Row>) if (typeof row.id === 'string' && row.id !== '') hashRow(of(row.id), row);
  const usage = d.prepare("SELECT rowid AS _rowid, * FROM model_usage WHERE session_id IS NOT NULL AND session_id <> '' ORDER BY session_id, COALESCE(started_at, completed_at), rowid");
  for (const row of usage.iterate() as IterableIterator<Row>) hashRow(of(String(row.session_id)), row);
  return Object.fromEntries([...hashes].map(([id, h]) => [id, h.digest()]));
}

/** `Codec.dependencyStamp`: a session's record path stamped by its rows (cursors/record-stamps.ts). */
const zcodeDependencyStamp = recordStamper('zcode-sessions', `${CODEC_ID}@${PARSER_VERSION}.s${STAMP_VERSION}`, sessionStamps);

/** Z Code: `cli/db/db.sqlite` under its home; see its README. */
export const zcode: Codec = {
  ...zcodeDescriptor,
  ...fromListing(discoverZcode),
  getParseDependencies: recordDependencies,
  dependencyStamp: zcodeDependencyStamp,
  read: readZcode,
};
export default zcode;
