/**
 * What the codec asks of `sessions.db` (index.ts runs it over a read-only snapshot): a small index of the whole
 * database, and one session's rows. Real databases reach gigabytes (README "Reading"), so no read holds every
 * message: the index keeps, per usage key, the session that owns it (parse.ts `usageOwners`) and, per session,
 * the span of rowids its rows sit in; a session's read takes only the rows of that span that are its own.
 *
 * Which rows are chat messages the codec reads (parse.ts `nodeOf`) is decided in SQL for a usage read, so
 * its rows carry no message text: `OK_ROW` is `nodeOf`'s test, and a usage read decodes assistant rows only.
 */
import { jsonObject } from '../../cursors/core.js';
import { createHash64, type Hash64 } from '../../cursors/ids.js';
import { hashRow } from '../../cursors/record-stamps.js';
import type { DatabaseRecord } from '../../cursors/discovery.js';
import { columnsOf, hasTable, type SqliteDatabase } from '../../cursors/sqlite.js';
import { nodeOf, usageKeyOf, usageOwners } from './parse.js';
import type { DevinNode, DevinSession, Row } from './schema.js';

/** `nodeOf`'s test in SQL: a JSON object whose role Devin writes and whose content is text, a list or absent. */
const OK_ROW = `(CASE WHEN json_valid(chat_message) THEN json_type(chat_message) = 'object'
  AND json_extract(chat_message, '$.role') IN ('user', 'assistant', 'system', 'tool')
  AND COALESCE(json_type(chat_message, '$.content'), 'null') IN ('null', 'text', 'array') ELSE 0 END)`;

/** The fields of a reply usage reads, in one pass over the message: a JSON array in this order. */
const SLIM_PATHS = ['$.role', '$.message_id', '$.metadata.request_id', '$.metadata.generation_model', '$.metadata.created_at', '$.metadata.metrics'];
const SLIM = `CASE WHEN ${OK_ROW} AND json_extract(chat_message, '$.role') = 'assistant'
  THEN json_extract(chat_message, ${SLIM_PATHS.map((p) => `'${p}'`).join(', ')}) END AS slim`;

/** A reply's slim fields (`SLIM`) as the message they stand for; undefined for a row that is not a reply. */
function slimMessage(slim: unknown): Record<string, unknown> | undefined {
  if (typeof slim !== 'string') return undefined;
  const f = JSON.parse(slim) as unknown[];
  return { role: f[0], message_id: f[1], metadata: { request_id: f[2], generation_model: f[3], created_at: f[4], metrics: f[5] } };
}

/** The whole database as far as every session's read needs it. */
export interface DevinIndex {
  /** Session ids in the order sessions are listed and read: the `sessions` table's (oldest first), then any other a row names. */
  order: string[];
  /** Each session's rows lie within these rowids. */
  spans: Map<string, { lo: number; hi: number }>;
  /** The session that owns each usage key (parse.ts `usageOwners`). */
  owners: Map<string, string>;
  /** Each session's usage keys, in row order (what of `owners` its events depend on). */
  keys: Map<string, Set<string>>;
  /** Rows of no session (no usable `session_id`). */
  orphans: number;
}

/** Sessions oldest first: by `created_at`, else (a table without it) in insertion order. */
const sessionOrder = (db: SqliteDatabase): string => (columnsOf(db, 'sessions').has('created_at') ? 'ORDER BY created_at, rowid' : 'ORDER BY rowid');

/** The session ids the `sessions` table lists, oldest first. */
function listedSessions(db: SqliteDatabase): string[] {
  if (!hasTable(db, 'sessions')) return [];
  return (db.prepare(`SELECT id FROM sessions ${sessionOrder(db)}`).all() as Row[]).flatMap((r) => (typeof r.id === 'string' && r.id !== '' ? [r.id] : []));
}

/**
 * Every session in `DevinIndex.order`'s order, with a stat of its own rows where it has any (their count, and
 * the latest row time): a row written to one session leaves the others' as they were, and `sessionStamps`
 * sees what these do not (a row rewritten in place).
 */
export function sessionList(db: SqliteDatabase): DatabaseRecord[] {
  const out: DatabaseRecord[] = listedSessions(db).map((id) => ({ id }));
  if (!hasTable(db, 'message_nodes')) return out;
  const at = new Map(out.map((r, i) => [r.id, i]));
  for (const r of db.prepare('SELECT session_id AS id, count(*) AS n, max(created_at) AS t FROM message_nodes GROUP BY session_id ORDER BY min(rowid)').all() as Row[]) {
    if (typeof r.id !== 'string' || r.id === '') continue;
    const stat = typeof r.n === 'number' && typeof r.t === 'number' ? { size: r.n, mtimeMs: r.t * 1000 } : {};
    const i = at.get(r.id);
    if (i === undefined) out.push({ id: r.id, ...stat });
    else out[i] = { id: r.id, ...stat };
  }
  return out;
}

