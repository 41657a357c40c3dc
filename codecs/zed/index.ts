/**
 * `zed`: the Agent panel threads of the Zed editor, one SQLite database `<data dir>/threads/threads.db` whose
 * `threads` table holds each thread whole, serde JSON in a zstd-compressed `data` blob (paths.ts, parse.ts;
 * README.md has the schema and the format with their sources). Each thread is a record path
 * `<threads.db>#<thread id>` (cursors/record-path.ts); the database's own path reads every thread. Reads are
 * whole, through `withSqliteSnapshot` (nothing beside the database is created, changed or removed), one
 * snapshot for every thread of the database while it stays as it was: Zed rewrites a thread's row whole on
 * every save (`INSERT … ON CONFLICT(id) DO UPDATE`, which keeps its rowid), so no row watermark could tell a
 * grown thread from an unchanged one.
 *
 * @example
 * import { zed } from 'sessionfold/codecs/zed';
 * for await (const f of zed.discover(zed.defaultRoots()))
 *   for await (const e of zed.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { normalizeReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { DatabaseEvents, SnapshotEvents } from '../../cursors/sqlite-events.js';
import { readDatabaseRecord } from '../../cursors/database-record.js';
import { databaseRecords, fromListing, type DatabaseRecord } from '../../cursors/discovery.js';
import { recordDependencies } from '../../cursors/record-path.js';
import { columnsOf, type SqliteDatabase } from '../../cursors/sqlite.js';
import { threadMessages } from './messages.js';
import { decodeThread, isoOf, messageEvents, priceModel, sessionEvent, threadUsage, usageEvents, type Row } from './parse.js';
import { CODEC_ID, discoverZedFiles } from './paths.js';
import { zedDescriptor } from './descriptor.js';
import { zedDependencyStamp } from './stamps.js';

export { cwdOf, decodeThread, isoOf, priceModel, tokensOf, type Row, type ZedTokens } from './parse.js';
export { threadMessages, type ThreadMessage } from './messages.js';
export { discoverZedFiles, getZedRoots } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** The `threads` columns present: `parent_id`, `folder_paths` and `created_at` came with later Zed versions. */
const threadColumns = (db: SqliteDatabase): Set<string> => columnsOf(db, 'threads');

/** The order threads are listed and read in: creation, where Zed records it, then rowid. */
const orderBy = (cols: Set<string>): string => (cols.has('created_at') ? 'ORDER BY created_at, rowid' : 'ORDER BY updated_at, rowid');

/** The events of one row; false when its thread does not decode (a skipped record). */
function rowEvents(row: Row, maxBytes: number, conversation: boolean, events: SessionfoldEvent[]): boolean {
  const thread = decodeThread(row, maxBytes);
  if (thread === undefined) return false;
  const messages = threadMessages(thread);
  const usage = threadUsage(thread, messages);
  const m = thread.model !== null && typeof thread.model === 'object' ? (thread.model as Record<string, unknown>) : undefined;
  const rawModel = str(m?.model);
  const model = rawModel === undefined ? undefined : priceModel(rawModel);
  const provider = str(m?.provider);
  const session = sessionEvent(row, thread, usage, messages, model, provider);
  if (session === undefined) return false;
  events.push(session);
  if (conversation) messageEvents(session.sessionId, messages, model, (e) => events.push(e));
  const at = isoOf(row.updated_at) ?? isoOf(thread.updated_at);
  for (const u of usageEvents(session.sessionId, usage, messages.length, model, provider, at)) events.push(u);
  return usage.bad === 0;
}

/** A row's events and whether it decoded (else one skipped record). */
function rowSnapshot(row: Row, maxBytes: number, conversation: boolean): SnapshotEvents {
  const events: SessionfoldEvent[] = [];
  const ok = rowEvents(row, maxBytes, conversation, events);
  return { events, skipped: ok ? 0 : 1 };
}

/**
 * Every thread of the database, keyed by its id in creation order, each row kept as it was read (its blob
 * compressed) and decoded into events only when a read asks for that thread (cursors/sqlite-events.ts): after
 * a save, the event cache reads the one thread whose row changed (`zedDependencyStamp`), and its read decodes
 * that thread alone. A row whose blob does not decode is the skipped record of its thread (of none when it has
 * no usable id: such a row is decoded here, to count it).
 */
function threadsOf(db: SqliteDatabase, maxBytes: number, conversation: boolean): DatabaseEvents {
  const rows = db.prepare(`SELECT * FROM threads ${orderBy(threadColumns(db))}`).iterate() as IterableIterator<Row>;
  const out: DatabaseEvents = { sessions: new Map(), skipped: 0 };
  for (const row of rows) {
    const id = str(row.id);
    if (id === undefined) out.skipped += rowSnapshot(row, maxBytes, conversation).skipped;
    else out.sessions.set(id, () => rowSnapshot(row, maxBytes, conversation));
  }
  return out;
}

/**
 * `read()`: the thread's events from one read of its database per state (cursors/sqlite-events.ts
 * `databaseEvents`): a scan reads every thread, and each thread's blob decodes once, not once per thread read.
 */
async function* readZed(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const o = normalizeReadOptions(options);
  const variant = `${o.conversation ? 'conversation' : 'summary'}:${o.maxLineBytes}`;
  yield* readDatabaseRecord(CODEC_ID, file, o, variant, (d) => threadsOf(d, o.maxLineBytes, o.conversation));
}

/**
 * A database's threads in creation order, a subagent's thread (one with a `parent_id`) marked so, each with
 * its blob's length and its `updated_at` as its stat (`DatabaseRecord`): a save of one thread leaves the
 * others' as they were, and stamps.ts stamps the database per thread for a rewrite these do not show.
 */
function threadList(d: SqliteDatabase): DatabaseRecord[] {
  const cols = threadColumns(d);
  const parent = cols.has('parent_id') ? 'parent_id' : 'NULL';
  const rows = d.prepare(`SELECT id, ${parent} AS parent, length(data) AS n, updated_at AS at FROM threads ${orderBy(cols)}`).all() as { id: unknown; parent: unknown; n: unknown; at: unknown }[];
  return rows.flatMap((r) => {
    const id = str(r.id);
    if (id === undefined) return [];
    const ms = typeof r.at === 'string' ? Date.parse(r.at) : NaN;
    const stat = typeof r.n === 'number' && Number.isFinite(ms) ? { size: r.n, mtimeMs: ms } : {};
    return [{ id, subagent: str(r.parent) !== undefined, ...stat }];
  });
}

/** Every thread of every `threads.db`, as record paths; the SQLite driver loads only for one. */
const discoverZed = (roots: readonly string[]): AsyncGenerator<SessionFile> => databaseRecords(CODEC_ID, discoverZedFiles(roots), threadList);

/** Zed: `threads/threads.db` of Zed's data folder; see its README. */
export const zed: Codec = {
  ...zedDescriptor,
  ...fromListing(discoverZed),
  getParseDependencies: recordDependencies,
  dependencyStamp: zedDependencyStamp,
  read: readZed,
};
export default zed;
