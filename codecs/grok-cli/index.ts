/**
 * `grok-cli`: the community grok-cli (superagent-ai/grok-cli), which keeps every session in one SQLite database,
 * `~/.grok/grok.db` (README.md has the schema). Each session is a record path `<grok.db>#<session id>`
 * (cursors/record-path.ts); the database's own path reads every session. Reads are whole, through
 * `withSqliteSnapshot` (nothing beside the database is created, changed or removed), one snapshot for every
 * session of the database while it stays as it was. Per session: a session event, the messages in `seq`
 * order with their tool calls and results, and one usage event per usage row.
 */
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { normalizeReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { DatabaseEvents } from '../../cursors/sqlite-events.js';
import { readDatabaseRecord } from '../../cursors/database-record.js';
import { databaseRecords, fromListing } from '../../cursors/discovery.js';
import { recordDependencies } from '../../cursors/record-path.js';
import type { SqliteDatabase } from '../../cursors/sqlite.js';
import { messageEvents, sessionEvent, usageEvent, type Row } from './parse.js';
import { CODEC_ID, discoverGrokCliFiles } from './paths.js';
import { grokCliDescriptor } from './descriptor.js';

export { grokCliCount, messageEvents, sessionEvent, usageEvent } from './parse.js';
export { discoverGrokCliFiles, getGrokCliRoots } from './paths.js';

export { PARSER_VERSION } from './descriptor.js';

/** Every session with its messages and usage rows, in the order grok-cli created them. */
function sessionsOf(db: SqliteDatabase): DatabaseEvents {
  const sessions = db.prepare('SELECT * FROM sessions ORDER BY created_at, rowid').all() as Row[];
  const messages = db.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY seq');
  const usage = db.prepare('SELECT * FROM usage_events WHERE session_id = ? ORDER BY id');
  const out: DatabaseEvents = { sessions: new Map(), skipped: 0 };
  for (const s of sessions) {
    const id = String(s.id);
    const used = (usage.all(id) as Row[]).map((u) => usageEvent(id, u)).filter((u) => u !== undefined);
    const session = sessionEvent(s, used.length === 0);
    if (session === undefined) {
      out.skipped++;
      continue;
    }
    const events: SessionfoldEvent[] = [session];
    const emit = (e: SessionfoldEvent): void => {
      events.push(e);
    };
    let skipped = 0;
    for (const m of messages.all(id) as Row[]) if (!messageEvents(id, m, emit)) skipped++;
    for (const u of used) emit(u);
    out.sessions.set(id, { events, skipped });
  }
  return out;
}

/** `read()`: the session's events from one read of its database per state (cursors/sqlite-events.ts `databaseEvents`). */
async function* readGrokCli(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  yield* readDatabaseRecord(CODEC_ID, file, normalizeReadOptions(options), 'all', sessionsOf);
}

function discoverGrokCli(roots: readonly string[]): AsyncGenerator<SessionFile> {
  return databaseRecords(CODEC_ID, discoverGrokCliFiles(roots), (d) =>
    (d.prepare('SELECT id FROM sessions ORDER BY created_at, rowid').all() as { id: unknown }[]).flatMap((r) => (typeof r.id === 'string' && r.id !== '' ? [{ id: r.id }] : [])),
  );
}

/** The community grok-cli: `~/.grok/grok.db`; see its README. */
export const grokCli: Codec = {
  ...grokCliDescriptor,
  ...fromListing(discoverGrokCli),
  getParseDependencies: recordDependencies,
  read: readGrokCli,
};
export default grokCli;
