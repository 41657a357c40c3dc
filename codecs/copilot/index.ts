/**
 * `copilot`: GitHub Copilot CLI session logs (`~/.copilot/session-state/<id>/events.jsonl`, and the flat
 * `<id>.jsonl` of older builds). A JSONL codec: the pure line engine is in parse.ts, `read()` with byte-exact
 * resume comes from `createJsonlRead`; the calls the home's `session-store.db` recorded (store.ts) are handed
 * to the core, and the database is a parse dependency of every session beside it, stamped per session by the
 * calls that session reads (`storeDependencyStamp`), so a row of one session makes only that one read again.
 * A session with calls in the database and no log is a record path `<db>#<id>`, read from the database alone
 * (records.ts).
 * Format, token semantics ("usage unknown" included) and sources: README.md.
 *
 * @example
 * import { copilot } from 'sessionfold/codecs/copilot';
 * for await (const f of copilot.discover(copilot.defaultRoots()))
 *   for await (const e of copilot.read(f.path, { kinds: ['usage'] })) console.log(e.model, e.inputTokens);
 */
import type { Codec, DiscoverOptions, ReadOptions, SessionFile, DetectScore } from '../../cursors/protocol/codec.js';
import { firstJsonLine } from '../../cursors/detect.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { FileStat } from '../../cursors/list-dir.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { copilotCore, createCopilotCore } from './parse.js';
import { readWorkspace } from './workspace.js';
import { CODEC_ID, locateSession, sessionIdOfPath, sessionStateDir, walkSessionState } from './paths.js';
import { sessionCalls, storeDependencies, storeDependencyStamp } from './store.js';
import { readRecord, recordFiles, storeOfRoot, storeRecord } from './records.js';
import { recordPath, sqliteDependencies } from '../../cursors/record-path.js';
import { copilotDescriptor } from './descriptor.js';

export { copilotCore, createCopilotCore, MAX_OPEN_CALLS, type CopilotState } from './parse.js';
export { parseWorkspace, readWorkspace, workspacePathOf, type Workspace } from './workspace.js';
export { callUsage, shutdownUsage, tokensOfDetails, tokensOfMetric, UNKNOWN_MODEL, type PerCall, type Tokens } from './usage.js';
export { callOf, callsStamp, createdAtMs, sessionCalls, SESSION_STORE_DB, storeDependencies, storeDependencyStamp, storePathOf, USAGE_TABLE, type SessionCalls } from './store.js';
export { readRecord, recordFiles, storeOfRoot, storeRecord } from './records.js';
export { CODEC_ID, EVENTS_FILE, getCopilotRoots, sessionIdOfPath, SESSION_STATE_DIR } from './paths.js';
export { TYPE, type CopilotContext, type CopilotEnvelope, type CopilotModelMetric, type CopilotTokenDetail } from './schema.js';

export { PARSER_VERSION } from './descriptor.js';

function sessionFile(path: string, root: string, sessionId: string, stat?: FileStat): SessionFile {
  // Every field set, in the other codecs' order: one object shape for every file discovery hands over.
  return { agent: CODEC_ID, path, root, sessionId, subagent: undefined, size: stat?.size, mtimeMs: stat?.mtimeMs, ino: stat?.ino, ctimeMs: stat?.ctimeMs };
}

/**
 * `discover`, synchronously (`Codec.discoverSync`): each root's `session-state` folder, in name order, then
 * the sessions of its `session-store.db` that have calls and no log there (records.ts).
 */
function* discoverSync(roots: readonly string[], options?: DiscoverOptions): Generator<SessionFile> {
  for (const root of roots) {
    const dir = sessionStateDir(root);
    const logs = new Set<string>();
    for (const f of walkSessionState(dir)) {
      logs.add(f.sessionId);
      yield sessionFile(f.path, root, f.sessionId, f.stat);
    }
    yield* recordFiles(dir, logs, options);
  }
}

async function* discover(roots: readonly string[], options?: DiscoverOptions): AsyncGenerator<SessionFile> {
  yield* discoverSync(roots, options);
}

/** Find a session by its id: its folder's `events.jsonl` or its flat file, one stat each per root, else its calls' record. */
async function locate(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
  for (const root of roots) {
    const f = locateSession(root, nativeId);
    if (f !== undefined) return sessionFile(f.path, root, f.sessionId, f.stat);
  }
  for (const root of roots) {
    const db = storeOfRoot(sessionStateDir(root));
    if (db === undefined) continue;
    const path = recordPath(db, nativeId);
    for (const f of recordFiles(sessionStateDir(root), new Set())) if (f.path === path) return f;
  }
  return undefined;
}

/** A log's dependencies (store.ts); a record's, its database and `-wal`. */
function parseDependencies(file: string): string[] {
  const r = storeRecord(file);
  return r === undefined ? storeDependencies(file) : [r.db, ...sqliteDependencies(r.db)];
}

const readPlain = createJsonlRead(copilotDescriptor, copilotCore);

/**
 * The core for a file: with its workspace.yaml's title (when `titles`) and the calls its home's
 * session-store.db recorded for it, when there are; undefined when neither adds anything.
 */
function coreFor(file: string, titles = true) {
  const ws = titles ? readWorkspace(file) : undefined;
  const { calls } = sessionCalls(file, sessionIdOfPath(file));
  if (ws?.title === undefined && calls.length === 0) return undefined;
  return createCopilotCore(ws?.title === undefined ? undefined : ws, calls);
}

/** `read()`: a folder session's workspace.yaml and the home's session-store.db are read first, for the pure core. */
async function* readCopilot(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  if (storeRecord(file) !== undefined) return yield* readRecord(file, options);
  const wantsTitle = options?.titles !== false && (options?.kinds === undefined || options.kinds.includes('session'));
  const core = coreFor(file, wantsTitle);
  yield* core === undefined ? readPlain(file, options) : createJsonlRead(copilotDescriptor, core)(file, options);
}

/** Copilot CLI events: a dotted `type` (`session.start`, `user.message`, …) with a `data` object. */
function detect(_file: string, head: Buffer): DetectScore {
  const r = firstJsonLine(head);
  return r !== undefined && typeof r.type === 'string' && /^[a-z_]+\.[a-z_.]+$/.test(r.type) && typeof r.data === 'object' && r.data !== null ? 2 : 0;
}

/** The GitHub Copilot CLI codec. */
export const copilot: Codec = {
  ...copilotDescriptor,
  detect,
  discover,
  discoverSync,
  locate,
  getParseDependencies: parseDependencies,
  dependencyStamp: storeDependencyStamp,
  lineCore: copilotCore,
  lineCoreFor: (file: string) => (storeRecord(file) !== undefined ? undefined : (coreFor(file) ?? copilotCore)),
  read: readCopilot,
  resumeCommand: (nativeId: string) => ['copilot', '--resume', nativeId],
};
export default copilot;