/** The database's index: one pass over `message_nodes` that selects no message text. */
export function devinIndex(db: SqliteDatabase): DevinIndex {
  const order = listedSessions(db);
  const seen = new Set(order);
  const spans = new Map<string, { lo: number; hi: number }>();
  const keys = new Map<string, Set<string>>();
  let orphans = 0;
  if (hasTable(db, 'message_nodes')) {
    const rows = db.prepare(`SELECT rowid AS _rowid, session_id, ${SLIM} FROM message_nodes ORDER BY rowid`).iterate() as IterableIterator<Row>;
    for (const r of rows) {
      const id = r.session_id;
      if (typeof id !== 'string' || id === '') {
        orphans++;
        continue;
      }
      const rowid = Number(r._rowid);
      const span = spans.get(id);
      if (span === undefined) spans.set(id, { lo: rowid, hi: rowid });
      else span.hi = rowid;
      if (!seen.has(id)) {
        order.push(id);
        seen.add(id);
      }
      const msg = slimMessage(r.slim);
      const node = msg === undefined ? undefined : nodeOf(r, msg, null);
      const key = node === undefined ? undefined : usageKeyOf(node);
      if (key === undefined) continue;
      const mine = keys.get(id);
      if (mine === undefined) keys.set(id, new Set([key]));
      else mine.add(key);
    }
  }
  const rank = new Map(order.map((id, i) => [id, i]));
  return { order, spans, owners: usageOwners([...keys].sort(([a], [b]) => rank.get(a)! - rank.get(b)!)), keys, orphans };
}

/** A session's rows: within its span, its own, by rowid. */
function rowsOf(db: SqliteDatabase, columns: string, id: string, index: DevinIndex): IterableIterator<Row> {
  const span = index.spans.get(id) ?? { lo: 1, hi: 0 };
  return db.prepare(`SELECT ${columns} FROM message_nodes WHERE rowid BETWEEN ? AND ? AND session_id = ? ORDER BY rowid`).iterate(span.lo, span.hi, id) as IterableIterator<Row>;
}

const NODE_COLUMNS = 'rowid AS _rowid, node_id, parent_node_id, created_at';

/**
 * One session with its nodes: with `conversation` every message decoded whole; else the replies only, by their
 * slim fields (usage needs no other), with the session's first message time (`firstAt`) and whether it has
 * replies. A row that is not a chat message the codec reads is counted as skipped either way.
 */
export function sessionOf(db: SqliteDatabase, id: string, index: DevinIndex, conversation: boolean): DevinSession {
  const row = hasTable(db, 'sessions') ? (db.prepare('SELECT rowid AS _rowid, * FROM sessions WHERE id = ?').get(id) as Row | undefined) : undefined;
  const s: DevinSession = { id, row, nodes: [], skipped: 0 };
  if (!index.spans.has(id)) return s;
  const columns = conversation ? `${NODE_COLUMNS}, chat_message` : `${NODE_COLUMNS}, ${OK_ROW} AS ok, ${SLIM}`;
  for (const r of rowsOf(db, columns, id, index)) {
    const node: DevinNode | undefined = conversation ? nodeOf(r, jsonObject(r.chat_message)) : r.ok === 1 ? slimNode(r, s) : undefined;
    if (node === undefined && (conversation || r.ok !== 1)) s.skipped++;
    else if (node !== undefined) s.nodes.push(node);
  }
  return s;
}

/** A usage read's row that `OK_ROW` passed: a node when it is a reply; the session's first time noted either way. */
function slimNode(r: Row, s: DevinSession): DevinNode | undefined {
  const msg = slimMessage(r.slim);
  const node = nodeOf(r, msg ?? { role: 'user' }, null);
  if (s.firstAt === undefined && node?.createdAt !== undefined) s.firstAt = node.createdAt;
  return msg === undefined ? undefined : node;
}

/**
 * Every session's stamp: its `sessions` row and its `message_nodes` rows, every column (what its read takes),
 * then the owners of its usage keys (what of the other sessions its events depend on: which of its requests
 * are copies, and of which session).
 */
export function sessionStamps(db: SqliteDatabase): Record<string, string> {
  const index = devinIndex(db);
  const hashes = new Map<string, Hash64>(index.order.map((id) => [id, createHash64()]));
  if (hasTable(db, 'sessions')) {
    for (const r of db.prepare('SELECT rowid AS _rowid, * FROM sessions').iterate() as IterableIterator<Row>) hashRowOf(hashes.get(String(r.id)), r);
  }
  if (hasTable(db, 'message_nodes')) {
    for (const r of db.prepare('SELECT rowid AS _rowid, * FROM message_nodes ORDER BY rowid').iterate() as IterableIterator<Row>) hashRowOf(hashes.get(String(r.session_id)), r);
  }
  const out: Record<string, string> = {};
  for (const [id, h] of hashes) {
    h.update(Buffer.from(JSON.stringify([...(index.keys.get(id) ?? [])].map((k) => index.owners.get(k))), 'utf8'));
    out[id] = h.digest();
  }
  return out;
}

function hashRowOf(h: Hash64 | undefined, r: Row): void {
  if (h !== undefined) hashRow(h, r);
}
