/**
 * Record types of a GitHub Copilot CLI session log (`~/.copilot/session-state/<id>/events.jsonl`, older builds
 * `~/.copilot/session-state/<id>.jsonl`). One line is one session event, an envelope
 * `{type, data, id, timestamp, parentId, ephemeral?, agentId?}` (github/copilot-sdk
 * `nodejs/src/generated/session-events.ts`, generated from `session-events.schema.json`). Only the fields this
 * codec reads are typed; every record is checked with the small guards below before use, and unknown types are
 * skipped: the schema holds over a hundred event types and grows freely.
 */
import { countOrZero } from '../../cursors/sane.js';

/** The `type` values this codec reads. */
export const TYPE = {
  start: 'session.start',
  resume: 'session.resume',
  modelChange: 'session.model_change',
  shutdown: 'session.shutdown',
  compactionComplete: 'session.compaction_complete',
  userMessage: 'user.message',
  systemMessage: 'system.message',
  assistantMessage: 'assistant.message',
  assistantReasoning: 'assistant.reasoning',
  turnStart: 'assistant.turn_start',
  toolStart: 'tool.execution_start',
  toolComplete: 'tool.execution_complete',
} as const;

export type Json = Record<string, unknown>;

/** The envelope of every line. */
export interface CopilotEnvelope {
  type: string;
  data?: Json;
  /** UUID v4 of the event (sanitized fixtures hold placeholders). */
  id?: string;
  /** ISO 8601. */
  timestamp?: string;
  parentId?: string | null;
  /** Transient events (`assistant.usage`, `session.title_changed`) are not written to disk. */
  ephemeral?: boolean;
  /** Subagent instance id; absent for the main agent. */
  agentId?: string;
}

/** `session.start` / `session.resume` `data.context`. */
export interface CopilotContext {
  cwd?: string;
  gitRoot?: string;
  repository?: string;
  branch?: string;
}

/** `session.shutdown` `data.modelMetrics[model]`. */
export interface CopilotModelMetric {
  /** `count` requests; `cost` is the premium-request multiplier sum, not money. Older builds: a bare number. */
  requests?: { count?: number; cost?: number } | number;
  usage?: {
    /** Gross: cache reads and writes included. */
    inputTokens?: number;
    outputTokens?: number;
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
    /** Of outputTokens. */
    reasoningTokens?: number;
  };
}

/** `session.shutdown` `data.tokenDetails[kind]` (kinds `input`, `output`, `cache_read`, `cache_write`). */
export interface CopilotTokenDetail {
  tokenCount?: number;
}

/** A JSON object (not an array), else undefined. */
export function asObject(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

/** A non-empty string, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** Larger than any session's token count: a value above it is damage, not usage. */
/** A token count (cursors/sane.ts): a bad value counts as 0, so damage never reaches a total. */
export const count = countOrZero;

/** The timestamp when it parses as a date; sanitized fixtures hold placeholders like `[trimmed for fixture]`. */
export function timestampOf(v: unknown): string | undefined {
  return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? v : undefined;
}
