/**
 * `openclaw`: OpenClaw's agent transcripts, which it writes with pi's SessionManager (pi's format, read by
 * the pi engine), with the session key, title and channel from the `sessions.json` beside them, and the
 * transcripts a reset archived read as sessions of their own. README.md has the layout and the choices.
 */
import type { Codec, ReadOptions } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { normalizeReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { recordDependencies, splitRecordPath } from '../../cursors/record-path.js';
import { recordStamper } from '../../cursors/record-stamps.js';
import { parseSync } from '../../cursors/sync.js';
import { createPiCore, detectPi, type PiSessionMeta } from '../pi/index.js';
import { listAgentDbSessions, readAgentDbTranscript, sessionNodesIndex, sessionStamps } from './db.js';
import { readOpenclawMeta, readOpenclawMetaSync } from './meta.js';
import { CODEC_ID, discoverOpenclaw, indexPathFor } from './paths.js';
import { openclawDescriptor } from './descriptor.js';

export { listAgentDbSessions, readAgentDbTranscript, sessionNodesIndex, type SessionsIndex } from './db.js';

export { metaOf, parseSessionsIndex, readOpenclawMeta, readOpenclawMetaSync } from './meta.js';
export { CODEC_ID, discoverOpenclaw, getOpenclawRoots, isResetArchive, isTranscriptName, openclawSessionId } from './paths.js';

function coreFor(meta: PiSessionMeta | undefined) {
  return createPiCore({ agent: CODEC_ID, preferFileId: true, ...(meta !== undefined && { meta }) });
}

const plainCore = coreFor(undefined);

const isSubagent = (file: string): boolean => readOpenclawMetaSync(file)?.subagent === true;

/**
 * A session of an agent database (`<db>#<session id>`): its rows, by `seq`, read as its transcript's lines by
 * the same pi core, whole (no resume), through a read-only snapshot; the database's index of sessions is read
 * once per state of the database, for all its sessions.
 */
async function* readOpenclawDb(file: string, db: string, key: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const o = normalizeReadOptions(options);
  const { agentSnapshot, databaseValue, eventsForRead } = await import('../../cursors/sqlite-events.js');
  const index = databaseValue(CODEC_ID, 'session-nodes', db, sessionNodesIndex);
  const got = agentSnapshot(CODEC_ID, db, (d) => {
    const t = readAgentDbTranscript(d, key, o.maxLineBytes, index);
    let skipped = t.skipped;
    const core = createPiCore({ agent: CODEC_ID, sessionId: key, ...(t.meta !== undefined && { meta: t.meta }) });
    const events = parseSync(core, t.text, { file, maxLineBytes: o.maxLineBytes, raw: o.raw, onSkip: () => skipped++ });
    return { events, skipped };
  });
  yield* eventsForRead(CODEC_ID, file, got, o);
}

/** `read()`: a database session, or a transcript whose index entry is read first and handed to the pure core. */
async function* readOpenclaw(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const { db, key } = splitRecordPath(file);
  if (key !== undefined) yield* readOpenclawDb(file, db, key, options);
  else yield* createJsonlRead(openclawDescriptor, coreFor(await readOpenclawMeta(file)))(file, options);
}

/** Goes up whenever the stamps of the same rows would differ. */
const STAMP_VERSION = 3;

/**
 * An agent database stamped per session (cursors/record-stamps.ts, db.ts `sessionStamps`): OpenClaw appends
 * one session's rows at a time, and each session's record has its own stat (its rows' count, last `seq` and
 * time), so a row of one session makes only that one read again, not every session of the database.
 */
const openclawDependencyStamp = recordStamper('openclaw-sessions', `${CODEC_ID}@${openclawDescriptor.parserVersion}.s${STAMP_VERSION}`, sessionStamps);

/** The OpenClaw codec. */
export const openclaw: Codec = {
  ...openclawDescriptor,
  detect: detectPi,
  // transcripts and each agent database's sessions as record paths, in one listing
  ...fromSyncListing((roots) => discoverOpenclaw(roots, isSubagent, listAgentDbSessions)),
  getParseDependencies: (file: string) => (splitRecordPath(file).key !== undefined ? recordDependencies(file) : [indexPathFor(file)]),
  dependencyStamp: openclawDependencyStamp,
  lineCore: plainCore,
  // a database session is not a file of lines: folds read it whole through read()
  lineCoreFor: (file: string) => (splitRecordPath(file).key !== undefined ? undefined : coreFor(readOpenclawMetaSync(file))),
  read: readOpenclaw,
};
export default openclaw;
