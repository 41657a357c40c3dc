/**
 * The Claude Code transcript records this codec reads, as far as it reads them. Claude Code is closed
 * source; the shapes come from third-party readers (ccusage `data-loader.ts`, agent-schemas v2.0.76 /
 * v2.1.1) and from the real files in `shared/fixtures/real/claude`. Every field is optional here because
 * real files drift: 1.x lines have `project` instead of `cwd`, string `content`, top-level `tool_use`
 * records; 2.x adds attachment, progress, worktree-state and dozens of other line types. Unknown types are
 * skipped, never an error.
 */
import { parsesAsDate } from '../../cursors/date-string.js';

/** Fields common to the conversational lines (user, assistant, system, attachment, progress). */
export interface ClaudeLineBase {
  type?: string;
  uuid?: string;
  parentUuid?: string | null;
  /** Set on compact_boundary lines, whose parentUuid is null. */
  logicalParentUuid?: string;
  sessionId?: string;
  timestamp?: string;
  cwd?: string;
  /** 1.x name of cwd. */
  project?: string;
  version?: string;
  gitBranch?: string;
  isSidechain?: boolean;
  /** Subagent transcripts carry their agent id. */
  agentId?: string;
  /** Injected, non-conversational user lines (caveats, command output, skill text). */
  isMeta?: boolean;
  /** The user line that carries a compaction summary. */
  isCompactSummary?: boolean;
  /** Claude Code's request id of the API call; several lines of one response share it. */
  requestId?: string;
  /** Older versions recorded a cost per line. */
  costUSD?: number;
  /** Tool-result lines name the call they answer (2.1+). */
  sourceToolUseID?: string;
  sourceToolAssistantUUID?: string;
  isApiErrorMessage?: boolean;
}

/** `usage` of an Anthropic Messages response. `input_tokens` excludes cache reads and writes. */
export interface ClaudeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
  /** 2.1.x: the thinking part of output_tokens. */
  output_tokens_details?: { thinking_tokens?: number };
  server_tool_use?: { web_search_requests?: number; web_fetch_requests?: number };
  service_tier?: string | null;
  /** `fast` for Opus fast mode (priced higher; see README, known gaps). */
  speed?: string;
}

/** A block of `message.content`; unknown block types pass through and are ignored. */
export type ClaudeContentBlock =
  | { type: 'text'; text?: string }
  | { type: 'thinking'; thinking?: string; signature?: string }
  | { type: 'redacted_thinking'; data?: string }
  | { type: 'tool_use'; id?: string; name?: string; input?: unknown }
  | { type: 'tool_result'; tool_use_id?: string; content?: unknown; is_error?: boolean }
  | { type: 'image'; source?: unknown }
  | { type: string; [key: string]: unknown };

/** The `message` of a user or assistant line (an Anthropic Messages object for assistants). */
export interface ClaudeMessage {
  role?: string;
  id?: string;
  model?: string;
  content?: string | ClaudeContentBlock[];
  stop_reason?: string | null;
  usage?: ClaudeUsage;
}

/** A `user` or `assistant` line. */
export interface ClaudeConversationLine extends ClaudeLineBase {
  type: 'user' | 'assistant';
  message?: ClaudeMessage;
}

/** `{"type":"summary","summary":…,"leafUuid":…}`: a title-like summary of a conversation branch. */
export interface ClaudeSummaryLine {
  type: 'summary';
  summary?: string;
  leafUuid?: string;
}

/**
 * `{"type":"custom-title","customTitle":…,"sessionId":…}`: written by `/rename` (next to an `agent-name`
 * record with the same name), and again as the first line of the new file after `/clear`.
 */
export interface ClaudeCustomTitleLine {
  type: 'custom-title';
  customTitle?: string;
  /** The session the title names (normally the file's own). */
  sessionId?: string;
}

/** `{"type":"ai-title","aiTitle":…,"sessionId":…}`: the title Claude Code generates; may be rewritten later. */
export interface ClaudeAiTitleLine {
  type: 'ai-title';
  aiTitle?: string;
  sessionId?: string;
}

/**
 * A subagent's sidecar `agent-<id>.meta.json` (2.1+), written when the Task tool spawns it, e.g.
 * `{"agentType":"general-purpose","description":"…","toolUseId":"toolu_…","spawnDepth":1,"model":"haiku"}`;
 * `parentAgentId` names the spawning subagent from depth 2 on. Only the fields used are kept.
 */
export interface SubagentMeta {
  agentType?: string;
  /** The Task description: the subagent's title unless the transcript records one. */
  description?: string;
  spawnDepth?: number;
  /** The subagent that spawned this one (depth ≥ 2), without the `agent-` prefix. */
  parentAgentId?: string;
}

/** `system` lines: compact_boundary, local_command, api_error, turn_duration, stop_hook_summary, … */
export interface ClaudeSystemLine extends ClaudeLineBase {
  type: 'system';
  subtype?: string;
  content?: string | null;
}

/** 1.x drift: tool calls and results as their own top-level records. */
export interface ClaudeLegacyToolLine extends ClaudeLineBase {
  type: 'tool_use' | 'tool_result';
  id?: string;
  tool_use_id?: string;
  name?: string;
  input?: unknown;
  output?: unknown;
  content?: unknown;
  is_error?: boolean;
}

/** The model Claude Code writes on client-generated assistant lines (no API call, no usage). */
export const SYNTHETIC_MODEL = '<synthetic>';

/** Usage-only reads parse only lines holding these bytes (any JSON spacing keeps the key bytes intact). */
export const USAGE_MARKER = Buffer.from('"usage"');

/**
 * Session-kind reads past the session event also parse lines holding these bytes: the end of the string
 * tokens `"custom-title"` and `"ai-title"` (inside a JSON string a quote is escaped, so text that merely
 * mentions them does not match).
 */
export const TITLE_MARKER = Buffer.from('-title"');

/** A plain JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A non-empty string, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The timestamp when it parses as a date; sanitized fixtures hold placeholders like `[trimmed]`. */
export function extractTimestamp(v: unknown): string | undefined {
  return typeof v === 'string' && parsesAsDate(v) ? v : undefined;
}

/** An object with a string `type`. */
export function isContentBlock(v: unknown): v is ClaudeContentBlock {
  return isRecord(v) && typeof v.type === 'string';
}
