/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getCopilotRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 3;

export const copilotDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['copilot-cli', 'github-copilot', 'gh-copilot'],
  displayName: 'GitHub Copilot CLI',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true, usageRecordedAtEnd: true, usageKnownAtEnd: true },
  defaultRoots: getCopilotRoots,
  rootVariables: ['COPILOT_HOME'],
};
