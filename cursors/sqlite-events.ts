/**
 * The part of a database codec's read that is not about the agent: a snapshot read whose SQLite errors (a
 * file that is not a database, or not this agent's tables) are the codec's PARSE_ERROR, and the events it
 * gave handed over with the read's kind filter and counts. The agent's rows and events are the codec's.
 *
 * A codec that reads a session as one snapshot of its database reads every session of it at once
 * (`databaseEvents`), kept while the database stays as it was: after a change, a scan or a list reads each of
 * the database's sessions again, and one snapshot per session would open it (and, on a live database, rebuild
 * its WAL index) once per session.
 */
import type { NormalizedReadOptions } from './protocol/codec.js';
import { SessionfoldError } from './protocol/errors.js';
import type { SessionfoldEvent } from './protocol/events.js';
import { kindFilter } from './core.js';
import { reportSkipped } from './read-collected.js';
import { fileStamp, walStamp } from './listing-memo.js';
import { headerStamp, sqliteDependencies, withSqliteSnapshot, type SqliteDatabase } from './sqlite.js';

/** What a codec makes of one snapshot: its events, and the records it skipped as unreadable. */
export interface SnapshotEvents {
  events: SessionfoldEvent[];
  skipped: number;
}

/** `fn` over a read-only snapshot of `db` (cursors/sqlite.ts); an SQLite error is `agent`'s PARSE_ERROR. */
export function agentSnapshot<T>(agent: string, db: string, fn: (d: SqliteDatabase) => T): T {
  try {
    return withSqliteSnapshot(db, fn);
  } catch (cause) {
    if (cause instanceof SessionfoldError) throw cause;
    throw new SessionfoldError('PARSE_ERROR', `Cannot read ${db} as a ${agent} database: ${(cause as Error).message}`, { agent, file: db, cause });
  }
}

/**
 * The events of the kinds the read asked for (counted in `info.events`); skipped records as every whole read
 * reports them (`reportSkipped`: counted, told to `onSkip`, a PARSE_ERROR when strict).
 */
export function eventsForRead(agent: string, file: string, got: SnapshotEvents, options: NormalizedReadOptions): SessionfoldEvent[] {
  reportSkipped(agent, file, options, got.skipped);
  const out: SessionfoldEvent[] = [];
  const emit = kindFilter(options, (e) => out.push(e));
  for (const e of got.events) emit(e);
  return out;
}

/**
 * Every session's events of one snapshot of a database, by session id in the database's order: the events, or
 * a function that makes them from what the snapshot read (a row kept undecoded), run when a read asks for that
 * session. A codec whose rows cost most to decode (Zed's compressed threads) then decodes only the sessions
 * read, not every session of the database for one read.
 */
export interface DatabaseEvents {
  sessions: Map<string, SnapshotEvents | (() => SnapshotEvents)>;
  /** Records of no session (a row without a usable id): skipped by a read of the whole database. */
  skipped: number;
}

/** A session's events when the database no longer holds it: none. */
const NO_EVENTS: SnapshotEvents = Object.freeze({ events: [], skipped: 0 });

/** The events of the session `key` names (undefined when the database has no such session), or of every session when `key` is undefined. */
function recordEvents(all: DatabaseEvents, key: string | undefined): SnapshotEvents | undefined {
  if (key !== undefined) return made(all.sessions.get(key));
  const events: SessionfoldEvent[] = [];
  let skipped = all.skipped;
  for (const v of all.sessions.values()) {
    const s = made(v) as SnapshotEvents;
    for (const e of s.events) events.push(e);
    skipped += s.skipped;
  }
  return { events, skipped };
}

/** A session's events, made now when the read kept a function for them. */
function made(v: SnapshotEvents | (() => SnapshotEvents) | undefined): SnapshotEvents | undefined {
  return typeof v === 'function' ? v() : v;
}

/**
 * The state of the database at `db` as its files name it: the file's stamp (identity, size, mtime, ctime) and
 * header (change counter, page count), and its `-wal`'s stamp (identity, size, mtime, salts, the `-shm`'s
 * counters: `walStamp`): a commit moves the counter (rollback journal) or the `-wal`'s size, or its salts when
 * the log restarts. A commit into a restarted log that stays within the log's old size, in the mtime tick of
 * the last stamp, leaves size, salts and mtime as they were: the `-shm`'s counters see it. The gap: a writer
 * without a `-shm` (locking_mode EXCLUSIVE keeps the index in memory) makes such a commit unseen, and a kept
 * read (`readKept`) is served until a later commit moves the state. Undefined when the database is not a
 * readable file.
 */
