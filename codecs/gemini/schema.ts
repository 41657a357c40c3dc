/**
 * Gemini CLI's chat records (`packages/core/src/services/chatRecordingTypes.ts`) and the pure helpers that
 * turn one MessageRecord into sessionfold events. Shared by the JSONL core (parse.ts) and the whole-file
 * JSON reader (legacy.ts).
 */
import type { MessageEvent, MessageRole, ToolCallEvent, ToolResultEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { countOrZero } from '../../cursors/sane.js';

export type Rec = Record<string, unknown>;

/** `tokens` of a gemini message: the response's usageMetadata, renamed. */
export interface GeminiTokens {
  input?: number; // promptTokenCount (cached included)
  output?: number; // candidatesTokenCount (thoughts excluded)
  cached?: number; // cachedContentTokenCount
  thoughts?: number; // thoughtsTokenCount
  tool?: number; // toolUsePromptTokenCount
  total?: number; // totalTokenCount
}

/** Model named when a response's own `model` and every earlier one are missing. */
export const UNKNOWN_MODEL = 'unknown';

export function isRecord(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A token count, or 0 for anything that is not one (negative, fractional, non-finite, absurd). */
export const count = countOrZero;

/** A metadata record (the first line of a JSONL chat; the top level of a JSON one). */
export function isMetadataRecord(rec: Rec): boolean {
  return typeof rec.sessionId === 'string' && typeof rec.id !== 'string' && rec.$set === undefined && rec.$rewindTo === undefined;
}

/** The text of a Gemini PartListUnion: a string, a Part, or a list of them (thought parts left out). */
export function partsText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    let out = '';
    for (const p of v) out += partsText(p);
    return out;
  }
  if (isRecord(v) && typeof v.text === 'string' && v.thought !== true) return v.text;
  return '';
}

/** Thought summaries (`{subject, description}`), one per line. */
export function thoughtsText(v: unknown): string {
  if (!Array.isArray(v)) return '';
  const lines: string[] = [];
  for (const t of v) {
    if (!isRecord(t)) continue;
    const subject = str(t.subject);
    const description = str(t.description) ?? '';
    const line = subject ? (description ? `${subject}: ${description}` : subject) : description;
    if (line !== '') lines.push(line);
  }
  return lines.join('\n');
}

function roleOf(type: unknown): MessageRole {
  if (type === 'user') return 'user';
  if (type === 'gemini' || type === 'model') return 'assistant';
  return 'system';
}

/** The message event of a record, or undefined when it has neither text nor thinking. */
export function messageEvent(rec: Rec, sessionId: string, offset: number): MessageEvent | undefined {
  const id = str(rec.id);
  const type = rec.type;
  const text = partsText(type === 'user' && rec.displayContent !== undefined ? rec.displayContent : (rec.content ?? rec.parts));
  const thinking = thoughtsText(rec.thoughts);
  if (text === '' && thinking === '') return undefined;
  const ts = str(rec.timestamp);
  const model = str(rec.model);
  return {
    type: 'message',
    agent: CODEC_ID,
    sessionId,
    offset,
    role: roleOf(type),
    text,
    ...(thinking !== '' && { thinking }),
    ...(ts !== undefined && { timestamp: ts }),
    ...(model !== undefined && { model }),
    ...(id !== undefined && { nativeId: id }),
    ...(typeof type === 'string' && type !== 'user' && type !== 'gemini' && type !== 'model' && { subtype: type }),
  };
}

/** A tool call's result as the model saw it: the functionResponse payload(s), else the display text. */
function toolOutput(tc: Rec): unknown {
  const responses: unknown[] = [];
  if (Array.isArray(tc.result)) {
    for (const part of tc.result) if (isRecord(part) && isRecord(part.functionResponse)) responses.push(part.functionResponse.response ?? null);
  }
  if (responses.length === 1) return responses[0];
  if (responses.length > 1) return responses;
  return tc.result ?? tc.resultDisplay ?? null;
}

const DONE_STATUSES = new Set(['success', 'error', 'cancelled']);

/** The tool_call and tool_result events of a gemini message's `toolCalls`. */
export function toolEvents(rec: Rec, sessionId: string, offset: number, emit: (e: ToolCallEvent | ToolResultEvent) => void): void {
  if (!Array.isArray(rec.toolCalls)) return;
  const messageId = str(rec.id);
  const msgTs = str(rec.timestamp);
  for (let i = 0; i < rec.toolCalls.length; i++) {
    const tc: unknown = rec.toolCalls[i];
    if (!isRecord(tc)) continue;
    // Gemini CLI gives every call an id; a third-party writer may not (the call is still shown).
    const callId = str(tc.id) ?? `${messageId ?? ''}#${i}`;
    const name = str(tc.name) ?? '';
    const ts = str(tc.timestamp) ?? msgTs;
    const base = { agent: CODEC_ID, sessionId, offset };
    emit({ type: 'tool_call', ...base, callId, name, input: tc.args ?? null, ...(ts !== undefined && { timestamp: ts }), ...(messageId !== undefined && { messageId }) });
    const status = str(tc.status);
    if (tc.result === undefined && tc.resultDisplay === undefined && !(status !== undefined && DONE_STATUSES.has(status))) continue;
    emit({ type: 'tool_result', ...base, callId, toolName: name, output: toolOutput(tc), isError: status === 'error', ...(ts !== undefined && { timestamp: ts }) });
  }
}

/** Gemini CLI names every message by `randomUUID()`; other writers use ids such as `m1` that repeat across sessions. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A response's key: its message id when that is a UUID, so the copy an imported session holds (same id, new
 * session id) is the same response; else the id within its session.
 */
export function geminiDedupKey(sessionId: string, id: string): string {
  return UUID.test(id) ? `${CODEC_ID}:${id}` : `${CODEC_ID}:${sessionId}:${id}`;
}

/** A message timestamped before its session began was copied into it (`gemini --session-file` imports). */
function before(timestamp: string | undefined, startedAt: string | undefined): boolean {
  if (timestamp === undefined || startedAt === undefined) return false;
  return Date.parse(timestamp) < Date.parse(startedAt);
}

/**
 * The usage event of a gemini message's `tokens` (README "Tokens"): `input` includes `cached` and `output`
 * excludes `thoughts`, so inputTokens = input − cached + tool, cacheReadTokens = cached, outputTokens =
 * output + thoughts, reasoningTokens = thoughts. Undefined when the record has no tokens object.
 * `startedAt`: the session's start, which tells copied messages (README "Imported sessions").
 */
export function usageEvent(rec: Rec, sessionId: string, offset: number, fallbackModel: string | undefined, startedAt?: string): UsageEvent | undefined {
  const t = rec.tokens;
  const id = str(rec.id);
  if (!isRecord(t) || id === undefined) return undefined;
  const input = count(t.input);
  const cached = Math.min(count(t.cached), input);
  const thoughts = count(t.thoughts);
  const own = str(rec.model);
  const model = own ?? fallbackModel ?? UNKNOWN_MODEL;
  const timestamp = str(rec.timestamp);
  return usageEventOf(CODEC_ID, sessionId, offset, {
    model,
    modelFallback: own === undefined,
    provider: 'google',
    timestamp,
    inputTokens: input - cached + count(t.tool),
    outputTokens: count(t.output) + thoughts,
    reasoningTokens: thoughts,
    cacheReadTokens: cached,
    singleRequest: true,
    dedupKey: geminiDedupKey(sessionId, id),
    messageId: id,
    copied: before(timestamp, startedAt),
  });
}
