/**
 * The pure core of the Hermes codec: `sessions`, `messages` and `session_model_usage` rows of `state.db`
 * (and the records of the older per-session JSON logs, mapped onto the same shapes) → events. Token
 * semantics (README.md): Hermes's `CanonicalUsage` (`agent/usage_pricing.py`) keeps `input_tokens`
 * without the cache reads and writes, and `output_tokens` with reasoning (`reasoning_tokens` is "of which").
 */
import { jsonObject } from '../../cursors/sqlite.js';
import type { EventKind, MessageEvent, SessionEvent, SessionfoldEvent, ToolCallEvent, ToolResultEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { parseJsonText } from '../../cursors/core.js';
import { countOrZero } from '../../cursors/sane.js';
import { CODEC_ID } from './descriptor.js';

export { CODEC_ID };

export interface EmitTarget {
  kinds: ReadonlySet<EventKind>;
  emit: (e: SessionfoldEvent) => void;
}

/** The token and cost columns that `sessions` (the session's totals) and `session_model_usage` rows share. */
export interface HermesCounts {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_tokens?: number | null;
  cache_write_tokens?: number | null;
  reasoning_tokens?: number | null;
  estimated_cost_usd?: number | null;
  actual_cost_usd?: number | null;
}

/** A `sessions` row (the columns read; older schemas lack some). */
export interface HermesSessionRow extends HermesCounts {
  id: string;
  source?: string | null;
  model?: string | null;
  model_config?: string | null;
  parent_session_id?: string | null;
  started_at?: number | null;
  cwd?: string | null;
  git_branch?: string | null;
  billing_provider?: string | null;
  title?: string | null;
  ended_at?: number | null;
  last_activity_at?: number | null;
}

/** A `messages` row. */
export interface HermesMessageRow {
  id: number;
  role?: string | null;
  content?: string | null;
  tool_call_id?: string | null;
  tool_calls?: string | null;
  tool_name?: string | null;
  timestamp?: number | null;
  finish_reason?: string | null;
  reasoning?: string | null;
  reasoning_content?: string | null;
  _compressed_summary?: number | null;
}

/** A `session_model_usage` row. */
export interface HermesUsageRow extends HermesCounts {
  _rowid: number;
  model?: string | null;
  billing_provider?: string | null;
  billing_base_url?: string | null;
  billing_mode?: string | null;
  task?: string | null;
  api_call_count?: number | null;
  first_seen?: number | null;
  last_seen?: number | null;
  /** The session's totals less its main-loop rows (`usageRowsOf`), not a row of the table. */
  residual?: boolean;
}

export const count = countOrZero;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const usd = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 1e6 ? v : undefined);

/** Epoch seconds (Hermes's REAL timestamps) as ISO-8601. */
export function isoOfSeconds(s: unknown): string | undefined {
  if (typeof s !== 'number' || !Number.isFinite(s) || s <= 0 || s > 8.64e12) return undefined;
  return new Date(Math.round(s * 1000)).toISOString();
}

/** How a session relates to its `parent_session_id` (README.md "Sessions"). */
export function relationOf(row: Pick<HermesSessionRow, 'source' | 'model_config' | 'parent_session_id'>): 'delegate' | 'branch' | 'reset' | 'continuation' | undefined {
  const cfg = jsonObject(row.model_config);
  if (row.source === 'subagent' || cfg?._delegate_from !== undefined) return 'delegate';
  if (cfg?._branched_from !== undefined) return 'branch';
  if (cfg?._reset_from !== undefined) return 'reset';
  return str(row.parent_session_id) !== undefined ? 'continuation' : undefined;
}

/** Hermes's profile id grammar (`PROFILE_ID_RE` in `hermes_constants.py`). */
export const PROFILE_ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * The named profile a database belongs to: `<root>/profiles/<name>/state.db` gives `name`, as Hermes's
 * `profile_name_for_home` reads a home's path; undefined for the default home (any other place).
 */
