/**
 * OpenCode's database (`opencode.db`, `opencode-<channel>.db`): tables `session`, `message` and `part`
 * (`packages/opencode/src/session/session.sql.ts`), and 2.x's `session_v2` and `session_message` (v2.ts). Read through cursors/sqlite.ts (a read-only snapshot,
 * nothing written beside the database) and by RowCursor (cursors/sqlite-rows.ts): a warm read of a session
 * takes its new messages and parts only. A row already read that changed (a response finishing, a tool
 * finishing), a new part of a message already read, or a new message that sorts before one already read
 * makes the read start over for that session, so a resumed read yields what a full read would, in order.
 * A read whose kinds take nothing from parts but the steps (`session`, `usage`) does not look for parts
 * updated in place, nor for settled messages rewritten, which only a walk of every row finds: see
 * `PARTITIONED_STEPS`.
 */
import type { RowCursor } from '../../cursors/protocol/codec.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import type { EventKind, KindCounts, SessionEvent } from '../../cursors/protocol/events.js';
import {
  eachOrError,
  groupBy,
  partitionSources,
  readRowsSince,
  withCodecState,
  type PartitionedSource,
  type Row,
  type RowReadResult,
  type RowSource,
} from '../../cursors/sqlite-rows.js';
import { readPartitionsSince, type PartitionReadTo } from '../../cursors/sqlite-batch.js';
import { databaseIdentity, jsonObject, withAgentSnapshot, withSqliteSnapshot, type DatabaseIdentity, type SqliteDatabase } from '../../cursors/sqlite.js';
import { fileId, fullListing, sessionsOf, SETTLED } from './listing.js';
import { orphansIn, withLateParts, type LateRead } from './late-parts.js';
import { CODEC_ID, emitMessage, sessionEvent, sortMessages, sortParts, type EmitTarget } from './parse.js';
import type { OpencodeMessageInfo, OpencodeMessageRecord, OpencodePart, OpencodeSessionInfo } from './schema.js';
import { copiesOf, sessionSql, tablesOf, v2Records, V2_SOURCE, type Tables } from './v2.js';
import { importedOf, isImported, malformedIn, type Imported } from './imports.js';

/** A session row as the database holds it (columns vary by version; the ones read here are in all). */
interface SessionRow {
  _rowid: number;
  id: string;
  parent_id?: string | null;
  directory?: string;
  title?: string;
  version?: string;
  time_created?: number;
  time_updated?: number;
  model?: string | null;
}

/** What a cursor keeps besides the watermarks: the session events last yielded, each session's last message's sort key. */
interface OpencodeCursorState {
  sessions: Record<string, string>;
  /** Per session: messages sort within their session, so a database's sessions append independently. */
  last: Record<string, [number, string]>;
  /** The kinds the read yielded: a read for other kinds cannot resume from it. */
  kinds: string;
  /**
   * Whether a part without its message was among the rows when the rows were last read whole (a part written
   * before its message): false lets a resumed read skip looking for late parts of its new messages
   * (`withLateParts`); absent (a cursor from before it was kept): as true.
   */
  orphans?: boolean;
  /** Per session: the usage events its last message yielded (a steps-only read that takes it again replaces them). */
  lastUsage?: Record<string, number>;
}

export interface DbReadResult {
  start: { restarted: boolean; reason: RowReadResult['reason']; replaced?: KindCounts };
  cursor: RowCursor;
  rowsRead: number;
  bytesRead: number;
  skipped: number;
}

function sessionInfo(r: SessionRow): OpencodeSessionInfo {
  const model = jsonObject(r.model);
  return {
    id: r.id,
    parentID: r.parent_id ?? null,
    directory: r.directory,
    title: r.title,
    version: r.version,
    time: { created: r.time_created, updated: r.time_updated },
    model: model === undefined ? null : { id: model.id, providerID: model.providerID },
  };
}

/** One session of a batch: its id as `key`. */
export type SessionRead = PartitionReadTo<EmitTarget>;

const MESSAGE_SOURCE: PartitionedSource = { name: 'message', table: 'message', columns: 'id, session_id, time_created, data', updated: 'time_updated', partition: 'session_id' };
const PART_COLUMNS = 'id, message_id, session_id, data';

