/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getDshRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 1;

export const dshDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['deepseek-harness'],
  displayName: 'DeepSeek Harness',
  parserVersion: PARSER_VERSION,
  // auxiliary model calls (session titles, web search) record no tokens, nor does an adapter that reports none
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true, usageMayBeUnknown: true, usageKnownAtEnd: true },
  defaultRoots: getDshRoots,
  rootVariables: ['DSH_HOME', 'DSH_SESSION_ROOT'],
};
