/**
 * Crush's `crush.db` rows as events: pure, no SQLite here (index.ts reads the rows). README.md has the schema
 * with its sources.
 *
 * A `sessions` row is a session (`title`, `parent_session_id` for a sub-agent's task session, `created_at` in
 * epoch seconds) with the session's running `cost`; its `messages` rows (`role` user | assistant | tool |
 * system, `parts` a JSON array of `{type, data}`: `text`, `reasoning`, `tool_call`, `tool_result`, `finish`,
 * …) are the conversation. Crush keeps no per-request usage: `prompt_tokens` / `completion_tokens` are
 * overwritten with each step's context size, so they are not a total and are not read as one.
 */
import { parseJsonText, type Emit } from '../../cursors/core.js';
import type { MessageRole, SessionEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { MAX_RECORD_USD } from '../../cursors/sane.js';
import { CODEC_ID } from './paths.js';
import { epochTime, rec } from '../../cursors/json-value.js';

export type Row = Record<string, unknown>;
type Rec = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** An epoch time in seconds (Crush's columns) or milliseconds as ISO-8601 (cursors/json-value.ts `epochTime`). */
export const epochIso = epochTime;

/** The session event of a `sessions` row: every Crush session's tokens are unrecorded (`usageUnknown`). */
export function sessionEvent(row: Row, cwd: string | undefined, model: string | undefined, provider: string | undefined): SessionEvent | undefined {
  const id = str(row.id);
  if (id === undefined) return undefined;
  const parent = str(row.parent_session_id);
  return sessionEventOf(CODEC_ID, id, 0, { cwd, startedAt: epochIso(row.created_at), title: str(row.title), forkedFrom: parent, subagent: parent !== undefined || undefined, model, provider, usageUnknown: true });
}

/** `parts` as its `{type, data}` items; undefined when it is not a JSON array. */
function partsOf(v: unknown): { type: string; data: Rec }[] | undefined {
  let parts: unknown;
  try {
    parts = JSON.parse(typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : '');
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts)) return undefined;
  return parts.map(rec).flatMap((p) => (p !== undefined && typeof p.type === 'string' ? [{ type: p.type, data: rec(p.data) ?? {} }] : []));
}

const ROLES: readonly string[] = ['user', 'assistant', 'system'];

/**
 * The events of one `messages` row at `offset` (its place in the session): a message of its text and
 * reasoning parts, then its tool calls and results. False when `parts` is not a JSON array (a skipped record).
 */
export function messageEvents(sessionId: string, row: Row, offset: number, emit: Emit): boolean {
  const parts = partsOf(row.parts);
  if (parts === undefined) return false;
  const timestamp = epochIso(row.created_at);
  const base = { agent: CODEC_ID, sessionId, offset, ...(timestamp !== undefined && { timestamp }) };
  const role = String(row.role);
  const text = parts.filter((p) => p.type === 'text' && typeof p.data.text === 'string').map((p) => p.data.text as string).join('\n\n');
  const thinking = parts.filter((p) => p.type === 'reasoning' && typeof p.data.thinking === 'string' && p.data.thinking !== '').map((p) => p.data.thinking as string).join('\n\n');
  if (ROLES.includes(role) && (text !== '' || thinking !== '')) {
    const model = role === 'assistant' ? str(row.model) : undefined;
    const summary = row.is_summary_message === 1 || row.is_summary_message === 1n;
    emit({ type: 'message', ...base, role: role as MessageRole, text, ...(thinking !== '' && { thinking }), ...(model !== undefined && { model }), ...(str(row.id) !== undefined && { nativeId: str(row.id) }), ...(summary && { subtype: 'summary' }) });
  }
  for (const p of parts) {
    if (p.type === 'tool_call') emit({ type: 'tool_call', ...base, callId: str(p.data.id) ?? '', name: str(p.data.name) ?? '', input: parseJsonText(p.data.input) });
    else if (p.type === 'tool_result') emit({ type: 'tool_result', ...base, callId: str(p.data.tool_call_id) ?? '', toolName: str(p.data.name) ?? '', output: p.data.content ?? null, isError: p.data.is_error === true });
  }
  return true;
}

/**
 * The usage event of a top-level session: no tokens (Crush keeps no total of them) and `costUsd`, the session's
 * running `cost`, into which Crush also adds its sub-agents' costs, at `lastTime` (its last message's; the row's
 * `updated_at` moves with every update of the row, a title or a message count). Undefined for a sub-agent's session (its
 * cost is in its parent's) and for a cost of 0 (no priced request); 'bad' for a cost that is not a sane amount.
 */
export function usageEvent(row: Row, offset: number, lastTime: string | undefined, model: string | undefined, provider: string | undefined): UsageEvent | 'bad' | undefined {
  const id = str(row.id);
  if (id === undefined || str(row.parent_session_id) !== undefined) return undefined;
  const cost = typeof row.cost === 'bigint' ? Number(row.cost) : row.cost;
  if (cost === 0 || cost === null || cost === undefined) return undefined;
  if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0 || cost > MAX_RECORD_USD) return 'bad';
  return usageEventOf(CODEC_ID, id, offset, {
    model,
    provider,
    timestamp: lastTime ?? epochIso(row.created_at),
    costUsd: cost,
    singleRequest: false,
    dedupKey: `${CODEC_ID}:${id}`,
  });
}
