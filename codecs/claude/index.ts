/**
 * `claude`: Claude Code transcripts (`~/.claude/projects/<encoded-cwd>/<session>.jsonl` and subagent
 * transcripts). A JSONL codec: the pure engine is `claudeCore` (parse.ts), and `read()` with byte-exact
 * resume comes from `createJsonlRead`, through `claudeReadAs` (read-as.ts), which also gives an agent that
 * runs Claude Code (Cowork, Cherry Studio) the same read under its name. Formats, token semantics and dedup
 * rules: README.md.
 *
 * @example
 * import { claude } from 'sessionfold/codecs/claude';
 * for await (const f of claude.discover(claude.defaultRoots()))
 *   for await (const e of claude.read(f.path, { kinds: ['usage'] })) console.log(e.model, e.outputTokens);
 */
import type { Codec, SessionFile, DetectScore } from '../../cursors/protocol/codec.js';
import { firstJsonLine } from '../../cursors/detect.js';
import { claudeParseDependencies, discoverClaudeFiles, discoverClaudeFilesSync, locateClaudeFile } from './paths.js';
import { claudeDescriptor } from './descriptor.js';
import { claudeReadAs } from './read-as.js';

export { claudeCore, createClaudeCore, extractToolOutput, type ClaudeCoreOptions } from './parse.js';
export { claudeReadAs, type ClaudeRead } from './read-as.js';
export { extractSubagentMeta, readSubagentMeta, readSubagentMetaSync } from './meta.js';
export { CODEC_ID, getClaudePathInfo, getClaudeRoots, getSubagentMetaPath, type ClaudePathInfo } from './paths.js';
export { extractUsage, getModelProvider, getResponseKey, isLargerUsage, USAGE_LINE_FIELDS, type UsageCandidate } from './usage.js';
export { compileProjection, scanFields, type CompiledProjection, type FieldProjection } from '../../cursors/scan-fields.js';
export { MAX_OPEN_CALLS, type ClaudeFilter, type ClaudeSnapshot, type ClaudeState, type ClaudeTitles } from './state.js';
export {
  SYNTHETIC_MODEL,
  TITLE_MARKER,
  USAGE_MARKER,
  type ClaudeAiTitleLine,
  type ClaudeContentBlock,
  type ClaudeCustomTitleLine,
  type ClaudeConversationLine,
  type ClaudeLegacyToolLine,
  type ClaudeLineBase,
  type ClaudeMessage,
  type ClaudeSummaryLine,
  type ClaudeSystemLine,
  type ClaudeUsage,
  type SubagentMeta,
} from './schema.js';

export { PARSER_VERSION } from './descriptor.js';

/** Claude's read is the one a host that runs Claude Code gets (read-as.ts), under Claude's own name. */
const own = claudeReadAs(claudeDescriptor);

/**
 * `locate()`: by file name first (one stat per project folder); then, for the rare transcript whose name is
 * not its id, by the id its first lines give (each such file is read only to its first session event).
 */
async function locateClaude(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
  const named = await locateClaudeFile(roots, nativeId);
  if (named !== undefined) return named;
  for await (const f of discoverClaudeFiles(roots)) {
    if (f.sessionId !== undefined) continue;
    for await (const e of own.read(f.path, { kinds: ['session'] })) {
      if (e.type === 'session' && e.sessionId === nativeId) return f;
      break;
    }
  }
  return undefined;
}

/** Claude Code lines carry `sessionId` with a `type` or a `message` (and none of Codex's `payload` or Gemini's `projectHash`). */
function detect(_file: string, head: Buffer): DetectScore {
  const r = firstJsonLine(head);
  if (r === undefined || 'payload' in r || 'projectHash' in r) return 0;
  // Claude writes ISO timestamps and `message.content`; look-alikes (Droid's stream JSON, Qwen Code) differ there.
  if (r.timestamp !== undefined && typeof r.timestamp !== 'string') return 0;
  const m = r.message as Record<string, unknown> | null | undefined;
  if (typeof m === 'object' && m !== null && Array.isArray(m.parts) && m.content === undefined) return 0;
  if (typeof r.sessionId === 'string' && (typeof r.type === 'string' || (typeof r.message === 'object' && r.message !== null))) return 2;
  if (r.type === 'summary' && typeof r.leafUuid === 'string') return 2;
  if (r.type === 'file-history-snapshot' && typeof r.messageId === 'string') return 2;
  return 0;
}

/** Claude Code: `~/.claude/projects` and `~/.config/claude/projects` (or `CLAUDE_CONFIG_DIR`); see its README. */
export const claude: Codec = {
  ...claudeDescriptor,
  detect,
  discover: discoverClaudeFiles,
  discoverSync: discoverClaudeFilesSync,
  locate: locateClaude,
  getParseDependencies: claudeParseDependencies,
  lineCore: own.lineCore,
  lineCoreFor: own.lineCoreFor,
  read: own.read,
  scanUsage: own.scanUsage,
  resumeCommand(nativeId: string, _file?: SessionFile): string[] {
    return ['claude', '--resume', nativeId];
  },
};
export default claude;