/** The rows a read takes, per session (`session_id` is indexed in both tables): every row added or updated. */
const PARTITIONED: readonly PartitionedSource[] = [MESSAGE_SOURCE, { name: 'part', table: 'part', columns: PART_COLUMNS, updated: 'time_updated', partition: 'session_id' }];

/**
 * The rows a read whose kinds take nothing from parts but their steps takes (`stepsOnly`): parts by rowid
 * alone. The parts OpenCode rewrites in place (tool states, text and reasoning as they stream, a pruned tool
 * output) change no usage; a step part is written once, under a new id, and its message is written in the
 * same step (README.md, "Reads that need no parts but steps"). So a new part is found by a range on the
 * rowid, not by a walk of every row's update time; a deletion by the count, as before. Messages likewise: new
 * ones by rowid, and those not settled when read (listing.ts `SETTLED`: a reply still streaming) again by id.
 */
const STEP_PARTS: PartitionedSource = { name: 'part', table: 'part', columns: PART_COLUMNS, tail: 'id', partition: 'session_id' };
const PARTITIONED_STEPS: readonly PartitionedSource[] = [
  { name: 'message', table: 'message', columns: MESSAGE_SOURCE.columns, tail: 'id', open: { key: 'id', updated: 'time_updated', settled: SETTLED }, partition: 'session_id' },
  STEP_PARTS,
];

/** `PARTITIONED_STEPS` for a fork whose settled messages are not trusted (`OpencodeFlavor.settledMessages` false): every message updated, by a walk. */
const PARTITIONED_STEPS_WALKED: readonly PartitionedSource[] = [MESSAGE_SOURCE, STEP_PARTS];

/** The kinds whose events come from parts other than steps: a read for any of them must see parts updated in place. */
const PART_KINDS: readonly EventKind[] = ['message', 'tool_call', 'tool_result'];

/** A read for `kinds` needs no part but the step parts (usage's token fallback and step count). */
const stepsOnly = (kinds: ReadonlySet<EventKind>): boolean => !PART_KINDS.some((k) => kinds.has(k));

/** The sources for a read, of the tables the database holds (v2.ts `tablesOf`): 2.x's messages beside 1.x's. */
function partitionedFor(steps: boolean, settled: boolean, t: Tables): readonly PartitionedSource[] {
  const v1 = (!steps ? PARTITIONED : settled ? PARTITIONED_STEPS : PARTITIONED_STEPS_WALKED).filter((s) => t[s.table as 'message' | 'part']);
  return t.session_message ? [...v1, V2_SOURCE] : v1;
}

function sources(sessionId: string | undefined, steps: boolean, settled: boolean, t: Tables): RowSource[] {
  const all = partitionedFor(steps, settled, t);
  return sessionId === undefined ? all.map(({ partition: _p, ...s }) => s) : partitionSources(all, sessionId);
}

/**
 * `read` for `withLateParts`: its new messages may have late parts unless its cursor says the rows last read
 * whole left no part without its message, and it read parts by rowid with their tail checked (`steps`: a read
 * of parts by update time has no tail check, so a part added below the watermark is not ruled out).
 */
function lateRead(read: RowReadResult, sessionId: string | undefined, plan: Pick<ReadPlan, 'from' | 'steps'>): LateRead {
  const state = read.codecState;
  return { read, sessionId, mark: messageMark(plan.from), orphansLeft: !plan.steps || !isState(state) || state.orphans !== false };
}

function isState(v: unknown): v is OpencodeCursorState {
  const s = v as OpencodeCursorState | null;
  return s !== null && typeof s === 'object' && typeof s.sessions === 'object' && s.sessions !== null && typeof s.last === 'object' && s.last !== null && !Array.isArray(s.last);
}

const keyOf = (r: OpencodeMessageRecord): [number, string] => [typeof r.info.time?.created === 'number' ? r.info.time.created : 0, r.info.id];
const before = (a: [number, string], b: [number, string]): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

interface Snapshot {
  read: RowReadResult;
  sessions: SessionRow[];
  /** The `session_message` rows read that copy a 1.x message (v2.ts `copiesOf`): not read. */
  copies: Set<string>;
  /** Messages another agent wrote, imported by a fork (imports.ts): read, but yield nothing. */
  imported: Imported;
  /** A steps-only read that took the session's last message again: the events of it the last read yielded. */
  replaced?: KindCounts;
}

