/**
 * Record types of sessionfold's own JSONL export: one header line, then one message per line.
 * `SessionManager.export(agent, id, 'jsonl')` writes it; this codec reads it back.
 */

export const HEADER_TYPE = 'sessionfold.session';
export const MESSAGE_TYPE = 'sessionfold.message';
export const EXPORT_FORMAT_VERSION = 1;

export interface ExportHeader {
  type: typeof HEADER_TYPE;
  version: typeof EXPORT_FORMAT_VERSION;
  /** Agent the session came from (e.g. `claude`). */
  agent: string;
  sessionId: string;
  unifiedId?: string;
  title?: string;
  /** ISO-8601. */
  createdAt?: string;
  updatedAt?: string;
  model?: string;
  cwd?: string;
  forkedFrom?: string;
  tags?: string[];
  turnCount?: number;
  messageCount?: number;
  /** The session's own spend (informative: a reader prices the usage lines itself). */
  cost?: { totalUsd: number; [k: string]: unknown };
  /** Usage the session copied from another session (lines marked `copied`), not in `cost`. */
  copiedCost?: { totalUsd: number; [k: string]: unknown };
  /** The source agent had not recorded all of the session's tokens (SessionEvent.usageUnknown). */
  usageUnknown?: true;
  /** The source agent records no token usage (SessionEvent.usageRecorded: Cursor, Kiro). */
  usageRecorded?: false;
}

export interface ExportToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  output?: unknown;
  durationMs?: number;
}

/** The full usage of the message, so a re-import loses nothing (UsageEvent fields). */
export interface ExportUsage {
  model?: string;
  provider?: string;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  cacheWrite1hTokens?: number;
  costUsd?: number;
  singleRequest?: boolean;
  dedupKey?: string;
  /** The model was not recorded; `model` is a fallback. */
  modelFallback?: boolean;
  /** Non-standard inference speed (e.g. Anthropic fast mode). */
  speed?: string;
  webSearchRequests?: number;
  /** The origin copied the response from another session (UsageEvent.copied): a fold keeps another copy on a tie. */
  copied?: boolean;
  /** ISO-8601: the response's own time, when it is not the message line's (the session store writes it). */
  timestamp?: string;
}

export interface ExportMessage {
  type: typeof MESSAGE_TYPE;
  index: number;
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
  /** ISO-8601. */
  timestamp?: string;
  model?: string;
  thinking?: string;
  id?: string;
  toolCalls?: ExportToolCall[];
  toolResult?: { toolCallId: string; toolName: string; output: unknown; isError?: boolean; durationMs?: number };
  /** Marks injected context, summaries, compaction (MessageEvent.subtype). */
  subtype?: string;
  /** Usage that belonged to no message in the source session: re-imported as usage only, no message. */
  orphanUsage?: boolean;
  /** The spec's SessionMessage.tokenUsage. */
  tokenUsage?: { inputTokens: number; outputTokens: number; thinkingTokens?: number; cachedTokens?: number };
  usage?: ExportUsage;
  cost?: { totalUsd: number; [k: string]: unknown };
}

export function isExportHeader(v: Record<string, unknown>): v is ExportHeader & Record<string, unknown> {
  return v.type === HEADER_TYPE && typeof v.sessionId === 'string';
}

export function isExportMessage(v: Record<string, unknown>): v is ExportMessage & Record<string, unknown> {
  return v.type === MESSAGE_TYPE && typeof v.role === 'string';
}
