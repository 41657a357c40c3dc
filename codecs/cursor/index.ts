/**
 * `cursor`: Cursor's three session stores (README.md): the cursor-agent CLI's per-chat `store.db`, the IDE's
 * `globalStorage/state.vscdb` (every composer in one database: each composer is a record path
 * `<state.vscdb>#<composerId>`, cursors/sqlite.ts), and the plain `agent-transcripts` JSONL.
 * Databases are read through `withSqliteSnapshot` (one consistent snapshot; nothing in the agent's folder
 * is created, changed or removed) and by RowCursor: a warm read takes the rows added since
 * (store-rows.ts, ide-rows.ts); transcripts resume by byte offset.
 * Cursor records no token usage: no usage events, and every session event says `usageRecorded: false`.
 *
 * @example
 * import { cursor } from 'sessionfold/codecs/cursor';
 * for await (const f of cursor.discover(cursor.defaultRoots()))
 *   for await (const e of cursor.read(f.path, { kinds: ['message'] })) console.log(e);
 */
import type { Codec, NormalizedReadOptions, ReadOptions, RowCursor, SessionFile, DetectScore } from '../../cursors/protocol/codec.js';
import { firstJsonLine } from '../../cursors/detect.js';
import { fromListing } from '../../cursors/discovery.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { getParserString } from '../../cursors/protocol/codec.js';
import { readCollected } from '../../cursors/read-collected.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { recordDependencies, recordPath, splitRecordPath } from '../../cursors/record-path.js';
import { COMPOSER_PREFIX } from './ide.js';
import { CODEC_ID, createTranscriptCore } from './parse.js';
import { chatStoreCwd, cursorFileKind, discoverCursorFiles, transcriptCwd, transcriptWorkspace } from './paths.js';
import { cursorDescriptor } from './descriptor.js';

export { CODEC_ID, createTranscriptCore, transcriptCore, transcriptIds, userQueryText, type TranscriptState } from './parse.js';
export { chatStoreCwd, cursorFileKind, discoverCursorFiles, getCursorRoots, transcriptCwd, STATE_DB, STORE_DB, type CursorFileKind } from './paths.js';
export { chatMessageEvents, chatSessionEvent, chatStoreEvents, decodeMeta, jsonBlobs, walkBlobs, walkTree, type ChatMeta, type TreeWalk, type Walk } from './store.js';
export { bubbleOrder, composerEvents, parseKvValue } from './ide.js';

export { PARSER_VERSION } from './descriptor.js';

const PARSER_STRING = getParserString(cursorDescriptor);

const resumeFrom = (o: NormalizedReadOptions): RowCursor | undefined => (o.resume?.from?.format === 'sqlite' ? (o.resume.from as RowCursor) : undefined);

const COMPOSER_END = 'composerData;'; // the first key after every `composerData:…` key

async function* readCursor(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const { db, key } = splitRecordPath(file);
  const kind = cursorFileKind(db);
  if (kind === 'transcript') {
    yield* createJsonlRead(cursorDescriptor, createTranscriptCore(transcriptCwd(file)))(file, options);
    return;
  }
  if (kind === 'chat-store') {
    const { readChatStore } = await import('./store-rows.js');
    yield* readCollected(CODEC_ID, file, options, (o, emit) => readChatStore(db, chatStoreCwd(db), resumeFrom(o), PARSER_STRING, o.kinds, emit));
    return;
  }
  const { readIdeState } = await import('./ide-rows.js');
  yield* readCollected(CODEC_ID, file, options, (o, emit) => readIdeState(db, key, resumeFrom(o), PARSER_STRING, o.kinds, emit));
}

/**
 * The composers of an IDE database that hold a conversation, as record paths with the database's stat (a
 * scan takes it). A composer opened and closed without a message names no bubble and is left out.
 */
async function composerFiles(f: SessionFile): Promise<SessionFile[]> {
  const { agentSnapshot } = await import('../../cursors/sqlite-events.js');
  const ids = agentSnapshot(CODEC_ID, f.path, (d) => {
    const rows = d.prepare("SELECT key FROM cursorDiskKV WHERE key >= ? AND key < ? AND instr(value, 'bubbleId') > 0 ORDER BY rowid").all(COMPOSER_PREFIX, COMPOSER_END) as { key: string }[];
    return rows.map((r) => r.key.slice(COMPOSER_PREFIX.length));
  });
  return ids.map((id) => ({ ...f, path: recordPath(f.path, id), sessionId: id }));
}

/**
 * Every session: chat stores and transcripts as files, each IDE composer as a record of its database. The
 * SQLite driver is loaded only when there is a database to list.
 */
async function* discoverCursor(roots: readonly string[]): AsyncGenerator<SessionFile> {
  for (const f of discoverCursorFiles(roots)) {
    if (cursorFileKind(f.path) !== 'ide-state') {
      yield f;
      continue;
    }
    let composers: SessionFile[] = [];
    try {
      composers = await composerFiles(f);
    } catch {
      // a database Cursor is rewriting, or not Cursor's: no sessions from it this time
    }
    yield* composers;
  }
}

/** A Cursor agent transcript line: `role` and a `message` object, no `type`; other agents' lines have a `type`. */
function detect(_file: string, head: Buffer): DetectScore {
  const r = firstJsonLine(head);
  return r !== undefined && r.type === undefined && typeof r.role === 'string' && typeof r.message === 'object' && r.message !== null ? 1 : 0;
}

/** Cursor: the CLI's chat stores, the IDE's `state.vscdb` and agent transcripts; records no tokens. See its README. */
export const cursor: Codec = {
  ...cursorDescriptor,
  detect,
  ...fromListing(discoverCursor),
  getParseDependencies(file: string): string[] {
    if (cursorFileKind(splitRecordPath(file).db) !== 'transcript') return recordDependencies(file);
    // a transcript's cwd is known once the CLI's chat folder of its workspace exists (paths.ts transcriptCwd)
    const w = transcriptWorkspace(file);
    return w === undefined ? [] : [w.chats];
  },
  read: readCursor,
  /** cursor-agent's own resume; an IDE composer has no command-line resume (USAGE_ERROR). */
  resumeCommand(nativeId: string, file?: SessionFile): string[] {
    if (file !== undefined && cursorFileKind(splitRecordPath(file.path).db) === 'ide-state') {
      throw new SessionfoldError('USAGE_ERROR', `Cursor IDE composer "${nativeId}" can only be reopened in the Cursor app`, { agent: CODEC_ID, file: file.path });
    }
    return ['cursor-agent', '--resume', nativeId];
  },
};
export default cursor;
