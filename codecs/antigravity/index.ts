/**
 * `antigravity`: Antigravity's conversations (README.md). The CLI (`agy`) appends each conversation's steps to
 * `<data>/brain/<id>/.system_generated/logs/transcript.jsonl`, read with byte-exact resume through a LineCore
 * and `createJsonlRead()`; the step log records no tokens. The CLI and the IDE keep each conversation's
 * tokens in `<data>/conversations/<id>.db` (protobuf `gen_metadata` rows, db.ts), read through a read-only
 * snapshot. A conversation is one session: its step log when there is one (read whole, then its database's
 * usage, while a database exists beside it), else its database alone.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { getParserString } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { readCollected } from '../../cursors/read-collected.js';
import { sqliteDependencies } from '../../cursors/record-path.js';
import { createAntigravityCore } from './parse.js';
import { BRAIN, CODEC_ID, CONVERSATIONS, conversationDbOf, conversationIdOf, DB_SUFFIX, isConversationDb, TRANSCRIPT } from './paths.js';
import { antigravityDescriptor } from './descriptor.js';

export { createAntigravityCore } from './parse.js';
export { conversationDbOf, conversationIdOf, getAntigravityRoots } from './paths.js';
export { decodeGenRow, decodeTrajectory, priceModelName, type GenAttempt, type GenRow } from './gen-metadata.js';

const isDir = (root: string, name: string): boolean => listDir(root).some((e) => e.kind === DIR && e.name === name);

/** The step logs of a brain folder's conversation folders. */
function* stepLogs(root: string, brain: string): Iterable<SessionFile> {
  for (const conv of listDir(brain)) {
    if (conv.kind !== DIR) continue;
    const logs = join(brain, conv.name, TRANSCRIPT[0], TRANSCRIPT[1]);
    const entry = listDir(logs).find((e) => e.kind === FILE && e.name === TRANSCRIPT[2]);
    const st = entry === undefined ? undefined : fileStat(logs, entry);
    if (st === undefined) continue;
    yield { agent: CODEC_ID, path: join(logs, TRANSCRIPT[2]), root, sessionId: conv.name, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
  }
}

/**
 * Per root (a data folder, or a brain folder as the codec took before): every step log under its `brain/`,
 * then every database under its `conversations/` (or the root itself) that no step log's conversation has.
 */
function* discoverSync(roots: readonly string[]): Iterable<SessionFile> {
  for (const root of roots) {
    const claimed = new Set<string>();
    for (const f of stepLogs(root, isDir(root, BRAIN) ? join(root, BRAIN) : root)) {
      const db = conversationDbOf(f.path);
      if (db !== undefined) claimed.add(db);
      yield f;
    }
    const dir = isDir(root, CONVERSATIONS) ? join(root, CONVERSATIONS) : root;
    for (const e of listDir(dir)) {
      if (e.kind !== FILE || !e.name.endsWith(DB_SUFFIX) || claimed.has(join(dir, e.name))) continue;
      const st = fileStat(dir, e);
      if (st === undefined) continue;
      yield { agent: CODEC_ID, path: join(dir, e.name), root, sessionId: e.name.slice(0, -DB_SUFFIX.length), size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
    }
  }
}

/** The database beside a step log, when it exists now. */
function dbBeside(file: string): string | undefined {
  const db = conversationDbOf(file);
  return db !== undefined && existsSync(db) ? db : undefined;
}

const PARSER_STRING = getParserString(antigravityDescriptor);

const coreFor = (file: string) => createAntigravityCore(conversationIdOf(file));

async function* readAntigravity(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const id = conversationIdOf(file);
  if (isConversationDb(file)) {
    const { readDbSession } = await import('./db.js');
    yield* readCollected(CODEC_ID, file, options, (o, emit) => readDbSession(file, id, PARSER_STRING, o, emit));
    return;
  }
  const db = dbBeside(file);
  if (db === undefined) {
    yield* createJsonlRead(antigravityDescriptor, coreFor(file))(file, options);
    return;
  }
  const { readStepLogWithDb } = await import('./db.js');
  yield* readCollected(CODEC_ID, file, options, (o, emit) => readStepLogWithDb(file, db, id, o, emit));
}

/** Antigravity: step logs and conversation databases under its data folders; see its README. */
export const antigravity: Codec = {
  ...antigravityDescriptor,
  ...fromSyncListing(discoverSync),
  getParseDependencies(file: string): string[] {
    if (isConversationDb(file)) return sqliteDependencies(file);
    const db = conversationDbOf(file);
    return db === undefined ? [] : [db, ...sqliteDependencies(db)];
  },
  lineCore: createAntigravityCore('stdin'),
  /** Undefined for a database, and for a step log read whole with its database (folds then read it through `read()`). */
  lineCoreFor: (file: string) => (isConversationDb(file) || dbBeside(file) !== undefined ? undefined : coreFor(file)),
  read: readAntigravity,
  resumeCommand(nativeId: string): string[] {
    return ['agy', '--conversation', nativeId];
  },
};
export default antigravity;
