/**
 * A cursor-agent chat store (`store.db`) read by RowCursor (cursors/sqlite-rows.ts). `blobs` is
 * content-addressed and only grows, so a warm read takes the blobs added since the cursor and walks the new
 * root (`meta.latestRootBlobId`) through them: a blob the previous walk visited gives what it gave then (its
 * range of the conversation, kept in the cursor), so no old blob is read again. The read resumes when the
 * new conversation is the old one followed by new messages; anything else (an edit that forked the
 * conversation, a root that now reaches nothing, an old blob changed in place or gone: the fingerprint of
 * their lengths) starts it over. The `meta` row (one, updated every turn) is read every time; a changed
 * session event is yielded again (`replaced.session`).
 */
import { basename, dirname } from 'node:path';
import type { RowCursor } from '../../cursors/protocol/codec.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import type { EventKind, SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { CollectedRead } from '../../cursors/read-collected.js';
import { agentSnapshot } from '../../cursors/sqlite-events.js';
import { readRowsSince, withCodecState, type RowReadResult, type RowSource } from '../../cursors/sqlite-rows.js';
import { databaseIdentity, type SqliteDatabase } from '../../cursors/sqlite.js';
import { CODEC_ID } from './parse.js';
import { chatMessageEvents, chatSessionEvent, decodeMeta, jsonBlobs, walkBlobs, type Blob, type TreeWalk, type Walk } from './store.js';

export const CONVERSATION: readonly EventKind[] = ['message', 'tool_call', 'tool_result'];

/** What a resumed read needs of the previous one. */
interface StoreState {
  kinds: string;
  /** The session event last yielded (offset left out). */
  session: string;
  /** `tree`: messages from the root; `all`: every JSON blob in rowid order (no root, or it reaches none); `meta`: no blobs read. */
  mode: 'tree' | 'all' | 'meta';
  /** Messages in the conversation so far. */
  count: number;
  /** Per blob the tree walk visited, its range of the conversation (`tree` mode). */
  spans: Record<string, [number, number]>;
  /** Tool call names by call id (a result names only its call). */
  names: Record<string, string>;
}

function isState(v: unknown): v is StoreState {
  const s = v as StoreState | null;
  return s !== null && typeof s === 'object' && typeof s.kinds === 'string' && typeof s.session === 'string' && typeof s.count === 'number' && typeof s.spans === 'object' && s.spans !== null && typeof s.names === 'object' && s.names !== null;
}

const sources = (conversation: boolean): RowSource[] => (conversation ? [{ name: 'blobs', table: 'blobs', columns: 'id, data', fingerprint: 'length(data)' }] : []);

function blobsOf(read: RowReadResult): Blob[] {
  const out: Blob[] = [];
  for (const r of read.rows.blobs ?? []) {
    if (typeof r.id !== 'string') continue;
    const data = Buffer.isBuffer(r.data) ? r.data : typeof r.data === 'string' ? Buffer.from(r.data, 'utf8') : undefined;
    if (data !== undefined) out.push({ id: r.id.toLowerCase(), data });
  }
  return out;
}

/** The new conversation is the old one (its ranges, in order, from 0) followed by new messages only. */
function extends_(walk: TreeWalk, count: number): boolean {
  let next = 0;
  for (const r of walk.reused) {
    if (r.at !== next || r.from[0] !== next || r.from[1] < r.from[0]) return false;
    next = r.from[1];
  }
  return next === count && walk.at.every((a) => a >= count);
}

interface Plan {
  read: RowReadResult;
  meta: ReturnType<typeof decodeMeta>;
  mode: StoreState['mode'];
  walk: Walk & { at: number[]; count: number; spans: Record<string, [number, number]> };
  looked: number;
}

