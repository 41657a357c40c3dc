/**
 * `devin`: Devin CLI (Cognition; Devin Desktop drives the same CLI), which keeps every session in one SQLite
 * database, `$XDG_DATA_HOME/devin/cli/sessions.db` (README.md has the schema and its sources). Each session is
 * a record path `<sessions.db>#<session id>` (cursors/record-path.ts); the database's own path reads every
 * session. Reads go through `withSqliteSnapshot` (read-only, one consistent snapshot; nothing beside the
 * database is created, changed or removed) and are whole: a changed database is read again, once for all its
 * sessions, since a request copied into a new session is counted by the session it came from (parse.ts). A
 * read that asks for no conversation selects only the fields usage needs, not the messages' text.
 *
 * @example
 * import { devin } from 'sessionfold/codecs/devin';
 * for await (const f of devin.discover(devin.defaultRoots()))
 *   for await (const e of devin.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { normalizeReadOptions } from '../../cursors/protocol/codec.js';
import type { EventKind, SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { DatabaseEvents } from '../../cursors/sqlite-events.js';
import { jsonObject } from '../../cursors/core.js';
import { readDatabaseRecord } from '../../cursors/database-record.js';
import { databaseRecords, fromListing, type DatabaseRecord } from '../../cursors/discovery.js';
import { recordDependencies } from '../../cursors/record-path.js';
import { columnsOf, hasTable, type SqliteDatabase } from '../../cursors/sqlite.js';
import { nodeOf, sessionEvents, usageOwners, type DevinSession, type Row } from './parse.js';
import { CODEC_ID, discoverDevinFiles } from './paths.js';
import { devinDescriptor } from './descriptor.js';

export { devinTokens, nodeOf, secondsIso, sessionEvents, usageKeyOf, usageOwners, type DevinNode, type DevinSession, type DevinTokens, type Row } from './parse.js';
export { conversationNodes } from './conversation.js';
export { CODEC_ID as DEVIN_CODEC_ID, discoverDevinFiles, getDevinRoots, LEGACY_DB, SESSIONS_DB } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

const CONVERSATION: readonly EventKind[] = ['message', 'tool_call', 'tool_result'];

/** The nodes' columns: the whole message, or (a usage read) the fields of it usage needs, and its content's type. */
const FULL_NODES = 'SELECT rowid AS _rowid, session_id, node_id, parent_node_id, created_at, chat_message FROM message_nodes ORDER BY rowid';
const field = (path: string, as: string) => `CASE WHEN json_valid(chat_message) THEN json_extract(chat_message, '${path}') END AS ${as}`;
const USAGE_NODES = `SELECT rowid AS _rowid, session_id, node_id, parent_node_id, created_at, json_valid(chat_message) AS valid,
  ${field('$.role', 'role')}, ${field('$.message_id', 'message_id')}, ${field('$.metadata.request_id', 'request_id')},
  ${field('$.metadata.generation_model', 'generation_model')}, ${field('$.metadata.created_at', 'meta_created_at')},
  CASE WHEN json_valid(chat_message) THEN json_extract(chat_message, '$.metadata.metrics') END AS metrics,
  CASE WHEN json_valid(chat_message) THEN json_type(chat_message, '$.content') END AS content_type
  FROM message_nodes ORDER BY rowid`;

/** A usage read's row as the message it stands for (what parse.ts reads of one). */
function slimMessage(r: Row): Record<string, unknown> | undefined {
  if (r.valid !== 1 || typeof r.role !== 'string') return undefined;
  const metadata = { request_id: r.request_id, generation_model: r.generation_model, created_at: r.meta_created_at, metrics: jsonObject(r.metrics) };
  return { role: r.role, message_id: r.message_id, metadata };
}

/** Sessions oldest first: by `created_at`, else (a table without it) in insertion order. */
const sessionOrder = (db: SqliteDatabase): string => (columnsOf(db, 'sessions').has('created_at') ? 'ORDER BY created_at, rowid' : 'ORDER BY rowid');

