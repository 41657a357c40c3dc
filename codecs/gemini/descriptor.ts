/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getGeminiRoots } from './paths.js';

/**
 * Goes up whenever this codec would parse an unchanged file differently. 3: `$patch` records change the open
 * turn. 4: a response with a UUID id is keyed by it alone, and one timestamped before its session began is
 * `copied` (imported sessions).
 */
export const PARSER_VERSION = 4;

export const geminiDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['gemini-cli', 'geminicli'],
  displayName: 'Gemini CLI',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true },
  defaultRoots: getGeminiRoots,
  rootVariables: ['GEMINI_CLI_HOME'],
};
