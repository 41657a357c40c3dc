/**
 * Goose's `sessions.db` read by RowCursor (cursors/sqlite-rows.ts): a warm read takes only the `messages` rows
 * (AUTOINCREMENT ids, append-only) added since the cursor, per session or for the whole database. What a
 * session's later messages need from its earlier ones (the names of its tool calls, its last time) rides in
 * the cursor. The `sessions` row (a handful per database) is read every time: a changed session event is
 * yielded again, and the usage events, whose counts Goose updates in place, are yielded again all together
 * when one changed (`replaced.usage`: the reader drops the ones it has). A message deleted (Goose rewrites a
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
import { databaseIdentity, type DatabaseIdentity, type SqliteDatabase } from '../../cursors/sqlite.js';
import { agentSnapshot } from '../../cursors/sqlite-events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { messageEvents, sessionEvent, sessionModel, usageEvent, type Row, type SessionState } from './parse.js';
import { CODEC_ID } from './paths.js';

const CONVERSATION: readonly EventKind[] = ['message', 'tool_call', 'tool_result'];

/** Per session, what a resumed read needs of the previous one. */
interface SessionMark {
  /** The session event last yielded (offset left out), and the usage event. */
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

/** The events of one session's rows since its mark (its whole history when `mark` is undefined). */
function sessionEvents(row: Row, messages: readonly Row[], mark: SessionMark | undefined, conversation: boolean, counts: { skipped: number }): { events: SessionfoldEvent[]; usage: SessionfoldEvent | undefined; mark: SessionMark } | undefined {
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
  let usage: SessionfoldEvent | undefined;
  usageEvent(s, row, last, (e) => (usage = e), counts);
  return { events, usage, mark: { event, usage: JSON.stringify(usage ?? null), tools: Object.fromEntries(s.toolNames), ...(s.lastTime !== undefined && { lastTime: s.lastTime }), last } };
}

/**
 * The events of the sessions (all, or the one `only` names) since `from`, in the order Goose created them.
 * Offsets are row ids: a session event 0, a message (and its tool calls and results) its `messages.id`, the
 * usage event the id of the session's last message.
 */
export function readGooseDb(file: string, only: string | undefined, from: RowCursor | undefined, parser: string, kinds: ReadonlySet<EventKind>, emit: (e: SessionfoldEvent) => void): CollectedRead {
  const kindsKey = keyOf(kinds);
  const snap = agentSnapshot(CODEC_ID, file, (db: SqliteDatabase) => {
    const identity = identityOf(file);
    const rows = (only === undefined ? db.prepare('SELECT * FROM sessions ORDER BY rowid').all() : db.prepare('SELECT * FROM sessions WHERE id = ?').all(only)) as Row[];
    let read = readRowsSince(db, sources(kinds, only), from, parser, identity);
    const reason = restartReason(read, kindsKey);
    if (reason !== undefined) read = { ...readRowsSince(db, sources(kinds, only), undefined, parser, identity), reason };
    return { rows, read };
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
    const out: { rows: Row[]; read: RowReadResult }[] = [];
    const groups = new Map<string, number[]>();
    reads.forEach((r, i) => {
      const columns = (partitioned(r.out.kinds)[0] as PartitionedSource).columns;
      groups.set(columns, [...(groups.get(columns) ?? []), i]);
    });
    for (const group of groups.values()) {
      const first = reads[group[0] as number] as SessionRead;
      const got = readPartitionsSettled(db, partitioned(first.out.kinds), group.map((i) => reads[i] as SessionRead), parser, identity, (read, k) => restartReason(read, keys[group[k] as number] as string));
      group.forEach((i, k) => (out[i] = { rows: byId.all((reads[i] as SessionRead).key) as Row[], read: got[k] as RowReadResult }));
    }
    return out;
  });
  return eachOrError(snaps, (snap, i) => {
    const r = reads[i] as SessionRead;
    return emitSnapshot(snap, r.out.kinds, keys[i] as string, r.out.emit);
  });
}

/** The events of a snapshot's sessions, emitted; how the read started and the cursor after it. */
function emitSnapshot(snap: { rows: Row[]; read: RowReadResult }, kinds: ReadonlySet<EventKind>, kindsKey: string, emit: (e: SessionfoldEvent) => void): CollectedRead {
  const { read } = snap;
  const prev = !read.restarted && isState(read.codecState) ? read.codecState : undefined;
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
  const usages: SessionfoldEvent[] = [];
  let usageChanged = prev === undefined;
  let bytes = 0;
  for (const row of snap.rows) {
    const id = typeof row.id === 'string' ? row.id : undefined;
    const mark = id === undefined ? undefined : prev?.sessions[id];
    const messages = id === undefined ? [] : (bySession.get(id) ?? []);
    for (const m of messages) bytes += typeof m.content_json === 'string' ? m.content_json.length : 0;
    const got = sessionEvents(row, messages, mark, conversation, counts);
    if (got === undefined || id === undefined) {
      counts.skipped++;
      continue;
    }
    for (const e of got.events) if (kinds.has(e.type)) emit(e);
    state.sessions[id] = got.mark;
    if (got.usage !== undefined && kinds.has('usage')) {
      usages.push(got.usage);
      // on a first read each usage event follows its session's messages, as Goose's order has it
      if (prev === undefined) emit(got.usage);
    }
    if (mark?.usage !== got.mark.usage) usageChanged = true;
  }
  if (prev !== undefined && Object.keys(prev.sessions).some((id) => state.sessions[id] === undefined)) usageChanged = true;
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
