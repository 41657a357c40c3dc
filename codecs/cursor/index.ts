/**
 * `cursor`: Cursor's three session stores (README.md): the cursor-agent CLI's per-chat `store.db`, the IDE's
 * `globalStorage/state.vscdb` (every composer in one database: each composer is a record path
 * `<state.vscdb>#<composerId>`, cursors/sqlite.ts), and the plain `agent-transcripts` JSONL.
 * Databases are read through `withSqliteSnapshot` (one consistent snapshot; nothing in the agent's folder
 * is created, changed or removed) and whole: a changed database, or its `-wal`, is read again.
 * Cursor records no token usage: no usage events, and every session event says `usageRecorded: false`.
 *
 * @example
 * import { cursor } from 'sessionfold/codecs/cursor';
 * for await (const f of cursor.discover(cursor.defaultRoots()))
 *   for await (const e of cursor.read(f.path, { kinds: ['message'] })) console.log(e);
 */
import type { Codec, NormalizedReadOptions, ReadOptions, RowCursor, SessionFile, DetectScore } from '../../cursors/protocol/codec.js';
import { firstJsonLine } from '../../cursors/detect.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { getParserString, normalizeReadOptions } from '../../cursors/protocol/codec.js';
import { readCollected } from '../../cursors/read-collected.js';
import type { EventKind, SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { SnapshotEvents } from '../../cursors/sqlite-events.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { recordDependencies, recordPath, splitRecordPath } from '../../cursors/record-path.js';
import type { SqliteDatabase } from '../../cursors/sqlite.js';
import { BUBBLE_PREFIX, COMPOSER_PREFIX, composerEvents, parseKvValue } from './ide.js';
import { CODEC_ID, createTranscriptCore } from './parse.js';
import { chatStoreCwd, cursorFileKind, discoverCursorFiles, getCursorRoots, transcriptCwd } from './paths.js';

export { CODEC_ID, createTranscriptCore, transcriptCore, transcriptIds, userQueryText, type TranscriptState } from './parse.js';
export { chatStoreCwd, cursorFileKind, discoverCursorFiles, getCursorRoots, transcriptCwd, STATE_DB, STORE_DB, type CursorFileKind } from './paths.js';
export { chatMessageEvents, chatSessionEvent, chatStoreEvents, decodeMeta, jsonBlobs, walkBlobs, walkTree, type ChatMeta, type TreeWalk, type Walk } from './store.js';
export { bubbleOrder, composerEvents, parseKvValue } from './ide.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 1;

const PARSER = { id: CODEC_ID, parserVersion: PARSER_VERSION };
const PARSER_STRING = getParserString(PARSER);

const resumeFrom = (o: NormalizedReadOptions): RowCursor | undefined => (o.resume?.from?.format === 'sqlite' ? (o.resume.from as RowCursor) : undefined);
const CONVERSATION: readonly EventKind[] = ['message', 'tool_call', 'tool_result'];

const COMPOSER_END = 'composerData;'; // the first key after every `composerData:…` key

/**
 * The IDE database's composers (all, or the one `only` names), each with its bubbles (a key range each; none
 * read when the read wants no conversation kind). Offsets count from 0 per composer, so they are the same
 * whichever composers and kinds a read takes.
 */
function ideState(db: SqliteDatabase, only: string | undefined, conversation: boolean): SnapshotEvents {
  const composers = (
    only === undefined
      ? db.prepare('SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY rowid').all(COMPOSER_PREFIX, COMPOSER_END)
      : db.prepare('SELECT key, value FROM cursorDiskKV WHERE key = ?').all(`${COMPOSER_PREFIX}${only}`)
  ) as { key: string; value: unknown }[];
  const bubbles = db.prepare('SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?');
  const events: SessionfoldEvent[] = [];
  const counts = { missing: 0 };
  let skipped = 0;
  for (const c of composers) {
    const composer = parseKvValue(c.value);
    if (composer === undefined) {
      skipped++;
      continue;
    }
    const id = c.key.slice(COMPOSER_PREFIX.length);
    const prefix = `${BUBBLE_PREFIX}${id}:`;
    const byId = new Map<string, Record<string, unknown>>();
    const rows = conversation ? (bubbles.all(prefix, `${BUBBLE_PREFIX}${id};`) as { key: string; value: unknown }[]) : [];
    for (const b of rows) {
      const v = parseKvValue(b.value);
      if (v !== undefined) byId.set(b.key.slice(prefix.length), v);
    }
    const headed = conversation ? composer : { ...composer, fullConversationHeadersOnly: [], conversation: [] };
    composerEvents({ ...headed, composerId: id }, (bid) => byId.get(bid), 0, (e) => events.push(e), counts);
  }
  return { events, skipped: skipped + counts.missing };
}

async function* readCursor(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const { db, key } = splitRecordPath(file);
  const kind = cursorFileKind(db);
  if (kind === 'transcript') {
    yield* createJsonlRead(PARSER, createTranscriptCore(transcriptCwd(file)))(file, options);
    return;
  }
  if (kind === 'chat-store') {
    const { readChatStore } = await import('./store-rows.js');
    yield* readCollected(CODEC_ID, file, options, (o, emit) => readChatStore(db, chatStoreCwd(db), resumeFrom(o), PARSER_STRING, o.kinds, emit));
    return;
  }
  const o = normalizeReadOptions(options);
  const { agentSnapshot, eventsForRead } = await import('../../cursors/sqlite-events.js');
  const conversation = o.allKinds || CONVERSATION.some((k) => o.kinds.has(k));
  const got = agentSnapshot(CODEC_ID, db, (d) => ideState(d, key, conversation));
  yield* eventsForRead(got, o);
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
  id: CODEC_ID,
  aliases: ['cursor-agent', 'cursor-cli', 'cursor-ide'],
  displayName: 'Cursor',
  detect,
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: false, persistence: 'sqlite', eventsPrecedeMtime: false, recordsUsage: false },
  defaultRoots: getCursorRoots,
  discover: discoverCursor,
  async locate(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
    for await (const f of discoverCursor(roots)) if (f.sessionId === nativeId) return f;
    return undefined;
  },
  getParseDependencies(file: string): string[] {
    return cursorFileKind(splitRecordPath(file).db) === 'transcript' ? [] : recordDependencies(file);
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
