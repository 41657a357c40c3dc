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
import { CODEC_ID, discoverGrokSync, getGrokRoots } from './paths.js';

export { grokCore, grokUsage, type GrokState } from './parse.js';
export { CODEC_ID as GROK_CODEC_ID, discoverGrokSync, getGrokRoots, grokWorkspace } from './paths.js';

const PARSER_VERSION = 1;

/** The Grok Build codec. */
export const grok: Codec = {
  id: CODEC_ID,
  aliases: ['grok-build'],
  displayName: 'Grok Build',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true },
  defaultRoots: getGrokRoots,
  rootVariables: ['GROK_HOME'],
  ...fromSyncListing(discoverGrokSync),
  getParseDependencies: () => [],
  lineCore: grokCore,
  read: createJsonlRead({ id: CODEC_ID, parserVersion: PARSER_VERSION }, grokCore),
};
export default grok;
