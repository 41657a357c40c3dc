/**
 * One chat request of VS Code's chat model (`ISerializableChatRequestData`, README.md), kept as the few fields
 * this codec reads (`pruneRequest`), and the events it gives. Shared by the JSONL mutation log (parse.ts) and
 * the whole-document `.json` (document.ts): a request means the same in both.
 */
import type { SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { isRec } from '../../cursors/json-value.js';

export { isRec };

export type Rec = Record<string, unknown>;

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const count = (v: unknown): number => {
  const n = num(v);
  return n !== undefined && n > 0 ? Math.floor(n) : 0;
};

/** `ResponseModelState` (chatService.ts): Pending 0, Complete 1, Cancelled 2, Failed 3, NeedsInput 4. */
const TERMINAL_STATES = new Set([1, 2, 3]);

/** Milliseconds since the epoch → ISO-8601, or undefined for anything else. */
export function isoOfMs(v: unknown): string | undefined {
  const n = num(v);
  return n !== undefined && n > 0 && n < 8.64e15 ? new Date(n).toISOString() : undefined;
}

/** Text of a string or an `IMarkdownString` (`{value}`). */
function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  return isRec(v) && typeof v.value === 'string' ? v.value : undefined;
}

/**
 * A response part as kept: markdown text (`{value}`; VS Code writes `markdownContent` as its bare
 * `IMarkdownString`), thinking, or a serialized tool invocation; any other part keeps only its kind, so that
 * the indices later mutations address still hold.
 */
function prunePart(p: unknown): Rec {
  if (!isRec(p)) return {};
  const kind = str(p.kind);
  if (kind === undefined || kind === 'markdownContent' || kind === 'markdownVuln') {
    const value = kind === undefined ? textOf(p) : textOf(p.content);
    return value === undefined ? { kind } : { value };
  }
  if (kind === 'thinking') {
    const v = Array.isArray(p.value) ? p.value.filter((x) => typeof x === 'string').join('') : textOf(p.value);
    return { kind, value: v ?? '' };
  }
  if (kind === 'toolInvocationSerialized' || kind === 'toolInvocation') {
    const out: Rec = { kind: 'toolInvocationSerialized' };
    for (const k of ['toolId', 'toolCallId'] as const) if (typeof p[k] === 'string') out[k] = p[k];
    const inv = textOf(p.invocationMessage);
    const past = textOf(p.pastTenseMessage);
    if (inv !== undefined) out.invocationMessage = inv;
    if (past !== undefined) out.pastTenseMessage = past;
    if (p.isComplete === true) out.isComplete = true;
    return out;
  }
  return { kind };
}

/** The sum of `toolCallRounds[].thinking.tokens` (Copilot Chat's `IResultMetadata`), 0 when none. */
function thinkingTokens(rounds: unknown): number {
  if (!Array.isArray(rounds)) return 0;
  let n = 0;
  for (const r of rounds) if (isRec(r) && isRec(r.thinking)) n += count(r.thinking.tokens);
  return n;
}

function pruneResult(r: unknown): Rec | undefined {
  if (!isRec(r)) return undefined;
  const out: Rec = {};
  if (isRec(r.errorDetails) && typeof r.errorDetails.message === 'string') out.errorDetails = { message: r.errorDetails.message };
  const m = r.metadata;
  if (isRec(m)) {
    const meta: Rec = {};
    for (const k of ['promptTokens', 'outputTokens'] as const) if (num(m[k]) !== undefined) meta[k] = m[k];
    if (typeof m.resolvedModel === 'string') meta.resolvedModel = m.resolvedModel;
    const t = typeof m.thinkingTokens === 'number' ? m.thinkingTokens : thinkingTokens(m.toolCallRounds);
    if (t > 0) meta.thinkingTokens = t;
    out.metadata = meta;
  }
  return out;
}

