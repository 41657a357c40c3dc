/**
 * The part of a database codec's read that is not about the agent: a snapshot read whose SQLite errors (a
 * file that is not a database, or not this agent's tables) are the codec's PARSE_ERROR, and the events it
 * gave handed over with the read's kind filter and counts. The agent's rows and events are the codec's.
 */
import type { NormalizedReadOptions } from './protocol/codec.js';
import { SessionfoldError } from './protocol/errors.js';
import type { SessionfoldEvent } from './protocol/events.js';
import { kindFilter } from './core.js';
import { reportSkipped } from './read-collected.js';
import { withSqliteSnapshot, type SqliteDatabase } from './sqlite.js';

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
