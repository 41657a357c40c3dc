/**
 * The on-disk records of a pi session file (badlogic/pi-mono `packages/coding-agent/src/core/session-manager.ts`,
 * messages from `packages/ai/src/types.ts`), the shape omp and OpenClaw write too, and the small value checks
 * the core applies to them. Only the fields the codec reads are typed; every record is read defensively.
 */
import { countOrZero } from '../../cursors/sane.js';

export type Json = Record<string, unknown>;

/** Line 1: `{type:"session", version?, id, timestamp, cwd, parentSession?}`; v1 adds provider/modelId, omp a title. */
export interface PiHeader {
  type: 'session';
  /** 3 today; absent in v1 files. */
  version?: number;
  id: string;
  timestamp?: string;
  cwd?: string;
  /** The parent session's file path, when forked. */
  parentSession?: string;
  /** omp only. */
  title?: string;
  /** Prime Agent: how deep in the RLM tree the session was spawned (0 for a root session). */
  rlmDepth?: number;
  /** v1 only: the model the session started with. */
  provider?: string;
  modelId?: string;
}

/** Every later line: `{type, id, parentId, timestamp}` plus its type's fields. v1 lines have no id/parentId. */
export interface PiEntry {
  type: string;
  id?: string;
  parentId?: string | null;
  timestamp?: string;
  [field: string]: unknown;
}

/** `Usage` of `packages/ai/src/types.ts`: `input` is the uncached prompt, `output` includes reasoning. */
export interface PiUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  totalTokens?: number;
  cost?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; total?: number };
  /** gajae-code (from omp): reasoning tokens, part of `output`. */
  reasoningTokens?: number;
  /** gajae-code: Anthropic's cache writes by lifetime, parts of `cacheWrite`. */
  cttl?: { ephemeral5m?: number; ephemeral1h?: number };
  /** gajae-code: server-side tool calls (requests, not tokens). */
  server?: { webSearch?: number; webFetch?: number };
}

/** A plain JSON object (not null, not an array), or undefined. */
export function asObject(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

/** A non-empty string, or undefined. */
export function asString(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** Largest USD amount one response is taken to cost. */
export const MAX_USD = 1e5;

/** A sane token count (cursors/sane.ts); anything else counts as 0. */
export const tokenCount = countOrZero;

/** True when a present value is not a sane token count (the whole usage is then distrusted). */
export function isBadCount(v: unknown): boolean {
  return v !== undefined && v !== null && tokenCount(v) === 0 && v !== 0;
}

/** A sane USD amount (finite, non-negative, at most MAX_USD), or undefined. */
export function usdAmount(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_USD ? v : undefined;
}

/** The ISO timestamp as written when it parses as a date, else undefined. */
export function isoTimestamp(v: unknown): string | undefined {
  return typeof v === 'string' && v.length >= 10 && !Number.isNaN(Date.parse(v)) ? v : undefined;
}


/** The header record, when the line is one (`type:"session"` with a string id). */
export function asHeader(rec: Json): PiHeader | undefined {
  return rec.type === 'session' && typeof rec.id === 'string' ? (rec as unknown as PiHeader) : undefined;
}
