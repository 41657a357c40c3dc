/**
 * Goose's `sessions.db` read by RowCursor (cursors/sqlite-rows.ts): a warm read takes only the `messages` rows
 * (AUTOINCREMENT ids, append-only) added since the cursor, per session or for the whole database. What a
 * session's later messages need from its earlier ones (the names of its tool calls, its last time) rides in
 * the cursor. The `sessions` row (a handful per database) is read every time: a changed session event is
 * yielded again, and the usage events, whose counts Goose updates in place, are yielded again all together
 * when one changed (`replaced.usage`: the reader drops the ones it has). Whether they changed is told by what
 * they are made of (the row's usage columns, its `usage_ledger` rows' count and highest id, its last
 * message), so a read whose usage did not change reads no ledger row. A message deleted (Goose rewrites a
 * conversation, `replace_conversation`, by deleting its messages and inserting them anew: new ids, and the
 * count no longer adds up), or a database replaced, starts the read over. `messages` has no update time, so
 * a row updated in place under the watermark is not seen until something else starts the read over; Goose's
 * own code does not update message rows in place.
 */
import type { RowCursor } from '../../cursors/protocol/codec.js';
import type { EventKind, SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { CollectedRead } from '../../cursors/read-collected.js';
import { readPartitionsSettled, type PartitionReadTo } from '../../cursors/sqlite-batch.js';
import { eachOrError, partitionSources, readRowsSince, withCodecState } from '../../cursors/sqlite-rows.js';
import type { PartitionedSource, RowReadResult, RowSource } from '../../cursors/sqlite-rows.js';
import { databaseIdentity, hasTable, type DatabaseIdentity, type SqliteDatabase } from '../../cursors/sqlite.js';
import { agentSnapshot } from '../../cursors/sqlite-events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { messageEvents, sessionEvent, sessionModel, usageEvents, type Row, type SessionState } from './parse.js';
import { CODEC_ID } from './paths.js';

const CONVERSATION: readonly EventKind[] = ['message', 'tool_call', 'tool_result'];

/** Per session, what a resumed read needs of the previous one. */
interface SessionMark {
  /** The session event last yielded (offset left out), and what its usage events are made of (its key, `usagePlan`). */
  event: string;
  usage: string;
  /** The session's tool call names by call id (a result names only its call), its last time, its last message id. */
  tools: Record<string, string>;
  lastTime?: string;
  last: number;
}

interface GooseCursorState {
  kinds: string;
  sessions: Record<string, SessionMark>;
  /** Usage events the read yielded (all of them are yielded again when one changes). */
  usage: number;
}

function isState(v: unknown): v is GooseCursorState {
  const s = v as GooseCursorState | null;
  return s !== null && typeof s === 'object' && typeof s.kinds === 'string' && typeof s.sessions === 'object' && s.sessions !== null && typeof s.usage === 'number';
}

/** The message rows: whole for a conversation read, else their ids only (the usage event's offset). */
function partitioned(kinds: ReadonlySet<EventKind>): PartitionedSource[] {
  const columns = CONVERSATION.some((k) => kinds.has(k)) ? '*' : 'id, session_id';
  return [{ name: 'messages', table: 'messages', columns, partition: 'session_id' }];
}

function sources(kinds: ReadonlySet<EventKind>, only: string | undefined): RowSource[] {
  return only === undefined ? partitioned(kinds).map(({ partition: _p, ...s }) => s) : partitionSources(partitioned(kinds), only);
}

/**
 * The events of one session's rows since its mark (its whole history when `mark` is undefined); its usage
 * events only when `ledger` is given (the usage changed: its ledger rows, none before schema 15).
 */
function sessionEvents(row: Row, messages: readonly Row[], mark: SessionMark | undefined, conversation: boolean, usage: { key: string; ledger: readonly Row[] | undefined }, counts: { skipped: number }): { events: SessionfoldEvent[]; usage: SessionfoldEvent[]; mark: SessionMark } | undefined {
  const events: SessionfoldEvent[] = [];
  let session: SessionfoldEvent | undefined;
  const s: SessionState | undefined = sessionEvent(row, 0, (e) => (session = e));
  if (s === undefined || session === undefined) return undefined;
  const { offset: _o, ...rest } = session;
  const event = JSON.stringify(rest);
  if (mark?.event !== event) events.push(session);
  if (mark !== undefined) {
    for (const [id, name] of Object.entries(mark.tools)) s.toolNames.set(id, name);
    s.lastTime = mark.lastTime;
  }
  const model = sessionModel(row);
  let last = mark?.last ?? 0;
  for (const m of messages) {
    last = Number(m.id);
    if (conversation) messageEvents(s, m, last, model, (e) => events.push(e), counts);
  }
  const usageOut: SessionfoldEvent[] = [];
  if (usage.ledger !== undefined) usageEvents(s, row, usage.ledger, last, (e) => usageOut.push(e), counts);
  return { events, usage: usageOut, mark: { event, usage: usage.key, tools: Object.fromEntries(s.toolNames), ...(s.lastTime !== undefined && { lastTime: s.lastTime }), last } };
}

/** The `sessions` columns a session's usage events are made of. */
const USAGE_COLUMNS = [
  'accumulated_input_tokens',
  'input_tokens',
  'accumulated_output_tokens',
  'output_tokens',
  'accumulated_cache_read_tokens',
  'cache_read_tokens',
  'accumulated_cache_write_tokens',
  'cache_write_tokens',
  'accumulated_cost',
  'model_config_json',
  'provider_name',
  'updated_at',
  'created_at',
] as const;

/**
 * What the snapshot's usage events are made of, and the ledger rows when they must be made again: a session's
 * `key` is its usage columns, the count and highest id of its `usage_ledger` rows (Goose inserts them and
 * never updates one) and its last message id (the offset and, without `updated_at`, the time of its totals
 * event). `ledger` holds each session's rows when a key changed, a session came or went, or the read starts
 * over, and a read asks for usage; otherwise it is undefined and no usage event is made.
 */
interface UsagePlan {
  keys: Map<string, string>;
  ledger: Map<string, Row[]> | undefined;
}

/** A plan's keys, whether its usage events must be made again, and the sessions with ledger rows. */
interface PlanKeys {
  keys: Map<string, string>;
  changed: boolean;
  withRows: string[];
}

interface LedgerStat {
  n: number;
  last: number | null;
}

const NO_LEDGER: LedgerStat = { n: 0, last: null };

/**
 * Session ids as one `json_each` parameter: a scan reads a database's sessions in one batch, and a statement per
 * session (prepared again for each) cost more than the ledger rows themselves.
 */
const idsParam = (ids: Iterable<string>): string => JSON.stringify([...ids]);

/** Each session's ledger row count and highest id, for the sessions named; undefined without `usage_ledger`. */
function ledgerStats(db: SqliteDatabase, ids: readonly string[]): Map<string, LedgerStat> | undefined {
  if (!hasUsageLedger(db)) return undefined;
  const rows = db
    .prepare('SELECT session_id AS s, count(*) AS n, max(id) AS last FROM usage_ledger WHERE session_id IN (SELECT value FROM json_each(?)) GROUP BY session_id')
    .all(idsParam(ids)) as { s: unknown; n: number; last: number | null }[];
  return new Map(rows.map((r) => [String(r.s), { n: r.n, last: r.last }]));
}

/** The ledger rows of the sessions named, each session's in id order (an empty list for one without rows). */
function ledgerRows(db: SqliteDatabase, ids: readonly string[]): Map<string, Row[]> {
  const out = new Map<string, Row[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = db.prepare('SELECT * FROM usage_ledger WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY id').all(idsParam(ids)) as Row[];
  for (const r of rows) out.get(String(r.session_id))?.push(r);
  return out;
}

function planKeys(rows: readonly Row[], read: RowReadResult, kinds: ReadonlySet<EventKind>, stats: Map<string, LedgerStat> | undefined): PlanKeys {
  const prev = previousState(read);
  const lastMessage = new Map<string, number>();
  for (const m of read.rows.messages ?? []) lastMessage.set(String(m.session_id), Number(m.id));
  const keys = new Map<string, string>();
  const withRows: string[] = [];
  let changed = prev === undefined;
  for (const row of rows) {
    if (typeof row.id !== 'string') continue;
    const ledger = stats?.get(row.id) ?? NO_LEDGER;
    if (ledger.n > 0) withRows.push(row.id);
    const last = lastMessage.get(row.id) ?? prev?.sessions[row.id]?.last ?? 0;
    const key = JSON.stringify([USAGE_COLUMNS.map((c) => row[c] ?? null), ledger.n, ledger.last, last]);
    keys.set(row.id, key);
    if (prev?.sessions[row.id]?.usage !== key) changed = true;
  }
  if (prev !== undefined && Object.keys(prev.sessions).some((id) => !keys.has(id))) changed = true;
  return { keys, changed: changed && kinds.has('usage'), withRows };
}

/** The usage plans of several reads of one snapshot: the ledger asked about in one statement, its rows read in one more. */
function usagePlans(db: SqliteDatabase, reads: readonly PlanInput[]): UsagePlan[] {
  const ids = reads.flatMap((r) => r.rows.map((row) => row.id).filter((id): id is string => typeof id === 'string'));
  const stats = ledgerStats(db, ids);
  const planned = reads.map((r) => planKeys(r.rows, r.read, r.kinds, stats));
  const ledger = ledgerRows(db, planned.flatMap((p) => (p.changed ? p.withRows : [])));
  return planned.map((p) => ({ keys: p.keys, ledger: p.changed ? new Map(p.withRows.map((id) => [id, ledger.get(id) ?? []])) : undefined }));
}

/** What one read's usage plan is made from. */
interface PlanInput {
  rows: readonly Row[];
  read: RowReadResult;
  kinds: ReadonlySet<EventKind>;
}

/** Whether the database has `usage_ledger` (schema 15 on): an older one is read as before, by its totals. */
export function hasUsageLedger(db: SqliteDatabase): boolean {
  return hasTable(db, 'usage_ledger');
}

const previousState = (read: RowReadResult): GooseCursorState | undefined => (!read.restarted && isState(read.codecState) ? read.codecState : undefined);

/**
 * The events of the sessions (all, or the one `only` names) since `from`, in the order Goose created them.
 * Offsets are row ids: a session event 0, a message (and its tool calls and results) its `messages.id`, a
 * ledger row's usage event its `usage_ledger.id`, the event of the session's totals the id of its last message.
 */
export function readGooseDb(file: string, only: string | undefined, from: RowCursor | undefined, parser: string, kinds: ReadonlySet<EventKind>, emit: (e: SessionfoldEvent) => void): CollectedRead {
  const kindsKey = keyOf(kinds);
  const snap = agentSnapshot(CODEC_ID, file, (db: SqliteDatabase) => {
    const identity = identityOf(file);
    const rows = (only === undefined ? db.prepare('SELECT * FROM sessions ORDER BY rowid').all() : db.prepare('SELECT * FROM sessions WHERE id = ?').all(only)) as Row[];
    let read = readRowsSince(db, sources(kinds, only), from, parser, identity);
    const reason = restartReason(read, kindsKey);
    if (reason !== undefined) read = { ...readRowsSince(db, sources(kinds, only), undefined, parser, identity), reason };
    return { rows, read, usage: usagePlans(db, [{ rows, read, kinds }])[0] as UsagePlan };
  });
  return emitSnapshot(snap, kinds, kindsKey, emit);
}

const keyOf = (kinds: ReadonlySet<EventKind>): string => [...kinds].sort().join(',');

function identityOf(file: string): DatabaseIdentity {
  const identity = databaseIdentity(file);
  if (identity === undefined) throw new SessionfoldError('SESSION_NOT_FOUND', `Cannot open database ${file}: ENOENT`, { file });
  return identity;
}

function restartReason(read: RowReadResult, kindsKey: string): RowReadResult['reason'] {
  return !read.restarted && (!isState(read.codecState) || read.codecState.kinds !== kindsKey) ? 'kinds-changed' : undefined;
}

/** One session of a batch: its id as `key`, the kinds asked for and where they go. */
export type SessionRead = PartitionReadTo<{ kinds: ReadonlySet<EventKind>; emit: (e: SessionfoldEvent) => void }>;

/**
 * `readGooseDb` of several sessions of one database in one snapshot, their messages from one
 * `readPartitionsSettled` per set of columns asked for: each result (or that session's own error) is what
 * `readGooseDb(file, key, from, parser, kinds, emit)` gives in the same snapshot.
 */
export function readGooseSessions(file: string, reads: readonly SessionRead[], parser: string): (CollectedRead | Error)[] {
  const keys = reads.map((r) => keyOf(r.out.kinds));
  const snaps = agentSnapshot(CODEC_ID, file, (db: SqliteDatabase) => {
    const identity = identityOf(file);
    const byId = db.prepare('SELECT * FROM sessions WHERE id = ?');
    const inputs: PlanInput[] = [];
    const groups = new Map<string, number[]>();
    reads.forEach((r, i) => {
      const columns = (partitioned(r.out.kinds)[0] as PartitionedSource).columns;
      groups.set(columns, [...(groups.get(columns) ?? []), i]);
    });
    for (const group of groups.values()) {
      const first = reads[group[0] as number] as SessionRead;
      const got = readPartitionsSettled(db, partitioned(first.out.kinds), group.map((i) => reads[i] as SessionRead), parser, identity, (read, k) => restartReason(read, keys[group[k] as number] as string));
      group.forEach((i, k) => {
        const r = reads[i] as SessionRead;
        inputs[i] = { rows: byId.all(r.key) as Row[], read: got[k] as RowReadResult, kinds: r.out.kinds };
      });
    }
    const plans = usagePlans(db, inputs);
    return inputs.map((x, i): Snapshot => ({ rows: x.rows as Row[], read: x.read, usage: plans[i] as UsagePlan }));
  });
  return eachOrError(snaps, (snap, i) => {
    const r = reads[i] as SessionRead;
    return emitSnapshot(snap, r.out.kinds, keys[i] as string, r.out.emit);
  });
}

/** What one read takes in its snapshot: the `sessions` rows, the messages since the cursor, the usage plan. */
interface Snapshot {
  rows: Row[];
  read: RowReadResult;
  usage: UsagePlan;
}

/** The events of a snapshot's sessions, emitted; how the read started and the cursor after it. */
function emitSnapshot(snap: Snapshot, kinds: ReadonlySet<EventKind>, kindsKey: string, emit: (e: SessionfoldEvent) => void): CollectedRead {
  const { read } = snap;
  const prev = previousState(read);
  const bySession = new Map<string, Row[]>();
  for (const m of read.rows.messages ?? []) {
    const sid = String(m.session_id);
    const list = bySession.get(sid);
    if (list === undefined) bySession.set(sid, [m]);
    else list.push(m);
  }
  const counts = { skipped: 0 };
  const conversation = CONVERSATION.some((k) => kinds.has(k));
  const state: GooseCursorState = { kinds: kindsKey, sessions: {}, usage: 0 };
  const ledger = snap.usage.ledger;
  const usages: SessionfoldEvent[] = [];
  let bytes = 0;
  for (const row of snap.rows) {
    const id = typeof row.id === 'string' ? row.id : undefined;
    const mark = id === undefined ? undefined : prev?.sessions[id];
    const messages = id === undefined ? [] : (bySession.get(id) ?? []);
    for (const m of messages) bytes += typeof m.content_json === 'string' ? m.content_json.length : 0;
    const usage = { key: (id !== undefined && snap.usage.keys.get(id)) || '', ledger: ledger === undefined || id === undefined ? undefined : (ledger.get(id) ?? []) };
    const got = sessionEvents(row, messages, mark, conversation, usage, counts);
    if (got === undefined || id === undefined) {
      counts.skipped++;
      continue;
    }
    for (const e of got.events) if (kinds.has(e.type)) emit(e);
    state.sessions[id] = got.mark;
    if (kinds.has('usage')) {
      usages.push(...got.usage);
      // on a first read each session's usage events follow its messages, as Goose's order has it
      if (prev === undefined) for (const u of got.usage) emit(u);
    }
  }
  const usageChanged = ledger !== undefined;
  if (prev !== undefined && usageChanged) for (const u of usages) emit(u);
  state.usage = usageChanged ? usages.length : (prev?.usage ?? 0);
  const replaced = prev !== undefined && usageChanged && prev.usage > 0 ? { usage: prev.usage } : {};
  return {
    start: { restarted: read.restarted, reason: read.reason, replaced },
    cursor: withCodecState(read.cursor, state),
    records: (read.rows.messages?.length ?? 0) + snap.rows.length,
    bytes,
    skipped: counts.skipped,
  };
}
