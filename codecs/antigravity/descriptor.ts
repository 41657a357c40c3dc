/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getAntigravityRoots } from './paths.js';

export const PARSER_VERSION = 5; // 5: never usageRecorded false (the agent records tokens, in its database); 4: a step log with its database takes its cwd; 3: a resumed database read keeps its session's start; 2: tokens from the conversation databases

export const antigravityDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['agy', 'antigravity-cli'],
  displayName: 'Antigravity',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true, recordsUsage: true, usageMayBeUnknown: true },
  defaultRoots: getAntigravityRoots,
  rootVariables: ['SESSIONFOLD_ANTIGRAVITY_DIR', 'ANTIGRAVITY_DATA_DIR'],
};
