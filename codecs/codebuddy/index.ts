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
import type { Codec } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { codebuddyCore } from './parse.js';
import { discoverCodeBuddySync } from './paths.js';
import { codebuddyDescriptor } from './descriptor.js';

export { codebuddyCore, codeBuddyTime, codeBuddyUsage, type CodeBuddyState } from './parse.js';
export { codeBuddyTokens, usageObjects, type CodeBuddyTokens } from './usage.js';
export { CODEBUDDY_ENV, CODEC_ID as CODEBUDDY_CODEC_ID, discoverCodeBuddySync, getCodeBuddyRoots } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

/** The CodeBuddy Code codec. */
export const codebuddy: Codec = {
  ...codebuddyDescriptor,
  ...fromSyncListing(discoverCodeBuddySync),
  getParseDependencies: () => [],
  lineCore: codebuddyCore,
  read: createJsonlRead(codebuddyDescriptor, codebuddyCore),
};
export default codebuddy;
