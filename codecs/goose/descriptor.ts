/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getGooseRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 3;

export const gooseDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['goose-cli', 'block-goose'],
  displayName: 'Goose',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'sqlite', eventsPrecedeMtime: false },
  defaultRoots: getGooseRoots,
  rootVariables: ['GOOSE_PATH_ROOT'],
};
