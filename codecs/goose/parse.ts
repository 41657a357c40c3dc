/**
 * Goose's `sessions.db` rows as events: pure, no SQLite here (index.ts reads the rows). README.md has the
 * schema with its sources.
 *
 * A `sessions` row is one session (`working_dir`, `name`, `created_at`, `session_type`, the model in
 * `model_config_json.model_name` with `provider_name`, the token counts, `accumulated_cost`); its `messages`
 * rows in id order are the conversation: `role` user | assistant, `content_json` an array of Goose
 * `MessageContent` blocks (`text`, `thinking`, `toolRequest`, `toolResponse`, …), `created_timestamp` in
 * epoch seconds. Tool results travel on `user` rows. Usage is per session only: one usage event from the
 * accumulated counts (else the last ones), `singleRequest: false`.
 */
import type { Emit } from '../../cursors/core.js';
import type { MessageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { isSaneCount } from '../../cursors/sane.js';

export type Row = Record<string, unknown>;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

const SQL_TIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)\s*(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A `TIMESTAMP` column as ISO-8601: SQLite's `CURRENT_TIMESTAMP` text (UTC, no zone), sqlx's
 * `2025-01-02 03:04:05.123+00:00`, or epoch seconds / milliseconds; undefined when it is none of them.
 */
export function sqlTime(v: unknown): string | undefined {
  let ms: number;
  if (typeof v === 'number' || typeof v === 'bigint') {
    const n = Number(v);
    ms = n < 1e11 ? n * 1000 : n;
  } else if (typeof v === 'string') {
    const m = SQL_TIME.exec(v.trim());
    ms = m ? Date.parse(`${m[1]}T${m[2]}${m[3] ?? 'Z'}`) : NaN;
  } else return undefined;
  // after 2000, before 2200
  return Number.isFinite(ms) && ms >= 946_684_800_000 && ms <= 7_258_118_400_000 ? new Date(Math.trunc(ms)).toISOString() : undefined;
}

/** A token count that may reach a total (cursors/sane.ts); undefined when absent or not a sane count. */
export function count(v: unknown): number | undefined {
  const n = typeof v === 'bigint' ? Number(v) : v;
  return typeof n === 'number' && isSaneCount(n) ? n : undefined;
}

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
}

/** The model a session names in `model_config_json` (`model_name`), if any. */
export function sessionModel(row: Row): string | undefined {
  const cfg = parseJson(row.model_config_json);
  return isObject(cfg) ? str(cfg.model_name) : undefined;
}

/** A tool result's content as text when it is text items, else as given. */
function resultOutput(result: unknown): { output: unknown; isError: boolean } {
  if (!isObject(result)) return { output: null, isError: false };
  if (result.status === 'error') return { output: result.error ?? null, isError: true };
  const value = result.value;
  const items = Array.isArray(value) ? value : isObject(value) ? value.content : undefined;
  const isError = isObject(value) && value.isError === true;
  if (Array.isArray(items) && items.length > 0 && items.every((c) => isObject(c) && c.type === 'text' && typeof c.text === 'string')) {
    return { output: items.map((c) => (c as { text: string }).text).join('\n'), isError };
  }
  return { output: items ?? value ?? null, isError };
}

export interface GooseCounts {
  /** Message rows whose `content_json` is not a JSON array, and token counts that are not sane. */
  skipped: number;
}

/** State of one session's read: the names of its tool calls (a result names only the call id). */
export interface SessionState {
  sessionId: string;
  toolNames: Map<string, string>;
  lastTime: string | undefined;
}

export function newSessionState(sessionId: string): SessionState {
  return { sessionId, toolNames: new Map(), lastTime: undefined };
}

/** The session event of a `sessions` row. */
export function sessionEvent(row: Row, offset: number, emit: Emit): SessionState | undefined {
  const id = str(row.id);
  if (id === undefined) return undefined;
  const startedAt = sqlTime(row.created_at);
  const title = str(row.name) ?? str(row.description);
  const cwd = str(row.working_dir);
  const model = sessionModel(row);
  const provider = str(row.provider_name);
  const subagent = row.session_type === 'sub_agent' || undefined;
  emit(sessionEventOf(CODEC_ID, id, offset, { cwd, startedAt, title, subagent, model, provider }));
  return newSessionState(id);
}

