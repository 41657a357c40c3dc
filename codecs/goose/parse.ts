/**
 * Goose's `sessions.db` rows as events: pure, no SQLite here (db.ts reads the rows). README.md has the
 * schema with its sources.
 *
 * A `sessions` row is one session (`working_dir`, `name`, `created_at`, `session_type`, `parent_session_id`,
 * the model in `model_config_json.model_name` with `provider_name`, the token counts, `accumulated_cost`); its
 * `messages` rows in id order are the conversation: `role` user | assistant, `content_json` an array of Goose
 * `MessageContent` blocks (`text`, `thinking`, `toolRequest`, `toolResponse`, …), `created_timestamp` in
 * epoch seconds. Tool results travel on `user` rows. Usage: one event per provider call from the session's
 * `usage_ledger` rows (schema 15 on), and what Goose's totals hold beyond them; a session without ledger rows,
 * one event from its accumulated totals. Goose's `input_tokens` include the cache reads and writes, which
 * the events book apart (README.md, "Token semantics").
 */
import type { Emit } from '../../cursors/core.js';
import type { MessageEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { isSaneCount, MAX_RECORD_USD } from '../../cursors/sane.js';

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
 * `2025-01-02 03:04:05.123+00:00`, or epoch seconds / milliseconds (also as digits in text, what
 * `strftime('%s','now')` gives); undefined when it is none of them.
 */
export function sqlTime(v: unknown): string | undefined {
  let ms: number;
  const epoch = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof epoch === 'number' || typeof epoch === 'bigint') {
    const n = Number(epoch);
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
  const forkedFrom = str(row.parent_session_id);
  emit(sessionEventOf(CODEC_ID, id, offset, { cwd, startedAt, title, forkedFrom, subagent, model, provider }));
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

/**
 * Token counts as Goose keeps them, in `sessions` and `usage_ledger` alike: `input` holds the cache reads and
 * writes (Goose folds an Anthropic-style cache-exclusive count into it, `Usage::from_cache_exclusive_input`,
 * and prices `input − read − write` as uncached, `Pricing::estimate_cost`; README.md, "Token semantics").
 */
interface GooseTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const NO_TOKENS: GooseTokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/** Goose's counts as the protocol's, which never overlap: the cache reads and writes taken out of the input. */
function splitTokens(t: GooseTokens): { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number } {
  return { inputTokens: Math.max(t.input - t.cacheRead - t.cacheWrite, 0), outputTokens: t.output, cacheReadTokens: t.cacheRead, cacheWriteTokens: t.cacheWrite };
}

/**
 * The session's totals: the accumulated counts, each falling back to the last turn's column when NULL, and
 * the cache columns (schema 14) of the same kind as the input taken; a count that is not sane is counted
 * and left at 0. Undefined when neither input nor output is recorded.
 */
function sessionTotals(row: Row, counts: GooseCounts): GooseTokens | undefined {
  const one = (column: string): number | undefined => {
    const raw = row[column];
    const n = count(raw);
    if (raw !== null && raw !== undefined && n === undefined) counts.skipped++;
    return n;
  };
  const pick = (acc: string, last: string): number | undefined => one(row[acc] == null ? last : acc);
  const input = pick('accumulated_input_tokens', 'input_tokens');
  const output = pick('accumulated_output_tokens', 'output_tokens');
  if (input === undefined && output === undefined) return undefined;
  const acc = row.accumulated_input_tokens == null ? '' : 'accumulated_';
  return { input: input ?? 0, output: output ?? 0, cacheRead: one(`${acc}cache_read_tokens`) ?? 0, cacheWrite: one(`${acc}cache_write_tokens`) ?? 0 };
}

/** One `usage_ledger` row (schema 15): one provider call, or a `carried_forward` span of earlier ones. */
interface LedgerEntry {
  id: number;
  tokens: GooseTokens;
  model: string | undefined;
  timestamp: string | undefined;
  /** The call's cost, kept only when the provider reported it (`cost_source = 'provider_reported'`). */
  costUsd: number | undefined;
  /** A `carried_forward` row: what the session's totals held before its ledger began, many calls. */
  span: boolean;
}

const LEDGER_COUNTS = [
  ['input', 'input_tokens'],
  ['output', 'output_tokens'],
  ['cacheRead', 'cache_read_tokens'],
  ['cacheWrite', 'cache_write_tokens'],
] as const;

/**
 * A ledger row as an entry; undefined, and counted, when any count it carries (or the provider cost it is
 * taken with) is not sane: the row is refused whole, as a record with an absurd value is everywhere
 * (cursors/sane.ts). A row without a token or a cost is no spend and gives nothing, uncounted.
 */
function ledgerEntry(r: Row, counts: GooseCounts): LedgerEntry | undefined {
  const id = count(r.id);
  const tokens: GooseTokens = { ...NO_TOKENS };
  let bad = id === undefined;
  for (const [field, column] of LEDGER_COUNTS) {
    const raw = r[column];
    if (raw === null || raw === undefined) continue;
    const n = count(raw);
    if (n === undefined) bad = true;
    else tokens[field] = n;
  }
  let costUsd: number | undefined;
  if (r.cost_source === 'provider_reported' && r.cost !== null && r.cost !== undefined) {
    const c = r.cost;
    if (typeof c === 'number' && Number.isFinite(c) && c >= 0 && c <= MAX_RECORD_USD) costUsd = c;
    else bad = true;
  }
  if (bad || id === undefined) {
    counts.skipped++;
    return undefined;
  }
  if (tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite === 0 && costUsd === undefined) return undefined;
  return { id, tokens, model: str(r.model), timestamp: sqlTime(r.created_timestamp), costUsd, span: r.cost_source === 'carried_forward' };
}

/** A usage event of the session's own counts (its totals, or what they hold beyond the ledger). */
function totalsEvent(s: SessionState, row: Row, tokens: GooseTokens, costUsd: number | undefined, offset: number): UsageEvent {
  return usageEventOf(CODEC_ID, s.sessionId, offset, {
    model: sessionModel(row),
    provider: str(row.provider_name),
    timestamp: sqlTime(row.updated_at) ?? s.lastTime ?? sqlTime(row.created_at),
    ...splitTokens(tokens),
    costUsd,
    singleRequest: false,
    dedupKey: `${CODEC_ID}:${s.sessionId}`,
  });
}

/**
 * The session's usage events. With `usage_ledger` rows (`ledger`, in id order; none before schema 15): one
 * event per row, its own model (the session's, marked as a fallback, where the row names none), time and
 * provider-reported cost, compaction calls included (they are spend); then one event of what the session's
 * totals hold beyond the rows' sums, field by field, if anything (Goose's own `get_session_usage_totals`
 * takes the larger of the two per field; its next call books that rest as a `carried_forward` row). Without
 * any: one event of the session's totals (accumulated counts, else the last turn's) with `accumulated_cost`,
 * as before the ledger. Never both: a session's totals count once.
 */
export function usageEvents(s: SessionState, row: Row, ledger: readonly Row[] | undefined, offset: number, emit: Emit, counts: GooseCounts): void {
  const totals = sessionTotals(row, counts);
  if (ledger === undefined || ledger.length === 0) {
    if (totals === undefined) return;
    const cost = typeof row.accumulated_cost === 'number' && Number.isFinite(row.accumulated_cost) && row.accumulated_cost >= 0 ? row.accumulated_cost : undefined;
    emit(totalsEvent(s, row, totals, cost, offset));
    return;
  }
  const model = sessionModel(row);
  const provider = str(row.provider_name);
  const sum: GooseTokens = { ...NO_TOKENS };
  for (const r of ledger) {
    const e = ledgerEntry(r, counts);
    if (e === undefined) continue;
    for (const [field] of LEDGER_COUNTS) sum[field] += e.tokens[field];
    emit(
      usageEventOf(CODEC_ID, s.sessionId, e.id, {
        model: e.model ?? model,
        modelFallback: e.model === undefined,
        provider,
        timestamp: e.timestamp ?? s.lastTime ?? sqlTime(row.updated_at),
        ...splitTokens(e.tokens),
        costUsd: e.costUsd,
        singleRequest: !e.span,
        dedupKey: `${CODEC_ID}:${s.sessionId}:${e.id}`,
      }),
    );
  }
  if (totals === undefined) return;
  const rest: GooseTokens = { ...NO_TOKENS };
  for (const [field] of LEDGER_COUNTS) rest[field] = Math.max(totals[field] - sum[field], 0);
  if (rest.input + rest.output + rest.cacheRead + rest.cacheWrite > 0) emit(totalsEvent(s, row, rest, undefined, offset));
}
