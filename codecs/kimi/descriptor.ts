/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { getKimiRoots } from './paths.js';

export const CODEC_ID = 'kimi';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 7;

export const kimiDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['kimi-code', 'kimi-cli'],
  displayName: 'Kimi Code CLI',
  parserVersion: PARSER_VERSION,
  // a kimi-cli session that compacted its context lacks that call's tokens, said at the end of its read
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true, usageMayBeUnknown: true, usageKnownAtEnd: true },
  defaultRoots: getKimiRoots,
  rootVariables: ['SESSIONFOLD_KIMI_DIR', 'KIMI_CODE_HOME', 'KIMI_SHARE_DIR'],
};
