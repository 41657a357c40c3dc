/**
 * The read of a database codec's record path, without loading the SQLite driver until the first read (a codec
 * imports this when the registry loads). Kept apart from cursors/record-path.ts, which cursors/sqlite.ts
 * re-exports, so the lazy import below closes no circle.
 */
import type { NormalizedReadOptions } from './protocol/read.js';
import type { SessionfoldEvent } from './protocol/events.js';
import { splitRecordPath } from './record-path.js';
import type { SqliteDatabase } from './sqlite.js';
import type { DatabaseEvents } from './sqlite-events.js';

/**
 * `read()` of a record path (or of a whole database) whose events come from one read of the database per state
 * (cursors/sqlite-events.ts `databaseEvents`). `variant` names what the read asks of the database (a
 * conversation or a summary, say), so reads asking the same share one snapshot's events; `read` is the codec's
 * whole-database read. The driver loads at the first such read, not when the codec loads.
 */
export async function* readDatabaseRecord(
  agent: string,
  file: string,
  options: NormalizedReadOptions,
  variant: string,
  read: (d: SqliteDatabase) => DatabaseEvents,
): AsyncGenerator<SessionfoldEvent> {
  const { db, key } = splitRecordPath(file);
  const { databaseEvents, eventsForRead } = await import('./sqlite-events.js');
  yield* eventsForRead(agent, file, databaseEvents(agent, db, variant, key, read), options);
}
