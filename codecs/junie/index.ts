/**
 * `junie`: JetBrains Junie (the CLI), one `events.jsonl` per session folder under `~/.junie/sessions/`
 * (`$JUNIE_HOME` moves the home). README.md has the format, the token semantics and the sources.
 *
 * @example
 * import { junie } from 'sessionfold/codecs/junie';
 * for await (const f of junie.discover(junie.defaultRoots()))
 *   for await (const e of junie.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { junieCore } from './parse.js';
import { discoverJunieSync } from './paths.js';
import { junieDescriptor } from './descriptor.js';

export { junieCore, junieUsage, type JunieState } from './parse.js';
export { msTime } from '../../cursors/json-value.js';
export { CODEC_ID as JUNIE_CODEC_ID, discoverJunieSync, getJunieRoots, junieSessionIdOf } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

/** The Junie codec. */
export const junie: Codec = {
  ...junieDescriptor,
  ...fromSyncListing(discoverJunieSync),
  getParseDependencies: () => [],
  lineCore: junieCore,
  read: createJsonlRead(junieDescriptor, junieCore),
};
export default junie;
