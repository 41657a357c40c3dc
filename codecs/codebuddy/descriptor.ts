/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEBUDDY_ENV, CODEC_ID, getCodeBuddyRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 4;

export const codebuddyDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['codebuddy-code'],
  displayName: 'CodeBuddy Code',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true },
  defaultRoots: getCodeBuddyRoots,
  rootVariables: [CODEBUDDY_ENV],
};
