/**
 * Kiro CLI sessions as events: pure, over the texts index.ts reads. README.md has both formats with their
 * sources.
 *
 * A session file pair: `<id>.json`, the session's metadata (`session_id`, `cwd`, `created_at`, `title`,
 * `session_state.rts_model_state.model_info.model_id`, and per user turn
 * `session_state.conversation_metadata.user_turn_metadatas[]`), and `<id>.jsonl`, one `{version, kind, data}`
 * entry a line: `Prompt` and `AssistantMessage` carry `data.content[]` blocks `{kind: "text", data}`.
 * A `conversations_v2` row: `key` (the working folder), `conversation_id`, `value` (the serialized
 * `ConversationState`: `history[]` of `{user, assistant, request_metadata}`, `model_info`), `created_at` and
 * `updated_at` in epoch milliseconds.
 *
 * Kiro records no token counts: turns carry credits (`metering_usage`) and a context percentage, and the
 * per-turn token fields are written as 0. Every session event says `usageRecorded: false`; no usage event.
 */
import { jsonObject, type Emit } from '../../cursors/core.js';
import type { MessageRole, SessionEvent, SessionfoldEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { epochTime, msTime, rec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;
export type Row = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/**
 * A time as ISO-8601: an RFC 3339 string (Rust's nanosecond fractions included) or an epoch number in seconds
 * (the log's fractional `meta.timestamp`) or milliseconds (the database's columns); undefined otherwise.
 */
export function isoTime(v: unknown): string | undefined {
  if (typeof v !== 'string') return epochTime(v);
  return /^\d{4}-\d{2}-\d{2}T/.test(v) ? msTime(Date.parse(v), { plausible: true }) : undefined;
}

/** The model of a `model_info` object: its `model_id`, else its `model_name`. */
const modelOf = (info: unknown): string | undefined => str(rec(info)?.model_id) ?? str(rec(info)?.model_name);

/** The session event of a metadata document (`stem`: the file's name, when it names no id). */
export function cliSessionEvent(meta: Rec, stem: string): SessionEvent {
  const state = rec(meta.session_state);
  return sessionEventOf(CODEC_ID, str(meta.session_id) ?? stem, 0, {
    cwd: str(meta.cwd),
    startedAt: isoTime(meta.created_at),
    title: str(meta.title),
    model: modelOf(rec(state?.rts_model_state)?.model_info),
    usageRecorded: false,
  });
}

/** The text of a log entry's `content` blocks (`{kind: "text", data}`), paragraphs apart. */
function blockText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const b of content.map(rec)) if (b?.kind === 'text' && typeof b.data === 'string' && b.data !== '') texts.push(b.data);
  return texts.join('\n\n');
}

const LOG_ROLES: Readonly<Record<string, MessageRole>> = { Prompt: 'user', AssistantMessage: 'assistant' };

/**
 * The events of one log line at `offset` (its line number): a message for a `Prompt` or `AssistantMessage`
 * with text; nothing for the other kinds (tool results, compactions, clears). False when the line is not a
 * `{kind, data}` object.
 */
export function logLineEvents(sessionId: string, line: string, offset: number, model: string | undefined, emit: Emit): boolean {
  const entry = jsonObject(line);
  const data = rec(entry?.data);
  if (entry === undefined || typeof entry.kind !== 'string' || data === undefined) return false;
  const role = LOG_ROLES[entry.kind];
  const text = role === undefined ? '' : blockText(data.content);
  if (role === undefined || text === '') return true;
  const timestamp = isoTime(rec(data.meta)?.timestamp);
  const nativeId = str(data.message_id);
  emit({
    type: 'message',
    agent: CODEC_ID,
    sessionId,
    offset,
    role,
    text,
    ...(timestamp !== undefined && { timestamp }),
    ...(role === 'assistant' && model !== undefined && { model }),
    ...(nativeId !== undefined && { nativeId }),
  });
  return true;
}

/** A CLI session's events, the log lines it read, and the records it skipped as unreadable. */
export function parseKiroSession(metaText: string, logText: string | undefined, stem: string): { events: SessionfoldEvent[]; lines: number; skipped: number } {
  const events: SessionfoldEvent[] = [];
  const emit = (e: SessionfoldEvent): void => {
    events.push(e);
  };
  const parsed = jsonObject(metaText);
  let skipped = parsed === undefined ? 1 : 0;
  const session = cliSessionEvent(parsed ?? {}, stem);
  emit(session);
  let n = 0;
  for (const line of (logText ?? '').split('\n')) {
    if (line.trim() === '') continue;
    n++;
    if (!logLineEvents(session.sessionId, line, n, session.model, emit)) skipped++;
  }
  return { events, lines: n, skipped };
}

/** The prompt of a history entry's `user.content` (`{"Prompt": {prompt}}`, `{"CancelledToolUses": {prompt}}`). */
function promptOf(user: Rec | undefined): string | undefined {
  const content = rec(user?.content);
  return str(rec(content?.Prompt)?.prompt) ?? str(rec(content?.CancelledToolUses)?.prompt);
}

/** The reply of a history entry's `assistant` (`{"Response": {message_id, content}}` or `{"ToolUse": {…}}`). */
function replyOf(assistant: Rec | undefined): Rec | undefined {
  return rec(assistant?.Response) ?? rec(assistant?.ToolUse);
}

/** The messages of a conversation's `history`, two offsets per entry (the user's, the assistant's). */
function historyEvents(sessionId: string, history: unknown[], model: string | undefined, emit: Emit): void {
  history.forEach((h, i) => {
    const entry = rec(h);
    const meta = rec(entry?.request_metadata);
    const base = { type: 'message' as const, agent: CODEC_ID, sessionId };
    const prompt = promptOf(rec(entry?.user));
    const asked = isoTime(rec(entry?.user)?.timestamp) ?? isoTime(meta?.request_start_timestamp_ms);
    if (prompt !== undefined) emit({ ...base, offset: 2 * i + 1, role: 'user', text: prompt, ...(asked !== undefined && { timestamp: asked }) });
    const reply = replyOf(rec(entry?.assistant));
    const text = str(reply?.content);
    if (text === undefined) return;
    const answered = isoTime(meta?.stream_end_timestamp_ms);
    const turnModel = str(meta?.model_id) ?? model;
    const nativeId = str(reply?.message_id);
    emit({ ...base, offset: 2 * i + 2, role: 'assistant', text, ...(answered !== undefined && { timestamp: answered }), ...(turnModel !== undefined && { model: turnModel }), ...(nativeId !== undefined && { nativeId }) });
  });
}

/**
 * The events of one `conversations_v2` row: its session event (started at its first request, else the row's
 * `created_at`, which the table's migration set to the migration's time for older rows) and, with
 * `conversation`, its messages. False when `value` is not a conversation object.
 */
export function conversationEvents(row: Row, conversation: boolean, emit: Emit): boolean {
  const id = str(row.conversation_id);
  const state = jsonObject(typeof row.value === 'string' ? row.value : Buffer.isBuffer(row.value) ? row.value.toString('utf8') : undefined);
  if (id === undefined || state === undefined) return false;
  const history = Array.isArray(state.history) ? state.history : [];
  const first = rec(rec(history[0])?.request_metadata);
  const model = modelOf(state.model_info) ?? str(state.model);
  emit(
    sessionEventOf(CODEC_ID, id, 0, {
      cwd: str(row.key),
      startedAt: isoTime(first?.request_start_timestamp_ms) ?? isoTime(row.created_at),
      model,
      usageRecorded: false,
    }),
  );
  if (conversation) historyEvents(id, history, model, emit);
  return true;
}
