/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getDroidRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 3;

export const droidDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['factory', 'factory-droid'],
  displayName: 'Factory Droid',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: false },
  defaultRoots: getDroidRoots,
  rootVariables: ['DROID_SESSIONS_DIR'],
};
