/**
 * `goose`: Block's Goose agent, whose sessions live in one SQLite database, `sessions.db` (README.md has the
 * schema from Goose's source). Each session is a record path `<sessions.db>#<session id>` (cursors/sqlite.ts);
 * the database's own path reads every session. Reads go through `withSqliteSnapshot` (one consistent
 * snapshot; nothing beside the database is created, changed or removed) and resume by RowCursor (db.ts): a
 * warm read takes the messages added since. Per session: a session event, the messages in id order with
 * their tool calls and results, and its usage events: one per provider call from `usage_ledger` (schema 15),
 * else one of the session's totals.
 *
 * @example
 * import { goose } from 'sessionfold/codecs/goose';
 * for await (const f of goose.discover(goose.defaultRoots()))
 *   for await (const e of goose.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { BatchRead, Codec, ReadOptions, RowCursor, SessionFile } from '../../cursors/protocol/codec.js';
import { getParserString } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { fromListing } from '../../cursors/discovery.js';
import { readCollected, readRecordBatch, recordBatchKey } from '../../cursors/read-collected.js';
import { recordDependencies, recordPath, splitRecordPath } from '../../cursors/record-path.js';
import { CODEC_ID, discoverGooseFiles } from './paths.js';
import { gooseDescriptor } from './descriptor.js';

export { count, messageEvents, sessionEvent, sessionModel, sqlTime, usageEvents, type GooseCounts, type Row } from './parse.js';
export { CODEC_ID, discoverGooseFiles, getGooseRoots, SESSIONS_DB } from './paths.js';

export { PARSER_VERSION } from './descriptor.js';
const PARSER = getParserString(gooseDescriptor);

/** A session (a record path) or the whole database, resumed by RowCursor (db.ts). */
function readGoose(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  return readCollected(CODEC_ID, file, options, async (o, emit) => {
    const { readGooseDb } = await import('./db.js'); // the SQLite driver only when a database is read
    const { db, key } = splitRecordPath(file);
    const from = o.resume?.from?.format === 'sqlite' ? (o.resume.from as RowCursor) : undefined;
    return readGooseDb(db, key, from, PARSER, o.kinds, emit);
  });
}

/** `Codec.readBatch`: sessions of one `sessions.db`, read in one snapshot (db.ts `readGooseSessions`). */
function readGooseBatch(reads: readonly BatchRead[]): Promise<AsyncIterable<SessionfoldEvent>[]> {
  return import('./db.js').then(({ readGooseSessions }) =>
    readRecordBatch(CODEC_ID, reads, (db, records) =>
      readGooseSessions(
        db,
        records.map((r) => ({ key: r.key, from: r.from, out: { kinds: r.options.kinds, emit: r.emit } })),
        PARSER,
      ),
    ),
  );
}

/**
 * The sessions of a database as record paths, with the database's stat (a scan takes it): those with a
 * message, a token count or a `usage_ledger` row (schema 15; Goose lists only sessions with messages, and an
 * empty one is left out here too).
 */
async function sessionFiles(f: SessionFile): Promise<SessionFile[]> {
  const { agentSnapshot } = await import('../../cursors/sqlite-events.js');
  const { hasUsageLedger } = await import('./db.js');
  const rows = agentSnapshot(CODEC_ID, f.path, (d) => {
    const ledger = hasUsageLedger(d);
    return d
      .prepare(
        `SELECT id, session_type FROM sessions s
         WHERE EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id) OR s.accumulated_total_tokens IS NOT NULL OR s.total_tokens IS NOT NULL
         ${ledger ? 'OR EXISTS (SELECT 1 FROM usage_ledger u WHERE u.session_id = s.id)' : ''}
         ORDER BY rowid`,
      )
      .all();
  }) as { id: unknown; session_type: unknown }[];
  const out: SessionFile[] = [];
  for (const r of rows) {
    if (typeof r.id !== 'string') continue;
    out.push({ ...f, path: recordPath(f.path, r.id), sessionId: r.id, ...(r.session_type === 'sub_agent' && { subagent: true }) });
  }
  return out;
}

/** Every session of every database under the roots; the SQLite driver is loaded only when there is one. */
async function* discoverGoose(roots: readonly string[]): AsyncGenerator<SessionFile> {
  for (const f of discoverGooseFiles(roots)) {
    let files: SessionFile[] = [];
    try {
      files = await sessionFiles(f);
    } catch {
      // not a Goose database (or one being replaced): no sessions from it this time
    }
    yield* files;
  }
}

/** Goose: `sessions.db` under its data folder; see its README. */
export const goose: Codec = {
  ...gooseDescriptor,
  ...fromListing(discoverGoose),
  getParseDependencies: recordDependencies,
  read: readGoose,
  batchKey: recordBatchKey,
  readBatch: readGooseBatch,
  resumeCommand(nativeId: string): string[] {
    return ['goose', 'session', '--resume', '--session-id', nativeId];
  },
};
export default goose;
