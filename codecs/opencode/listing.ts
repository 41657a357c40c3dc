/**
 * Discovery's listing of an OpenCode database (db.ts `listDatabaseSessions` gives its sessions), and the same
 * listing brought up to date from an earlier one (`nextListing`) when the database changed, so that a warm
 * run over a large database whose few sessions moved does not pass over every row again.
 *
 * A listing keeps, per session, the figures the fingerprint is made of (message count, highest rowid, latest
 * `time_updated`; part count and highest rowid), and per table watermarks: the count, the highest rowid and
 * the id of the row there, and for messages the latest `time_updated`. From those, a later state of the
 * same database file (same device and inode) is listed by
 * - `count(*)` of each table equal to the old count plus the rows above the old highest rowid, and the row
 *   at the old highest rowid still there with its id: no row was deleted (else the full passes; the rule of
 *   a resumed read, cursors/sqlite-rows.ts `appendedOnly`, for a whole table `tableHolds`);
 * - messages added: a rowid range; messages updated: only those not settled when last listed can be (a reply
 *   streaming; `SETTLED`), so the listing keeps their ids and update times and reads them again
 *   by id, and walks no row (`time_updated` has no index); parts added: a rowid range;
 * - sessions read whole (a small table): those added get their figures from the `session_id` indexes.
 * What this takes on trust, as OpenCode writes: a row keeps its `session_id`, a message updated gets a
 * `time_updated` other than its last one (OpenCode stamps `Date.now()`), and a settled message is never
 * rewritten in a way any read sees (README.md, "Messages that have settled"). A database vacuumed keeps
 * its rows and counts; one replaced (another inode) is listed in full.
 *
 * A session's update time must be the same whether listed in full or brought up to date, or one state of
 * the database would get two fingerprints. OpenCode rewrites a settled message (the user message's summary,
 * after every step), which the update does not look for; so a settled message counts with a time it never
 * changes (`SETTLED_TIME`: a user message its `time_created`, a reply its `time.completed`) and an open one
 * with its `time_updated` now (the listing's `open`), not the latest of them all.
 *
 * A fork that does not trust settled messages (`settled` false: Kilo CLI) keeps the walk: messages added or
 * updated (`time_updated` later than any before) by one pass over the table, and `time_updated` as each
 * message's time.
 */
import { statSync } from 'node:fs';
import { fileIdOf } from '../../cursors/listing-memo.js';
import { countRows, openAfter, rowsSince, tableHolds, type RowSource } from '../../cursors/sqlite-rows.js';
import type { SqliteDatabase } from '../../cursors/sqlite.js';
import { sessionSql, tablesOf, V1_ONLY, type Tables } from './v2.js';

/**
 * One session's figures: id, parent, session time_updated, its messages' latest time (of the settled ones, with
 * `settled`: the open ones' are in the listing's `open`), highest rowid, count, part highest rowid, count.
 */
export type SessionFigures = [id: string, parent: string | null, su: number, mu: number, mr: number, mn: number, pr: number, pn: number];

interface TableMarks {
  /** count(*) */
  n: number;
  /** highest rowid (0: none) */
  r: number;
  /** the id of the row at `r` */
  id: string | null;
}

/** A message not settled when listed (`SETTLED`): its session and update time. */
export type OpenMessage = [session: string, updated: number];

