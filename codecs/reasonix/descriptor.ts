/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getReasonixRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 1;

export const reasonixDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['deepseek-reasonix'],
  displayName: 'Reasonix',
  parserVersion: PARSER_VERSION,
  // append-only daily files whose records are stamped before they are written
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true },
  defaultRoots: getReasonixRoots,
  rootVariables: ['REASONIX_STATE_HOME', 'REASONIX_HOME'],
};
