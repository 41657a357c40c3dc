/**
 * `devin`: Devin CLI (Cognition; Devin Desktop drives the same CLI), which keeps every session in one SQLite
 * database, `$XDG_DATA_HOME/devin/cli/sessions.db` (README.md has the schema and its sources). Each session is
 * a record path `<sessions.db>#<session id>` (cursors/record-path.ts); the database's own path reads every
 * session. Reads go through a read-only snapshot (nothing beside the database is created, changed or removed)
 * and hold one session's rows at a time, never the whole database, which reaches gigabytes (db.ts). A request
 * copied into a new session is counted by the session it came from (parse.ts): a small index of the database,
 * read once per state of it, names that session. A read that asks for no conversation selects only the fields
 * usage needs, not the messages' text.
 *
 * @example
 * import { devin } from 'sessionfold/codecs/devin';
 * for await (const f of devin.discover(devin.defaultRoots()))
 *   for await (const e of devin.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { normalizeReadOptions } from '../../cursors/protocol/codec.js';
import type { EventKind, SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { SnapshotEvents } from '../../cursors/sqlite-events.js';
import { databaseRecords, fromListing } from '../../cursors/discovery.js';
import { recordDependencies, splitRecordPath } from '../../cursors/record-path.js';
import { recordStamper } from '../../cursors/record-stamps.js';
import type { SqliteDatabase } from '../../cursors/sqlite.js';
import { devinIndex, sessionList, sessionOf, sessionStamps, type DevinIndex } from './db.js';
import { sessionEvents } from './parse.js';
import { CODEC_ID, discoverDevinFiles } from './paths.js';
import { devinDescriptor, PARSER_VERSION } from './descriptor.js';

export { devinTokens, nodeOf, sessionEvents, usageKeyOf, usageOwners, type DevinNode, type DevinSession, type DevinTokens, type Row } from './parse.js';
export { devinIndex, sessionList, sessionOf, sessionStamps, type DevinIndex } from './db.js';
export { conversationNodes } from './conversation.js';
export { CODEC_ID as DEVIN_CODEC_ID, discoverDevinFiles, getDevinRoots, LEGACY_DB, SESSIONS_DB } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

const CONVERSATION: readonly EventKind[] = ['message', 'tool_call', 'tool_result'];

/** One session's events from a snapshot: its rows only, and the index for what other sessions say of its requests. */
function sessionRead(d: SqliteDatabase, id: string, index: DevinIndex, conversation: boolean): SnapshotEvents {
  return sessionEvents(sessionOf(d, id, index, conversation), index.owners, conversation);
}

/** Every session's events, one session's rows in memory at a time; rows of no session are skipped. */
function databaseRead(d: SqliteDatabase, conversation: boolean): SnapshotEvents {
  const index = devinIndex(d);
  const events: SessionfoldEvent[] = [];
  let skipped = index.orphans;
  for (const id of index.order) {
    const got = sessionRead(d, id, index, conversation);
    for (const e of got.events) events.push(e);
    skipped += got.skipped;
  }
  return { events, skipped };
}

/**
 * `read()`: a session's events, or (the database's own path) every session's. The database's index is read
 * once per state of it (cursors/sqlite-events.ts `databaseValue`) for all its sessions; a read without
 * conversation kinds selects no message text.
 */
async function* readDevin(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const o = normalizeReadOptions(options);
  const conversation = CONVERSATION.some((k) => o.kinds.has(k));
  const { db, key } = splitRecordPath(file);
  const { agentSnapshot, databaseValue, eventsForRead } = await import('../../cursors/sqlite-events.js');
  let got: SnapshotEvents;
  if (key === undefined) got = agentSnapshot(CODEC_ID, db, (d) => databaseRead(d, conversation));
  else {
    const index = databaseValue(CODEC_ID, 'index', db, devinIndex);
    got = agentSnapshot(CODEC_ID, db, (d) => sessionRead(d, key, index, conversation));
  }
  yield* eventsForRead(CODEC_ID, file, got, o);
}

/** Goes up whenever the stamps of the same rows would differ. */
const STAMP_VERSION = 1;

/**
 * `sessions.db` stamped per session (cursors/record-stamps.ts, db.ts `sessionStamps`): Devin writes one
 * session at a time, and a session's read takes its own rows and, of the others, only who owns its requests,
 * so a write to one session makes only that one (and a session whose request it took) read again.
 */
const devinDependencyStamp = recordStamper('devin-sessions', `${CODEC_ID}@${PARSER_VERSION}.s${STAMP_VERSION}`, sessionStamps);

function discoverDevin(roots: readonly string[]): AsyncGenerator<SessionFile> {
  return databaseRecords(CODEC_ID, discoverDevinFiles(roots), sessionList);
}

/** Devin CLI: `sessions.db` under `$XDG_DATA_HOME/devin/cli`; see its README. */
export const devin: Codec = {
  ...devinDescriptor,
  ...fromListing(discoverDevin),
  getParseDependencies: recordDependencies,
  dependencyStamp: devinDependencyStamp,
  read: readDevin,
};
export default devin;