export function databaseState(db: string): string | undefined {
  const file = fileStamp(db);
  const header = file.id === '-' ? undefined : headerStamp(db);
  if (header === undefined) return undefined;
  return [file.id, header, ...sqliteDependencies(db).map((p) => walStamp(p).id)].join('/');
}

/** A value read of a whole database, by the database, kind of read and state it was read in. */
interface Kept<T> {
  db: string;
  state: string;
  variant: string;
  value: T;
}

/**
 * `read` over one snapshot of `db` (`agentSnapshot`), or what `kept` holds under `slot` of the same database,
 * `variant` (the kind of read) and state (`databaseState`); kept under `slot` when no commit moved the state
 * during the read (else the value is that read's alone).
 */
function readKept<T>(kept: Map<string, Kept<T>>, slot: string, agent: string, db: string, variant: string, read: (d: SqliteDatabase) => T): Kept<T> {
  const state = databaseState(db);
  const last = kept.get(slot);
  if (state !== undefined && last?.db === db && last.state === state && last.variant === variant) return last;
  const entry: Kept<T> = { db, state: state ?? '', variant, value: agentSnapshot(agent, db, read) };
  if (state !== undefined && databaseState(db) === state) kept.set(slot, entry);
  else kept.delete(slot);
  return entry;
}

/**
 * Per agent and database: the last read of it whole, with the sessions of it no read has taken yet (`left`),
 * at most KEPT_PER_AGENT databases of one agent, the least recently asked for let go first.
 */
const lastRead = new Map<string, Kept<{ all: DatabaseEvents; left: Set<string> }>>();

/**
 * How many databases of one agent keep their read: a scan takes the sessions of an agent's databases in an
 * order of its own (several files in flight), so two databases read in turn would each be read again at every
 * turn with one; the bound keeps an agent with many databases (one per workspace) from holding them all.
 */
export const KEPT_PER_AGENT = 4;

/** `slot` made the most recently used of `kept`, and the least recently used of `agent`'s beyond the bound let go. */
function touch<T>(kept: Map<string, Kept<T>>, slot: string, agent: string): void {
  const entry = kept.get(slot);
  if (entry === undefined) return;
  kept.delete(slot);
  kept.set(slot, entry);
  const prefix = `${agent}\0`;
  const mine = [...kept.keys()].filter((k) => k.startsWith(prefix));
  for (const k of mine.slice(0, Math.max(0, mine.length - KEPT_PER_AGENT))) kept.delete(k);
}

/**
 * The events of the session `key` names (of every session when `key` is undefined; none when the database
 * has no such session) from one snapshot of `db`, or from what an earlier call read of the same database,
 * `variant` (the kind of read: which columns, which events) and state (`readKept`). A database's read is let
 * go once every session of it was taken (a whole read takes them all), as a pass over the database does: a
 * long-lived process (`serve`) keeps no database's events in memory between passes, which read again through
 * the event cache.
 */
export function databaseEvents(agent: string, db: string, variant: string, key: string | undefined, read: (d: SqliteDatabase) => DatabaseEvents): SnapshotEvents {
  const slot = `${agent}\0${db}`;
  const entry = readKept(lastRead, slot, agent, db, variant, (d) => {
    const all = read(d);
    return { all, left: new Set(all.sessions.keys()) };
  });
  touch(lastRead, slot, agent);
  const { all, left } = entry.value;
  if (key === undefined) left.clear();
  else left.delete(key);
  if (left.size === 0 && lastRead.get(slot) === entry) lastRead.delete(slot);
  return recordEvents(all, key) ?? NO_EVENTS;
}

/** Per agent and slot: the last value `databaseValue` read of a database. */
const lastValue = new Map<string, Kept<unknown>>();

/**
 * `read` over one snapshot of `db`, or what the last call for the same agent and `slot` read of the same
 * database in the same state (`readKept`): a value of the whole database (an index of its sessions) that the
 * read of each of its sessions needs. One value is kept per slot.
 */
export function databaseValue<T>(agent: string, slot: string, db: string, read: (d: SqliteDatabase) => T): T {
  return readKept(lastValue, `${agent}:${slot}`, agent, db, '', read).value as T;
}
