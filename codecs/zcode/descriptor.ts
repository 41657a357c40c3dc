/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getZcodeRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 3;

export const zcodeDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['z-code', 'zai'],
  displayName: 'Z Code',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: false, persistence: 'sqlite', eventsPrecedeMtime: false, usageMayBeUnknown: true },
  defaultRoots: getZcodeRoots,
  rootVariables: ['ZCODE_HOME', 'ZCODE_DATA_BASE_DIR'],
};
