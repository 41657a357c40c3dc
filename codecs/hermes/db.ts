/**
 * Hermes's `state.db` (`hermes_state_common.py`, schema 30; ../shared/formats/sqlite-schemas.md §1), read
 * through a read-only snapshot (cursors/sqlite.ts). A session's events: its session event, its usage (one
 * event per `session_model_usage` row, whose counters Hermes updates in place), then its messages by id.
 * Resumed by RowCursor over `messages` (append-only, autoincrement ids): a warm read takes the new messages;
 * a change in the usage rows, a deleted message (a rewind) or a replaced database starts the session over.
 */
import { hashId32 } from '../../cursors/ids.js';
import type { RowCursor } from '../../cursors/protocol/codec.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { readPartitionsSettled, type PartitionReadTo } from '../../cursors/sqlite-batch.js';
import { eachOrError, partitionSources, readRowsSince, withCodecState } from '../../cursors/sqlite-rows.js';
import type { PartitionedSource, RowReadResult, RowSource } from '../../cursors/sqlite-rows.js';
import { columnsOf, databaseIdentity, hasTable, withAgentSnapshot, withSqliteSnapshot, type DatabaseIdentity, type SqliteDatabase } from '../../cursors/sqlite.js';
import {
  emitMessage,
  profileOfDb,
  relationOf,
  sessionIdIn,
  sessionEvent,
  toolCallsOf,
  usageEvent,
  usageRowsOf,
  type EmitTarget,
  type HermesMessageRow,
  type HermesSessionRow,
  type HermesUsageRow,
} from './parse.js';

const MESSAGE_COLUMNS = 'id, session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason, reasoning, reasoning_content, _compressed_summary';

interface HermesCursorState {
  sessions: Record<string, string>;
  usage: string;
  kinds: string;
}

/** The message columns this database has (older schemas lack some): NULL stands in for a missing one. */
function messageColumns(db: SqliteDatabase): string {
  const have = columnsOf(db, 'messages');
  return MESSAGE_COLUMNS.split(', ')
    .map((c) => (have.has(c) ? c : `NULL AS ${c}`))
    .join(', ');
}

/** One session of a batch: its id as `key`. */
export type SessionRead = PartitionReadTo<EmitTarget>;

/** The message rows a read takes, per session (`session_id` is indexed). */
function partitioned(db: SqliteDatabase): PartitionedSource[] {
  return [{ name: 'messages', table: 'messages', columns: messageColumns(db), partition: 'session_id' }];
}

function sources(db: SqliteDatabase, sessionId: string | undefined): RowSource[] {
  return sessionId === undefined ? partitioned(db).map(({ partition: _p, ...s }) => s) : partitionSources(partitioned(db), sessionId);
}

function isState(v: unknown): v is HermesCursorState {
  const s = v as HermesCursorState | null;
  return s !== null && typeof s === 'object' && typeof s.sessions === 'object' && typeof s.usage === 'string';
}

interface Snapshot {
  read: RowReadResult;
  sessions: HermesSessionRow[];
  usage: Map<string, HermesUsageRow[]>;
  usageKey: string;
}

function identityOf(file: string): DatabaseIdentity {
  const identity = databaseIdentity(file);
  if (identity === undefined) throw new SessionfoldError('SESSION_NOT_FOUND', `Cannot open database ${file}: ENOENT`, { file });
  return identity;
}

/** The session rows (one session's, or all) and their usage, which every read takes whole. */
function sessionsOf(db: SqliteDatabase, sessionId: string | undefined): Omit<Snapshot, 'read'> {
  const sessions = (sessionId === undefined
    ? db.prepare('SELECT rowid AS _rowid, * FROM sessions ORDER BY started_at, id').all()
    : db.prepare('SELECT rowid AS _rowid, * FROM sessions WHERE id = ?').all(sessionId)) as HermesSessionRow[];
  const usage = new Map<string, HermesUsageRow[]>();
  if (hasTable(db, 'session_model_usage', { views: true })) {
    const rows = (sessionId === undefined
      ? db.prepare('SELECT rowid AS _rowid, * FROM session_model_usage ORDER BY rowid').all()
      : db.prepare('SELECT rowid AS _rowid, * FROM session_model_usage WHERE session_id = ? ORDER BY rowid').all(sessionId)) as (HermesUsageRow & { session_id: string })[];
    for (const r of rows) usage.set(r.session_id, [...(usage.get(r.session_id) ?? []), r]);
  }
  // what the usage events come from: the usage rows and the session's own token columns
  const usageKey = JSON.stringify(sessions.map((s) => [s.id, usageRowsOf(s, usage.get(s.id))]));
  return { sessions, usage, usageKey };
}

