/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getOpenCodeReviewRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 2;

export const openCodeReviewDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['open-code-review', 'ocr'],
  displayName: 'Open Code Review',
  parserVersion: PARSER_VERSION,
  // a run that has not written session_end (running, or killed with records still buffered) may lack usage
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true, usageMayBeUnknown: true, usageKnownAtEnd: true },
  defaultRoots: getOpenCodeReviewRoots,
  rootVariables: [],
};
