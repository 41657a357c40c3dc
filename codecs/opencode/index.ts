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
import { openSync, readSync, closeSync } from 'node:fs';
import type { Codec, ReadOptions, RowCursor, SessionFile } from '../../cursors/protocol/codec.js';
import { getParserString, normalizeReadOptions } from '../../cursors/protocol/codec.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { splitRecordPath, sqliteDependencies } from '../../cursors/sqlite.js';
import { readDatabase } from './db.js';
import { CODEC_ID, type EmitTarget } from './parse.js';
import { discoverOpencode, getOpencodeRoots } from './paths.js';
import { readExport, readTreeSession, storageOf, treeDependencies } from './tree.js';

export { CODEC_ID, count, emitMessage, isoOf, sessionEvent } from './parse.js';
export { getOpencodeRoots, isDatabaseName, discoverOpencode } from './paths.js';
export { listDatabaseSessions, readDatabase } from './db.js';
export type * from './schema.js';

/** Goes up whenever this codec would parse an unchanged source differently. */
export const PARSER_VERSION = 1;
const PARSER = getParserString({ id: CODEC_ID, parserVersion: PARSER_VERSION });

const SQLITE_MAGIC = 'SQLite format 3\0';

/** True when the file starts with SQLite's header. */
function isSqliteFile(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    const b = Buffer.alloc(16);
    return readSync(fd, b, 0, 16, 0) === 16 && b.toString('latin1') === SQLITE_MAGIC;
  } finally {
    closeSync(fd);
  }
}

/** Events of a database session (or of a whole database), honouring `resume` with a RowCursor. */
async function* readOpencode(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const o = normalizeReadOptions(options);
  const events: SessionfoldEvent[] = [];
  const out: EmitTarget = { kinds: o.kinds, emit: (e) => events.push(e) };
  const { db, key } = splitRecordPath(file);
  let skipped = 0;
  if (key !== undefined || isSqliteFile(db)) {
    const from = o.resume?.from?.format === 'sqlite' ? (o.resume.from as RowCursor) : undefined;
    const r = readDatabase(db, key, from, PARSER, out);
    o.resume?.onStart?.({ restarted: r.start.restarted, ...(r.start.reason !== undefined && { reason: r.start.reason }), replaced: {} });
    o.info.bytes += r.bytesRead;
    o.info.lines += r.rowsRead;
    skipped = r.skipped;
    yield* take(events, o, skipped, file);
    o.resume?.onCursor?.({ cursor: r.cursor, partialLine: false, info: o.info });
    return;
  }
  // A file: read whole every time (no cursor).
  o.resume?.onStart?.({ restarted: true, reason: 'no-cursor', replaced: {} });
  const storage = storageOf(file);
  const counts = storage !== undefined ? readTreeSession(file, storage, out) : await readExport(file, out);
  o.info.bytes += counts.bytes;
  o.info.lines += counts.records;
  yield* take(events, o, counts.skipped, file);
}

function* take(events: SessionfoldEvent[], o: ReturnType<typeof normalizeReadOptions>, skipped: number, file: string): Generator<SessionfoldEvent> {
  if (skipped > 0) {
    const err = new SessionfoldError('MALFORMED_LINE', `${skipped} malformed OpenCode record(s) in ${file}`, { agent: CODEC_ID, file });
    if (o.strict) throw new SessionfoldError('PARSE_ERROR', err.message, { agent: CODEC_ID, file });
    o.info.skippedLines += skipped;
    for (let i = 0; i < skipped; i++) o.onSkip?.(err);
  }
  for (const e of events) {
    o.info.events++;
    yield e;
  }
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

export const opencode: Codec = {
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