/** The message watermark a read resumed from (the rows at or below it were read before). */
const messageMark = (from: RowCursor | undefined): number => from?.watermark.message ?? Number.POSITIVE_INFINITY;

/**
 * A message row's `data` as a JSON object (undefined when it is not one), parsed once however often it is asked
 * for: a resumed read places its rows in the order (`rowKey`) before `records` takes them, so `rowKey` keeps
 * the parse by the row (`keep`), for as long as the row lives. A cold read, which never asks before
 * `records`, keeps nothing. (The creation time could be selected with the row instead, by SQLite's JSON
 * functions, but that is work on every row of every cold read, to save parses on a warm read's few rows.)
 */
function dataOf(r: Row, keep: boolean): Record<string, unknown> | undefined {
  if (parsed.has(r)) return parsed.get(r);
  const data = jsonObject(r.data);
  if (keep) parsed.set(r, data);
  return data;
}

/** `dataOf`'s parses, beside the rows rather than on them (a `Row` is the shared type of every row read). */
const parsed = new WeakMap<Row, Record<string, unknown> | undefined>();

/** A message row's place in OpenCode's order, as `records` and `keyOf` give it. */
function rowKey(r: Row): [number, string] {
  const created = (dataOf(r, true)?.time as { created?: unknown } | undefined)?.created;
  return [typeof created === 'number' ? created : typeof r.time_created === 'number' ? r.time_created : 0, String(r.id)];
}

/**
 * A steps-only read of one session that resumed (`keepChanged`): the id of its last message when all that
 * changed below the watermarks is that message (its row, at the same place in the order, and new parts of
 * it), so the read takes that message again and replaces its events instead of starting over (a reply
 * streaming: its tokens and its steps come in while it is the last); undefined when nothing read before
 * changed; false when something else did.
 */
function tailOf(read: RowReadResult, mark: number, sessionId: string): string | undefined | false {
  const messages = read.rows.message ?? [];
  const changed = messages.filter((r) => r._rowid <= mark);
  const added = new Set(messages.filter((r) => r._rowid > mark).map((r) => r.id));
  const oldParts = (read.rows.part ?? []).filter((p) => !added.has(p.message_id));
  if (changed.length === 0 && oldParts.length === 0) return undefined;
  const state = read.codecState;
  const last = isState(state) ? state.last[sessionId] : undefined;
  if (!isState(state) || last === undefined || state.lastUsage?.[sessionId] === undefined) return false;
  const same = (k: [number, string]): boolean => k[0] === last[0] && k[1] === last[1];
  if (!changed.every((r) => same(rowKey(r))) || !oldParts.every((p) => p.message_id === last[1])) return false;
  return messages.every((r) => r._rowid <= mark || !before(rowKey(r), last)) ? last[1] : false;
}

/**
 * The read with its session's last message taken again (`tailOf`): its row (its parts then come with
 * `withLateParts`), and the usage events its earlier read yielded, to be replaced; undefined when that
 * message is gone.
 */
function withTail(db: SqliteDatabase, read: RowReadResult, id: string, sessionId: string): { read: RowReadResult; replaced: KindCounts } | undefined {
  const messages = read.rows.message ?? [];
  const row = messages.find((r) => r.id === id) ?? (db.prepare(`SELECT rowid AS _rowid, ${MESSAGE_SOURCE.columns} FROM message WHERE id = ? AND session_id = ?`).get(id, sessionId) as Row | undefined);
  if (row === undefined) return undefined;
  const state = read.codecState as OpencodeCursorState;
  return { read: { ...read, rows: { ...read.rows, message: messages.includes(row) ? messages : [row, ...messages] } }, replaced: { usage: state.lastUsage?.[sessionId] ?? 0 } };
}

/** How a read that resumed stands: why it must start over after all, or the last message it takes again (`tailOf`). */
interface Verdict {
  reason?: RowReadResult['reason'];
  tail?: string;
}

