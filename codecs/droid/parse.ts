/**
 * The Factory Droid engine: a pure, synchronous LineCore over a session's JSONL, handed the session's
 * `settings.json` (settings.ts) by whoever read it. Two shapes of line are read (README "Records"):
 *
 * - the session store (`~/.factory/sessions`): `session_start`, then `message` records whose
 *   `message.content` holds Anthropic-style blocks (`text`, `thinking`, `tool_use`, `tool_result`);
 * - `droid exec --output-format stream-json` output saved to a file: `system` init, `message`, `tool_call`,
 *   `tool_result`, `completion` (with `usage`), `error`.
 *
 * Usage: a stream's `completion.usage` per run; a stored session's tokens are only the sidecar's running
 * totals, one usage event emitted from `end()` and left open (a later read gives it again, with the totals
 * then), so it always reflects the sidecar as last read.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { jsonObjectLine, restoreStrings, snapshotWithoutFile } from '../../cursors/core.js';
import { dateString, tokenCount } from '../../cursors/glued-json.js';
import type { KindCounts, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID, droidStem } from './paths.js';
import type { DroidSettings } from './settings.js';
import { isRec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

export interface DroidState {
  file: string;
  sessionId: string;
  sessionEmitted: boolean;
  model: string | undefined;
  /** The latest timestamp of a record: the time of the sidecar's totals. */
  lastTimestamp: string | undefined;
  /** Tool names of calls not answered yet, by call id (a result names its call only by id). */
  openCalls: Record<string, string>;
  /**
   * Whether a stream-json run has said its reply as an assistant `message` since its prompt: Droid says the
   * last reply again as `completion.finalText`, which is then no message of its own (README "Records").
   */
  replied: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** ISO-8601 of a record's time: a date string, or epoch milliseconds (stream-json drift). */
function timeOf(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 8.64e15) return new Date(v).toISOString();
  return dateString(v);
}

/** Droid prepends `<system-reminder>` blocks to the user's text; the prompt is what follows them. */
function userText(text: string): string {
  return text.replace(/^(\s*<system-reminder>[\s\S]*?<\/system-reminder>\s*)+/, '');
}

/** A tool result's content as text when it is text blocks, else as recorded. */
function resultOutput(content: unknown): unknown {
  if (Array.isArray(content) && content.every((b) => isRec(b) && b.type === 'text' && typeof b.text === 'string')) return content.map((b) => (b as Rec).text).join('\n');
  return content ?? null;
}

function openSession(s: DroidState, rec: Rec, offset: number, emit: Emit): void {
  if (s.sessionEmitted) return;
  s.sessionEmitted = true;
  const start = rec.type === 'session_start';
  const title = start ? (str(rec.sessionTitle) ?? str(rec.title)) : undefined;
  const cwd = str(rec.cwd);
  const startedAt = timeOf(rec.timestamp);
  const version = rec.version === undefined ? undefined : String(rec.version);
  if (str(rec.model) !== undefined) s.model = rec.model as string;
  emit(sessionEventOf(CODEC_ID, s.sessionId, offset, { cwd, startedAt, title, model: s.model, version }));
}

/** A session-store `message`: its text and thinking, its tool calls and results. */
function storedMessage(s: DroidState, rec: Rec, offset: number, ts: string | undefined, emit: Emit): void {
  const m = isRec(rec.message) ? rec.message : {};
  const role = m.role === 'assistant' ? 'assistant' : 'user';
  const blocks = Array.isArray(m.content) ? m.content.filter(isRec) : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [];
  const id = str(rec.id);
  const base = { agent: CODEC_ID, sessionId: s.sessionId, offset };
  const texts: string[] = [];
  const thoughts: string[] = [];
  for (const b of blocks) {
    if (b.type === 'text' && typeof b.text === 'string') texts.push(role === 'user' ? userText(b.text) : b.text);
    else if (b.type === 'thinking' && typeof b.thinking === 'string') thoughts.push(b.thinking);
  }
  const text = texts.filter((t) => t !== '').join('\n');
  if (text !== '' || thoughts.length > 0) {
    const parent = str(rec.parentId);
    emit({ type: 'message', ...base, role, text, ...(thoughts.length > 0 && { thinking: thoughts.join('\n') }), ...(ts !== undefined && { timestamp: ts }), ...(id !== undefined && { nativeId: id }), ...(parent !== undefined && { parentId: parent }) });
  }
  for (const b of blocks) {
    if (b.type === 'tool_use' && str(b.id) !== undefined) {
      const name = str(b.name) ?? '';
      s.openCalls[b.id as string] = name;
      emit({ type: 'tool_call', ...base, callId: b.id as string, name, input: b.input ?? null, ...(ts !== undefined && { timestamp: ts }), ...(id !== undefined && { messageId: id }) });
    } else if (b.type === 'tool_result' && str(b.tool_use_id) !== undefined) {
      const callId = b.tool_use_id as string;
      const toolName = s.openCalls[callId] ?? '';
      delete s.openCalls[callId];
      emit({ type: 'tool_result', ...base, callId, toolName, output: resultOutput(b.content), isError: b.is_error === true, ...(ts !== undefined && { timestamp: ts }) });
    }
  }
}

/** A stream-json `completion.usage` (Anthropic semantics: input excludes the cache). */
function completionUsage(s: DroidState, rec: Rec, offset: number, ts: string | undefined): UsageEvent | undefined {
  const u = rec.usage;
  if (!isRec(u)) return undefined;
  const input = tokenCount(u.input_tokens);
  const output = tokenCount(u.output_tokens);
  const cacheRead = tokenCount(u.cache_read_input_tokens);
  const cacheWrite = tokenCount(u.cache_creation_input_tokens);
  if (input + output + cacheRead + cacheWrite === 0) return undefined;
  return usageEventOf(CODEC_ID, s.sessionId, offset, {
    model: s.model,
    timestamp: ts ?? s.lastTimestamp,
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    singleRequest: false,
    dedupKey: `${CODEC_ID}:${s.sessionId}:completion@${offset}`,
  });
}

