/**
 * `auggie`: Auggie, Augment Code's CLI, one JSON document per session, `~/.augment/sessions/<id>.json`
 * (`$AUGMENT_CACHE_DIR` moves the folder), rewritten whole as the session goes on: read in constant memory
 * (cursors/object-walk.ts) behind a fingerprint cursor (cursors/read-document.ts), so an unchanged session is
 * never parsed again. README.md has the format, the token semantics and the sources.
 *
 * @example
 * import { auggie } from 'sessionfold/codecs/auggie';
 * for await (const f of auggie.discover(auggie.defaultRoots()))
 *   for await (const e of auggie.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createDocumentRead } from '../../cursors/read-document.js';
import { parseAuggieSession } from './parse.js';
import { discoverAuggieSync } from './paths.js';
import { auggieDescriptor } from './descriptor.js';

export { parseAuggieSession, exchangeUsage } from './parse.js';
export { auggieSessionIdOf, discoverAuggieSync, getAuggieRoots } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

/** Auggie: session documents under `~/.augment/sessions`; see its README. */
export const auggie: Codec = {
  ...auggieDescriptor,
  ...fromSyncListing(discoverAuggieSync),
  getParseDependencies: () => [],
  read: createDocumentRead(auggieDescriptor, parseAuggieSession),
};
export default auggie;
