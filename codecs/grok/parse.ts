/**
 * The Grok Build engine: a pure, synchronous LineCore (no I/O) over `updates.jsonl`, one Agent Client
 * Protocol notification per line: `{"method":"session/update","params":{"sessionId","update":{"sessionUpdate",
 * …},"_meta":{"agentTimestampMs",…}}}` (README "Record").
 *
 * - `session` from the first record (the workspace from the folder name, the first timestamp and model).
 * - `message`: the protocol streams a message as chunks (`user_message_chunk`, `agent_message_chunk`,
 *   `agent_thought_chunk`), one line each. Consecutive chunks of one speaker are one message: it is emitted
 *   at the offset of its first chunk when the speaker changes or a tool call, tool result or usage line
 *   comes, and from `end()` as still open (a later chunk can extend it).
 * - `tool_call` for a `tool_call` update, `tool_result` for a `tool_call_update` whose status is `completed`
 *   or `failed`.
 * - `usage` for an update carrying `usage` (`turn_completed`): `inputTokens` includes `cachedReadTokens`
 *   and `outputTokens` includes `reasoningTokens` (README "Tokens"). The cumulative `_meta.totalTokens`
 *   counter of older releases has no input/output split and is not counted: a file without any `usage`
 *   ends with a session event saying its usage is unknown.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { jsonObjectLine, restoreStrings, snapshotWithoutFile } from '../../cursors/core.js';
import { tokenCount } from '../../cursors/glued-json.js';
import type { KindCounts, SessionEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf, type SessionFields } from '../../cursors/protocol/events.js';
import { CODEC_ID, grokSessionId, grokWorkspace } from './paths.js';

type Rec = Record<string, unknown>;

interface Pending {
  role: 'user' | 'assistant';
  text: string;
  thinking: string;
  offset: number;
  timestamp: string | undefined;
  model: string | undefined;
}

export interface GrokState {
  file: string;
  sessionId: string;
  sessionEmitted: boolean;
  startedAt: string | undefined;
  /** The model the last update named (`_meta.modelId`). */
  model: string | undefined;
  /** Whether any update carried token usage. */
  sawUsage: boolean;
  /** The message whose chunks are still arriving. */
  pending: Pending | undefined;
}

const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function msTime(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v > 946_684_800_000 && v < 7_258_118_400_000) return new Date(Math.trunc(v)).toISOString();
  if (typeof v === 'string' && v !== '' && !Number.isNaN(Date.parse(v))) return new Date(Date.parse(v)).toISOString();
  return undefined;
}

function timestampOf(params: Rec, update: Rec): string | undefined {
  const meta = isRec(params._meta) ? params._meta : {};
  const umeta = isRec(update._meta) ? update._meta : {};
  return msTime(meta.agentTimestampMs) ?? msTime(umeta.agentTimestampMs) ?? msTime(params.timestamp);
}

function modelOf(params: Rec, update: Rec): string | undefined {
  const umeta = isRec(update._meta) ? update._meta : {};
  const meta = isRec(params._meta) ? params._meta : {};
  return str(umeta.modelId) ?? str(meta.modelId) ?? str(params.modelId);
}

function sessionEvent(s: GrokState, offset: number, extra?: SessionFields): SessionEvent {
  return sessionEventOf(CODEC_ID, s.sessionId, offset, { cwd: grokWorkspace(s.file), startedAt: s.startedAt, model: s.model, provider: 'xai', ...extra });
}

function flush(s: GrokState, emit: Emit): void {
  const p = s.pending;
  if (p === undefined) return;
  s.pending = undefined;
  emitPending(s, p, emit);
}

function emitPending(s: GrokState, p: Pending, emit: Emit): void {
  if (p.text === '' && p.thinking === '') return;
  emit({
    type: 'message',
    agent: CODEC_ID,
    sessionId: s.sessionId,
    offset: p.offset,
    role: p.role,
    text: p.text,
    ...(p.thinking !== '' && { thinking: p.thinking }),
    ...(p.timestamp !== undefined && { timestamp: p.timestamp }),
    ...(p.model !== undefined && { model: p.model }),
  });
}

/** The text of a chunk's content block (a text block, or an array of them); '' for images and the like. */
function chunkText(content: unknown): string {
  if (isRec(content)) return content.type === 'text' && typeof content.text === 'string' ? content.text : '';
  if (Array.isArray(content)) return content.map(chunkText).join('');
  return '';
}

function chunk(s: GrokState, kind: string, update: Rec, offset: number, ts: string | undefined, emit: Emit): void {
  const role = kind === 'user_message_chunk' ? 'user' : 'assistant';
  if (s.pending !== undefined && s.pending.role !== role) flush(s, emit);
  const p = (s.pending ??= { role, text: '', thinking: '', offset, timestamp: ts, model: role === 'assistant' ? s.model : undefined });
  const text = chunkText(update.content);
  if (kind === 'agent_thought_chunk') p.thinking += text;
  else p.text += text;
}

/** A tool result's output: the raw output when recorded, else the text of its content blocks. */
function toolOutput(update: Rec): unknown {
  if (update.rawOutput !== undefined) return update.rawOutput;
  if (!Array.isArray(update.content)) return null;
  const texts = update.content.filter(isRec).map((c) => chunkText(c.content));
  return texts.join('\n');
}