export interface ListingState {
  /** `dev:ino` of the database file listed. */
  file: string;
  /** `open`: by id, the messages not settled when listed, whose update is looked for again by id. */
  message: TableMarks & { u: number; open: Record<string, OpenMessage> };
  part: TableMarks;
  /** In listing order (session time_created, id). */
  sessions: SessionFigures[];
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The database file's `dev:ino`: taken before its snapshot opens, so a file replaced meanwhile is never taken for the one listed. */
export function fileId(path: string): string {
  // none: the snapshot's open says why (a listing of '-' never stands for a file)
  const s = statSync(path, { bigint: true, throwIfNoEntry: false });
  return s === undefined ? '-' : fileIdOf(s);
}

function marksOf(db: SqliteDatabase, table: 'message' | 'part', t: Tables): TableMarks {
  if (!t[table]) return { n: 0, r: 0, id: null };
  // two queries: `count(*)` alone counts the cells of each page of the smallest index (no row decoded), which
  // `count(*), max(rowid)` together cannot (a scan stepping every row: about twice the CPU on a 1 GiB database)
  const n = countRows(db, { table });
  const r = (db.prepare(`SELECT max(rowid) AS r FROM ${table}`).get() as { r: number | null }).r ?? 0;
  const id = r === 0 ? null : ((db.prepare(`SELECT id FROM ${table} WHERE rowid = ?`).get(r) as { id: string } | undefined)?.id ?? null);
  return { n, r, id };
}

/**
 * SQL 1 for a message row OpenCode no longer rewrites in any way a read for `session` and `usage` sees, else 0:
 * a user message (its later writes add a `summary` of diffs, which no event reads), or an assistant message once
 * its `time.completed` is set (the processor's last write of its tokens, cost and model; what OpenCode writes to
 * it afterwards, a structured output or an error, changes no usage). Data that is not a JSON object never
 * settles. README.md, "Messages that have settled". The reads' open rows (db.ts) and the listing's use this one
 * expression.
 */
export const SETTLED = `(CASE WHEN json_valid(data) AND json_type(data) = 'object' THEN coalesce(json_extract(data, '$.role') = 'user' OR (json_extract(data, '$.role') = 'assistant' AND json_type(data, '$.time.completed') IN ('integer', 'real')), 0) ELSE 0 END)`;

/** SQL: the time a settled message counts with, one that no later write changes; NULL for a message not settled. */
const SETTLED_TIME = `(CASE WHEN ${SETTLED} THEN (CASE WHEN json_extract(data, '$.role') = 'user' THEN time_created ELSE json_extract(data, '$.time.completed') END) END)`;

/** SQL: a message's time in its session's, as the listing counts it (see the header). */
const timeOf = (settled: boolean): string => (settled ? SETTLED_TIME : 'time_updated');

function openOf(rows: readonly [string, unknown, unknown][]): Record<string, OpenMessage> {
  const open: Record<string, OpenMessage> = {};
  for (const [id, session, updated] of rows) open[id] = [String(session), num(updated)];
  return open;
}

/**
 * The listing, from every row (see db.ts `listDatabaseSessions` for why these passes); `file`: `fileId` of the
 * database; `settled`: trust that settled messages are never rewritten (see the header).
 */
export function fullListing(db: SqliteDatabase, file: string, settled = true): ListingState {
  const t = tablesOf(db);
  // a table the database lacks (one generation only, v2.ts) joins as no rows
  const none = 'SELECT NULL AS session_id, 0 AS u, 0 AS r, 0 AS n WHERE 0';
  const messages = t.message ? `SELECT session_id, max(${timeOf(settled)}) AS u, max(rowid) AS r, count(*) AS n FROM message NOT INDEXED GROUP BY session_id` : none;
  const parts = t.part ? 'SELECT session_id, max(rowid) AS r, count(*) AS n FROM part GROUP BY session_id' : none;
  // 2.x's messages (rewritten in place as they stream, no settled ones): their latest update, and their highest
  // rowid and count added to the messages' (the fingerprint moves with either)
  const v2 = t.session_message ? 'SELECT session_id, max(time_updated) AS u, max(rowid) AS r, count(*) AS n FROM session_message NOT INDEXED GROUP BY session_id' : none;
  const rows = db
    .prepare(
      `SELECT s.id AS id, s.parent_id AS parent, s.time_updated AS su, max(coalesce(m.u, 0), coalesce(v.u, 0)) AS mu, coalesce(m.r, 0) + coalesce(v.r, 0) AS mr,
         coalesce(m.n, 0) + coalesce(v.n, 0) AS mn, p.r AS pr, p.n AS pn
       FROM (${sessionSql(t, '')}) s
       LEFT JOIN (${messages}) m ON m.session_id = s.id
       LEFT JOIN (${parts}) p ON p.session_id = s.id
       LEFT JOIN (${v2}) v ON v.session_id = s.id
       ORDER BY s.time_created, s.id`,
    )
    .raw()
    .all() as [string, string | null, unknown, unknown, unknown, unknown, unknown, unknown][];
  const sessions = rows.map(([id, parent, ...n]) => [id, parent ?? null, ...n.map(num)] as SessionFigures);
  const u = sessions.reduce((a, s) => Math.max(a, s[3]), 0);
  const open = settled && t.message ? openOf(db.prepare(`SELECT id, session_id, time_updated FROM message NOT INDEXED WHERE NOT ${SETTLED}`).raw().all() as [string, unknown, unknown][]) : {};
  return { file, message: { ...marksOf(db, 'message', t), u, open }, part: marksOf(db, 'part', t), sessions };
}

/** The marks of `table` now when it lost no row since `old` (see the header), else undefined. */
function onlyAdded(db: SqliteDatabase, table: 'message' | 'part', old: TableMarks): TableMarks | undefined {
  let now: TableMarks | undefined;
  return tableHolds(db, { table, tail: 'id' }, { count: old.n, rowid: old.r, top: old.id }, () => (now = marksOf(db, table, V1_ONLY)).n) ? now : undefined;
}

/** The listing of the database now, from `old` when the same file lost no row since (see the header). */
export function nextListing(db: SqliteDatabase, file: string, old: ListingState, settled = true): ListingState {
  if (file !== old.file || file === '-') return fullListing(db, file, settled);
  // 2.x's tables are listed in full: their rows are rewritten in place with no settled state to trust (v2.ts)
  const t = tablesOf(db);
  if (t.session_v2 || t.session_message || !t.session || !t.message || !t.part) return fullListing(db, file, settled);
  const messageMarks = onlyAdded(db, 'message', old.message);
  const partMarks = messageMarks === undefined ? undefined : onlyAdded(db, 'part', old.part);
  if (messageMarks === undefined || partMarks === undefined) return fullListing(db, file, settled);
  const { msgs, open } = settled ? messagesSince(db, old.message) : messagesWalked(db, old.message);
  const parts = new Map(
    (db.prepare('SELECT session_id, max(rowid), count(*) FROM part NOT INDEXED WHERE rowid > ? GROUP BY session_id').raw().all(old.part.r) as [string, unknown, unknown][]).map(([s, ...n]) => [s, n.map(num)]),
  );
  const before = new Map(old.sessions.map((s) => [s[0], s]));
  const ownMessages = db.prepare(`SELECT max(${timeOf(settled)}), max(rowid), count(*) FROM message WHERE session_id = ?`).raw();
  const ownParts = db.prepare('SELECT max(rowid), count(*) FROM part WHERE session_id = ?').raw();
  const rows = db.prepare('SELECT id, parent_id, time_updated FROM session ORDER BY time_created, id').raw().all() as [string, string | null, unknown][];
  const sessions = rows.map(([id, parent, su]): SessionFigures => {
    const was = before.get(id);
    if (was === undefined) {
      // a session new to the listing: its rows may lie below the watermarks, so counted from its own indexes
      const [mu, mr, mn] = (ownMessages.get(id) as unknown[]).map(num) as [number, number, number];
      const [pr, pn] = (ownParts.get(id) as unknown[]).map(num) as [number, number];
      return [id, parent ?? null, num(su), mu, mr, mn, pr, pn];
    }
    const [mu, mr, added] = msgs.get(id) ?? [0, 0, 0];
    const [pr, pn] = parts.get(id) ?? [0, 0];
    return [id, parent ?? null, num(su), Math.max(was[3], mu as number), Math.max(was[4], mr as number), was[5] + (added as number), Math.max(was[6], pr as number), was[7] + (pn as number)];
  });
  const u = Math.max(old.message.u, ...[...msgs.values()].map((m) => m[0] as number));
  return { file: old.file, message: { ...messageMarks, u, open }, part: partMarks, sessions };
}

/**
 * `message` as the listing brings it up to date: by rowid alone, the messages not settled when listed read
 * again by id (cursors/sqlite-rows.ts `RowSource.open`, `rowsSince`), each with its session and settled time.
 */
const OPEN_MESSAGES: RowSource = {
  name: 'message',
  table: 'message',
  columns: `session_id, ${SETTLED_TIME} AS _time`,
  open: { key: 'id', updated: 'time_updated', settled: SETTLED },
};

/**
 * Per session, the messages added (rowid above the old watermark) or settled since `old`: [latest settled time,
 * highest rowid, rows added]; and the messages not settled now, with their update times. A settled message is
 * never rewritten in a way a read sees (`SETTLED`; README.md, "Messages that have settled"), so an
 * update is looked for only among the messages open when last listed, by id, as a resumed read looks for
 * them (`rowsSince`), and no row is walked.
 */
function messagesSince(db: SqliteDatabase, old: ListingState['message']): { msgs: Map<string, number[]>; open: Record<string, OpenMessage> } {
  const updated: Record<string, number> = {};
  for (const [id, [, u]] of Object.entries(old.open)) updated[id] = u;
  const rows = rowsSince(db, OPEN_MESSAGES, { rowid: old.r, updated: null, open: updated });
  const msgs = new Map<string, number[]>();
  for (const r of rows) {
    const isNew = r._rowid > old.r;
    const settled = r._osettled === 1;
    // a message open before and open still: only its update time moved (in `open`)
    if (!isNew && !settled) continue;
    const session = String(r.session_id);
    const [mu, mr, n] = msgs.get(session) ?? [0, 0, 0];
    msgs.set(session, [Math.max(mu as number, settled ? num(r._time) : 0), isNew ? Math.max(mr as number, r._rowid) : (mr as number), (n as number) + (isNew ? 1 : 0)]);
  }
  return { msgs, open: openAfter(rows, old.open, (r): OpenMessage => [String(r.session_id), num(r._oupd)]) };
}

/** `messagesSince` without trust in settled messages: one walk for the rows added or updated since `old` (none open). */
function messagesWalked(db: SqliteDatabase, old: ListingState['message']): { msgs: Map<string, number[]>; open: Record<string, OpenMessage> } {
  const rows = db
    .prepare('SELECT session_id, max(time_updated), max(rowid), sum(rowid > ?) FROM message NOT INDEXED WHERE rowid > ? OR time_updated > ? GROUP BY session_id')
    .raw()
    .all(old.r, old.r, old.u) as [string, unknown, unknown, unknown][];
  return { msgs: new Map(rows.map(([s, ...n]) => [s, n.map(num)])), open: {} };
}

/** The sessions of a listing with their fingerprints (db.ts `DbSession`). */
export function sessionsOf(state: ListingState): { id: string; parentId: string | undefined; size: number; mtimeMs: number }[] {
  // the open messages' update times, by session (none without trust in settled messages)
  const open = new Map<string, number>();
  for (const [session, updated] of Object.values(state.message.open)) open.set(session, Math.max(open.get(session) ?? 0, updated));
  // the counts move with a row deleted, the highest rowids with every row added
  return state.sessions.map(([id, parent, su, mu, mr, mn, pr, pn]) => ({ id, parentId: parent ?? undefined, size: mn + mr + pn + pr, mtimeMs: Math.max(su, mu, open.get(id) ?? 0) }));
}

const isFigures = (s: unknown): s is SessionFigures =>
  Array.isArray(s) && s.length === 8 && typeof s[0] === 'string' && (s[1] === null || typeof s[1] === 'string') && s.slice(2).every((n) => Number.isFinite(n));

const isMarks = (m: unknown): m is TableMarks => {
  const t = m as TableMarks | null;
  return t !== null && typeof t === 'object' && Number.isFinite(t.n) && Number.isFinite(t.r) && (t.id === null || typeof t.id === 'string');
};

const isOpen = (o: unknown): o is Record<string, OpenMessage> =>
  o !== null && typeof o === 'object' && !Array.isArray(o) && Object.values(o).every((m) => Array.isArray(m) && m.length === 2 && typeof m[0] === 'string' && Number.isFinite(m[1]));

/** A stored listing of this shape (a memo's contents are checked as a file's are). */
export function isListingState(v: unknown): v is ListingState {
  const s = v as ListingState | null;
  return (
    s !== null &&
    typeof s === 'object' &&
    typeof s.file === 'string' &&
    isMarks(s.message) &&
    Number.isFinite(s.message.u) &&
    isOpen(s.message.open) &&
    isMarks(s.part) &&
    Array.isArray(s.sessions) &&
    s.sessions.every(isFigures)
  );
}