/** The events of one `messages` row. */
export function messageEvents(s: SessionState, row: Row, offset: number, model: string | undefined, emit: Emit, counts: GooseCounts): void {
  const blocks = parseJson(row.content_json);
  if (!Array.isArray(blocks)) {
    counts.skipped++;
    return;
  }
  const role = row.role === 'assistant' ? 'assistant' : 'user';
  const created = count(row.created_timestamp);
  const timestamp = sqlTime(created) ?? sqlTime(row.timestamp);
  if (timestamp !== undefined) s.lastTime = timestamp;
  const nativeId = str(row.message_id) ?? `msg_${s.sessionId}_${String(row.id)}`;
  const base = { agent: CODEC_ID, sessionId: s.sessionId, offset };
  const ts = timestamp !== undefined ? { timestamp } : {};
  const texts: string[] = [];
  const thinking: string[] = [];
  const tools: (() => void)[] = [];
  for (const b of blocks) {
    if (!isObject(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
    else if (b.type === 'thinking' && typeof b.thinking === 'string') thinking.push(b.thinking);
    else if ((b.type === 'toolRequest' || b.type === 'frontendToolRequest') && typeof b.id === 'string') {
      const call = isObject(b.toolCall) ? b.toolCall : {};
      const value = isObject(call.value) ? call.value : {};
      const name = str(value.name) ?? '';
      const callId = b.id;
      s.toolNames.set(callId, name);
      tools.push(() => emit({ type: 'tool_call', ...base, callId, name, input: call.status === 'error' ? { error: call.error ?? null } : (value.arguments ?? null), ...ts, messageId: nativeId }));
    } else if (b.type === 'toolResponse' && typeof b.id === 'string') {
      const callId = b.id;
      const { output, isError } = resultOutput(b.toolResult);
      const toolName = s.toolNames.get(callId);
      tools.push(() => emit({ type: 'tool_result', ...base, callId, ...(toolName !== undefined && { toolName }), output, isError, ...ts }));
    }
  }
  if (texts.length > 0 || thinking.length > 0) {
    const meta = parseJson(row.metadata_json);
    const hidden = isObject(meta) && meta.userVisible === false;
    const m: MessageEvent = {
      type: 'message',
      ...base,
      role,
      text: texts.join('\n\n'),
      ...(thinking.length > 0 && { thinking: thinking.join('\n\n') }),
      ...ts,
      ...(role === 'assistant' && model !== undefined && { model }),
      nativeId,
      ...(hidden && { subtype: 'agent-only' }),
    };
    emit(m);
  }
  for (const t of tools) t();
}

/** The session's one usage event: accumulated counts, else the last turn's; none when neither is recorded. */
export function usageEvent(s: SessionState, row: Row, offset: number, emit: Emit, counts: GooseCounts): void {
  const pick = (acc: string, last: string): number | undefined => {
    const raw = row[acc] ?? row[last];
    const n = count(raw);
    if (raw !== null && raw !== undefined && n === undefined) counts.skipped++;
    return n;
  };
  const input = pick('accumulated_input_tokens', 'input_tokens');
  const output = pick('accumulated_output_tokens', 'output_tokens');
  if (input === undefined && output === undefined) return;
  const model = sessionModel(row);
  const provider = str(row.provider_name);
  const cost = typeof row.accumulated_cost === 'number' && Number.isFinite(row.accumulated_cost) && row.accumulated_cost >= 0 ? row.accumulated_cost : undefined;
  emit(
    usageEventOf(CODEC_ID, s.sessionId, offset, {
      model,
      provider,
      timestamp: sqlTime(row.updated_at) ?? s.lastTime ?? sqlTime(row.created_at),
      inputTokens: input,
      outputTokens: output,
      costUsd: cost,
      singleRequest: false,
      dedupKey: `${CODEC_ID}:${s.sessionId}`,
    }),
  );
}
