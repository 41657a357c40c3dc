/**
 * `grok-cli`: the community grok-cli (superagent-ai/grok-cli), which keeps every session in one SQLite database,
 * `~/.grok/grok.db` (README.md has the schema). Each session is a record path `<grok.db>#<session id>`
 * (cursors/record-path.ts); the database's own path reads every session. Reads are whole, through
 * `withSqliteSnapshot` (nothing beside the database is created, changed or removed), one snapshot for every
 * session of the database while it stays as it was. Per session: a session event, the messages in `seq`
 * order with their tool calls and results, and one usage event per usage row.
 */
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { normalizeReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { DatabaseEvents } from '../../cursors/sqlite-events.js';
import { readDatabaseRecord } from '../../cursors/database-record.js';
import { databaseRecords, fromListing, type DatabaseRecord } from '../../cursors/discovery.js';
import { recordStamper, sessionTableStamps } from '../../cursors/record-stamps.js';
import { recordDependencies } from '../../cursors/record-path.js';
import type { SqliteDatabase } from '../../cursors/sqlite.js';
import { messageEvents, sessionEvent, usageEvent, type Row } from './parse.js';
import { CODEC_ID, discoverGrokCliFiles } from './paths.js';
import { grokCliDescriptor, PARSER_VERSION } from './descriptor.js';

export { grokCliCount, messageEvents, sessionEvent, usageEvent } from './parse.js';
export { discoverGrokCliFiles, getGrokCliRoots } from './paths.js';

export { PARSER_VERSION } from './descriptor.js';

/** Every session with its messages and usage rows, in the order grok-cli created them. */
function sessionsOf(db: SqliteDatabase): DatabaseEvents {
  const sessions = db.prepare('SELECT * FROM sessions ORDER BY created_at, rowid').all() as Row[];
  const messages = db.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY seq');
  const usage = db.prepare('SELECT * FROM usage_events WHERE session_id = ? ORDER BY id');
  const out: DatabaseEvents = { sessions: new Map(), skipped: 0 };
  for (const s of sessions) {
    const id = String(s.id);
    const used = (usage.all(id) as Row[]).map((u) => usageEvent(id, u)).filter((u) => u !== undefined);
    const session = sessionEvent(s, used.length === 0);
    if (session === undefined) {
      out.skipped++;
      continue;
    }
    const events: SessionfoldEvent[] = [session];
    const emit = (e: SessionfoldEvent): void => {
      events.push(e);
    };
    let skipped = 0;
    for (const m of messages.all(id) as Row[]) if (!messageEvents(id, m, emit)) skipped++;
    for (const u of used) emit(u);
    out.sessions.set(id, { events, skipped });
  }
  return out;
}

/** `read()`: the session's events from one read of its database per state (cursors/sqlite-events.ts `databaseEvents`). */
async function* readGrokCli(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  yield* readDatabaseRecord(CODEC_ID, file, normalizeReadOptions(options), 'all', sessionsOf);
}

/**
 * A database's sessions in creation order, each with its rows' count (messages and usage) and `updated_at` as its
 * stat (`DatabaseRecord`): a write to one session leaves the others' as they were, and `grokCliDependencyStamp`
 * sees what these do not.
 */
function sessionList(d: SqliteDatabase): DatabaseRecord[] {
  const rows = d
    .prepare(
      `SELECT s.id, s.updated_at AS at, (SELECT count(*) FROM messages m WHERE m.session_id = s.id) + (SELECT count(*) FROM usage_events u WHERE u.session_id = s.id) AS n
       FROM sessions s ORDER BY s.created_at, s.rowid`,
    )
    .all() as { id: unknown; at: unknown; n: unknown }[];
  return rows.flatMap((r) => {
    if (typeof r.id !== 'string' || r.id === '') return [];
    const ms = typeof r.at === 'string' ? Date.parse(r.at) : NaN;
    return [{ id: r.id, ...(typeof r.n === 'number' && Number.isFinite(ms) && { size: r.n, mtimeMs: ms }) }];
  });
}

function discoverGrokCli(roots: readonly string[]): AsyncGenerator<SessionFile> {
  return databaseRecords(CODEC_ID, discoverGrokCliFiles(roots), sessionList);
}

/** Goes up whenever the stamps of the same rows would differ. */
const STAMP_VERSION = 1;

/**
 * Every session's stamp: what `sessionsOf` reads of it, its `sessions` row, its `messages` by `seq` and its
 * `usage_events` by `id`, every column. grok-cli writes one session at a time.
 */
function sessionStamps(d: SqliteDatabase): Record<string, string> {
  return sessionTableStamps(d, 'SELECT * FROM sessions', ['SELECT * FROM messages ORDER BY session_id, seq', 'SELECT * FROM usage_events ORDER BY session_id, id']);
}

/** `Codec.dependencyStamp`: a session's record path stamped by its rows (cursors/record-stamps.ts). */
const grokCliDependencyStamp = recordStamper('grok-cli-sessions', `${CODEC_ID}@${PARSER_VERSION}.s${STAMP_VERSION}`, sessionStamps);

/** The community grok-cli: `~/.grok/grok.db`; see its README. */
export const grokCli: Codec = {
  ...grokCliDescriptor,
  ...fromListing(discoverGrokCli),
  getParseDependencies: recordDependencies,
  dependencyStamp: grokCliDependencyStamp,
  read: readGrokCli,
};
export default grokCli;
