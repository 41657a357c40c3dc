/**
 * The IDE's `state.vscdb` read by RowCursor (cursors/sqlite-rows.ts): one composer (a record path) or every
 * composer of the database. Each composer's bubbles (`bubbleId:<composerId>:…`, a key range) are a source of
 * their own, so a warm read takes only the bubble rows added since, besides the composer rows (read every
 * time: Cursor rewrites a composer's row with each turn). The read resumes when each composer's bubble list
 * is its old list followed by new bubbles; it starts over when a bubble already read was written again
 * (`cursorDiskKV` keys are `UNIQUE ON CONFLICT REPLACE`: a rewrite is a new rowid for an old key) or
 * changed in place (the fingerprint of the lengths below the watermark), when a composer's headers no longer
 * extend its old ones, or when its inline conversation (older builds) changed before its end. When a
 * session event changed, every session event is yielded again (`replaced.session`).
 */
import { createHash } from 'node:crypto';
import type { RowCursor } from '../../cursors/protocol/codec.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import type { EventKind, SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { CollectedRead } from '../../cursors/read-collected.js';
import { agentSnapshot } from '../../cursors/sqlite-events.js';
import { readRowsSince, withCodecState, type RowReadResult, type RowSource } from '../../cursors/sqlite-rows.js';
import { databaseIdentity, type SqliteDatabase } from '../../cursors/sqlite.js';
import { BUBBLE_PREFIX, bubbleEvents, bubbleOrder, COMPOSER_PREFIX, composerHead, inlineBubbles, parseKvValue } from './ide.js';
import { CODEC_ID } from './parse.js';
import { CONVERSATION } from './store-rows.js';

const COMPOSER_END = 'composerData;'; // the first key after every `composerData:…` key

/** Per composer, what a resumed read needs. */
interface ComposerMark {
  session: string;
  /** Bubble ids of the headers read (empty for an inline conversation). */
  order: string[];
  /** Inline bubbles read, and a hash of them. */
  inline?: [number, string];
  /** The next record index. */
  next: number;
}

interface IdeState {
  kinds: string;
  composers: Record<string, ComposerMark>;
  /** Session events held by the reader (all yielded again when one changes). */
  sessions: number;
}

function isState(v: unknown): v is IdeState {
  const s = v as IdeState | null;
  return s !== null && typeof s === 'object' && typeof s.kinds === 'string' && typeof s.composers === 'object' && s.composers !== null && typeof s.sessions === 'number';
}

const bubbleSource = (id: string): RowSource => ({
  name: `bubbles:${id}`,
  table: 'cursorDiskKV',
  columns: 'key, value',
  where: 'key >= ? AND key < ?',
  params: [`${BUBBLE_PREFIX}${id}:`, `${BUBBLE_PREFIX}${id};`],
  fingerprint: 'length(value)',
});

const hashOf = (items: readonly unknown[]): string => createHash('sha256').update(JSON.stringify(items)).digest('hex');

interface ComposerOut {
  session: SessionfoldEvent;
  events: SessionfoldEvent[];
  mark: ComposerMark;
  missing: number;
}

/**
 * A composer's events since `prev` (all of them without one), its bubbles from `fresh` (this read's rows)
 * or `old` (a look-up of a row below the watermark); undefined when it cannot resume.
 */
function composerRead(id: string, composer: Record<string, unknown>, prev: ComposerMark | undefined, fresh: ReadonlyMap<string, unknown>, old: (key: string) => unknown, conversation: boolean): ComposerOut | 'restart' | undefined {
  const head = composerHead({ ...composer, composerId: id }, 0);
  if (head === undefined) return undefined;
  const { offset: _o, ...rest } = head.session;
  const session = JSON.stringify(rest);
  const events: SessionfoldEvent[] = [];
  const out = (mark: Omit<ComposerMark, 'session'>, missing = 0): ComposerOut => ({ session: head.session, events, mark: { session, ...mark }, missing });
  if (!conversation) return out({ order: [], next: 1 });
  let next = prev?.next ?? 1;
  const inline = inlineBubbles(composer);
  if (inline !== undefined) {
    const had = prev?.inline?.[0] ?? 0;
    if (prev !== undefined && (prev.inline === undefined || inline.length < had || hashOf(inline.slice(0, had)) !== prev.inline[1])) return 'restart';
    for (const b of inline.slice(had)) bubbleEvents(head.session.sessionId, b, next++, head.model, (e) => events.push(e));
    return out({ order: [], inline: [inline.length, hashOf(inline)], next });
  }
  const order = bubbleOrder(composer);
  const had = prev?.order ?? [];
  if (prev !== undefined && (prev.inline !== undefined || had.some((b, i) => order[i] !== b))) return 'restart';
  const prefix = `${BUBBLE_PREFIX}${id}:`;
  const known = new Set(had);
  for (const key of fresh.keys()) if (prev !== undefined && known.has(key.slice(prefix.length))) return 'restart';
  let missing = 0;
  for (const bid of order.slice(had.length)) {
    const key = `${prefix}${bid}`;
    const b = parseKvValue(fresh.has(key) ? fresh.get(key) : old(key));
    if (b === undefined) missing++;
    else bubbleEvents(head.session.sessionId, { bubbleId: bid, ...b }, next++, head.model, (e) => events.push(e));
  }
  return out({ order, next }, missing);
}