/** The rows since the cursor and the walk over them (inside the snapshot: a walk may look an old blob up). */
function plan(db: SqliteDatabase, file: string, from: RowCursor | undefined, parser: string, kindsKey: string, conversation: boolean): Plan {
  const identity = databaseIdentity(file);
  if (identity === undefined) throw new SessionfoldError('SESSION_NOT_FOUND', `Cannot open database ${file}: ENOENT`, { file });
  const metaRow = db.prepare("SELECT value FROM meta WHERE key = '0'").get() as { value: unknown } | undefined;
  const meta = decodeMeta(metaRow?.value);
  const root = typeof meta?.latestRootBlobId === 'string' ? meta.latestRootBlobId : undefined;
  const prevKinds = (from?.state as { codec?: { kinds?: unknown } } | undefined)?.codec?.kinds;
  let read = readRowsSince(db, sources(conversation), typeof prevKinds === 'string' && prevKinds !== kindsKey ? undefined : from, parser, identity);
  if (from !== undefined && typeof prevKinds === 'string' && prevKinds !== kindsKey) read = { ...read, reason: 'kinds-changed' };
  else if (!read.restarted && (!isState(read.codecState) || read.codecState.kinds !== kindsKey)) read = { ...readRowsSince(db, sources(conversation), undefined, parser, identity), reason: 'kinds-changed' };
  const one = db.prepare('SELECT data FROM blobs WHERE id = ? OR id = upper(?)');
  let looked = 0;
  const full = (r: RowReadResult): Plan => {
    const blobs = blobsOf(r);
    const byId = new Map(blobs.map((b) => [b.id, b.data]));
    const tree = conversation && root !== undefined ? walkBlobs((id) => byId.get(id), root) : undefined;
    if (tree !== undefined && tree.messages.length > 0) return { read: r, meta, mode: 'tree', walk: tree, looked };
    const all = jsonBlobs(blobs);
    return { read: r, meta, mode: conversation ? 'all' : 'meta', walk: { ...all, at: all.messages.map((_, i) => i), count: all.messages.length, spans: {} }, looked };
  };
  if (read.restarted || !isState(read.codecState)) return full(read);
  const prev = read.codecState;
  const fresh = new Map(blobsOf(read).map((b) => [b.id, b.data]));
  const lookup = (id: string): Buffer | undefined => {
    const got = fresh.get(id);
    if (got !== undefined) return got;
    looked++;
    const row = one.get(id, id) as { data: unknown } | undefined;
    return Buffer.isBuffer(row?.data) ? row.data : typeof row?.data === 'string' ? Buffer.from(row.data, 'utf8') : undefined;
  };
  const restart = (): Plan => full({ ...readRowsSince(db, sources(conversation), undefined, parser, identity), reason: 'row-changed' });
  if (prev.mode === 'meta') return { read, meta, mode: 'meta', walk: { messages: [], skipped: 0, at: [], count: 0, spans: {} }, looked };
  if (prev.mode === 'tree') {
    if (root === undefined) return restart();
    const tree = walkBlobs(lookup, root, prev.spans);
    return extends_(tree, prev.count) ? { read, meta, mode: 'tree', walk: tree, looked } : restart();
  }
  if (root !== undefined && walkBlobs(lookup, root).messages.length > 0) return restart();
  const all = jsonBlobs(blobsOf(read));
  return { read, meta, mode: 'all', walk: { ...all, at: all.messages.map((_, i) => prev.count + i), count: prev.count + all.messages.length, spans: {} }, looked };
}

/** The events of a chat store since `from` (all of them without one); offsets as in a full read. */
export function readChatStore(file: string, cwd: string | undefined, from: RowCursor | undefined, parser: string, kinds: ReadonlySet<EventKind>, emit: (e: SessionfoldEvent) => void): CollectedRead {
  const kindsKey = [...kinds].sort().join(',');
  const conversation = CONVERSATION.some((k) => kinds.has(k));
  const p = agentSnapshot(CODEC_ID, file, (db) => plan(db, file, from, parser, kindsKey, conversation));
  const prev = !p.read.restarted && isState(p.read.codecState) ? p.read.codecState : undefined;
  const session = chatSessionEvent(p.meta, basename(dirname(file)), cwd);
  const { offset: _o, ...rest } = session;
  const key = JSON.stringify(rest);
  const again = prev !== undefined && prev.session !== key && kinds.has('session');
  if ((prev === undefined || again) && kinds.has('session')) emit(session);
  const names = new Map(Object.entries(prev?.names ?? {}));
  if (conversation) chatMessageEvents(session.sessionId, p.walk.messages, p.walk.at, names, (e) => kinds.has(e.type) && emit(e));
  const state: StoreState = { kinds: kindsKey, session: key, mode: p.mode, count: p.walk.count, spans: p.mode !== 'tree' ? {} : prev !== undefined && prev.mode === 'tree' ? { ...prev.spans, ...p.walk.spans } : p.walk.spans, names: Object.fromEntries(names) };
  let bytes = 0;
  for (const r of p.read.rows.blobs ?? []) bytes += Buffer.isBuffer(r.data) ? r.data.length : typeof r.data === 'string' ? r.data.length : 0;
  return {
    start: { restarted: p.read.restarted, reason: p.read.reason, replaced: again ? { session: 1 } : {} },
    cursor: withCodecState(p.read.cursor, state),
    records: (p.read.rows.blobs?.length ?? 0) + p.looked + 1,
    bytes,
    skipped: p.walk.skipped,
  };
}
