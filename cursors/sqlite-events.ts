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

/** Every session's events of one snapshot of a database, by session id in the database's order. */
export interface DatabaseEvents {
  sessions: Map<string, SnapshotEvents>;
  /** Records of no session (a row without a usable id): skipped by a read of the whole database. */
  skipped: number;
}

/** A session's events when the database no longer holds it: none. */
export const NO_EVENTS: SnapshotEvents = Object.freeze({ events: [], skipped: 0 });

/** The events of the session `key` names (undefined when the database has no such session), or of every session when `key` is undefined. */
export function recordEvents(all: DatabaseEvents, key: string | undefined): SnapshotEvents | undefined {
  if (key !== undefined) return all.sessions.get(key);
  const events: SessionfoldEvent[] = [];
  let skipped = all.skipped;
  for (const s of all.sessions.values()) {
    for (const e of s.events) events.push(e);
    skipped += s.skipped;
  }
  return { events, skipped };
}

/**
 * The state of the database at `db` as its files name it: the file's stamp (identity, size, mtime, ctime) and
 * header (change counter, page count), and its `-wal`'s stamp (identity, size, mtime, salts): a commit moves
 * the counter (rollback journal) or the `-wal`'s size, or its salts when the log restarts. Undefined when the
 * database is not a readable file.
 */
export function databaseState(db: string): string | undefined {
  const file = fileStamp(db);
  const header = file.id === '-' ? undefined : headerStamp(db);
  if (header === undefined) return undefined;
  return [file.id, header, ...sqliteDependencies(db).map((p) => walStamp(p).id)].join('/');
}

/** Per agent: the last database read whole, the state it was read in, the kind of read, and what it gave. */
const lastRead = new Map<string, { db: string; state: string; variant: string; value: DatabaseEvents }>();

/**
 * `read` over one snapshot of `db` (`agentSnapshot`), or what the agent's last call gave for the same
 * database, `variant` (the kind of read: which columns, which events) and state (`databaseState`). One value
 * is kept per agent: a scan reads a database's sessions one after another. A commit during the read leaves
 * the value to that read alone.
 */
export function databaseEvents(agent: string, db: string, variant: string, read: (d: SqliteDatabase) => DatabaseEvents): DatabaseEvents {
  const state = databaseState(db);
  const last = lastRead.get(agent);
  if (state !== undefined && last?.db === db && last.state === state && last.variant === variant) return last.value;
  const value = agentSnapshot(agent, db, read);
  if (state !== undefined && databaseState(db) === state) lastRead.set(agent, { db, state, variant, value });
  else lastRead.delete(agent);
  return value;
}

