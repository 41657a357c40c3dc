/**
 * `openclaw`: OpenClaw's agent transcripts, which it writes with pi's SessionManager (pi's format, read by
 * the pi engine), with the session key, title and channel from the `sessions.json` beside them, and the
 * transcripts a reset archived read as sessions of their own. README.md has the layout and the choices.
 */
import type { Codec, ReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { createPiCore, detectPi, type PiSessionMeta } from '../pi/index.js';
import { readOpenclawMeta, readOpenclawMetaSync } from './meta.js';
import { CODEC_ID, discoverOpenclaw, indexPathFor } from './paths.js';
import { openclawDescriptor } from './descriptor.js';

export { metaOf, parseSessionsIndex, readOpenclawMeta, readOpenclawMetaSync } from './meta.js';
export { CODEC_ID, discoverOpenclaw, getOpenclawRoots, isResetArchive, isTranscriptName, openclawSessionId } from './paths.js';

function coreFor(meta: PiSessionMeta | undefined) {
  return createPiCore({ agent: CODEC_ID, preferFileId: true, ...(meta !== undefined && { meta }) });
}

const plainCore = coreFor(undefined);

const isSubagent = (file: string): boolean => readOpenclawMetaSync(file)?.subagent === true;

/** `read()`: the index entry is read first and handed to the pure core. */
async function* readOpenclaw(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  yield* createJsonlRead(openclawDescriptor, coreFor(await readOpenclawMeta(file)))(file, options);
}

/** The OpenClaw codec. */
export const openclaw: Codec = {
  ...openclawDescriptor,
  detect: detectPi,
  async *discover(roots: readonly string[]) {
    yield* discoverOpenclaw(roots, isSubagent);
  },
  discoverSync: (roots: readonly string[]) => discoverOpenclaw(roots, isSubagent),
  async locate(roots: readonly string[], nativeId: string) {
    for (const f of discoverOpenclaw(roots, isSubagent)) if (f.sessionId === nativeId) return f;
    return undefined;
  },
  getParseDependencies: (file: string) => [indexPathFor(file)],
  lineCore: plainCore,
  lineCoreFor: (file: string) => coreFor(readOpenclawMetaSync(file)),
  read: readOpenclaw,
};
export default openclaw;
