/**
 * `reasonix`: the usage statistics of Reasonix (esengine/DeepSeek-Reasonix), one append-only file per day,
 * `<state root>/stats/YYYY-MM-DD.jsonl` (`$REASONIX_STATE_HOME`, else `$REASONIX_HOME`, else `~/.reasonix`,
 * `%APPDATA%\reasonix` on Windows). README.md has the format, the token semantics and the sources. Each day's
 * file is a session of its own: the records name no conversation. Reads resume where the last one stopped.
 *
 * @example
 * import { reasonix } from 'sessionfold/codecs/reasonix';
 * for (const f of reasonix.discoverSync!(reasonix.defaultRoots()))
 *   for await (const e of reasonix.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import { basename } from 'node:path';
import type { Codec, DetectScore } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { firstJsonLine } from '../../cursors/detect.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { reasonixCore } from './parse.js';
import { dayOf, discoverReasonixSync } from './paths.js';
import { reasonixDescriptor } from './descriptor.js';

export { isoOf, reasonixCore, reasonixSessionIdOf, splitModelRef, type ReasonixState } from './parse.js';
export { CODEC_ID as REASONIX_CODEC_ID, dayOf, discoverReasonixSync, getReasonixRoots, reasonixStateRoot } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

/** A day's stats file: its name is a day, its first record has Reasonix's `ts` and a token field or turn marker. */
export function detectReasonix(file: string, head: Buffer): DetectScore {
  if (dayOf(basename(file)) === undefined) return 0;
  const r = firstJsonLine(head);
  if (r === undefined || typeof r.ts !== 'string') return 0;
  return 'requests' in r || 'cache_hit' in r || 'cache_miss' in r || r.turn === true ? 2 : 0;
}

/** The Reasonix codec. */
export const reasonix: Codec = {
  ...reasonixDescriptor,
  ...fromSyncListing(discoverReasonixSync),
  detect: detectReasonix,
  getParseDependencies: () => [],
  lineCore: reasonixCore,
  read: createJsonlRead(reasonixDescriptor, reasonixCore),
};
export default reasonix;
