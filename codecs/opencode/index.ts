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
import type { BatchRead, Codec, CodecDescriptor, DetectScore, DiscoverOptions, ReadOptions, RowCursor, SessionFile } from '../../cursors/protocol/codec.js';
import { basename } from 'node:path';
import { headStrings, sqliteTablesIn } from '../../cursors/detect.js';
import { getParserString } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { readCollected, readRecordBatch, recordBatchKey } from '../../cursors/read-collected.js';
import { isSqliteFile, splitRecordPath, sqliteDependencies } from '../../cursors/sqlite.js';
import { readDatabase, readDatabaseSessions } from './db.js';
import { discoverOpencode, OPENCODE_FLAVOR, type OpencodeFlavor } from './paths.js';
import { opencodeDescriptor } from './descriptor.js';
import { readExport, readTreeSession, storageOf, treeDependencies } from './tree.js';

export { CODEC_ID, count, emitMessage, isoOf, sessionEvent } from './parse.js';
export { getOpencodeRoots, isDatabaseName, discoverOpencode, OPENCODE_FLAVOR, type OpencodeFlavor } from './paths.js';
export { listDatabaseSessions, readDatabase, readDatabaseSessions } from './db.js';
export type * from './schema.js';

/** Goes up whenever this codec would parse an unchanged source differently; forks read with the same engine carry it too. */
export { PARSER_VERSION } from './descriptor.js';

/** An agent that keeps its sessions OpenCode's way (OpenCode itself; Kilo CLI, built on OpenCode). */
export interface OpencodeCodecSpec extends OpencodeFlavor {
  /** Its names and roots (descriptor.ts `opencodeFamilyDescriptor`). */
  descriptor: CodecDescriptor;
  /** The agent's executable, for `resumeCommand` (`<command> --session <id>`). */
  command: string;
}

/**
 * A database session (or a whole database) resumes by RowCursor; a tree session or an export is read whole.
 */
function readerFor(flavor: OpencodeFlavor, parser: string): (file: string, options?: ReadOptions) => AsyncGenerator<SessionfoldEvent> {
  return (file, options) =>
    readCollected(flavor.agent, file, options, async (o, emit) => {
      const out = { kinds: o.kinds, emit, agent: flavor.agent };
      const { db, key } = splitRecordPath(file);
      if (key !== undefined || isSqliteFile(db)) {
        const from = o.resume?.from?.format === 'sqlite' ? (o.resume.from as RowCursor) : undefined;
        const r = readDatabase(db, key, from, parser, out, flavor.settledMessages);
        return { start: r.start, cursor: r.cursor, records: r.rowsRead, bytes: r.bytesRead, skipped: r.skipped };
      }
      const storage = storageOf(file);
      return storage !== undefined ? readTreeSession(file, storage, out) : await readExport(file, out);
    });
}

/** `Codec.readBatch`: record paths of one database, read in one snapshot (db.ts `readDatabaseSessions`). */
function batchReaderFor(flavor: OpencodeFlavor, parser: string): (reads: readonly BatchRead[]) => Promise<AsyncIterable<SessionfoldEvent>[]> {
  return (reads) =>
    readRecordBatch(flavor.agent, reads, (db, records) =>
      readDatabaseSessions(
        db,
        records.map((r) => ({ key: r.key, from: r.from, out: { kinds: r.options.kinds, emit: r.emit, agent: flavor.agent } })),
        parser,
        flavor.agent,
        flavor.settledMessages,
      ).map((r) => (r instanceof Error ? r : { start: r.start, cursor: r.cursor, records: r.rowsRead, bytes: r.bytesRead, skipped: r.skipped })),
    );
}

/**
 * The agent's database by its name; a session of its storage tree by its place and its `projectID`. A database
 * of another name (`OPENCODE_DB` may give it any) is OpenCode's by its tables, `session`, `message` and `part`,
 * less surely (1): Kilo CLI and MiMo Code keep the same tables, told apart only by their files' names, and Z Code
 * keeps tables of those names beside its `model_usage`.
 */
function detectorFor(flavor: OpencodeFlavor): (file: string, head: Buffer) => DetectScore {
  return (file, head) => {
    const { db } = splitRecordPath(file);
    if (flavor.isDatabaseName(basename(db))) return 2;
    if (storageOf(file) !== undefined && headStrings(head).has('projectID')) return 2;
    return flavor.agent === OPENCODE_FLAVOR.agent && db === file && hasOpencodeTables(sqliteTablesIn(head)) ? 1 : 0;
  };
}

function hasOpencodeTables(tables: ReadonlySet<string>): boolean {
  return tables.has('session') && tables.has('message') && tables.has('part') && !tables.has('model_usage');
}

/** A codec for an agent that keeps OpenCode's database, storage tree and exports under its own roots. */
export function defineOpencodeCodec(spec: OpencodeCodecSpec): Codec {
  const flavor: OpencodeFlavor = { agent: spec.agent, isDatabaseName: spec.isDatabaseName, settledMessages: spec.settledMessages };
  const parser = getParserString(spec.descriptor);
  const read = readerFor(flavor, parser);
  const discover = (roots: readonly string[], options?: DiscoverOptions) => discoverOpencode(roots, flavor, options);
  return {
    detect: detectorFor(flavor),
    ...spec.descriptor,
    async *discover(roots: readonly string[], options?: DiscoverOptions) {
      yield* discover(roots, options);
    },
    discoverSync: discover,
    async locate(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
      for (const f of discover(roots)) {
        if (f.sessionId === nativeId) return f;
        if (f.sessionId !== undefined) continue;
        for await (const e of read(f.path, { kinds: ['session'] })) {
          if (e.sessionId === nativeId) return f;
          break;
        }
      }
      return undefined;
    },
    getParseDependencies(file: string): string[] {
      const { db, key } = splitRecordPath(file);
      // A session of a database: its discovery fingerprint (db.ts listDatabaseSessions) already moves with its rows.
      if (key !== undefined) return [];
      if (file.endsWith('.json')) return treeDependencies(file);
      return sqliteDependencies(db);
    },
    read,
    batchKey: recordBatchKey,
    readBatch: batchReaderFor(flavor, parser),
    resumeCommand(nativeId: string): string[] {
      return [spec.command, '--session', nativeId];
    },
  };
}

/** OpenCode: `opencode.db`, the legacy `storage/` tree and `opencode export` JSON; see its README. */
export const opencode: Codec = defineOpencodeCodec({
  ...OPENCODE_FLAVOR,
  descriptor: opencodeDescriptor,
  command: 'opencode',
});
export default opencode;
