/**
 * `opencode`: OpenCode sessions from its database (`opencode.db`, one record path per session, read by
 * RowCursor), from the storage tree it used before, and from `opencode export` JSON. Formats, token
 * semantics and the read-only strategy: README.md.
 *
 * @example
 * import { opencode } from 'sessionfold/codecs/opencode';
 * for await (const f of opencode.discover(opencode.defaultRoots()))
 *   for await (const e of opencode.read(f.path, { kinds: ['usage'] })) console.log(e.model, e.outputTokens);
 */
import type { Codec, DetectScore, ReadOptions, RowCursor, SessionFile } from '../../cursors/protocol/codec.js';
import { basename } from 'node:path';
import { headStrings } from '../../cursors/detect.js';
import { getParserString } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { readCollected } from '../../cursors/read-collected.js';
import { isSqliteFile, splitRecordPath, sqliteDependencies } from '../../cursors/sqlite.js';
import { readDatabase } from './db.js';
import { CODEC_ID } from './parse.js';
import { discoverOpencode, getOpencodeRoots, isDatabaseName } from './paths.js';
import { readExport, readTreeSession, storageOf, treeDependencies } from './tree.js';

export { CODEC_ID, count, emitMessage, isoOf, sessionEvent } from './parse.js';
export { getOpencodeRoots, isDatabaseName, discoverOpencode } from './paths.js';
export { listDatabaseSessions, readDatabase } from './db.js';
export type * from './schema.js';

/** Goes up whenever this codec would parse an unchanged source differently. */
export const PARSER_VERSION = 1;
const PARSER = getParserString({ id: CODEC_ID, parserVersion: PARSER_VERSION });

/**
 * A database session (or a whole database) resumes by RowCursor; a tree session or an export is read whole.
 */
function readOpencode(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  return readCollected(CODEC_ID, file, options, async (o, emit) => {
    const out = { kinds: o.kinds, emit };
    const { db, key } = splitRecordPath(file);
    if (key !== undefined || isSqliteFile(db)) {
      const from = o.resume?.from?.format === 'sqlite' ? (o.resume.from as RowCursor) : undefined;
      const r = readDatabase(db, key, from, PARSER, out);
      return { start: r.start, cursor: r.cursor, records: r.rowsRead, bytes: r.bytesRead, skipped: r.skipped };
    }
    const storage = storageOf(file);
    return storage !== undefined ? readTreeSession(file, storage, out) : await readExport(file, out);
  });
}

async function locateOpencode(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
  for (const f of discoverOpencode(roots)) {
    if (f.sessionId === nativeId) return f;
    if (f.sessionId !== undefined) continue;
    for await (const e of readOpencode(f.path, { kinds: ['session'] })) {
      if (e.sessionId === nativeId) return f;
      break;
    }
  }
  return undefined;
}

/** OpenCode's database by its name; a session of its storage tree by its place and its `projectID`. */
function detect(file: string, head: Buffer): DetectScore {
  const { db } = splitRecordPath(file);
  if (isDatabaseName(basename(db))) return 2;
  return storageOf(file) !== undefined && headStrings(head).has('projectID') ? 2 : 0;
}

/** OpenCode: `opencode.db`, the legacy `storage/` tree and `opencode export` JSON; see its README. */
export const opencode: Codec = {
  detect,
  id: CODEC_ID,
  aliases: ['open-code', 'oc'],
  displayName: 'OpenCode',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'sqlite', eventsPrecedeMtime: false },
  defaultRoots: getOpencodeRoots,
  async *discover(roots: readonly string[]) {
    yield* discoverOpencode(roots);
  },
  discoverSync: discoverOpencode,
  locate: locateOpencode,
  getParseDependencies(file: string): string[] {
    const { db, key } = splitRecordPath(file);
    // A session of a database: its discovery fingerprint (db.ts listDatabaseSessions) already moves with its rows.
    if (key !== undefined) return [];
    if (file.endsWith('.json')) return treeDependencies(file);
    return sqliteDependencies(db);
  },
  read: readOpencode,
  resumeCommand(nativeId: string): string[] {
    return ['opencode', '--session', nativeId];
  },
};
export default opencode;
