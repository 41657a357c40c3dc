/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getQwenRoots } from './paths.js';

/**
 * Goes up whenever this codec would parse an unchanged file differently. 5: a `/branch` copy's usage is marked
 * `copied` (its records' `forkedFrom` names another session). 6: a total of 0 (the OpenAI-compatible converter
 * without a provider total) holds the thoughts inside the candidates.
 */
export const PARSER_VERSION = 6;

export const qwenDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['qwen-code'],
  displayName: 'Qwen Code',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true },
  defaultRoots: getQwenRoots,
  rootVariables: ['QWEN_RUNTIME_DIR', 'QWEN_HOME'],
};
