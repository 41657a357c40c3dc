/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getKiroRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 1;

export const kiroDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['kiro-cli'],
  displayName: 'Kiro',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: false, persistence: 'json', eventsPrecedeMtime: false, recordsUsage: false },
  defaultRoots: getKiroRoots,
  rootVariables: ['KIRO_HOME', 'XDG_DATA_HOME', 'LOCALAPPDATA'],
};
