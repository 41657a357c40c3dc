/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getAuggieRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 6;

export const auggieDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['augment', 'augment-code'],
  displayName: 'Auggie (Augment Code)',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'json', eventsPrecedeMtime: true, usageMayBeUnknown: true },
  defaultRoots: getAuggieRoots,
  rootVariables: ['AUGMENT_CACHE_DIR'],
};