function toolEvents(s: GrokState, kind: string, update: Rec, offset: number, ts: string | undefined, emit: Emit): void {
  const callId = str(update.toolCallId) ?? '';
  if (kind === 'tool_call') {
    emit({ type: 'tool_call', agent: CODEC_ID, sessionId: s.sessionId, offset, callId, name: str(update.title) ?? str(update.kind) ?? '', input: update.rawInput ?? null, ...(ts !== undefined && { timestamp: ts }) });
  } else if (update.status === 'completed' || update.status === 'failed') {
    emit({ type: 'tool_result', agent: CODEC_ID, sessionId: s.sessionId, offset, callId, output: toolOutput(update), isError: update.status === 'failed', ...(ts !== undefined && { timestamp: ts }) });
  }
}

const pick = (u: Rec, keys: readonly string[]): number => {
  for (const k of keys) if (u[k] !== undefined) return tokenCount(u[k]);
  return 0;
};

/** An update's `usage` as sessionfold counts it (README "Tokens"); undefined when it holds no tokens. */
export function grokUsage(s: GrokState, params: Rec, update: Rec, offset: number, ts: string | undefined): UsageEvent | undefined {
  const u = update.usage;
  if (!isRec(u)) return undefined;
  const rawIn = pick(u, ['inputTokens', 'input_tokens']);
  const rawOut = pick(u, ['outputTokens', 'output_tokens']);
  const cacheRead = pick(u, ['cachedReadTokens', 'cacheReadTokens']);
  const cacheWrite = pick(u, ['cachedWriteTokens', 'cacheWriteTokens']);
  const reasoning = pick(u, ['reasoningTokens']);
  // Grok's input includes the cache reads and its output the reasoning; a total other than input + output
  // would say the buckets are already apart, and then they are taken as they are.
  const total = u.totalTokens === undefined ? undefined : tokenCount(u.totalTokens);
  const inclusive = total === undefined || total === rawIn + rawOut;
  const cached = inclusive ? Math.min(cacheRead, rawIn) : cacheRead;
  const input = inclusive ? rawIn - cached : rawIn;
  const output = inclusive ? rawOut : rawOut + reasoning;
  if (input + cached + cacheWrite + output === 0) return undefined;
  const models = isRec(u.modelUsage) ? Object.keys(u.modelUsage) : [];
  const model = s.model ?? (models.length === 1 ? models[0] : undefined);
  const meta = isRec(params._meta) ? params._meta : {};
  const eventId = str(meta.eventId);
  return usageEventOf(CODEC_ID, s.sessionId, offset, {
    model,
    provider: 'xai',
    timestamp: ts ?? s.startedAt,
    inputTokens: input,
    outputTokens: output,
    reasoningTokens: Math.min(reasoning, output),
    cacheReadTokens: cached,
    cacheWriteTokens: cacheWrite,
    singleRequest: false,
    dedupKey: `${CODEC_ID}:${s.sessionId}:${eventId ?? `@${offset}`}`,
    messageId: eventId,
  });
}

const CHUNKS = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk']);

function record(s: GrokState, rec: Rec, offset: number, emit: Emit): void {
  if (rec.method !== 'session/update' || !isRec(rec.params)) return;
  const params = rec.params;
  const update = isRec(params.update) ? params.update : {};
  // The folder is named after the session and every record names it too; the records win (a copy elsewhere).
  if (!s.sessionEmitted && str(params.sessionId) !== undefined) s.sessionId = params.sessionId as string;
  const ts = timestampOf(params, update);
  const model = modelOf(params, update);
  if (model !== undefined) s.model = model;
  if (!s.sessionEmitted) {
    s.sessionEmitted = true;
    s.startedAt = ts;
    emit(sessionEvent(s, offset));
  }
  const kind = str(update.sessionUpdate) ?? '';
  if (CHUNKS.has(kind)) {
    chunk(s, kind, update, offset, ts, emit);
    return;
  }
  const usage = grokUsage(s, params, update, offset, ts);
  const isTool = kind === 'tool_call' || kind === 'tool_call_update';
  if (!isTool && usage === undefined) return;
  flush(s, emit);
  if (isTool) toolEvents(s, kind, update, offset, ts, emit);
  if (usage !== undefined) {
    s.sawUsage = true;
    emit(usage);
  }
}

/** The Grok Build line core. */
export const grokCore: LineCore<GrokState> = {
  init(ctx: CoreContext): GrokState {
    return { file: ctx.file, sessionId: grokSessionId(ctx.file), sessionEmitted: false, startedAt: undefined, model: undefined, sawUsage: false, pending: undefined };
  },
  restore(snapshot, ctx) {
    const s = this.init(ctx);
    const o = (isRec(snapshot) ? snapshot : {}) as Partial<GrokState>;
    restoreStrings(s, o, ['sessionId', 'startedAt', 'model']);
    s.sessionEmitted = o.sessionEmitted === true;
    s.sawUsage = o.sawUsage === true;
    const p = o.pending as Partial<Pending> | undefined;
    if (isRec(p) && (p.role === 'user' || p.role === 'assistant') && typeof p.text === 'string' && typeof p.thinking === 'string' && typeof p.offset === 'number') {
      s.pending = { role: p.role, text: p.text, thinking: p.thinking, offset: p.offset, timestamp: typeof p.timestamp === 'string' ? p.timestamp : undefined, model: typeof p.model === 'string' ? p.model : undefined };
    }
    return s;
  },
  snapshot: snapshotWithoutFile,
  line: jsonObjectLine(CODEC_ID, record),
  end(s, emit): KindCounts {
    const open: KindCounts = {};
    if (s.pending !== undefined && (s.pending.text !== '' || s.pending.thinking !== '')) {
      emitPending(s, s.pending, emit);
      open.message = 1;
    }
    if (s.sessionEmitted && !s.sawUsage) {
      emit(sessionEvent(s, 0, { usageUnknown: true }));
      open.session = 1;
    }
    return open;
  },
};