function pruneTotals(v: unknown): Rec[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: Rec[] = [];
  for (const t of v) {
    if (!isRec(t) || str(t.model) === undefined) continue;
    out.push({ model: t.model, inputTokens: count(t.inputTokens), cachedTokens: count(t.cachedTokens), outputTokens: count(t.outputTokens) });
  }
  return out;
}

/** The fields of a request this codec reads; everything else (attachments, edits, references…) is dropped. */
export function pruneRequest(raw: unknown, keepResponse = true): Rec {
  if (!isRec(raw)) return {};
  const out: Rec = {};
  for (const k of ['requestId', 'responseId', 'modelId'] as const) if (typeof raw[k] === 'string') out[k] = raw[k];
  for (const k of ['timestamp', 'promptTokens', 'completionTokens'] as const) if (num(raw[k]) !== undefined) out[k] = raw[k];
  const text = textOf(raw.message) ?? (isRec(raw.message) && typeof raw.message.text === 'string' ? raw.message.text : undefined);
  if (text !== undefined) out.message = { text };
  if (raw.isCanceled === true) out.isCanceled = true;
  if (isRec(raw.modelState)) out.modelState = { value: raw.modelState.value, completedAt: raw.modelState.completedAt };
  const result = pruneResult(raw.result);
  if (result !== undefined) out.result = result;
  const totals = pruneTotals(raw.modelTotals);
  if (totals !== undefined) out.modelTotals = totals;
  if (keepResponse && Array.isArray(raw.response)) out.response = raw.response.map(prunePart);
  return out;
}

/** A request whose response is over: a terminal `modelState`, or (before `modelState`) a result or a cancel. */
export function isFinal(r: Rec): boolean {
  if (isRec(r.modelState)) return TERMINAL_STATES.has(r.modelState.value as number);
  return isRec(r.result) || r.isCanceled === true;
}

/** Where a request's events are: its session, the offset they carry, and the session's start as a last time. */
export interface At {
  sessionId: string;
  offset: number;
  fallbackTime: string | undefined;
}

const metaOf = (r: Rec): Rec => (isRec(r.result) && isRec(r.result.metadata) ? r.result.metadata : {});

/** The model that answered: `result.metadata.resolvedModel`, else `modelId` without its vendor (`copilot/…`). */
export function modelOf(r: Rec): string | undefined {
  const resolved = str(metaOf(r).resolvedModel);
  if (resolved !== undefined) return resolved;
  const id = str(r.modelId);
  return id === undefined ? undefined : id.slice(id.indexOf('/') + 1) || id;
}

function whenOf(r: Rec, at: At): string {
  const done = isRec(r.modelState) ? isoOfMs(r.modelState.completedAt) : undefined;
  return done ?? isoOfMs(r.timestamp) ?? at.fallbackTime ?? '1970-01-01T00:00:00.000Z';
}

/** The user's prompt, or undefined when the request holds none yet. */
export function userEvent(r: Rec, at: At): SessionfoldEvent | undefined {
  const id = str(r.requestId);
  const text = isRec(r.message) ? r.message.text : undefined;
  if (id === undefined || typeof text !== 'string') return undefined;
  return { type: 'message', agent: CODEC_ID, sessionId: at.sessionId, offset: at.offset, role: 'user', text, timestamp: isoOfMs(r.timestamp), nativeId: id };
}

/** The response's text and thinking, as one assistant message (none when both are empty). */
export function assistantEvent(r: Rec, at: At): SessionfoldEvent | undefined {
  const parts = Array.isArray(r.response) ? (r.response as Rec[]) : [];
  const text = parts.map((p) => (p.kind === undefined && typeof p.value === 'string' ? p.value : '')).join('');
  const thinking = parts.map((p) => (p.kind === 'thinking' && typeof p.value === 'string' ? p.value : '')).filter((t) => t !== '').join('\n');
  const error = isRec(r.result) && isRec(r.result.errorDetails) ? str(r.result.errorDetails.message) : undefined;
  const body = text !== '' ? text : (error ?? '');
  if (body === '' && thinking === '') return undefined;
  return {
    type: 'message',
    agent: CODEC_ID,
    sessionId: at.sessionId,
    offset: at.offset,
    role: 'assistant',
    text: body,
    ...(thinking !== '' && { thinking }),
    timestamp: whenOf(r, at),
    model: modelOf(r),
    nativeId: str(r.responseId) ?? `${str(r.requestId) ?? at.offset}:response`,
    ...(text === '' && error !== undefined && { subtype: 'error' }),
  };
}

