/**
 * `claude`: Claude Code transcripts (`~/.claude/projects/<encoded-cwd>/<session>.jsonl` and subagent
 * transcripts). A JSONL codec: the pure engine is `claudeCore` (parse.ts), and `read()` with byte-exact
 * resume comes from `createJsonlRead`. Formats, token semantics and dedup rules: README.md.
 *
 * @example
 * import { claude } from 'sessionfold/codecs/claude';
 * for await (const f of claude.discover(claude.defaultRoots()))
 *   for await (const e of claude.read(f.path, { kinds: ['usage'] })) console.log(e.model, e.outputTokens);
 */
import type { Codec, SessionFile } from '../../src/codec.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { claudeCore } from './parse.js';
import { CODEC_ID, discoverClaudeFiles, getClaudeRoots, getSubagentMetaPath, locateClaudeFile } from './paths.js';

export { claudeCore, extractToolOutput } from './parse.js';
export { CODEC_ID, getClaudePathInfo, getClaudeRoots, getSubagentMetaPath, type ClaudePathInfo } from './paths.js';
export { extractUsage, getResponseKey, isLargerUsage, type UsageCandidate } from './usage.js';
export { MAX_OPEN_CALLS, type ClaudeSnapshot, type ClaudeState } from './state.js';
export {
  SYNTHETIC_MODEL,
  USAGE_MARKER,
  type ClaudeContentBlock,
  type ClaudeConversationLine,
  type ClaudeLegacyToolLine,
  type ClaudeLineBase,
  type ClaudeMessage,
  type ClaudeSummaryLine,
  type ClaudeSystemLine,
  type ClaudeUsage,
} from './schema.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 1;

export const claude: Codec = {
  id: CODEC_ID,
  aliases: ['claude-code', 'claudecode'],
  displayName: 'Claude Code',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true },
  defaultRoots: getClaudeRoots,
  discover: discoverClaudeFiles,
  locate: locateClaudeFile,
  getParseDependencies(file: string): string[] {
    const meta = getSubagentMetaPath(file);
    return meta === undefined ? [] : [meta];
  },
  lineCore: claudeCore,
  read: createJsonlRead({ id: CODEC_ID, parserVersion: PARSER_VERSION }, claudeCore),
  resumeCommand(nativeId: string, _file?: SessionFile): string[] {
    return ['claude', '--resume', nativeId];
  },
};
export default claude;
