/**
 * The Qwen Code engine: a pure, synchronous LineCore (no I/O). One record per line, except that a line may
 * hold several records glued together (`{…}{…}`): each is parsed at its own byte offset (cursors/glued-json.ts).
 *
 * - `session` from the first record (session id, cwd, start, CLI version), again when a `custom_title`
 *   system record names a title.
 * - `message` for user and assistant records (hook context and thought parts kept apart), `tool_call` for an
 *   assistant's `functionCall` parts, `tool_result` for a `tool_result` record's `functionResponse` parts.
 * - `usage` for an assistant record's `usageMetadata` (Gemini semantics, README "Tokens"); the `ui_telemetry`
 *   `api_response` records repeat the same counts and are not read. A record re-written under its uuid has
 *   the same dedupKey, so folds count it once.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { parseJsonObject, restoreStrings, snapshotWithoutFile } from '../../cursors/core.js';
import { dateString, splitGluedJson, tokenCount } from '../../cursors/glued-json.js';
import type { KindCounts, MessageEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { messageEventOf, sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { CODEC_ID, qwenParentSession, qwenStem } from './paths.js';
import { isRec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

export interface QwenState {
  file: string;
  sessionId: string;
  sessionEmitted: boolean;
  cwd: string | undefined;
  startedAt: string | undefined;
  version: string | undefined;
  title: string | undefined;
  /** The last model an assistant record named (for a record without one). */
  model: string | undefined;
  /** A background subagent's transcript: the session that launched it (from the path). */
  parentSessionId: string | undefined;
  /** A subagent's type as its records name it (`agentName`). */
  agentType: string | undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const parts = (rec: Rec): Rec[] => (isRec(rec.message) && Array.isArray(rec.message.parts) ? rec.message.parts.filter(isRec) : []);

/** Parse one line into its records with their offsets; a line that is no JSON at all throws MALFORMED_LINE. */
function records(line: Buffer, start: number, file: string): { rec: Rec; offset: number }[] {
  try {
    return [{ rec: parseJsonObject(line, start, CODEC_ID, file), offset: start }];
  } catch (e) {
    const pieces = splitGluedJson(line);
    if (pieces.length < 2 || !(e instanceof SessionfoldError)) throw e;
    const out: { rec: Rec; offset: number }[] = [];
    for (const p of pieces) {
      try {
        out.push({ rec: parseJsonObject(line.subarray(p.start, p.end), start + p.start, CODEC_ID, file), offset: start + p.start });
      } catch {
        // a broken piece of a glued line is dropped; the others still count
      }
    }
    if (out.length === 0) throw e;
    return out;
  }
}

function sessionEvent(s: QwenState, offset: number) {
  const sub = s.parentSessionId !== undefined;
  return sessionEventOf(CODEC_ID, s.sessionId, offset, { cwd: s.cwd, startedAt: s.startedAt, title: s.title, model: s.model, version: s.version, ...(sub && { subagent: true, forkedFrom: s.parentSessionId, spawnDepth: 1, agentType: s.agentType }) });
}

function openSession(s: QwenState, rec: Rec, offset: number, emit: Emit): void {
  if (s.sessionEmitted) return;
  s.sessionEmitted = true;
  s.cwd = str(rec.cwd);
  s.startedAt = dateString(rec.timestamp);
  s.version = str(rec.version);
  s.agentType = str(rec.agentName);
  emit(sessionEvent(s, offset));
}

function messageEvent(s: QwenState, rec: Rec, offset: number, role: 'user' | 'assistant'): MessageEvent | undefined {
  const ps = parts(rec);
  const payload = isRec(rec.systemPayload) ? rec.systemPayload : {};
  const shown = role === 'user' ? str(payload.displayText) : undefined;
  const text = shown ?? ps.filter((p) => typeof p.text === 'string' && p.thought !== true).map((p) => p.text as string).join('\n');
  const thinking = ps.filter((p) => typeof p.text === 'string' && p.thought === true).map((p) => p.text as string).join('\n');
  if (text === '' && thinking === '') return undefined;
  const ts = dateString(rec.timestamp);
  const model = str(rec.model);
  const uuid = str(rec.uuid);
  const parent = str(rec.parentUuid);
  return messageEventOf(CODEC_ID, s.sessionId, offset, role, text, { thinking: thinking || undefined, timestamp: ts, model, nativeId: uuid, parentId: parent, subtype: str(rec.subtype) });
}