/** Why a read that resumed must start over after all (undefined: it may stand). */
function restartReason(read: RowReadResult, kinds: string, usageKey: string): RowReadResult['reason'] {
  if (read.restarted) return undefined;
  const state = read.codecState;
  if (!isState(state) || state.kinds !== kinds) return 'kinds-changed';
  return state.usage !== usageKey ? 'row-changed' : undefined;
}

function takeSnapshot(db: SqliteDatabase, file: string, sessionId: string | undefined, from: RowCursor | undefined, parser: string, kinds: string): Snapshot {
  const identity = identityOf(file);
  const own = sessionsOf(db, sessionId);
  const src = sources(db, sessionId);
  let read = readRowsSince(db, src, from, parser, identity);
  const reason = restartReason(read, kinds, own.usageKey);
  if (reason !== undefined) read = { ...readRowsSince(db, src, undefined, parser, identity), reason };
  return { read, ...own };
}

/** `takeSnapshot` for several sessions of one database in one snapshot, their messages from one `readPartitionsSettled`. */
function takeBatch(db: SqliteDatabase, file: string, reads: readonly SessionRead[], parser: string, kinds: readonly string[]): Snapshot[] {
  const identity = identityOf(file);
  const own = reads.map((r) => sessionsOf(db, r.key));
  const rows = readPartitionsSettled(
    db,
    partitioned(db),
    reads,
    parser,
    identity,
    (read, i) => restartReason(read, kinds[i] as string, (own[i] as Omit<Snapshot, 'read'>).usageKey),
  );
  return reads.map((_, i) => ({ read: rows[i] as RowReadResult, ...(own[i] as Omit<Snapshot, 'read'>) }));
}

export interface DbReadResult {
  start: { restarted: boolean; reason: RowReadResult['reason'] };
  cursor: RowCursor;
  rowsRead: number;
  bytesRead: number;
}

const kindsKey = (out: EmitTarget): string => [...out.kinds].sort().join(',');

/** The events of a snapshot, emitted to `out`; how the read started and the cursor after it. */
function emitSnapshot(snap: Snapshot, file: string, sessionId: string | undefined, out: EmitTarget, kinds: string): DbReadResult {
  if (sessionId !== undefined && snap.sessions.length === 0) throw new SessionfoldError('SESSION_NOT_FOUND', `No session ${sessionId} in ${file}`, { agent: 'hermes', file });
  const { read } = snap;
  const prev = !read.restarted && isState(read.codecState) ? read.codecState.sessions : {};
  const state: HermesCursorState = { sessions: { ...prev }, usage: snap.usageKey, kinds };
  const messages = new Map<string, HermesMessageRow[]>();
  let bytes = 0;
  for (const r of read.rows.messages ?? []) {
    const sid = String(r.session_id);
    messages.set(sid, [...(messages.get(sid) ?? []), r as unknown as HermesMessageRow]);
    bytes += typeof r.content === 'string' ? r.content.length : 0;
  }
  const profile = profileOfDb(file);
  for (const [i, s] of snap.sessions.entries()) {
    const ev = sessionEvent(s, (s as { _rowid?: number })._rowid ?? i, profile);
    const sid = sessionIdIn(profile, s.id);
    const { offset: _o, ...rest } = ev;
    const key = JSON.stringify(rest);
    if (state.sessions[s.id] !== key && out.kinds.has('session')) out.emit(ev);
    state.sessions[s.id] = key;
    if (read.restarted && out.kinds.has('usage')) {
      for (const u of usageRowsOf(s, snap.usage.get(s.id))) {
        const e = usageEvent(u, sid);
        if (e !== undefined) out.emit(e);
      }
    }
    for (const m of messages.get(s.id) ?? []) emitMessage(m, sid, toolCallsOf(m), out);
  }
  return { start: { restarted: read.restarted, reason: read.reason }, cursor: withCodecState(read.cursor, state), rowsRead: (read.rows.messages?.length ?? 0) + snap.sessions.length, bytesRead: bytes };
}

/** The events of one session of `state.db` (every session, `sessionId` undefined) since `from`, to `out`. */
export function readStateDb(file: string, sessionId: string | undefined, from: RowCursor | undefined, parser: string, out: EmitTarget): DbReadResult {
  const kinds = kindsKey(out);
  const snap = withAgentSnapshot('hermes', file, (db) => takeSnapshot(db, file, sessionId, from, parser, kinds));
  return emitSnapshot(snap, file, sessionId, out, kinds);
}

/**
 * `readStateDb` of several sessions of one database in one snapshot: each result (or that session's own
 * error) is what `readStateDb(file, sessionId, from, parser, out)` gives in the same snapshot. Throws when the
 * database itself cannot be read.
 */