/** A read judged once: `tailOf` (for a steps-only read of one session, `tail`) walks its rows a single time. */
function judge(read: RowReadResult, kinds: string, from: RowCursor | undefined, tail?: { mark: number; sessionId: string }): Verdict {
  if (read.restarted) return {};
  if (!isState(read.codecState) || read.codecState.kinds !== kinds) return { reason: 'kinds-changed' };
  // a 2.x row rewritten in place (a reply streaming) starts the session over, as a 1.x message rewritten does
  const v2Mark = from?.watermark.session_message ?? Number.POSITIVE_INFINITY;
  if ((read.rows.session_message ?? []).some((r) => r._rowid <= v2Mark)) return { reason: 'row-changed' };
  const t = tail === undefined ? undefined : tailOf(read, tail.mark, tail.sessionId);
  if (t === false) return { reason: 'row-changed' };
  if (t !== undefined) return { tail: t };
  return appendsOnly(read) ? {} : { reason: 'row-changed' };
}

function identityOf(file: string): DatabaseIdentity {
  const identity = databaseIdentity(file);
  if (identity === undefined) throw new SessionfoldError('SESSION_NOT_FOUND', `Cannot open database ${file}: ENOENT`, { file });
  return identity;
}

/** A cursor written by a read for other kinds (a usage read's never resumes a full read, nor the reverse). */
function otherKinds(from: RowCursor | undefined, kinds: string): boolean {
  const codec = (from?.state as { codec?: unknown } | null | undefined)?.codec;
  return isState(codec) && codec.kinds !== kinds;
}

/** What every read of one snapshot shares. */
interface ReadContext {
  db: SqliteDatabase;
  identity: DatabaseIdentity;
  parser: string;
  /** `OpencodeFlavor.settledMessages`. */
  settledTrust: boolean;
  tables: Tables;
}

/** One read to take: of one session (or of the whole database, `sessionId` undefined), for `kinds`, from `from`. */
interface ReadPlan {
  sessionId: string | undefined;
  kinds: string;
  /** The read needs no part but the steps (`stepsOnly`). */
  steps: boolean;
  /** The cursor resumed from: none when it was written for other kinds (`reason`). */
  from: RowCursor | undefined;
  reason?: 'kinds-changed';
  /** A steps-only read of one session keeps its changed rows: its last message may be taken again (`tailOf`). */
  tail?: { mark: number; sessionId: string };
}

function planOf(sessionId: string | undefined, from: RowCursor | undefined, kinds: string, steps: boolean): ReadPlan {
  const start = otherKinds(from, kinds) ? { from: undefined, reason: 'kinds-changed' as const } : { from };
  const tail = steps && sessionId !== undefined ? { mark: messageMark(start.from), sessionId } : undefined;
  return { sessionId, kinds, steps, ...start, ...(tail && { tail }) };
}

/** The plan's rows from the start: how every read here starts over. */
const coldRead = (c: ReadContext, plan: ReadPlan): RowReadResult => readRowsSince(c.db, sources(plan.sessionId, plan.steps, c.settledTrust, c.tables), undefined, c.parser, c.identity);

/**
 * `got`, the rows read for `plan` from its cursor, as the read takes them: started over when `judge` says so;
 * with its session's last message taken again when that is all that changed (`withTail`), or started over when
 * that message went away.
 *
 * The rule is `readPartitionsSettled`'s (cursors/sqlite-batch.ts: start over in the same snapshot, with a
 * reason), but OpenCode needs a third outcome that one has no room for: neither resumed as read nor started
 * over, but resumed with a row read below the watermark added (`withTail`), and a start over only when that
 * row is gone, which `withTail` learns by reading it. Its start over also takes each plan's own sources (steps
 * only or not, `sources`), where `readPartitionsSettled` takes one set for the whole batch.
 */
function settle(c: ReadContext, got: RowReadResult, plan: ReadPlan): { read: RowReadResult; replaced?: KindCounts } {
  const read = plan.reason === undefined ? got : { ...got, reason: plan.reason };
  const verdict = judge(read, plan.kinds, plan.from, plan.tail);
  if (verdict.reason !== undefined) return { read: { ...coldRead(c, plan), reason: verdict.reason } };
  if (plan.tail === undefined || verdict.tail === undefined) return { read };
  return withTail(c.db, read, verdict.tail, plan.tail.sessionId) ?? { read: { ...coldRead(c, plan), reason: 'row-changed' } };
}

