/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getFxRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 5;

export const fxDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['vercel-fx'],
  displayName: 'fx',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true, usageMayBeUnknown: true },
  defaultRoots: getFxRoots,
  rootVariables: ['SESSIONFOLD_FX_DIR'],
};
