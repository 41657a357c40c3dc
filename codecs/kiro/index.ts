/**
 * `kiro`: Kiro's CLI (`kiro-cli`, successor of Amazon Q Developer CLI; README.md has the formats and their
 * sources). Two stores: a session's `<id>.json` metadata under `~/.kiro/sessions/cli/`, with its `<id>.jsonl`
 * log beside it as a parse dependency, read whole (a read of session events alone leaves the log unread); and
 * the `conversations_v2` table of the CLI's `data.sqlite3`, each conversation a record path
 * `<data.sqlite3>#<conversation id>` read through `withSqliteSnapshot` (nothing beside the database is
 * created, changed or removed), one snapshot for every conversation while the database stays as it was.
 * Kiro records no token counts: no usage events, and every session event says `usageRecorded: false`.
 *
 * @example
 * import { kiro } from 'sessionfold/codecs/kiro';
 * for await (const f of kiro.discover(kiro.defaultRoots()))
 *   for await (const e of kiro.read(f.path, { kinds: ['session'] })) console.log(e.sessionId, e.cwd);
 */
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { normalizeReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { DatabaseEvents, SnapshotEvents } from '../../cursors/sqlite-events.js';
import { readDatabaseRecord } from '../../cursors/database-record.js';
import { databaseRecords, fromListing, type DatabaseRecord } from '../../cursors/discovery.js';
import { readCollected, readSessionText } from '../../cursors/read-collected.js';
import { recordDependencies, splitRecordPath } from '../../cursors/record-path.js';
import { recordStamper, rowStamp } from '../../cursors/record-stamps.js';
import type { SqliteDatabase } from '../../cursors/sqlite.js';
import { conversationEvents, parseKiroSession, type Row } from './parse.js';
import { CODEC_ID, discoverKiroFiles, isKiroDb, logOf, stemOf } from './paths.js';
import { kiroDescriptor, PARSER_VERSION } from './descriptor.js';

export { cliSessionEvent, conversationEvents, isoTime, logLineEvents, parseKiroSession } from './parse.js';
export { discoverKiroFiles, getKiroRoots } from './paths.js';

export { PARSER_VERSION } from './descriptor.js';

/** A CLI session's events through `readCollected` (its counts, skips, `strict` and `onSkip`, as every whole read). */
function readSessionFile(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  return readCollected(CODEC_ID, file, options, (o, emit) => {
    const meta = readSessionText(CODEC_ID, file, false) as string;
    const log = o.conversation ? readSessionText(CODEC_ID, logOf(file), true) : undefined;
    const got = parseKiroSession(meta, log, stemOf(file));
    for (const e of got.events) if (o.kinds.has(e.type)) emit(e);
    return { records: 1 + got.lines, bytes: Buffer.byteLength(meta) + (log === undefined ? 0 : Buffer.byteLength(log)), skipped: got.skipped };
  });
}

/**
 * Every conversation of the database, oldest first, by id. A conversation the table holds under two folders
 * (its key is the pair) is read once, from its latest row. A row without an id is a skip of the whole read.
 * Rows are taken one at a time, newest first: a read holds one conversation's `value`, not every row's.
 */
function conversationsOf(db: SqliteDatabase, conversation: boolean): DatabaseEvents {
  const rows = db.prepare('SELECT key, conversation_id, value, created_at, updated_at FROM conversations_v2 ORDER BY updated_at DESC, rowid DESC').iterate() as IterableIterator<Row>;
  const seen = new Set<unknown>();
  const newestFirst: [string | undefined, SnapshotEvents][] = [];
  for (const r of rows) {
    if (seen.has(r.conversation_id)) continue;
    seen.add(r.conversation_id);
    const id = typeof r.conversation_id === 'string' && r.conversation_id.trim() !== '' ? r.conversation_id : undefined;
    const events: SessionfoldEvent[] = [];
    const ok = conversationEvents(r, conversation, (e) => events.push(e));
    newestFirst.push([id, { events, skipped: ok ? 0 : 1 }]);
  }
  const out: DatabaseEvents = { sessions: new Map(), skipped: 0 };
  for (const [id, got] of newestFirst.reverse()) {
    if (id === undefined) out.skipped++;
    else out.sessions.set(id, got);
  }
  return out;
}

/** `read()` of a session file, or of a conversation from one read of its database per state (`databaseEvents`). */
async function* readKiro(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  if (!isKiroDb(splitRecordPath(file).db)) {
    yield* readSessionFile(file, options);
    return;
  }
  const o = normalizeReadOptions(options);
  yield* readDatabaseRecord(CODEC_ID, file, o, o.conversation ? 'conversation' : 'summary', (d) => conversationsOf(d, o.conversation));
}

/**
 * A database's conversations, each once, by their latest update, with its rows' count and latest `updated_at`
 * as its stat (`DatabaseRecord`): a turn saved to one conversation leaves the others' as they were, and
 * `kiroDependencyStamp` sees what these do not.
 */
function conversationList(d: SqliteDatabase): DatabaseRecord[] {
  const rows = d.prepare('SELECT conversation_id AS id, count(*) AS n, max(updated_at) AS at FROM conversations_v2 GROUP BY conversation_id ORDER BY max(updated_at), conversation_id').all() as { id: unknown; n: unknown; at: unknown }[];
  return rows.flatMap((r) => (typeof r.id === 'string' && r.id !== '' ? [{ id: r.id, ...(typeof r.n === 'number' && typeof r.at === 'number' && Number.isFinite(r.at) && { size: r.n, mtimeMs: r.at }) }] : []));
}

/** Goes up whenever the stamps of the same rows would differ. */
const STAMP_VERSION = 1;

/** Every conversation's stamp: the row its read takes (`conversationsOf`: its latest), every column. */
function conversationStamps(d: SqliteDatabase): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of d.prepare('SELECT * FROM conversations_v2 ORDER BY updated_at DESC, rowid DESC').iterate() as IterableIterator<Row>) {
    if (typeof row.conversation_id === 'string' && !(row.conversation_id in out)) out[row.conversation_id] = rowStamp(row);
  }
  return out;
}

/** `Codec.dependencyStamp`: a conversation's record path stamped by its row (cursors/record-stamps.ts); a session file's log by its stat. */
const kiroDependencyStamp = recordStamper('kiro-conversations', `${CODEC_ID}@${PARSER_VERSION}.s${STAMP_VERSION}`, conversationStamps);

/** Every CLI session file, and every conversation of a database as a record path. */
async function* discoverKiro(roots: readonly string[]): AsyncGenerator<SessionFile> {
  for (const f of discoverKiroFiles(roots)) {
    if (isKiroDb(f.path)) yield* databaseRecords(CODEC_ID, [f], conversationList);
    else yield { ...f, sessionId: stemOf(f.path) };
  }
}

/** Kiro CLI: `~/.kiro/sessions/cli` and the `kiro-cli` database; records no tokens. See its README. */
export const kiro: Codec = {
  ...kiroDescriptor,
  ...fromListing(discoverKiro),
  getParseDependencies: (file: string) => (isKiroDb(splitRecordPath(file).db) ? recordDependencies(file) : [logOf(file)]),
  dependencyStamp: kiroDependencyStamp,
  read: readKiro,
};
export default kiro;
