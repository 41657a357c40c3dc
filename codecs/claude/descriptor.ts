/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, claudeParseDependencies, discoverClaudeFilesSync, getClaudeRoots } from './paths.js';

/**
 * Goes up whenever this codec would parse an unchanged file differently. 2: titles on (repeated) session
 * events, the subagent sidecar, `provider`, `speed` and `webSearchRequests` on usage events. 4: a line with an
 * absurd token count or cost (cursors/sane.ts) is refused, where it was clamped or kept (a cache of an older
 * version may hold its record). 5: a response is keyed on its message id alone (a cache of an older version
 * may count a copy without `requestId` twice). 6: a `progress` line's copy of a subagent response counts, in
 * the subagent's session (a cache of an older version lacks the responses only a parent holds). 7: an
 * `input_tokens` of -1 beside cache reads (Kimi's full cache hit, cursors/sane.ts `uncachedInput`) counts 0,
 * where the line was refused. 8: a `/branch` copy's session names its origin from the lines' `forkedFrom`.
 * 9: a usage line copied from another session (`--resume`, `/branch`) is marked `copied` (usage.ts
 * `isCopiedLine`), so the fold keeps its origin's copy on a tie.
 */
export const PARSER_VERSION = 9;

export const claudeDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['claude-code', 'claudecode'],
  displayName: 'Claude Code',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true },
  defaultRoots: getClaudeRoots,
  rootVariables: ['CLAUDE_CONFIG_DIR'],
  listing: { discoverSync: discoverClaudeFilesSync, getParseDependencies: claudeParseDependencies },
};
