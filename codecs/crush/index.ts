/**
 * `crush`: Charm's Crush, which keeps each project's sessions in one SQLite database, `<project>/.crush/crush.db`,
 * found through the projects Crush registers in its global data folder (paths.ts; README.md has the schema).
 * Each session is a record path `<crush.db>#<session id>` (cursors/record-path.ts); the database's own path
 * reads every session. Reads are whole, through `withSqliteSnapshot` (nothing beside the database is created,
 * changed or removed), one snapshot for every session of the database while it stays as it was. Per session:
 * a session event, its messages in order with their tool calls and results, and, for a top-level session
 * with a cost, one usage event carrying that cost.
 *
 * @example
 * import { crush } from 'sessionfold/codecs/crush';
 * for await (const f of crush.discover(crush.defaultRoots()))
 *   for await (const e of crush.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.costUsd);
 */
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { normalizeReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { DatabaseEvents } from '../../cursors/sqlite-events.js';
import { readDatabaseRecord } from '../../cursors/database-record.js';
import { databaseRecords, fromListing, type DatabaseRecord } from '../../cursors/discovery.js';
import { recordDependencies, splitRecordPath } from '../../cursors/record-path.js';
import { columnsOf, type SqliteDatabase } from '../../cursors/sqlite.js';
import { epochIso, messageEvents, sessionEvent, usageEvent, type Row } from './parse.js';
import { CODEC_ID, discoverCrushFiles, projectOf } from './paths.js';
import { crushDescriptor, PARSER_VERSION } from './descriptor.js';
import { recordStamper, sessionTableStamps } from '../../cursors/record-stamps.js';

export { epochIso, messageEvents, sessionEvent, usageEvent, type Row } from './parse.js';
export { discoverCrushFiles, getCrushRoots, projectDataDirs, type CrushProject } from './paths.js';

export { PARSER_VERSION } from './descriptor.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The `messages` columns a read needs (a database of Crush's first migration lacks later ones): a session's model and provider and its last message's time; with
 * `conversation`, each message's `parts` and what its message event names.
 */
function messageColumns(db: SqliteDatabase, conversation: boolean): string {
  const has = columnsOf(db, 'messages');
  const wanted = ['role', 'model', 'provider', 'created_at', 'finished_at', ...(conversation ? ['id', 'parts', 'is_summary_message'] : [])];
  return wanted.filter((c) => has.has(c)).join(', ');
}

/**
 * Every session with its messages, in the order Crush created them. Without `conversation` (a read of session
 * or usage events only: the cost scan) no message's `parts` is selected or parsed: the usage event needs only
 * the other columns.
 */
function sessionsOf(db: SqliteDatabase, file: string, conversation: boolean): DatabaseEvents {
  const sessions = db.prepare('SELECT id, parent_session_id, title, cost, created_at FROM sessions ORDER BY created_at, rowid').all() as Row[];
  const messages = db.prepare(`SELECT ${messageColumns(db, conversation)} FROM messages WHERE session_id = ? ORDER BY created_at, rowid`);
  const cwd = projectOf(file);
  const out: DatabaseEvents = { sessions: new Map(), skipped: 0 };
  for (const s of sessions) {
    const rows = messages.all(s.id) as Row[];
    // the model and provider of the session's last answer
    let last: Row | undefined;
    for (const m of rows) if (m.role === 'assistant' && str(m.model) !== undefined) last = m;
    const model = str(last?.model);
    const provider = str(last?.provider);
    const session = sessionEvent(s, cwd, model, provider);
    if (session === undefined) {
      out.skipped++;
      continue;
    }
    const events: SessionfoldEvent[] = [session];
    const emit = (e: SessionfoldEvent): void => {
      events.push(e);
    };
    let skipped = 0;
    if (conversation) {
      rows.forEach((m, i) => {
        if (!messageEvents(session.sessionId, m, i + 1, emit)) skipped++;
      });
    }
    const end = rows.at(-1);
    const usage = usageEvent(s, rows.length, epochIso(end?.finished_at) ?? epochIso(end?.created_at), model, provider);
    if (usage === 'bad') skipped++;
    else if (usage !== undefined) emit(usage);
    out.sessions.set(session.sessionId, { events, skipped });
  }
  return out;
}

/** `read()`: the session's events from one read of its database per state (cursors/sqlite-events.ts `databaseEvents`). */
async function* readCrush(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const o = normalizeReadOptions(options);
  const db = splitRecordPath(file).db;
  yield* readDatabaseRecord(CODEC_ID, file, o, o.conversation ? 'conversation' : 'summary', (d) => sessionsOf(d, db, o.conversation));
}

/**
 * A database's sessions in creation order, a task session marked a sub-agent's, each with its message count
 * and `updated_at` (which Crush's trigger moves at each update of the row) as its stat (`DatabaseRecord`): a
 * write to one session leaves the others' as they were, and `crushDependencyStamp` sees what these do not.
 */
function sessionList(d: SqliteDatabase): DatabaseRecord[] {
  const rows = d.prepare('SELECT id, parent_session_id AS parent, message_count AS n, updated_at AS at FROM sessions ORDER BY created_at, rowid').all() as { id: unknown; parent: unknown; n: unknown; at: unknown }[];
  return rows.flatMap((r) => {
    const id = str(r.id);
    if (id === undefined) return [];
    const stat = typeof r.n === 'number' && typeof r.at === 'number' ? { size: r.n, mtimeMs: r.at * 1000 } : {};
    return [{ id, subagent: str(r.parent) !== undefined, ...stat }];
  });
}

/** Goes up whenever the stamps of the same rows would differ. */
const STAMP_VERSION = 1;

/**
 * Every session's stamp: its `sessions` row and its `messages` rows, every column, what a read of
 * the session takes of the database (`sessionsOf`). Crush writes one session at a time (a message streamed, the
 * row's totals): such a write changes that session's stamp alone.
 */
function sessionStamps(d: SqliteDatabase): Record<string, string> {
  return sessionTableStamps(d, 'SELECT * FROM sessions', ['SELECT * FROM messages ORDER BY session_id, created_at, rowid']);
}

/** `Codec.dependencyStamp`: a session's record path stamped by its rows (cursors/record-stamps.ts). */
const crushDependencyStamp = recordStamper('crush-sessions', `${CODEC_ID}@${PARSER_VERSION}.s${STAMP_VERSION}`, sessionStamps);

/** Every session of every registered database, as record paths; the SQLite driver loads only for one. */
const discoverCrush = (roots: readonly string[]): AsyncGenerator<SessionFile> => databaseRecords(CODEC_ID, discoverCrushFiles(roots), sessionList);

/** Crush: `.crush/crush.db` of each project Crush registered; see its README. */
export const crush: Codec = {
  ...crushDescriptor,
  ...fromListing(discoverCrush),
  getParseDependencies: recordDependencies,
  dependencyStamp: crushDependencyStamp,
  read: readCrush,
};
export default crush;