export function profileOfDb(db: string): string | undefined {
  const parts = db.split(/[\\/]/);
  const name = parts[parts.length - 2];
  return parts[parts.length - 3] === 'profiles' && name !== undefined && name !== 'default' && PROFILE_ID_RE.test(name) ? name : undefined;
}

/** A session's id as sessionfold shows it: a named profile's sessions carry it, `<profile>:<id>`, so ids of two homes never meet. */
export const sessionIdIn = (profile: string | undefined, id: string): string => (profile === undefined ? id : `${profile}:${id}`);

/** `<profile>:<id>` split back, for `hermes -p <profile> --resume <id>`; no profile for a default-home id. */
export function splitSessionId(id: string): { profile?: string; id: string } {
  const at = id.indexOf(':');
  const profile = at > 0 ? id.slice(0, at) : undefined;
  return profile !== undefined && PROFILE_ID_RE.test(profile) ? { profile, id: id.slice(at + 1) } : { id };
}

export function sessionEvent(row: HermesSessionRow, offset: number, profile?: string): SessionEvent {
  const parent = str(row.parent_session_id);
  const e = sessionEventOf(CODEC_ID, sessionIdIn(profile, row.id), offset, {
    cwd: str(row.cwd) ?? str(jsonObject(row.model_config)?.cwd),
    startedAt: isoOfSeconds(row.started_at),
    title: str(row.title),
    forkedFrom: parent === undefined ? undefined : sessionIdIn(profile, parent),
    subagent: relationOf(row) === 'delegate' || undefined,
    gitBranch: str(row.git_branch),
    model: str(row.model),
    provider: str(row.billing_provider),
  });
  // an extra field, as sessions keep it in raw.sessionEvents
  if (profile !== undefined) (e as SessionEvent & { profile?: string }).profile = profile;
  return e;
}

interface ToolCallJson {
  id?: unknown;
  call_id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

/** The events of one message: a message (user/assistant/system), its tool calls, or a tool result. */
export function emitMessage(m: HermesMessageRow, sessionId: string, calls: unknown, out: EmitTarget): void {
  const ts = isoOfSeconds(m.timestamp);
  if (m.role === 'tool') {
    if (!out.kinds.has('tool_result')) return;
    const e: ToolResultEvent = { type: 'tool_result', agent: CODEC_ID, sessionId, offset: m.id, callId: str(m.tool_call_id) ?? `hermes-${m.id}`, output: m.content ?? '', isError: m.finish_reason === 'error' };
    const name = str(m.tool_name);
    if (name !== undefined) e.toolName = name;
    if (ts !== undefined) e.timestamp = ts;
    out.emit(e);
    return;
  }
  if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'system') return;
  if (out.kinds.has('message')) {
    const e: MessageEvent = { type: 'message', agent: CODEC_ID, sessionId, offset: m.id, role: m.role, text: m.content ?? '' };
    const thinking = str(m.reasoning) ?? str(m.reasoning_content);
    if (thinking !== undefined) e.thinking = thinking;
    if (ts !== undefined) e.timestamp = ts;
    if (m._compressed_summary === 1) e.subtype = 'compaction';
    out.emit(e);
  }
  if (!out.kinds.has('tool_call') || !Array.isArray(calls)) return;
  for (const c of calls as ToolCallJson[]) {
    if (c === null || typeof c !== 'object') continue;
    const callId = str(c.id) ?? str(c.call_id);
    if (callId === undefined) continue;
    const e: ToolCallEvent = { type: 'tool_call', agent: CODEC_ID, sessionId, offset: m.id, callId, name: str(c.function?.name) ?? 'unknown', input: parseJsonText(c.function?.arguments) };
    if (ts !== undefined) e.timestamp = ts;
    out.emit(e);
  }
}

/** `messages.tool_calls` (JSON text) as an array, or undefined. */
export function toolCallsOf(m: HermesMessageRow): unknown {
  if (typeof m.tool_calls !== 'string' || m.tool_calls === '') return undefined;
  try {
    return JSON.parse(m.tool_calls) as unknown;
  } catch {
    return undefined;
  }
}

