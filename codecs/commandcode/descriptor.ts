/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getCommandCodeRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 2;

export const commandCodeDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['command-code', 'cmd'],
  displayName: 'Command Code',
  parserVersion: PARSER_VERSION,
  // legacy transcripts (and assistant records a resumed `-p` run left without usage) record no tokens
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true, usageMayBeUnknown: true, usageKnownAtEnd: true },
  defaultRoots: getCommandCodeRoots,
  rootVariables: [],
};