function takeSnapshot(db: SqliteDatabase, file: string, sessionId: string | undefined, from: RowCursor | undefined, parser: string, kinds: string, steps: boolean, settledTrust: boolean): Snapshot {
  const tables = tablesOf(db);
  const c: ReadContext = { db, identity: identityOf(file), parser, settledTrust, tables };
  const sessions = (sessionId === undefined
    ? db.prepare(`SELECT * FROM (${sessionSql(tables, '')}) ORDER BY time_created, id`).all()
    : db.prepare(sessionSql(tables, ' WHERE id = ?')).all(...(tables.session && tables.session_v2 ? [sessionId, sessionId] : [sessionId]))) as SessionRow[];
  const plan = planOf(sessionId, from, kinds, steps);
  const got = readRowsSince(db, sources(sessionId, steps, settledTrust, tables), plan.from, parser, c.identity, { keepChanged: plan.tail !== undefined });
  const settled = settle(c, got, plan);
  const read = withLateParts(db, [lateRead(settled.read, sessionId, plan)], PART_COLUMNS)[0] as RowReadResult;
  return { read, sessions, copies: copiesOf(db, tables, [read.rows]), imported: importedOf(db, tables, sessionId === undefined ? undefined : [sessionId]), ...(settled.replaced && { replaced: settled.replaced }) };
}

/**
 * `takeSnapshot` for several sessions of one database in one snapshot: the rows of every session from one
 * `readPartitionsSince`, each read then settled as alone.
 */
function takeBatch(db: SqliteDatabase, file: string, reads: readonly SessionRead[], parser: string, kinds: readonly string[], settledTrust: boolean): Snapshot[] {
  const tables = tablesOf(db);
  const c: ReadContext = { db, identity: identityOf(file), parser, settledTrust, tables };
  const plans = reads.map((r, i) => planOf(r.key, r.from, kinds[i] as string, stepsOnly(r.out.kinds)));
  const settled: { read: RowReadResult; replaced?: KindCounts }[] = [];
  // the reads that need parts updated in place and those that need steps only, each group from its own sources
  for (const steps of [false, true]) {
    const group = plans.flatMap((plan, i) => (plan.steps === steps ? [{ plan, i }] : []));
    if (group.length === 0) continue;
    const got = readPartitionsSince(
      db,
      partitionedFor(steps, settledTrust, tables),
      group.map((g) => ({ key: g.plan.sessionId as string, from: g.plan.from })),
      parser,
      c.identity,
      { rows: { keepChanged: steps } },
    );
    group.forEach((g, k) => (settled[g.i] = settle(c, got[k] as RowReadResult, g.plan)));
  }
  // the parts read late, for every read at once (one probe of the index for all their new messages)
  const done = withLateParts(db, settled.map((x, i) => lateRead(x.read, reads[i]?.key, plans[i] as ReadPlan)), PART_COLUMNS);
  const rowsOf = sessionRows(db, tables, reads.map((r) => r.key));
  const imported = importedOf(db, tables, reads.map((r) => r.key));
  const copies = copiesOf(db, tables, done.map((d) => d.rows));
  return reads.map((r, i) => ({ read: done[i] as RowReadResult, sessions: rowsOf(r.key), copies, imported, ...(settled[i]?.replaced && { replaced: settled[i]?.replaced }) }));
}

/**
 * The session rows of `ids`, by id, in one query (a batch of 200 sessions asked one each): what
 * `SELECT ... WHERE id = ?` gives for each. An id matches as text, as that parameter does.
 */
function sessionRows(db: SqliteDatabase, t: Tables, ids: readonly string[]): (id: string) => SessionRow[] {
  const list = JSON.stringify([...new Set(ids)]);
  const rows = db.prepare(sessionSql(t, ' WHERE id IN (SELECT value FROM json_each(?))')).all(...(t.session && t.session_v2 ? [list, list] : [list])) as SessionRow[];
  const byId = groupBy(rows, (r) => r.id);
  return (id) => byId.get(id) ?? [];
}

/**
 * A resumed read may only append whole messages: a new part of a message read before changes that message's
 * events, and a message that sorts before the last one read (by `rowKey`, the order a full read gives) would
 * land out of place.
 */
