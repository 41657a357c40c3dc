/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getDevinRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 2;

export const devinDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['devin-cli', 'devin-desktop'],
  displayName: 'Devin CLI',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: false, persistence: 'sqlite', eventsPrecedeMtime: false, usageMayBeUnknown: true },
  defaultRoots: getDevinRoots,
  rootVariables: ['SESSIONFOLD_DEVIN_DIR'],
};
