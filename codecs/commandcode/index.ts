/**
 * `commandcode`: Command Code (`cmd`, the `command-code` npm package) transcripts,
 * `~/.commandcode/projects/<slug>/<session id>.jsonl`. README.md has the format, the token semantics and the
 * sources.
 *
 * @example
 * import { commandCode } from 'sessionfold/codecs/commandcode';
 * for (const f of commandCode.discoverSync!(commandCode.defaultRoots()))
 *   for await (const e of commandCode.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { commandCodeCore } from './parse.js';
import { discoverCommandCodeSync } from './paths.js';
import { commandCodeDescriptor } from './descriptor.js';

export { commandCodeCore, commandCodeUsage, type CommandCodeState } from './parse.js';
export { CODEC_ID as COMMANDCODE_CODEC_ID, discoverCommandCodeSync, getCommandCodeRoots } from './paths.js';

/** The Command Code codec. */
export const commandCode: Codec = {
  ...commandCodeDescriptor,
  ...fromSyncListing(discoverCommandCodeSync),
  getParseDependencies: () => [],
  lineCore: commandCodeCore,
  read: createJsonlRead(commandCodeDescriptor, commandCodeCore),
};
export default commandCode;