function appendsOnly(read: RowReadResult): boolean {
  const fresh = new Set((read.rows.message ?? []).map((r) => r.id));
  if ((read.rows.part ?? []).some((p) => !fresh.has(p.message_id))) return false;
  const state = read.codecState;
  if (!isState(state)) return true;
  return [...(read.rows.message ?? []), ...(read.rows.session_message ?? [])].every((r) => {
    const last = state.last[String(r.session_id)];
    return last === undefined || !before(rowKey(r), last);
  });
}

/** Message records of the rows, each with its parts, in OpenCode's order; malformed rows counted. */
function records(rows: RowReadResult['rows'], copies: ReadonlySet<string>): { bySession: Map<string, OpencodeMessageRecord[]>; skipped: number; bytes: number } {
  let skipped = 0;
  let bytes = 0;
  const partsOf = new Map<string, { part: OpencodePart; offset: number }[]>();
  for (const r of rows.part ?? []) {
    bytes += typeof r.data === 'string' ? r.data.length : 0;
    const data = jsonObject(r.data);
    if (data === undefined) {
      skipped++;
      continue;
    }
    const mid = String(r.message_id);
    const list = partsOf.get(mid) ?? [];
    list.push({ part: { ...data, id: String(r.id), messageID: mid }, offset: r._rowid });
    partsOf.set(mid, list);
  }
  const bySession = new Map<string, OpencodeMessageRecord[]>();
  for (const r of rows.message ?? []) {
    bytes += typeof r.data === 'string' ? r.data.length : 0;
    const data = dataOf(r, false);
    if (data === undefined) {
      skipped++;
      continue;
    }
    const sid = String(r.session_id);
    const info: OpencodeMessageInfo = { ...data, id: String(r.id), sessionID: sid };
    if (typeof info.time?.created !== 'number' && typeof r.time_created === 'number') info.time = { ...info.time, created: r.time_created };
    const { parts, offsets } = sortParts(partsOf.get(info.id) ?? []);
    const list = bySession.get(sid) ?? [];
    list.push({ info, parts, offset: (r as Row)._rowid, partOffsets: offsets });
    bySession.set(sid, list);
  }
  const v2 = v2Records(rows.session_message ?? [], copies, bySession);
  for (const list of bySession.values()) sortMessages(list);
  return { bySession, skipped: skipped + v2.skipped, bytes: bytes + v2.bytes };
}

/** The events of a snapshot, emitted to `out`; how the read started and the cursor after it. */
function emitSnapshot(snap: Snapshot, file: string, sessionId: string | undefined, out: EmitTarget, kinds: string): DbReadResult {
  const agent = out.agent ?? CODEC_ID;
  if (sessionId !== undefined && snap.sessions.length === 0) throw new SessionfoldError('SESSION_NOT_FOUND', `No session ${sessionId} in ${file}`, { agent, file });
  const { read } = snap;
  const prev: Partial<OpencodeCursorState> = !read.restarted && isState(read.codecState) ? read.codecState : {};
  const orphans = read.restarted ? orphansIn(read.rows) : prev.orphans;
  const state: OpencodeCursorState = { sessions: { ...prev.sessions }, last: { ...prev.last }, kinds, lastUsage: { ...prev.lastUsage }, ...(orphans !== undefined && { orphans }) };
  const lastUsage = state.lastUsage as Record<string, number>;
  const { bySession, bytes, skipped: rowsSkipped } = records(read.rows, snap.copies);
  // a resumed read keeps the count of the read it resumed (src/scan/cached.ts adds the two)
  const skipped = rowsSkipped + (read.restarted ? malformedIn(snap.imported, snap.sessions) : 0);
  // one target for every message: it counts the usage events each message emits (`lastUsage`)
  let usage = 0;
  const counted: EmitTarget = { ...out, emit: (e) => (e.type === 'usage' && usage++, out.emit(e)) };
  const silent: EmitTarget = { ...out, emit: () => undefined };
  // the last message taken again replaces its usage events: until it parses and emits, it holds none (a row
  // caught half-written is skipped, and a later read must not replace the events of the message before it)
  if (snap.replaced !== undefined && !read.restarted && sessionId !== undefined) lastUsage[sessionId] = 0;
  for (const row of snap.sessions) {
    const ev: SessionEvent = sessionEvent(sessionInfo(row), row._rowid, agent);
    const { offset: _offset, ...rest } = ev;
    const key = JSON.stringify(rest);
    if (state.sessions[row.id] !== key && out.kinds.has('session')) out.emit(ev);
    state.sessions[row.id] = key;
    const own: EmitTarget = { ...counted, sessionCreated: typeof row.time_created === 'number' ? row.time_created : undefined };
    for (const rec of bySession.get(row.id) ?? []) {
      usage = 0;
      emitMessage(rec, row.id, isImported(snap.imported, rec.info.id, row.id, rec.info.time?.created) ? silent : own);
      const k = keyOf(rec);
      const last = state.last[row.id];
      if (last === undefined || !before(k, last)) {
        state.last[row.id] = k;
        lastUsage[row.id] = usage;
      }
    }
  }
  const rowsRead = (read.rows.message?.length ?? 0) + (read.rows.part?.length ?? 0) + (read.rows.session_message?.length ?? 0) + snap.sessions.length;
  const start = { restarted: read.restarted, reason: read.reason, ...(snap.replaced && !read.restarted && { replaced: snap.replaced }) };
  return { start, cursor: withCodecState(read.cursor, state), rowsRead, bytesRead: bytes, skipped };
}