export function readStateDbSessions(file: string, reads: readonly SessionRead[], parser: string): (DbReadResult | Error)[] {
  const kinds = reads.map((r) => kindsKey(r.out));
  const snaps = withAgentSnapshot('hermes', file, (db) => takeBatch(db, file, reads, parser, kinds));
  return eachOrError(snaps, (snap, i) => {
    const r = reads[i] as SessionRead;
    return emitSnapshot(snap, file, r.key, r.out, kinds[i] as string);
  });
}

/** The `sessions` columns a session's events show that Hermes updates without a new message or usage row. */
const OWN_COLUMNS = ['title', 'model', 'billing_provider', 'cwd', 'git_branch', 'source', 'model_config', 'parent_session_id', 'started_at', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd', 'api_call_count'];

export interface StateDbSession {
  id: string;
  subagent: boolean;
  size: number;
  mtimeMs: number;
}

/**
 * The sessions of `state.db` with a fingerprint each, as a stat stands for a file: of its messages (append-
 * only) the count, highest id and latest timestamp, from Hermes's `(session_id, timestamp)` index without
 * touching the rows; of its usage rows the API calls and latest `last_seen`; and of the session's own row,
 * its times and a hash of what its events show (`OWN_COLUMNS`), which Hermes may change alone: a rename, or
 * the gateway setting the token totals.
 */
export function listStateDbSessions(file: string): StateDbSession[] {
  return withSqliteSnapshot(file, (db) => {
    const cols = columnsOf(db, 'sessions');
    const own = OWN_COLUMNS.filter((c) => cols.has(c)).map((c) => `s.${c}`);
    const activity = ['ended_at', 'last_activity_at'].filter((c) => cols.has(c));
    const usage = hasTable(db, 'session_model_usage', { views: true })
      ? 'LEFT JOIN (SELECT session_id, max(last_seen) AS last, sum(api_call_count) AS calls FROM session_model_usage GROUP BY session_id) u ON u.session_id = s.id'
      : 'LEFT JOIN (SELECT NULL AS session_id, NULL AS last, NULL AS calls) u ON 0';
    const rows = db
      .prepare(
        `SELECT s.id AS id, s.source AS source, s.model_config AS model_config, s.parent_session_id AS parent_session_id,
           max(s.started_at, ${[...activity.map((c) => `coalesce(s.${c}, 0)`), 'coalesce(m.t, 0)', 'coalesce(u.last, 0)'].join(', ')}) AS t,
           coalesce(m.mx, 0) + coalesce(m.n, 0) + coalesce(u.calls, 0) AS size, json_array(${own.join(', ')}) AS own
         FROM sessions s
         LEFT JOIN (SELECT session_id, count(*) AS n, max(id) AS mx, max(timestamp) AS t FROM messages GROUP BY session_id) m ON m.session_id = s.id
         ${usage}
         ORDER BY s.started_at, s.id`,
      )
      .all() as { id: string; source: string | null; model_config: string | null; parent_session_id: string | null; t: number; size: number; own: string }[];
    // the row's hash is folded in below 2^20, so the size stays near the rows' count as a weight
    return rows.map((r) => ({ id: r.id, subagent: relationOf(r) === 'delegate', size: r.size + (hashId32(r.own) & 0xfffff), mtimeMs: r.t * 1000 }));
  });
}

export interface FtsHit {
  sessionId: string;
  /** bm25 mapped into [0, 1], plus the title's share (README.md "Search"). */
  relevance: number;
  snippet: string;
}

/** An FTS5 query: every term as a quoted phrase (implicit AND), its last token a prefix. */
export function ftsQuery(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"*`).join(' ');
}

/** bm25 sums (lower is better in FTS5) mapped monotonically into [0, 1). */
export const relevanceOf = (bm25Sum: number): number => Math.round((bm25Sum / (bm25Sum + 10)) * 10000) / 10000;

/**
 * What a title adds to a session's relevance: the weight sessionfold's own scorer gives the share of the
 * terms found in the title (src/sessions/search-match.ts, `0.25 · titleShare`), so a title hit counts alike
 * for every agent.
 */
export const TITLE_WEIGHT = 0.25;

/** Text relevance and title share merged into [0, 1]. */
export const hitRelevance = (bm25Sum: number, titleShare: number): number => Math.min(1, Math.round((relevanceOf(bm25Sum) + TITLE_WEIGHT * titleShare) * 10000) / 10000);

/** Per session whose title holds any term (case-insensitive, whitespace collapsed): which terms it holds. */
function titleTerms(db: SqliteDatabase, terms: readonly string[]): Map<string, { title: string; has: boolean[] }> {
  const out = new Map<string, { title: string; has: boolean[] }>();
  if (!columnsOf(db, 'sessions').has('title')) return out;
  for (const r of db.prepare("SELECT id, title FROM sessions WHERE title IS NOT NULL AND title != ''").iterate() as Iterable<{ id: string; title: string }>) {
    const t = r.title.replace(/\s+/g, ' ').toLowerCase();
    const has = terms.map((term) => t.includes(term));
    if (has.some(Boolean)) out.set(r.id, { title: r.title, has });
  }
  return out;
}

/**
 * Sessions whose messages match `terms` through Hermes's own FTS5 index (`messages_fts`) and, for each, the sum of
 * its matching messages' `-bm25`: only `sessions` when given, else the best `limit`.
 */
function ftsScores(db: SqliteDatabase, terms: readonly string[], limit: number, sessions?: readonly string[]): Map<string, number> {
  const only = sessions === undefined ? '' : 'WHERE m.session_id IN (SELECT value FROM json_each(?))';
  const rows = db
    .prepare(
      // bm25() only runs inside the full-text query itself, so it is materialized before the grouping
      `WITH f AS MATERIALIZED (SELECT rowid AS id, -bm25(messages_fts) AS r FROM messages_fts WHERE messages_fts MATCH ?)
       SELECT m.session_id AS sid, sum(f.r) AS score FROM f JOIN messages m ON m.id = f.id ${only}
       GROUP BY m.session_id ORDER BY score DESC, sid LIMIT ?`,
    )
    .all(...[ftsQuery(terms), ...(sessions === undefined ? [] : [JSON.stringify(sessions)]), limit]) as { sid: string; score: number }[];
  return new Map(rows.map((r) => [r.sid, Math.max(0, r.score)]));
}

/**
 * Sessions that hold every term in their messages or their title, through Hermes's own FTS5 index
 * (`messages_fts`): best first by the sum of their matching messages' bm25 plus the title's share
 * (`hitRelevance`), with a snippet of the best message (else the title). A session whose title holds some
 * terms matches when one of its messages holds the others. Undefined when the database has no index.
 */
export function searchStateDb(file: string, terms: readonly string[], limit: number): FtsHit[] | undefined {
  return withSqliteSnapshot(file, (db) => {
    if (!hasTable(db, 'messages_fts', { views: true })) return undefined;
    const titled = titleTerms(db, terms);
    // per session: the terms its messages were matched on, and their bm25 sum
    const text = new Map<string, { terms: readonly string[]; score: number }>();
    const put = (found: Map<string, number>, on: readonly string[]) => {
      for (const [sid, score] of found) if (!text.has(sid)) text.set(sid, { terms: on, score });
    };
    put(ftsScores(db, terms, limit), terms);
    if (titled.size > 0) put(ftsScores(db, terms, titled.size, [...titled.keys()]), terms);
    // a title holding some of the terms: its messages must hold the rest
    const byRest = new Map<string, { rest: string[]; sids: string[] }>();
    for (const [sid, t] of titled) {
      const rest = terms.filter((_, i) => !t.has[i]);
      if (rest.length === 0 || text.has(sid)) continue;
      const k = JSON.stringify(rest);
      const group = byRest.get(k) ?? byRest.set(k, { rest, sids: [] }).get(k);
      group?.sids.push(sid);
    }
    for (const { rest, sids } of byRest.values()) put(ftsScores(db, rest, sids.length, sids), rest);
    const hits: { sid: string; relevance: number; on?: readonly string[] }[] = [];
    for (const [sid, t] of text) hits.push({ sid, relevance: hitRelevance(t.score, (titled.get(sid)?.has.filter(Boolean).length ?? 0) / terms.length), on: t.terms });
    for (const [sid, t] of titled) if (!text.has(sid) && t.has.every(Boolean)) hits.push({ sid, relevance: hitRelevance(0, 1) });
    hits.sort((a, b) => b.relevance - a.relevance || (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : 0));
    const snippet = db.prepare(
      `SELECT snippet(messages_fts, 0, '', '', '…', 24) AS s FROM messages_fts
       WHERE messages_fts MATCH ? AND rowid IN (SELECT id FROM messages WHERE session_id = ?) ORDER BY bm25(messages_fts) LIMIT 1`,
    );
    return hits.slice(0, limit).map((h) => ({
      sessionId: h.sid,
      relevance: h.relevance,
      snippet: h.on === undefined ? (titled.get(h.sid)?.title ?? '') : ((snippet.get(ftsQuery(h.on), h.sid) as { s?: string } | undefined)?.s ?? '').replace(/\s+/g, ' ').trim(),
    }));
  });
}
