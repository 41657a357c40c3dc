/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, discoverCodexFilesSync, getCodexRoots } from './paths.js';

export { CODEC_ID };

/**
 * Goes up whenever this codec would parse an unchanged file differently. 2: a line with an absurd token count
 * (cursors/sane.ts) is refused, where a negative one was taken as 0. 3: a row counting no token but
 * `total_tokens` (fill_to_context_window) is no request. 4: the usage of a turn a fork copied (under another
 * thread's region, its `turn_id` minted before the owner) is marked `copied`.
 */
export const PARSER_VERSION = 4;

export const codexDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['codex-cli', 'openai-codex'],
  displayName: 'Codex CLI',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true },
  defaultRoots: getCodexRoots,
  rootVariables: ['CODEX_HOME'],
  listing: { discoverSync: discoverCodexFilesSync, getParseDependencies: () => [] },
};