/** `usageMetadata` as sessionfold counts (README "Tokens"); undefined when it holds no tokens. */
export function qwenUsage(s: QwenState, rec: Rec, offset: number): UsageEvent | undefined {
  const u = rec.usageMetadata;
  const uuid = str(rec.uuid);
  if (!isRec(u) || uuid === undefined) return undefined;
  const prompt = tokenCount(u.promptTokenCount);
  const cached = Math.min(tokenCount(u.cachedContentTokenCount), prompt);
  const candidates = tokenCount(u.candidatesTokenCount);
  const toolUse = tokenCount(u.toolUsePromptTokenCount);
  const thoughts = tokenCount(u.thoughtsTokenCount);
  // Gemini's candidates leave the thoughts out; Qwen Code's OpenAI-compatible converter copies
  // `completion_tokens`, which holds them, and sets the total to the provider's `total_tokens || 0`: prompt +
  // completion, or a present 0, which Gemini never writes (README "Tokens")
  const total = tokenCount(u.totalTokenCount);
  const inside = thoughts > 0 && (total === prompt + toolUse + candidates || (u.totalTokenCount === 0 && prompt + candidates > 0));
  const output = inside ? candidates : candidates + thoughts;
  const input = prompt - cached + toolUse;
  if (input + cached + output === 0) return undefined;
  const own = str(rec.model);
  const model = own ?? s.model;
  // A `/branch` copy stamps its origin on every record it copied (README "Tokens"): folds keep the origin's on a tie.
  const origin = isRec(rec.forkedFrom) ? str(rec.forkedFrom.sessionId) : undefined;
  return usageEventOf(CODEC_ID, s.sessionId, offset, {
    model,
    modelFallback: own === undefined,
    timestamp: dateString(rec.timestamp) ?? s.startedAt,
    inputTokens: input,
    outputTokens: output,
    reasoningTokens: Math.min(thoughts, output),
    cacheReadTokens: cached,
    singleRequest: true,
    // the uuid alone: `/branch` copies a record into the new session under its uuid (README "Tokens")
    dedupKey: `${CODEC_ID}:${uuid}`,
    messageId: uuid,
    copied: origin !== undefined && origin !== s.sessionId,
  });
}

function assistant(s: QwenState, rec: Rec, offset: number, emit: Emit): void {
  const msg = messageEvent(s, rec, offset, 'assistant');
  if (msg !== undefined) emit(msg);
  const uuid = str(rec.uuid);
  const ts = dateString(rec.timestamp);
  const ps = parts(rec);
  for (let i = 0; i < ps.length; i++) {
    const fc = ps[i]!.functionCall;
    if (!isRec(fc)) continue;
    const callId = str(fc.id) ?? `${uuid ?? ''}#${i}`;
    emit({ type: 'tool_call', agent: CODEC_ID, sessionId: s.sessionId, offset, callId, name: str(fc.name) ?? '', input: fc.args ?? null, ...(ts !== undefined && { timestamp: ts }), ...(uuid !== undefined && { messageId: uuid }) });
  }
  const usage = qwenUsage(s, rec, offset);
  if (str(rec.model) !== undefined) s.model = rec.model as string;
  if (usage !== undefined) emit(usage);
}

function toolResults(s: QwenState, rec: Rec, offset: number, emit: Emit): void {
  const ts = dateString(rec.timestamp);
  const result = isRec(rec.toolCallResult) ? rec.toolCallResult : {};
  for (const p of parts(rec)) {
    const fr = p.functionResponse;
    if (!isRec(fr)) continue;
    const callId = str(fr.id) ?? str(result.callId) ?? '';
    const output = fr.response ?? null;
    const isError = result.status === 'error' || (isRec(output) && output.error !== undefined);
    emit({ type: 'tool_result', agent: CODEC_ID, sessionId: s.sessionId, offset, callId, toolName: str(fr.name) ?? '', output, isError, ...(ts !== undefined && { timestamp: ts }) });
  }
}

function record(s: QwenState, rec: Rec, offset: number, emit: Emit): void {
  // Qwen Code names the file after the session; a stream (`-`) has no name, so its records tell.
  if (s.sessionId === '' && str(rec.sessionId) !== undefined) s.sessionId = rec.sessionId as string;
  openSession(s, rec, offset, emit);
  const type = rec.type;
  if (type === 'user') {
    const msg = messageEvent(s, rec, offset, 'user');
    if (msg !== undefined) emit(msg);
  } else if (type === 'assistant') assistant(s, rec, offset, emit);
  else if (type === 'tool_result') toolResults(s, rec, offset, emit);
  else if (type === 'system' && rec.subtype === 'custom_title' && isRec(rec.systemPayload)) {
    const title = str(rec.systemPayload.customTitle);
    if (title !== undefined && title !== s.title) {
      s.title = title;
      emit(sessionEvent(s, offset));
    }
  }
}

/** The Qwen Code line core. */
export const qwenCore: LineCore<QwenState> = {
  init(ctx: CoreContext): QwenState {
    return { file: ctx.file, sessionId: ctx.file === '-' ? '' : qwenStem(ctx.file), sessionEmitted: false, cwd: undefined, startedAt: undefined, version: undefined, title: undefined, model: undefined, parentSessionId: qwenParentSession(ctx.file), agentType: undefined };
  },
  restore(snapshot, ctx) {
    const s = this.init(ctx);
    const o = (isRec(snapshot) ? snapshot : {}) as Partial<QwenState>;
    restoreStrings(s, o, ['sessionId', 'cwd', 'startedAt', 'version', 'title', 'model', 'agentType']);
    s.sessionEmitted = o.sessionEmitted === true;
    return s;
  },
  snapshot: snapshotWithoutFile,
  line(s, line, start, emit) {
    for (const { rec, offset } of records(line, start, s.file)) record(s, rec, offset, emit);
  },
  end(): KindCounts {
    return {};
  },
};
