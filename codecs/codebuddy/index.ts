/**
 * `codebuddy`: CodeBuddy Code (Tencent's coding CLI) transcripts, `~/.codebuddy/projects/<cwd slug>/<id>.jsonl`
 * (`$CODEBUDDY_CONFIG_DIR` moves the folder). Its own record format, not Claude Code's: README.md has the
 * format, the token semantics and the sources.
 *
 * @example
 * import { codebuddy } from 'sessionfold/codecs/codebuddy';
 * for await (const f of codebuddy.discover(codebuddy.defaultRoots()))
 *   for await (const e of codebuddy.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec, CodecDescriptor } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { createCodeBuddyCore } from './parse.js';
import { discoverCodeBuddyLayout } from './paths.js';
import { codebuddyDescriptor } from './descriptor.js';

export { codebuddyCore, createCodeBuddyCore, codeBuddyTime, codeBuddyUsage, type CodeBuddyState } from './parse.js';
export { codeBuddyTokens, usageObjects, type CodeBuddyTokens } from './usage.js';
export { CODEBUDDY_ENV, CODEC_ID as CODEBUDDY_CODEC_ID, codeBuddyStem, discoverCodeBuddyLayout, discoverCodeBuddySync, getCodeBuddyRoots } from './paths.js';
export { PARSER_VERSION, codeBuddyFamilyDescriptor } from './descriptor.js';

/**
 * A codec for a product whose transcripts the CodeBuddy CLI writes (`projects/<cwd slug>/<id>.jsonl` under its
 * roots): this engine under the descriptor's id, so every rule of the format is written once.
 */
export function defineCodeBuddyCodec(descriptor: CodecDescriptor): Codec {
  const core = createCodeBuddyCore(descriptor.id);
  return {
    ...descriptor,
    ...fromSyncListing((roots) => discoverCodeBuddyLayout(descriptor.id, roots)),
    getParseDependencies: () => [],
    lineCore: core,
    read: createJsonlRead(descriptor, core),
  };
}

/** The CodeBuddy Code codec. */
export const codebuddy: Codec = defineCodeBuddyCodec(codebuddyDescriptor);
export default codebuddy;