/** A stream-json record other than `system` and `completion`. */
function streamRecord(s: DroidState, rec: Rec, offset: number, ts: string | undefined, emit: Emit): void {
  const base = { agent: CODEC_ID, sessionId: s.sessionId, offset, ...(ts !== undefined && { timestamp: ts }) };
  const callId = str(rec.toolCallId) ?? str(rec.id);
  if (rec.type === 'message' && typeof rec.text === 'string') {
    const role = rec.role === 'assistant' ? 'assistant' : 'user';
    const text = role === 'user' ? userText(rec.text) : rec.text;
    s.replied = role === 'assistant';
    emit({ type: 'message', ...base, role, text, ...(str(rec.id) !== undefined && { nativeId: rec.id as string }) });
  } else if (rec.type === 'reasoning' && typeof rec.text === 'string' && rec.text !== '') {
    emit({ type: 'message', ...base, role: 'assistant', text: '', thinking: rec.text, ...(str(rec.id) !== undefined && { nativeId: rec.id as string }) });
  } else if (rec.type === 'tool_call' && callId !== undefined) {
    const name = str(rec.toolName) ?? str(rec.toolId) ?? '';
    s.openCalls[callId] = name;
    emit({ type: 'tool_call', ...base, callId, name, input: rec.parameters ?? null, ...(str(rec.messageId) !== undefined && { messageId: rec.messageId as string }) });
  } else if (rec.type === 'tool_result' && callId !== undefined) {
    const toolName = s.openCalls[callId] ?? str(rec.toolName) ?? str(rec.toolId) ?? '';
    delete s.openCalls[callId];
    emit({ type: 'tool_result', ...base, callId, toolName, output: rec.value ?? null, isError: rec.isError === true });
  }
}

function record(s: DroidState, rec: Rec, offset: number, emit: Emit): void {
  // The file is named after the session; a stream (`-`) has no name, so its first record tells.
  if (s.sessionId === '') s.sessionId = str(rec.sessionId) ?? str(rec.session_id) ?? (rec.type === 'session_start' ? str(rec.id) : undefined) ?? 'stdin';
  openSession(s, rec, offset, emit);
  const ts = timeOf(rec.timestamp);
  if (ts !== undefined) s.lastTimestamp = ts;
  if (rec.type === 'message' && isRec(rec.message)) storedMessage(s, rec, offset, ts, emit);
  else if (rec.type === 'system' && str(rec.model) !== undefined) s.model = rec.model as string;
  else if (rec.type === 'completion') {
    const said = s.replied;
    s.replied = false;
    if (!said && typeof rec.finalText === 'string' && rec.finalText !== '') emit({ type: 'message', agent: CODEC_ID, sessionId: s.sessionId, offset, role: 'assistant', text: rec.finalText, ...(ts !== undefined && { timestamp: ts }), ...(s.model !== undefined && { model: s.model }) });
    const usage = completionUsage(s, rec, offset, ts);
    if (usage !== undefined) emit(usage);
  } else streamRecord(s, rec, offset, ts, emit);
}

/** The sidecar's running totals as one usage event (README "Tokens"); undefined without tokens. */
export function settingsUsage(s: DroidState, settings: DroidSettings | undefined, offset: number): UsageEvent | undefined {
  const t = settings?.tokens;
  if (t === undefined || t.input + t.output + t.cacheRead + t.cacheWrite + t.thinking === 0) return undefined;
  const model = settings?.model ?? s.model;
  return usageEventOf(CODEC_ID, s.sessionId, offset, {
    model,
    provider: settings?.provider,
    timestamp: s.lastTimestamp ?? settings?.providerLockTimestamp,
    inputTokens: t.input, outputTokens: t.output + t.thinking, reasoningTokens: t.thinking, cacheReadTokens: t.cacheRead, cacheWriteTokens: t.cacheWrite,
    singleRequest: false, dedupKey: `${CODEC_ID}:${s.sessionId}:settings`,
  });
}

/** A Droid engine for one session, with its sidecar's settings (undefined: none read). */
export function createDroidCore(settings?: DroidSettings): LineCore<DroidState> {
  return {
    init(ctx: CoreContext): DroidState {
      return { file: ctx.file, sessionId: ctx.file === '-' ? '' : droidStem(ctx.file), sessionEmitted: false, model: undefined, lastTimestamp: undefined, openCalls: {}, replied: false };
    },
    restore(snapshot, ctx) {
      const s = this.init(ctx);
      const o = (isRec(snapshot) ? snapshot : {}) as Partial<DroidState>;
      restoreStrings(s, o, ['sessionId', 'model', 'lastTimestamp']);
      if (isRec(o.openCalls)) for (const [k, v] of Object.entries(o.openCalls)) if (typeof v === 'string') s.openCalls[k] = v;
      s.sessionEmitted = o.sessionEmitted === true;
      s.replied = o.replied === true;
      return s;
    },
    snapshot: snapshotWithoutFile,
    line: jsonObjectLine(CODEC_ID, record),
    end(s, emit): KindCounts {
      // Offset of the totals: the end of what was read is unknown here, so the session's first line.
      const usage = s.sessionEmitted ? settingsUsage(s, settings, 0) : undefined;
      if (usage === undefined) return {};
      emit(usage);
      return { usage: 1 };
    },
  };
}
