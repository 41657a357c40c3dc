/**
 * `hermes`: Hermes agent sessions from `$HERMES_HOME/state.db` (one record path per session, read by
 * RowCursor, searched through its FTS5 index) and from the older per-session JSON logs. Formats, token
 * semantics, session relations and search: README.md.
 *
 * @example
 * import { hermes } from 'sessionfold/codecs/hermes';
 * for await (const f of hermes.discover(hermes.defaultRoots()))
 *   for await (const e of hermes.read(f.path, { kinds: ['usage'] })) console.log(e.model, e.costUsd);
 */
import { join } from 'node:path';
import type { BatchRead, Codec, NativeSearchHit, NativeSearchQuery, ReadOptions, RowCursor, SessionFile, DetectScore } from '../../cursors/protocol/codec.js';
import { headStrings } from '../../cursors/detect.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { getParserString } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { readCollected, readRecordBatch, recordBatchKey } from '../../cursors/read-collected.js';
import { isSqliteFile, recordPath, splitRecordPath, sqliteDependencies } from '../../cursors/sqlite.js';
import { readStateDb, readStateDbSessions, searchStateDb } from './db.js';
import { readLegacyLog } from './legacy.js';
import { CODEC_ID, splitSessionId } from './parse.js';
import { discoverHermes, profileDatabases, stateDbFiles } from './paths.js';
import { hermesDescriptor } from './descriptor.js';

export { CODEC_ID, count, emitMessage, isoOfSeconds, profileOfDb, relationOf, sessionEvent, sessionIdIn, splitSessionId, usageEvent } from './parse.js';
export type { HermesMessageRow, HermesSessionRow, HermesUsageRow } from './parse.js';
export { ftsQuery, listStateDbSessions, readStateDb, readStateDbSessions, relevanceOf, searchStateDb } from './db.js';
export { discoverHermes, getHermesRoots, profileDatabases } from './paths.js';

export { PARSER_VERSION } from './descriptor.js';
const PARSER = getParserString(hermesDescriptor);

function readHermes(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  return readCollected(CODEC_ID, file, options, (o, emit) => {
    const out = { kinds: o.kinds, emit };
    const { db, key } = splitRecordPath(file);
    if (key === undefined && !isSqliteFile(db)) return readLegacyLog(file, out);
    const from = o.resume?.from?.format === 'sqlite' ? (o.resume.from as RowCursor) : undefined;
    const r = readStateDb(db, key, from, PARSER, out);
    return { start: r.start, cursor: r.cursor, records: r.rowsRead, bytes: r.bytesRead, skipped: 0 };
  });
}

/** `Codec.readBatch`: sessions of one `state.db`, read in one snapshot (db.ts `readStateDbSessions`). */
function readHermesBatch(reads: readonly BatchRead[]): Promise<AsyncIterable<SessionfoldEvent>[]> {
  return readRecordBatch(CODEC_ID, reads, (db, records) =>
    readStateDbSessions(
      db,
      records.map((r) => ({ key: r.key, from: r.from, out: { kinds: r.options.kinds, emit: r.emit } })),
      PARSER,
    ).map((r) => (r instanceof Error ? r : { start: r.start, cursor: r.cursor, records: r.rowsRead, bytes: r.bytesRead, skipped: 0 })),
  );
}

/** The databases under the roots: a root's `state.db` and its profiles', or a root that is a database. */
function databases(roots: readonly string[]): { db: string; root: string }[] {
  const out: { db: string; root: string }[] = [];
  for (const root of roots) {
    if (isSqliteFile(root)) out.push({ db: root, root });
    else if (isSqliteFile(join(root, 'state.db'))) out.push({ db: join(root, 'state.db'), root });
    for (const db of profileDatabases(root)) out.push({ db, root });
  }
  return out;
}

/** FTS5 over every database under the roots; undefined when none has an index. */
async function searchHermes(roots: readonly string[], query: NativeSearchQuery): Promise<NativeSearchHit[] | undefined> {
  let asked = false;
  const hits: NativeSearchHit[] = [];
  for (const { db, root } of databases(roots)) {
    const found = searchStateDb(db, query.terms, query.limit);
    if (found === undefined) continue;
    asked = true;
    const files = new Map<string, SessionFile>();
    for (const f of stateDbFiles(db, root)) files.set(f.path, f);
    for (const h of found) {
      const file = files.get(recordPath(db, h.sessionId));
      if (file !== undefined) hits.push({ file, relevance: h.relevance, snippet: h.snippet });
    }
  }
  return asked ? hits.sort((a, b) => b.relevance - a.relevance).slice(0, query.limit) : undefined;
}

/**
 * `locate` over the listing, as `fromSyncListing`'s, but a session log (whose listing names no id) is matched
 * by the id its session event holds.
 */
async function locateHermes(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
  for (const f of discoverHermes(roots)) {
    if (f.sessionId === nativeId) return f;
    if (f.sessionId !== undefined) continue;
    for await (const e of readHermes(f.path, { kinds: ['session'] })) {
      if (e.sessionId === nativeId) return f;
      break;
    }
  }
  return undefined;
}

/** A Hermes session JSON opens with `session_id` and `session_start` (the SQLite store is found by its path). */
function detect(_file: string, head: Buffer): DetectScore {
  const keys = headStrings(head);
  return keys.has('session_id') && keys.has('session_start') ? 2 : 0;
}

/** Hermes agent: `$HERMES_HOME/state.db`, searched through its FTS5 index; see its README. */
export const hermes: Codec = {
  ...hermesDescriptor,
  detect,
  ...fromSyncListing(discoverHermes),
  locate: locateHermes,
  getParseDependencies(file: string): string[] {
    const { db, key } = splitRecordPath(file);
    // A session of the database: its discovery fingerprint (db.ts listStateDbSessions) moves with its rows.
    if (key !== undefined || !isSqliteFile(db)) return [];
    return sqliteDependencies(db);
  },
  read: readHermes,
  batchKey: recordBatchKey,
  readBatch: readHermesBatch,
  nativeSearch: searchHermes,
  resumeCommand(nativeId: string): string[] {
    // a named profile's session resumes in that profile (`hermes -p <name>`, hermes_cli/profiles.py wrappers)
    const { profile, id } = splitSessionId(nativeId);
    return profile === undefined ? ['hermes', '--resume', id] : ['hermes', '-p', profile, '--resume', id];
  },
};
export default hermes;
