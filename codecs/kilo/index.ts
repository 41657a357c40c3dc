/**
 * `kilo`: Kilo Code's VS Code extension (up to 5.x), a fork of Roo Code that keeps Cline's task layout and
 * `ClineMessage` records (README.md). The codec is Cline's, under Kilo Code's roots and name, with Kilo
 * Code's `tokensIn` (cache included since 4.119.0) and its model taken from the prompts.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { defineClineFamilyCodec } from '../cline/index.js';
import { CODEC_ID, KILO_EXTENSION_ID, getKiloRoots } from './paths.js';

export { CODEC_ID as KILO_CODEC_ID, KILO_EXTENSION_ID, getKiloRoots } from './paths.js';

/** Kilo Code 4.119.0 took Roo Code's change: `tokensIn` with the cache for every protocol. */
export const KILO_INCLUSIVE_SINCE = Date.UTC(2025, 10, 12);

/** The Kilo Code codec. */
export const kilo: Codec = defineClineFamilyCodec({
  id: CODEC_ID,
  aliases: ['kilo-code', 'kilocode'],
  displayName: 'Kilo Code',
  extensionId: KILO_EXTENSION_ID,
  defaultRoots: getKiloRoots,
  flavor: { inclusiveSince: KILO_INCLUSIVE_SINCE, metadataModels: false },
});
export default kilo;