/** One usage event per `session_model_usage` row (a span of requests: `singleRequest` only for one call). */
export function usageEvent(u: HermesUsageRow, sessionId: string): UsageEvent | undefined {
  const input = count(u.input_tokens);
  const output = count(u.output_tokens);
  const cacheRead = count(u.cache_read_tokens);
  const cacheWrite = count(u.cache_write_tokens);
  const cost = usd(u.actual_cost_usd) ?? usd(u.estimated_cost_usd);
  if (input + output + cacheRead + cacheWrite === 0 && cost === undefined) return undefined;
  const model = str(u.model);
  const key = [u.model, u.billing_provider, u.billing_base_url, u.billing_mode, u.task].map((x) => x ?? '').join('\u0000');
  return usageEventOf(CODEC_ID, sessionId, u._rowid, {
    model,
    provider: str(u.billing_provider),
    // '' rather than usageEventOf's epoch for a row with neither time: what this codec has always emitted.
    timestamp: isoOfSeconds(u.last_seen) ?? isoOfSeconds(u.first_seen) ?? '',
    inputTokens: input,
    outputTokens: output,
    reasoningTokens: Math.min(count(u.reasoning_tokens), output),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    costUsd: cost,
    singleRequest: count(u.api_call_count) === 1,
    // the residual's key has no NUL, so no row's key can equal it
    dedupKey: u.residual === true ? `${CODEC_ID}:${sessionId}:residual` : `${CODEC_ID}:${sessionId}:${key}`,
  });
}

/** The session's own token columns as one usage row, for a database without `session_model_usage` rows. */
export function sessionUsageRow(s: HermesSessionRow): HermesUsageRow {
  return {
    _rowid: 0,
    model: s.model,
    billing_provider: s.billing_provider,
    input_tokens: s.input_tokens,
    output_tokens: s.output_tokens,
    cache_read_tokens: s.cache_read_tokens,
    cache_write_tokens: s.cache_write_tokens,
    reasoning_tokens: s.reasoning_tokens,
    estimated_cost_usd: s.estimated_cost_usd,
    actual_cost_usd: s.actual_cost_usd,
    last_seen: s.last_activity_at ?? s.ended_at ?? s.started_at,
  };
}

const TOKEN_COLUMNS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const;
const COST_COLUMNS = ['estimated_cost_usd', 'actual_cost_usd'] as const;
/** A cost left over by float sums (0.1 + 0.2 − 0.3) is no spend. */
const COST_EPSILON = 1e-9;
const money = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 1e6 ? v : 0);

/**
 * The usage rows a session's events come from (README.md "Tokens and cost"). Without `session_model_usage`
 * rows: the session's own columns. With them: every row, and before them the residual, the `sessions` totals
 * less the main loop's rows (`task` empty) per column, never below zero. Hermes adds each main-loop call to
 * both, sets the `sessions` totals alone on its absolute (gateway) path, and records auxiliary calls (`task`
 * set: titles, compression, vision) in `session_model_usage` alone (`hermes_state_usage.py`).
 */
export function usageRowsOf(s: HermesSessionRow, rows: readonly HermesUsageRow[] | undefined): HermesUsageRow[] {
  if (rows === undefined || rows.length === 0) return [sessionUsageRow(s)];
  const main = rows.filter((r) => (r.task ?? '') === '');
  const residual: HermesUsageRow = { ...sessionUsageRow(s), residual: true };
  let any = false;
  for (const c of TOKEN_COLUMNS) {
    const left = Math.max(0, count(s[c]) - main.reduce((n, r) => n + count(r[c]), 0));
    residual[c] = left;
    if (left > 0) any = true;
  }
  for (const c of COST_COLUMNS) {
    const left = money(s[c]) - main.reduce((n, r) => n + money(r[c]), 0);
    residual[c] = left > COST_EPSILON ? left : 0;
    if (left > COST_EPSILON) any = true;
  }
  return any ? [residual, ...rows] : [...rows];
}
