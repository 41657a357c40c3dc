/**
 * Record types of a Codex CLI rollout file (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`).
 *
 * One line is a `RolloutLine`: `{"timestamp":"…Z","ordinal"?:n,"type":<item>,"payload":{…}}` — serde's
 * `tag="type", content="payload"` flattened next to the write time (openai/codex `codex-rs/history/src/lib.rs`,
 * `codex-rs/core/src/rollout/recorder.rs`). Only the fields this codec reads are typed; every record is
 * checked with the small guards below before use, and unknown types are skipped, because new Codex builds add
 * record types freely (`world_state`, `inter_agent_communication`, `realtime_item`, …).
 */
import { parsesAsDate } from '../../cursors/date-string.js';

/** Top-level `type` of a rollout line. */
export const RECORD = {
  sessionMeta: 'session_meta',
  turnContext: 'turn_context',
  responseItem: 'response_item',
  eventMsg: 'event_msg',
  compacted: 'compacted',
  tokenUsageRecord: 'token_usage_record',
} as const;

/** `payload.type` of the `response_item` records this codec reads. */
export const ITEM = {
  message: 'message',
  reasoning: 'reasoning',
  functionCall: 'function_call',
  functionCallOutput: 'function_call_output',
  customToolCall: 'custom_tool_call',
  customToolCallOutput: 'custom_tool_call_output',
  localShellCall: 'local_shell_call',
  webSearchCall: 'web_search_call',
  toolSearchCall: 'tool_search_call',
  toolSearchOutput: 'tool_search_output',
} as const;

/** `payload.type` of the `event_msg` records this codec reads. */
export const EVENT = {
  tokenCount: 'token_count',
  userMessage: 'user_message',
  agentMessage: 'agent_message',
} as const;

/**
 * Response-item types that the pre-`RolloutLine` format (Codex < 0.3, no `payload` wrapper) wrote at the top
 * level of a line. A line of one of these types without a `payload` is read as a `response_item`.
 */
export const LEGACY_ITEM_TYPES: ReadonlySet<string> = new Set(Object.values(ITEM));

/**
 * `TokenUsage` (`codex-rs/protocol/src/protocol.rs`). `input_tokens` INCLUDES `cached_input_tokens` (and the
 * newer `cache_write_input_tokens`); `output_tokens` INCLUDES `reasoning_output_tokens`;
 * `total_tokens = input_tokens + output_tokens`.
 */
export interface RawTokenUsage {
  input_tokens?: number;
  cached_input_tokens?: number;
  cache_write_input_tokens?: number;
  output_tokens?: number;
  reasoning_output_tokens?: number;
  total_tokens?: number;
}

/** `session_meta` payload (the first line of a rollout; forks and subagents repeat their parent's after it). */
export interface SessionMetaPayload {
  id?: string;
  session_id?: string;
  forked_from_id?: string;
  parent_thread_id?: string;
  timestamp?: string;
  cwd?: string;
  originator?: string;
  cli_version?: string;
  /** `"cli" | "exec" | …` or `{subagent: {thread_spawn: {parent_thread_id, depth, …}}}`. */
  source?: unknown;
  model_provider?: string;
  git?: { branch?: string; commit_hash?: string; repository_url?: string };
  /** Subagent rollouts: records with a smaller `ordinal` are the parent's copied history. */
  subagent_history_start_ordinal?: number;
  /** Codex >= 0.154 forks: the inherited history stays in the parent's file up to this ordinal. */
  history_base?: { thread_id?: string; end_ordinal_exclusive?: number; end_byte_offset?: number };
}

/** `token_usage_record` payload (Codex >= 0.153): one row per model response. */
export interface TokenUsageRecordPayload {
  thread_id?: string;
  session_id?: string;
  turn_id?: string;
  root_turn_id?: string;
  response_id?: string;
  /** This response only. */
  usage?: RawTokenUsage;
  /** Cumulative for the turn / the thread (not used: `usage` is exact). */
  turn_token_usage?: RawTokenUsage;
  thread_token_usage?: RawTokenUsage;
}

/** `event_msg` `token_count` payload. `info` is null on rate-limit-only updates. */
export interface TokenCountPayload {
  type: 'token_count';
  info?: { total_token_usage?: RawTokenUsage; last_token_usage?: RawTokenUsage; model_context_window?: number } | null;
}

/**
 * Text prefixes of `user`-role messages that Codex injects as context rather than typed by the user
 * (`codex-rs/protocol/src/protocol.rs` `ENVIRONMENT_CONTEXT_OPEN_TAG`, `USER_INSTRUCTIONS_OPEN_TAG`, and the
 * AGENTS.md wrapper). They become `system` messages with the given subtype.
 */
export const INJECTED_USER_PREFIXES: readonly (readonly [prefix: string, subtype: string])[] = [
  ['<environment_context>', 'environment_context'],
  ['<user_instructions>', 'user_instructions'],
  ['# AGENTS.md instructions', 'user_instructions'],
  ['<INSTRUCTIONS>', 'user_instructions'],
  ['<turn_aborted>', 'turn_aborted'],
  ['<subagent_notification>', 'subagent_notification'],
];

export type Json = Record<string, unknown>;

/** The value as a plain object, or undefined. */
export function asObject(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

/** A non-empty string, or undefined. */
export function asString(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** A finite number, or undefined. */
export function asNumber(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The ISO timestamp as written when it parses as a date, else undefined (sanitized fixtures write text). */
export function asTimestamp(v: unknown): string | undefined {
  return typeof v === 'string' && v.length >= 10 && parsesAsDate(v) ? v : undefined;
}

/** The parent thread of a subagent `source` (`{subagent: {thread_spawn: {parent_thread_id}}}`). */
export function getSpawnParent(source: unknown): string | undefined {
  const spawn = asObject(asObject(asObject(source)?.subagent)?.thread_spawn);
  return asString(spawn?.parent_thread_id);
}

/** True for a subagent `source` (`{subagent: …}` or the string `subagent`). */
export function isSubagentSource(source: unknown): boolean {
  return source === 'subagent' || asObject(source)?.subagent !== undefined;
}