/**
 * Every session with its nodes: those the `sessions` table lists, oldest first, then any other a node names.
 * A node that is not a readable chat message is counted as its session's skipped record.
 */
function sessionsOf(db: SqliteDatabase, conversation: boolean): { sessions: DevinSession[]; skipped: number } {
  const byId = new Map<string, DevinSession>();
  if (hasTable(db, 'sessions')) {
    for (const row of db.prepare(`SELECT rowid AS _rowid, * FROM sessions ${sessionOrder(db)}`).all() as Row[]) {
      if (typeof row.id === 'string' && row.id !== '') byId.set(row.id, { id: row.id, row, nodes: [], skipped: 0 });
    }
  }
  let skipped = 0;
  if (hasTable(db, 'message_nodes')) {
    for (const r of db.prepare(conversation ? FULL_NODES : USAGE_NODES).iterate() as IterableIterator<Row>) {
      if (typeof r.session_id !== 'string' || r.session_id === '') {
        skipped++;
        continue;
      }
      let s = byId.get(r.session_id);
      if (s === undefined) byId.set(r.session_id, (s = { id: r.session_id, row: undefined, nodes: [], skipped: 0 }));
      const node = conversation ? nodeOf(r, jsonObject(r.chat_message)) : nodeOf(r, slimMessage(r), r.content_type ?? null);
      if (node === undefined) s.skipped++;
      else s.nodes.push(node);
    }
  }
  return { sessions: [...byId.values()], skipped };
}

/** Every session's events from one snapshot: the owners of the requests first, then each session's events when read. */
function databaseRead(conversation: boolean): (db: SqliteDatabase) => DatabaseEvents {
  return (db) => {
    const { sessions, skipped } = sessionsOf(db, conversation);
    const owners = usageOwners(sessions);
    const out: DatabaseEvents = { sessions: new Map(), skipped };
    for (const s of sessions) out.sessions.set(s.id, () => sessionEvents(s, owners, conversation));
    return out;
  };
}

const READ_FULL = databaseRead(true);
const READ_USAGE = databaseRead(false);

/** `read()`: the session's (or the database's) events; a read without conversation kinds selects no message text. */
async function* readDevin(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const o = normalizeReadOptions(options);
  const conversation = CONVERSATION.some((k) => o.kinds.has(k));
  yield* readDatabaseRecord(CODEC_ID, file, o, conversation ? 'all' : 'usage', conversation ? READ_FULL : READ_USAGE);
}

/** A database's sessions as records, in `sessionsOf`'s order; the database's stat stands for each. */
function sessionList(d: SqliteDatabase): DatabaseRecord[] {
  const ids: string[] = [];
  const seen = new Set<string>();
  const add = (id: unknown) => {
    if (typeof id !== 'string' || id === '' || seen.has(id)) return;
    ids.push(id);
    seen.add(id);
  };
  if (hasTable(d, 'sessions')) for (const r of d.prepare(`SELECT id FROM sessions ${sessionOrder(d)}`).all() as Row[]) add(r.id);
  if (hasTable(d, 'message_nodes')) for (const r of d.prepare('SELECT session_id AS id FROM message_nodes GROUP BY session_id ORDER BY min(rowid)').all() as Row[]) add(r.id);
  return ids.map((id) => ({ id }));
}

function discoverDevin(roots: readonly string[]): AsyncGenerator<SessionFile> {
  return databaseRecords(CODEC_ID, discoverDevinFiles(roots), sessionList);
}

/** Devin CLI: `sessions.db` under `$XDG_DATA_HOME/devin/cli`; see its README. */
export const devin: Codec = {
  ...devinDescriptor,
  ...fromListing(discoverDevin),
  getParseDependencies: recordDependencies,
  read: readDevin,
};
export default devin;
