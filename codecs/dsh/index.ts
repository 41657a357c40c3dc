/**
 * `dsh`: DeepSeek Harness (`@deepseek-ai/dsh-*`) session logs, `~/.dsh/sessions/<project>/<session>/`
 * `session[.vN].jsonl[.zstd]` (`$DSH_HOME` moves the home). README.md has the format, the token semantics
 * and the sources. A plain log is read by `createJsonlRead`, a compressed one (zstd frames, dsh's default)
 * by `createZstdFrameRead`: both resume where the last read stopped, the second at a frame boundary.
 *
 * @example
 * import { dsh } from 'sessionfold/codecs/dsh';
 * for (const f of dsh.discoverSync!(dsh.defaultRoots()))
 *   for await (const e of dsh.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import { basename } from 'node:path';
import type { Codec, DetectScore, ReadOptions } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { firstJsonLine } from '../../cursors/detect.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { createZstdFrameRead } from '../../cursors/read-zstd-frames.js';
import { ZSTD_MAGIC } from '../../cursors/zstd-frames.js';
import { dshCore } from './parse.js';
import { discoverDshSync, generationOf, isCompressedLog } from './paths.js';
import { dshDescriptor } from './descriptor.js';

export { dshCore, type DshState } from './parse.js';
export { CODEC_ID as DSH_CODEC_ID, decodeSessionDir, discoverDshSync, dshHome, generationOf, getDshRoots } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

const readPlain = createJsonlRead(dshDescriptor, dshCore);
const readFrames = createZstdFrameRead(dshDescriptor, dshCore);

/** A dsh log: a generation's name over zstd frames, or a header naming dsh's own fields (`createdAt` in ms, `delegationDepth`). */
export function detectDsh(file: string, head: Buffer): DetectScore {
  if (head.length >= 4 && head.readUInt32LE(0) === ZSTD_MAGIC) return generationOf(basename(file))?.compressed === true ? 2 : 0;
  const r = firstJsonLine(head);
  if (r === undefined || r.type !== 'session' || typeof r.createdAt !== 'number') return 0;
  return 'delegationDepth' in r || 'isSeeded' in r || 'seedLength' in r ? 2 : 0;
}

/** The DeepSeek Harness codec. */
export const dsh: Codec = {
  ...dshDescriptor,
  ...fromSyncListing(discoverDshSync),
  detect: detectDsh,
  getParseDependencies: () => [],
  lineCore: dshCore,
  // a compressed log is not read line by line from its bytes: folds read it whole through read()
  lineCoreFor: (file: string) => (isCompressedLog(file) ? undefined : dshCore),
  read: (file: string, options?: ReadOptions) => (isCompressedLog(file) ? readFrames(file, options) : readPlain(file, options)),
};
export default dsh;
