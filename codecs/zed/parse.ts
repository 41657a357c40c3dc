/**
 * A `threads` row of Zed's `threads.db` as events: pure, no SQLite here (index.ts reads the rows). README.md
 * has the schema, the thread format and the token rules, with their sources.
 *
 * The row's `data` is the thread, serde JSON, zstd-compressed when `data_type` is `zstd` (level 3,
 * `zstd::encode_all`; every save since the SQLite store), plain when `json` (rows migrated from the LMDB
 * store) or `thread-v1` (the first SQLite writer's name for plain JSON).
 *
 * Tokens: `cumulative_token_usage` is the thread's total over every request where Zed keeps one (the first
 * agent, and the current one since `accumulate_token_usage`); `request_token_usage` holds, per user message,
 * the usage of the LAST request of that turn only (`update_token_usage` overwrites it on each request), so
 * its sum misses every earlier request of a turn that ran tools. Hence one event of the total when the total
 * is recorded, else one event per turn, the session marked `usageUnknown` when a turn ran more than one
 * request. Never both.
 */
import type { Emit } from '../../cursors/core.js';
import type { SessionEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { decompressZstdBytes } from '../../cursors/read-zstd.js';
import { isSaneCount } from '../../cursors/sane.js';
import { isLegacyThread, type ThreadMessage } from './messages.js';
import { CODEC_ID } from './paths.js';
import { rec } from '../../cursors/json-value.js';

export type Row = Record<string, unknown>;
type Rec = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** `language_model::TokenUsage`: four disjoint counts (its `total_tokens()` adds all four). */
export interface ZedTokens {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

const total = (t: ZedTokens): number => t.input + t.output + t.cacheWrite + t.cacheRead;

/** A `TokenUsage` object; undefined when absent or not an object, 'bad' when a count is not a sane one. */
export function tokensOf(v: unknown): ZedTokens | 'bad' | undefined {
  const r = rec(v);
  if (r === undefined) return undefined;
  const count = (k: string): number | undefined => {
    const n = r[k] ?? 0;
    return typeof n === 'number' && isSaneCount(n) ? n : undefined;
  };
  const t = { input: count('input_tokens'), output: count('output_tokens'), cacheWrite: count('cache_creation_input_tokens'), cacheRead: count('cache_read_input_tokens') };
  if (t.input === undefined || t.output === undefined || t.cacheWrite === undefined || t.cacheRead === undefined) return 'bad';
  return t as ZedTokens;
}

/** The thread JSON of a row; undefined for a blob that does not decode (the row is skipped and counted). */
export function decodeThread(row: Row, maxBytes: number): Rec | undefined {
  const kind = typeof row.data_type === 'string' ? row.data_type.trim().toLowerCase() : '';
  const data = row.data;
  const bytes = Buffer.isBuffer(data) ? data : typeof data === 'string' ? Buffer.from(data, 'utf8') : undefined;
  if (bytes === undefined) return undefined;
  let text: Buffer | undefined;
  if (kind === 'zstd') text = decompressZstdBytes(bytes, maxBytes);
  else if (kind === 'json' || kind === 'thread-v1') text = bytes.length <= maxBytes ? bytes : undefined;
  if (text === undefined) return undefined;
  try {
    return rec(JSON.parse(text.toString('utf8')));
  } catch {
    return undefined;
  }
}

/**
 * An ISO-8601 time from Zed's RFC 3339 text (`2026-10-03T09:01:05.123456789+00:00`: chrono's nanoseconds,
 * which `Date` does not take, are cut to milliseconds); undefined when it is not one.
 */
export function isoOf(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/**
 * The workspace folder a thread ran in: of `folder_paths` (Zed's `PathList`, paths joined by newlines) the
 * one `folder_paths_order` (their original positions, comma-joined) puts first; undefined when none.
 */
export function cwdOf(paths: unknown, order: unknown): string | undefined {
  if (typeof paths !== 'string') return undefined;
  const list = paths.split('\n').map((p) => p.trim());
  const positions = typeof order === 'string' ? order.split(',').map((o) => Number.parseInt(o.trim(), 10)) : [];
  let best = 0;
  positions.forEach((p, i) => {
    const cur = positions[best];
    if (i < list.length && Number.isInteger(p) && (cur === undefined || !Number.isInteger(cur) || p < cur)) best = i;
  });
  return str(list[best]) ?? list.find((p) => p !== '');
}

/**
 * A model id as the price data names it. Zed saved the model's display name before it saved its id
 * (`model.name()` then `model.id()` in `Thread::to_db`), and its ids carry variant suffixes no price list has:
 * `Claude Sonnet 4 Thinking` and `claude-sonnet-4-thinking-latest` both become `claude-sonnet-4`; Claude's
 * version dots become dashes (`Claude 3.7 Sonnet` is `claude-3-7-sonnet`), others keep theirs (`gpt-4.1`).
 */
export function priceModel(raw: string): string {
  let m = raw.trim().toLowerCase().replace(/\s+/g, '-');
  m = m.replace(/-latest$/, '').replace(/-thinking$/, '');
  if (m.startsWith('claude')) m = m.replace(/(\d)\.(\d)/g, '$1-$2');
  return m;
}

/** One turn's recorded usage: the user message it is keyed by, and whether that turn ran tools. */
interface Turn {
  id: string;
  tokens: ZedTokens;
  ranTools: boolean;
}

/** The user messages' turns: whether each ran tools (then it made more than one request). */
function turnShapes(messages: readonly ThreadMessage[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  let current: string | undefined;
  for (const m of messages) {
    if (m.role === 'user' && m.id !== undefined) {
      current = m.id;
      out.set(current, false);
    } else if (m.role === 'assistant' && current !== undefined && m.toolUses.length > 0) out.set(current, true);
  }
  return out;
}

/**
 * `request_token_usage` as `[user message id, usage]` pairs: the map of 0.3.0; the first agent's list indexed
 * by message, mapped to turns as Zed's own upgrade does (`DbThread::upgrade_from_agent_1`: each assistant
 * message's entry replaces its turn's). 'bad' when a count is absurd.
 */
function recordedTurns(thread: Rec): [string, unknown][] {
  const usage = thread.request_token_usage;
  if (!isLegacyThread(thread)) return Object.entries(rec(usage) ?? {});
  const list = Array.isArray(usage) ? usage : [];
  const byTurn = new Map<string, unknown>();
  let user: string | undefined;
  (Array.isArray(thread.messages) ? thread.messages : []).forEach((item, ix) => {
    const m = rec(item);
    if (m?.role === 'user') user = String(m.id);
    else if (m?.role === 'assistant' && user !== undefined && list[ix] !== undefined) byTurn.set(user, list[ix]);
  });
  return [...byTurn];
}

/**
 * What a thread records of its tokens (see the header); `bad`: records refused as absurd. `short`: the total
 * is below its turns' sum, so it missed requests (a thread saved with a zero total before
 * `accumulate_token_usage` counts only from its first save after it); each turn's entry is one of that turn's
 * requests, all of them in a whole total.
 */
export interface ThreadUsage {
  cumulative: ZedTokens | undefined;
  turns: Turn[];
  bad: number;
  short: boolean;
}

export function threadUsage(thread: Rec, messages: readonly ThreadMessage[]): ThreadUsage {
  const shapes = turnShapes(messages);
  let bad = 0;
  const cum = tokensOf(thread.cumulative_token_usage);
  if (cum === 'bad') bad++;
  const turns: Turn[] = [];
  for (const [id, v] of recordedTurns(thread)) {
    const t = tokensOf(v);
    if (t === 'bad') bad++;
    else if (t !== undefined && total(t) > 0) turns.push({ id, tokens: t, ranTools: shapes.get(id) === true });
  }
  // message order; a turn whose user message is gone goes last
  const order = new Map([...shapes.keys()].map((id, i) => [id, i]));
  const rank = (id: string) => order.get(id) ?? order.size;
  turns.sort((a, b) => rank(a.id) - rank(b.id));
  const cumulative = cum === 'bad' || cum === undefined || total(cum) === 0 ? undefined : cum;
  const short = cumulative !== undefined && total(cumulative) < turns.reduce((n, t) => n + total(t.tokens), 0);
  return { cumulative, turns, bad, short };
}

/** The usage events of a thread (never the total and the turns both), at the thread's last save, after its `after` messages. */
export function usageEvents(threadId: string, usage: ThreadUsage, after: number, model: string | undefined, provider: string | undefined, timestamp: string | undefined): UsageEvent[] {
  const event = (t: ZedTokens, offset: number, single: boolean, key: string, messageId?: string) =>
    usageEventOf(CODEC_ID, threadId, offset, {
      model,
      provider,
      timestamp,
      inputTokens: t.input,
      outputTokens: t.output,
      cacheReadTokens: t.cacheRead,
      cacheWriteTokens: t.cacheWrite,
      singleRequest: single,
      dedupKey: key,
      messageId,
    });
  if (usage.cumulative !== undefined) return [event(usage.cumulative, after + 1, false, `${CODEC_ID}:${threadId}`)];
  return usage.turns.map((t, i) => event(t.tokens, after + 1 + i, true, `${CODEC_ID}:${threadId}:${t.id}`, t.id));
}

/** The session event of a row and its thread. */
export function sessionEvent(row: Row, thread: Rec, usage: ThreadUsage, messages: readonly ThreadMessage[], model: string | undefined, provider: string | undefined): SessionEvent | undefined {
  const id = str(row.id);
  if (id === undefined) return undefined;
  const parent = str(row.parent_id) ?? str(rec(thread.subagent_context)?.parent_thread_id);
  const imported = thread.imported === true;
  // No total, and a turn that ran tools, or answers without any usage; or a total short of its turns: what is
  // recorded is a lower bound.
  const partial = usage.short || (usage.cumulative === undefined && (usage.turns.some((t) => t.ranTools) || (usage.turns.length === 0 && !imported && messages.some((m) => m.role === 'assistant'))));
  return sessionEventOf(CODEC_ID, id, 0, {
    cwd: cwdOf(row.folder_paths, row.folder_paths_order),
    startedAt: isoOf(row.created_at) ?? isoOf(row.updated_at) ?? isoOf(thread.updated_at),
    title: str(row.summary) ?? str(thread.title) ?? str(thread.summary),
    version: str(thread.version),
    forkedFrom: parent,
    subagent: parent !== undefined || undefined,
    model,
    provider,
    usageUnknown: partial || undefined,
  });
}

/** The message, tool call and tool result events of a thread's messages; a message's offset is its place. */
export function messageEvents(threadId: string, messages: readonly ThreadMessage[], model: string | undefined, emit: Emit): void {
  messages.forEach((m, i) => {
    const base = { agent: CODEC_ID, sessionId: threadId, offset: i + 1 };
    if (m.text !== '' || m.thinking !== '') {
      emit({ type: 'message', ...base, role: m.role, text: m.text, ...(m.thinking !== '' && { thinking: m.thinking }), ...(m.role === 'assistant' && model !== undefined && { model }), ...(m.id !== undefined && { nativeId: m.id }) });
    }
    for (const u of m.toolUses) emit({ type: 'tool_call', ...base, callId: u.id, name: u.name, input: u.input });
    for (const r of m.toolResults) emit({ type: 'tool_result', ...base, callId: r.id, toolName: r.name, output: r.output, isError: r.isError });
  });
}