const kindsKey = (out: EmitTarget): string => [...out.kinds].sort().join(',');

/**
 * The events of one session of the database (or of every session, `sessionId` undefined) since `from`,
 * emitted to `out`; returns how the read started and the cursor after it.
 */
export function readDatabase(file: string, sessionId: string | undefined, from: RowCursor | undefined, parser: string, out: EmitTarget, settled = true): DbReadResult {
  const kinds = kindsKey(out);
  const snap = withAgentSnapshot(out.agent ?? CODEC_ID, file, (db) => takeSnapshot(db, file, sessionId, from, parser, kinds, stepsOnly(out.kinds), settled));
  return emitSnapshot(snap, file, sessionId, out, kinds);
}

/**
 * `readDatabase` of several sessions of one database, in one snapshot and one read of its rows
 * (`readPartitionsSince`, each read then settled as alone): each result (or the error of that session alone:
 * one gone since discovery) is what `readDatabase(file, sessionId, from, parser, out)` would give in the same
 * snapshot. Throws when the database itself cannot be read.
 */
export function readDatabaseSessions(file: string, reads: readonly SessionRead[], parser: string, agent: string = CODEC_ID, settled = true): (DbReadResult | Error)[] {
  const kinds = reads.map((r) => kindsKey(r.out));
  const snaps = withAgentSnapshot(agent, file, (db) => takeBatch(db, file, reads, parser, kinds, settled));
  return eachOrError(snaps, (snap, i) => {
    const r = reads[i] as SessionRead;
    return emitSnapshot(snap, file, r.key, r.out, kinds[i] as string);
  });
}

/** One session of a database as discovery sees it: a fingerprint of its rows stands for a file's stat. */
export interface DbSession {
  id: string;
  parentId: string | undefined;
  /** A fingerprint of the session's rows (their counts and highest rowids), standing for a file's size. */
  size: number;
  /** The latest update time of the session and its rows (ms). */
  mtimeMs: number;
}

/**
 * The sessions of a database with a fingerprint each, so the event cache reads again only the sessions whose
 * rows changed: of `message`, the count, highest rowid and latest `time_updated` (one sequential pass over
 * its rows, grouped in a sorter: `time_updated` has no index, and grouping through the `session_id` index
 * instead looks every row up in the table at random, measured 1.3-1.7x the CPU; no data is read); of `part`,
 * the count and highest rowid, from its
 * `session_id` index alone (parts are most of a database). That is what a RowCursor read can see change (a
 * new row, a message updated with a later `time_updated`, a row gone): a change it would not see (a row
 * rewritten with the same update time) would give the same events whether the fingerprint moved or not, so
 * the message bytes are not summed. A part OpenCode updates in place without touching its message or adding
 * a row (pruning an old tool output) is seen when the session is next read for another change.
 */
export function listDatabaseSessions(file: string, settled = true): DbSession[] {
  const id = fileId(file);
  return sessionsOf(withSqliteSnapshot(file, (db) => fullListing(db, id, settled)));
}
