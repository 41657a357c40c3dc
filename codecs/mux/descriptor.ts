/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getMuxRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 3;

export const muxDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['coder-mux', 'xum'],
  displayName: 'Mux',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: false, persistence: 'json', eventsPrecedeMtime: true },
  defaultRoots: getMuxRoots,
  rootVariables: ['XUM_ROOT', 'MUX_ROOT'],
};