interface Plan {
  read: RowReadResult;
  outs: ComposerOut[];
  skipped: number;
  looked: number;
  composerRows: number;
}

function plan(db: SqliteDatabase, file: string, only: string | undefined, from: RowCursor | undefined, parser: string, kindsKey: string, conversation: boolean): Plan {
  const identity = databaseIdentity(file);
  if (identity === undefined) throw new SessionfoldError('SESSION_NOT_FOUND', `Cannot open database ${file}: ENOENT`, { file });
  const rows = (
    only === undefined
      ? db.prepare('SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY rowid').all(COMPOSER_PREFIX, COMPOSER_END)
      : db.prepare('SELECT key, value FROM cursorDiskKV WHERE key = ?').all(`${COMPOSER_PREFIX}${only}`)
  ) as { key: string; value: unknown }[];
  const composers = rows.map((r) => ({ id: r.key.slice(COMPOSER_PREFIX.length), value: parseKvValue(r.value) }));
  const sources = conversation ? composers.map((c) => bubbleSource(c.id)) : [];
  const prevKinds = (from?.state as { codec?: { kinds?: unknown } } | undefined)?.codec?.kinds;
  const kindsChanged = from !== undefined && typeof prevKinds === 'string' && prevKinds !== kindsKey;
  let read = readRowsSince(db, sources, kindsChanged ? undefined : from, parser, identity, { addSources: true });
  if (kindsChanged) read = { ...read, reason: 'kinds-changed' };
  const one = db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?');
  let looked = 0;
  const old = (key: string): unknown => {
    looked++;
    return (one.get(key) as { value: unknown } | undefined)?.value;
  };
  const build = (r: RowReadResult): Plan | 'restart' => {
    const prev = !r.restarted && isState(r.codecState) ? r.codecState : undefined;
    const outs: ComposerOut[] = [];
    let skipped = 0;
    const present = new Set(composers.map((c) => c.id));
    if (prev !== undefined && Object.keys(prev.composers).some((id) => !present.has(id))) return 'restart';
    for (const c of composers) {
      const mark = prev?.composers[c.id];
      if (c.value === undefined) {
        if (mark !== undefined) return 'restart';
        skipped++;
        continue;
      }
      const fresh = new Map((r.rows[`bubbles:${c.id}`] ?? []).map((b) => [String(b.key), b.value]));
      const got = composerRead(c.id, c.value, mark, fresh, old, conversation);
      if (got === 'restart') return 'restart';
      if (got !== undefined) outs.push(got);
      skipped += got?.missing ?? 0;
    }
    return { read: r, outs, skipped, looked, composerRows: rows.length };
  };
  const first = build(read);
  if (first !== 'restart') return first;
  return build({ ...readRowsSince(db, sources, undefined, parser, identity), reason: 'row-changed' }) as Plan;
}

/** The events of the IDE database's composers (all, or the one `only` names) since `from`; offsets count from 0 per composer. */
export function readIdeState(file: string, only: string | undefined, from: RowCursor | undefined, parser: string, kinds: ReadonlySet<EventKind>, emit: (e: SessionfoldEvent) => void): CollectedRead {
  const kindsKey = [...kinds].sort().join(',');
  const conversation = CONVERSATION.some((k) => kinds.has(k));
  const p = agentSnapshot(CODEC_ID, file, (db) => plan(db, file, only, from, parser, kindsKey, conversation));
  const prev = !p.read.restarted && isState(p.read.codecState) ? p.read.codecState : undefined;
  const state: IdeState = { kinds: kindsKey, composers: {}, sessions: 0 };
  for (const o of p.outs) state.composers[o.session.sessionId] = o.mark;
  const again = prev === undefined || p.outs.some((o) => prev.composers[o.session.sessionId]?.session !== o.mark.session);
  const wantSessions = kinds.has('session');
  for (const o of p.outs) {
    if (again && wantSessions) emit(o.session);
    for (const e of o.events) if (kinds.has(e.type)) emit(e);
  }
  state.sessions = again ? (wantSessions ? p.outs.length : 0) : (prev?.sessions ?? 0);
  let bytes = 0;
  let bubbleRows = 0;
  for (const list of Object.values(p.read.rows)) {
    bubbleRows += list.length;
    for (const r of list) bytes += Buffer.isBuffer(r.value) ? r.value.length : typeof r.value === 'string' ? r.value.length : 0;
  }
  const replaced = prev !== undefined && again && prev.sessions > 0 ? { session: prev.sessions } : {};
  return {
    start: { restarted: p.read.restarted, reason: p.read.reason, replaced },
    cursor: withCodecState(p.read.cursor, state),
    records: bubbleRows + p.looked + p.composerRows,
    bytes,
    skipped: p.skipped,
  };
}
