/**
 * `grok`: Grok Build, xAI's coding agent CLI (`grok`), whose sessions are
 * `~/.grok/sessions/<workspace>/<session id>/updates.jsonl` (`$GROK_HOME` moves the home).
 * README.md has the format, the token semantics and the sources.
 *
 * @example
 * import { grok } from 'sessionfold/codecs/grok';
 * for (const f of grok.discoverSync!(grok.defaultRoots()))
 *   for await (const e of grok.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { grokCore } from './parse.js';
import { discoverGrokSync } from './paths.js';
import { grokDescriptor } from './descriptor.js';

export { grokCore, grokUsage, type GrokState } from './parse.js';
export { CODEC_ID as GROK_CODEC_ID, discoverGrokSync, getGrokRoots, grokWorkspace } from './paths.js';


/** The Grok Build codec. */
export const grok: Codec = {
  ...grokDescriptor,
  ...fromSyncListing(discoverGrokSync),
  getParseDependencies: () => [],
  lineCore: grokCore,
  read: createJsonlRead(grokDescriptor, grokCore),
};
export default grok;
