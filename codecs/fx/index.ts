/**
 * `fx`: Vercel Labs' fx, one `events.jsonl` per session folder under `~/.fx/sessions/`. README.md has the
 * format, the token semantics and the sources.
 *
 * @example
 * import { fx } from 'sessionfold/codecs/fx';
 * for await (const f of fx.discover(fx.defaultRoots()))
 *   for await (const e of fx.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { fxCore } from './parse.js';
import { discoverFxSync } from './paths.js';
import { fxDescriptor } from './descriptor.js';

export { fxCore, type FxState } from './parse.js';
export { CODEC_ID as FX_CODEC_ID, discoverFxSync, getFxRoots, fxSessionIdOf } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

/** The fx codec. */
export const fx: Codec = {
  ...fxDescriptor,
  ...fromSyncListing(discoverFxSync),
  getParseDependencies: () => [],
  lineCore: fxCore,
  read: createJsonlRead(fxDescriptor, fxCore),
};
export default fx;