/** A tool call, and its result once the invocation completed, per serialized tool invocation. */
export function toolEvents(r: Rec, at: At): SessionfoldEvent[] {
  const out: SessionfoldEvent[] = [];
  const parts = Array.isArray(r.response) ? (r.response as Rec[]) : [];
  const timestamp = whenOf(r, at);
  const base = { agent: CODEC_ID, sessionId: at.sessionId, offset: at.offset };
  parts.forEach((p, i) => {
    if (p.kind !== 'toolInvocationSerialized') return;
    const callId = str(p.toolCallId) ?? `${str(r.requestId) ?? at.offset}:${i}`;
    const name = str(p.toolId) ?? 'tool';
    out.push({ type: 'tool_call', ...base, callId, name, input: { message: p.invocationMessage ?? '' }, timestamp, messageId: str(r.responseId) });
    if (p.isComplete === true) out.push({ type: 'tool_result', ...base, callId, toolName: name, output: p.pastTenseMessage ?? p.invocationMessage ?? '', isError: false, timestamp });
  });
  return out;
}

interface Counts {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

function usageOf(r: Rec, at: At, model: string | undefined, key: string, c: Counts): UsageEvent {
  return usageEventOf(CODEC_ID, at.sessionId, at.offset, {
    model: model ?? 'unknown',
    modelFallback: model === undefined || undefined,
    timestamp: whenOf(r, at),
    inputTokens: c.input,
    outputTokens: c.output,
    reasoningTokens: Math.min(c.reasoning, c.output),
    cacheReadTokens: c.cached,
    cacheWriteTokens: 0,
    singleRequest: false,
    dedupKey: key,
    messageId: str(r.responseId),
  });
}

/**
 * The request's recorded tokens: per model from `modelTotals` (whole-turn sums; input taken as including the
 * cached tokens, which are split out), else `promptTokens` / `completionTokens` of the request, else those of
 * `result.metadata` (`promptTokens` / `outputTokens`). None when nothing is recorded, or all of it is zero.
 */
export function usageEvents(r: Rec, at: At): UsageEvent[] {
  const id = str(r.requestId);
  if (id === undefined) return [];
  const base = `${CODEC_ID}:${at.sessionId}:${id}`;
  const totals = Array.isArray(r.modelTotals) ? (r.modelTotals as Rec[]) : [];
  const out: UsageEvent[] = [];
  for (const t of totals) {
    const gross = count(t.inputTokens);
    const cached = Math.min(count(t.cachedTokens), gross);
    const c = { input: gross - cached, cached, output: count(t.outputTokens), reasoning: 0 };
    if (c.input + c.cached + c.output > 0) out.push(usageOf(r, at, str(t.model), `${base}:${String(t.model)}`, c));
  }
  if (out.length > 0) return out;
  const meta = metaOf(r);
  const c = { input: count(r.promptTokens ?? meta.promptTokens), cached: 0, output: count(r.completionTokens ?? meta.outputTokens), reasoning: count(meta.thinkingTokens) };
  return c.input + c.output > 0 ? [usageOf(r, at, modelOf(r), base, c)] : [];
}

/** What the usage events say, to tell a later change of the same request's tokens. */
export function usageSignature(events: readonly UsageEvent[]): string {
  return events.map((u) => `${u.model}/${u.inputTokens}/${u.cacheReadTokens}/${u.outputTokens}/${u.reasoningTokens}`).join(',');
}
