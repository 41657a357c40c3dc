/**
 * A Mistral Vibe session folder as events: pure, over the texts of its `meta.json` and `messages.jsonl`
 * (index.ts reads the files). README.md has the format with its sources.
 *
 * `meta.json` is the session's metadata (`session_id`, `parent_session_id`, `start_time`, `end_time`,
 * `environment.working_directory`, `title`, `git_branch`, the `config` in use) with the running `stats` of the
 * agent: `session_prompt_tokens` (cached prompt tokens included), `session_completion_tokens`,
 * `session_cached_tokens` (newer releases) and Vibe's own `session_cost` estimate. `messages.jsonl` holds one
 * `LLMMessage` per line (`role`, `content`, `reasoning_content`, `tool_calls`, `tool_call_id`, `name`).
 */
import { jsonObject, parseJsonText, type Emit } from '../../cursors/core.js';
import type { MessageRole, SessionEvent, SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { MAX_RECORD_USD, saneCount } from '../../cursors/sane.js';
import { CODEC_ID } from './paths.js';
import { rec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** An ISO-8601 time (Python's `isoformat()`, a naive one read as UTC); undefined when it is not one. */
export function isoTime(v: unknown): string | undefined {
  const s = str(v);
  if (s === undefined) return undefined;
  const naive = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(s);
  const ms = Date.parse(naive ? `${s}Z` : s);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** The model of `config.active_model` (an alias of `config.models`) and its provider. */
export function activeModel(meta: Rec): { model?: string; provider?: string } {
  const config = rec(meta.config);
  const alias = str(config?.active_model);
  if (alias === undefined) return {};
  const entry = Array.isArray(config?.models) ? config.models.map(rec).find((m) => m !== undefined && (m.alias === alias || (m.alias === undefined && m.name === alias))) : undefined;
  const model = str(entry?.name) ?? alias;
  const provider = str(entry?.provider);
  return provider === undefined ? { model } : { model, provider };
}

/** The session event of a `meta.json` (`fallbackId`: the folder's name, when the metadata names no id). */
export function sessionEvent(meta: Rec, fallbackId: string): SessionEvent {
  const id = str(meta.session_id) ?? fallbackId;
  const env = rec(meta.environment);
  const { model, provider } = activeModel(meta);
  return sessionEventOf(CODEC_ID, id, 0, {
    cwd: str(env?.working_directory),
    startedAt: isoTime(meta.start_time),
    title: str(meta.title),
    forkedFrom: str(meta.parent_session_id),
    gitBranch: str(meta.git_branch),
    model,
    provider,
  });
}

const ROLES: readonly string[] = ['user', 'assistant', 'system'];

/** The events of one `messages.jsonl` line at `offset` (its line number); false when it is not a JSON object. */
export function messageEvents(sessionId: string, line: string, offset: number, model: string | undefined, emit: Emit): boolean {
  const m = jsonObject(line);
  if (m === undefined) return false;
  const base = { agent: CODEC_ID, sessionId, offset };
  const role = String(m.role ?? 'assistant');
  const text = typeof m.content === 'string' ? m.content : '';
  const thinking = typeof m.reasoning_content === 'string' ? m.reasoning_content : '';
  if (role === 'tool') {
    emit({ type: 'tool_result', ...base, callId: str(m.tool_call_id) ?? '', toolName: str(m.name) ?? '', output: m.content ?? null, isError: false });
    return true;
  }
  if (ROLES.includes(role) && (text !== '' || thinking !== '')) {
    emit({
      type: 'message',
      ...base,
      role: role as MessageRole,
      text,
      ...(thinking !== '' && { thinking }),
      ...(role === 'assistant' && model !== undefined && { model }),
      ...(str(m.message_id) !== undefined && { nativeId: str(m.message_id) }),
      ...(m.injected === true && { subtype: 'injected' }),
    });
  }
  if (role === 'assistant' && Array.isArray(m.tool_calls)) {
    for (const c of m.tool_calls.map(rec)) {
      const fn = rec(c?.function);
      emit({ type: 'tool_call', ...base, callId: str(c?.id) ?? '', name: str(fn?.name) ?? '', input: parseJsonText(fn?.arguments) });
    }
  }
  return true;
}

/**
 * The session's one usage event from the running `stats`: `session_prompt_tokens` holds the cached prompt
 * tokens, booked apart as cache reads; `session_cost`, Vibe's own estimate, as `costUsd` when above 0.
 * At offset 0, as the session event: both are `meta.json`'s, so a read that skips `messages.jsonl` gives the
 * same event. Undefined without tokens; 'bad' when a count or the cost is not a sane value (the whole event
 * is refused).
 */
export function usageEvent(meta: Rec, sessionId: string): UsageEvent | 'bad' | undefined {
  const stats = rec(meta.stats);
  if (stats === undefined) return undefined;
  let prompt: number, output: number, cached: number;
  try {
    prompt = saneCount(stats.session_prompt_tokens, 'session_prompt_tokens');
    output = saneCount(stats.session_completion_tokens, 'session_completion_tokens');
    cached = saneCount(stats.session_cached_tokens, 'session_cached_tokens');
  } catch {
    return 'bad';
  }
  if (cached > prompt) return 'bad';
  if (prompt + output === 0) return undefined;
  const cost = stats.session_cost;
  if (cost !== undefined && cost !== null && (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0 || cost > MAX_RECORD_USD)) return 'bad';
  const { model, provider } = activeModel(meta);
  return usageEventOf(CODEC_ID, sessionId, 0, {
    model,
    provider,
    timestamp: isoTime(meta.end_time) ?? isoTime(meta.start_time),
    inputTokens: prompt - cached,
    cacheReadTokens: cached,
    outputTokens: output,
    costUsd: typeof cost === 'number' && cost > 0 ? cost : undefined,
    singleRequest: false,
    dedupKey: `${CODEC_ID}:${sessionId}`,
  });
}

/** The events of a session folder, how many message lines it read, and how many records were skipped as unreadable. */
export function parseVibeSession(metaText: string, messagesText: string | undefined, folder: string): { events: SessionfoldEvent[]; lines: number; skipped: number } {
  const events: SessionfoldEvent[] = [];
  const emit = (e: SessionfoldEvent): void => {
    events.push(e);
  };
  let skipped = 0;
  const parsed = jsonObject(metaText);
  if (parsed === undefined) skipped++;
  const meta = parsed ?? {};
  const session = sessionEvent(meta, folder);
  emit(session);
  const { model } = activeModel(meta);
  const lines = (messagesText ?? '').split('\n');
  let n = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    n++;
    if (!messageEvents(session.sessionId, line, n, model, emit)) skipped++;
  }
  const usage = usageEvent(meta, session.sessionId);
  if (usage === 'bad') skipped++;
  else if (usage !== undefined) emit(usage);
  return { events, lines: n, skipped };
}
