/**
 * The DeepSeek Harness engine: a pure, synchronous LineCore (no I/O) over one session log's lines, whatever
 * its generation and encoding (README.md has the format and its sources).
 *
 * - `session` at the header (cwd, creation time, the session it was forked from, whether it is a subagent's),
 *   again at each `session/title`, and at the end when some call's tokens are not recorded (`usageUnknown`).
 * - `message` per `user/message` and `assistant/message` (text, reasoning as thinking); `tool_call` per
 *   `tool/call`, `tool_result` per `tool/result`.
 * - `usage` as dsh's own token meter counts it (README.md, "Tokens"): one sample per Assistant settlement
 *   (`assistant/message`, a log-only `assistant/attempt`; generations 0 and 1: a streamed `usage` chunk); a
 *   later sample of the same turn and step replaces an attempt's unless `llm/retry-started` came between, so
 *   an attempt's sample is held until that is settled. A compaction's summary call (`compaction/summary`) is
 *   a call of its own. Usage a fork inherited from its parent is marked `copied`.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { hasAnyMarker, parseJsonObject, parseJsonText, restoreFlags, restoreStrings } from '../../cursors/core.js';
import type { KindCounts, SessionFields, TokenCounts, UsageEvent } from '../../cursors/protocol/events.js';
import { messageEventOf, sessionEventOf, usageEventFromJson, usageEventOf } from '../../cursors/protocol/events.js';
import { msTime } from '../../cursors/json-value.js';
import { blockText, headerOf, int, isRec, isUnrecordedRequest, resultText, routeOf, str, streamHasOutput, streamUsage, tokensOf, type Rec } from './records.js';
import { CODEC_ID, dshSessionIdOf } from './paths.js';

export interface DshState {
  file: string;
  sessionId: string;
  sessionEmitted: boolean;
  cwd: string | undefined;
  startedAt: string | undefined;
  /** The header's `createdAt` (epoch ms): a fork's inherited events are older. */
  createdAt: number | undefined;
  forkedFrom: string | undefined;
  subagent: boolean;
  spawnDepth: number | undefined;
  title: string | undefined;
  /** Generations 0 and 1: the number of inherited leading events. */
  seedLength: number | undefined;
  /** Generation 2 on: the header says the session holds an inherited prefix. */
  seeded: boolean;
  /** The `seq` of the last tagged `session/end-seed` (the inherited cut) seen. */
  cutSeq: number | undefined;
  /** The route of the last `request/header` or `request/context`: an attempt's model. */
  model: string | undefined;
  provider: string | undefined;
  /** The turn and step of the last usage sample while a later one may replace it (token-meter's slot). */
  slot: [turn: number, step: number] | undefined;
  /** An attempt's sample, held until a later sample of its step replaces it or it is settled. */
  held: UsageEvent | undefined;
  /** Tool names by call id, for their results (the calls of the turn in progress). */
  calls: Record<string, string>;
  /** Some model call's tokens are not in the log (README.md, "Not recorded"). */
  unknown: boolean;
  /** A usage-only read: only lines holding a marker matter. */
  usageOnly: boolean;
  conversation: boolean;
  titles: boolean;
}

/** What a usage-only read needs: usage, retries, routes, and the header and inherited cut (`"session`). */
const USAGE_MARKERS: readonly Buffer[] = [Buffer.from('"usage"'), Buffer.from('"llm/retry-started"'), Buffer.from('"request/'), Buffer.from('"session')];
/** Pending tool calls kept for their results' names: a turn's calls, bounded. */
const MAX_CALLS = 256;

function sessionEvent(s: DshState, offset: number, extra?: SessionFields) {
  return sessionEventOf(CODEC_ID, s.sessionId, offset, {
    cwd: s.cwd,
    startedAt: s.startedAt,
    title: s.title,
    forkedFrom: s.forkedFrom,
    subagent: s.subagent || undefined,
    spawnDepth: s.spawnDepth,
    ...extra,
  });
}

function openSession(s: DshState, r: Rec, offset: number, emit: Emit): void {
  if (s.sessionEmitted) return;
  const h = headerOf(r);
  if (h !== undefined) {
    if (h.id !== undefined) s.sessionId = h.id;
    s.cwd = h.cwd;
    s.createdAt = h.createdAt;
    s.startedAt = msTime(h.createdAt);
    s.forkedFrom = h.parentSession;
    s.subagent = h.subagent;
    s.spawnDepth = h.subagent ? h.delegationDepth : undefined;
    s.seedLength = h.seedLength !== undefined && h.seedLength > 0 ? h.seedLength : undefined;
    s.seeded = h.isSeeded || s.seedLength !== undefined;
  } else s.startedAt = msTime(r.time);
  s.sessionEmitted = true;
  emit(sessionEvent(s, offset));
}

/**
 * Whether the event at `seq`, `time` is one the fork inherited (README.md, "Forks"): before the numeric cut
 * (generations 0, 1); before the first tagged `session/end-seed`; after one, when older than the session, for
 * the inherited prefix of a fork of a fork holds its parent's own cut.
 */
function inherited(s: DshState, seq: number | undefined, time: number | undefined): boolean {
  if (!s.seeded) return false;
  if (s.seedLength !== undefined) return seq !== undefined && seq < s.seedLength;
  if (s.cutSeq === undefined) return true;
  if (seq !== undefined && seq < s.cutSeq) return true;
  return time !== undefined && s.createdAt !== undefined && time < s.createdAt;
}

interface Sample {
  tokens: TokenCounts;
  model: string | undefined;
  provider: string | undefined;
  key: string;
  messageId?: string | undefined;
}

function usageOf(s: DshState, r: Rec, offset: number, x: Sample): UsageEvent {
  const time = typeof r.time === 'number' ? r.time : undefined;
  return usageEventOf(CODEC_ID, s.sessionId, offset, {
    ...x.tokens,
    model: x.model,
    provider: x.provider,
    timestamp: msTime(time) ?? s.startedAt,
    singleRequest: true,
    dedupKey: `${CODEC_ID}:${x.key}`,
    messageId: x.messageId,
    copied: inherited(s, int(r.seq), time),
  });
}

const sameStep = (slot: DshState['slot'], turn: unknown, step: unknown): boolean => slot !== undefined && slot[0] === turn && slot[1] === step;

/** A settlement's sample in token-meter's slot: `final` (an assembled message) is emitted, an attempt's held. */
function sample(s: DshState, r: Rec, data: Rec, offset: number, x: Sample, final: boolean, emit: Emit): void {
  const turn = int(data.turn) ?? -1;
  const step = int(data.step) ?? -1;
  // a later sample of the held one's step replaces it, unless a retry closed the slot between them
  if (s.held !== undefined && !sameStep(s.slot, turn, step)) emit(s.held);
  s.held = undefined;
  const e = usageOf(s, r, offset, x);
  s.slot = [turn, step];
  if (final) emit(e);
  else s.held = e;
}

function routeSample(s: DshState, tokens: TokenCounts, key: string): Sample {
  return { tokens, model: s.model, provider: s.provider, key };
}

/** The usage records of a line: settlements, streamed usage chunks, compaction calls, retries, routes. */
function usageRecord(s: DshState, r: Rec, type: string, data: Rec, offset: number, emit: Emit): void {
  const at = `${String(r.time)}:${String(data.turn)}:${String(data.step)}`;
  switch (type) {
    case 'assistant/message': {
      const message = isRec(data.message) ? data.message : {};
      const source = isRec(message.source) ? message.source : {};
      const tokens = tokensOf(data.usage ?? streamUsage(data.stream));
      const id = str(message.id);
      if (tokens !== undefined) {
        sample(s, r, data, offset, { tokens, model: str(source.model) ?? s.model, provider: str(source.provider) ?? s.provider, key: id ?? `message:${at}`, messageId: id }, true, emit);
      } else if (!(s.held !== undefined && sameStep(s.slot, data.turn, data.step))) s.unknown = true;
      return;
    }
    case 'assistant/attempt': {
      const tokens = tokensOf(streamUsage(data.stream));
      if (tokens !== undefined) sample(s, r, data, offset, routeSample(s, tokens, `attempt:${at}:${tokens.inputTokens}:${tokens.outputTokens}`), false, emit);
      else if (streamHasOutput(data.stream)) s.unknown = true;
      return;
    }
    case 'assistant/chunk': {
      // generations 0 and 1: the stream's chunks are events, its usage one of them
      const chunk = isRec(data.chunk) ? data.chunk : {};
      const tokens = chunk.type === 'usage' ? tokensOf(chunk.usage) : undefined;
      if (tokens !== undefined) sample(s, r, data, offset, routeSample(s, tokens, `attempt:${at}:${tokens.inputTokens}:${tokens.outputTokens}`), false, emit);
      return;
    }
    case 'compaction/summary':
    case 'compact/summary': {
      const tokens = tokensOf(data.usage);
      const id = str(data.compactionId);
      if (tokens !== undefined) emit(usageOf(s, r, offset, { tokens, model: str(data.model), provider: str(data.provider), key: `compaction:${id ?? String(r.time)}` }));
      else if (data.llmStreamCall === true) s.unknown = true;
      return;
    }
    case 'llm/retry-started':
      if (sameStep(s.slot, data.turn, data.step)) {
        if (s.held !== undefined) emit(s.held);
        s.held = undefined;
        s.slot = undefined;
      }
      return;
    case 'request/header':
    case 'request/context': {
      const route = routeOf(type, data);
      if (route !== undefined) [s.model, s.provider] = [route.model, route.provider];
      return;
    }
    case 'session/end-seed':
      if (data.inherited === true) s.cutSeq = int(r.seq);
      return;
    default:
      if (isUnrecordedRequest(type)) s.unknown = true;
  }
}

/** The conversation records of a line: messages, tool calls and their results. */
function conversationRecord(s: DshState, r: Rec, type: string, data: Rec, offset: number, emit: Emit): void {
  const timestamp = msTime(r.time);
  switch (type) {
    case 'user/message': {
      const text = blockText(data.content, 'text');
      if (text === '') return;
      const source = isRec(data.source) ? data.source : {};
      const kind = str(source.kind);
      // a compaction's summary enters as a user message; other non-user sources are context dsh injected
      const subtype = kind === undefined || kind === 'user' ? undefined : kind === 'compact-checkpoint' || source.plugin === 'compact' ? 'compaction' : 'injected';
      emit(messageEventOf(CODEC_ID, s.sessionId, offset, 'user', text, { timestamp, nativeId: str(data.id), subtype }));
      return;
    }
    case 'assistant/message': {
      const message = isRec(data.message) ? data.message : {};
      const text = blockText(message.content, 'text');
      const thinking = blockText(message.content, 'reasoning');
      if (text === '' && thinking === '') return;
      const source = isRec(message.source) ? message.source : {};
      emit(messageEventOf(CODEC_ID, s.sessionId, offset, 'assistant', text, { thinking: thinking || undefined, timestamp, model: str(source.model), nativeId: str(message.id) }));
      return;
    }
    case 'tool/call': {
      const callId = str(data.callId) ?? '';
      const name = str(data.name) ?? '';
      if (callId !== '' && Object.keys(s.calls).length < MAX_CALLS) s.calls[callId] = name;
      emit({ type: 'tool_call', agent: CODEC_ID, sessionId: s.sessionId, offset, callId, name, input: parseJsonText(data.arguments), ...(timestamp !== undefined && { timestamp }) });
      return;
    }
    case 'tool/result': {
      const message = isRec(data.message) ? data.message : {};
      const block = Array.isArray(message.content) && isRec(message.content[0]) ? message.content[0] : {};
      const source = isRec(message.source) ? message.source : {};
      const callId = str(block.toolCallId) ?? str(source.callId) ?? '';
      const toolName = Object.hasOwn(s.calls, callId) ? s.calls[callId] : undefined;
      delete s.calls[callId];
      const isError = block.isError === true || data.error !== undefined;
      emit({ type: 'tool_result', agent: CODEC_ID, sessionId: s.sessionId, offset, callId, ...(toolName !== undefined && { toolName }), output: resultText(block.content), isError, ...(timestamp !== undefined && { timestamp }) });
      return;
    }
    case 'turn/end':
      // a call whose result never came belongs to an ended turn
      s.calls = {};
      return;
    default:
      return;
  }
}

function title(s: DshState, data: Rec, offset: number, emit: Emit): void {
  const t = str(data.title);
  if (t === undefined || t === s.title) return;
  s.title = t;
  if (s.titles) emit(sessionEvent(s, offset));
}

/** The DeepSeek Harness line core. */
export const dshCore: LineCore<DshState> = {
  init(ctx: CoreContext): DshState {
    const o = ctx.options;
    return {
      file: ctx.file,
      sessionId: dshSessionIdOf(ctx.file),
      sessionEmitted: false,
      cwd: undefined,
      startedAt: undefined,
      createdAt: undefined,
      forkedFrom: undefined,
      subagent: false,
      spawnDepth: undefined,
      title: undefined,
      seedLength: undefined,
      seeded: false,
      cutSeq: undefined,
      model: undefined,
      provider: undefined,
      slot: undefined,
      held: undefined,
      calls: {},
      unknown: false,
      usageOnly: o.kinds.size === 1 && o.kinds.has('usage'),
      conversation: o.conversation,
      titles: o.titles,
    };
  },
  restore(snapshot, ctx) {
    const s = this.init(ctx);
    const o = isRec(snapshot) ? snapshot : {};
    restoreStrings(s, o as Partial<DshState>, ['sessionId', 'cwd', 'startedAt', 'forkedFrom', 'title', 'model', 'provider']);
    for (const k of ['createdAt', 'spawnDepth', 'seedLength', 'cutSeq'] as const) s[k] = typeof o[k] === 'number' ? o[k] : undefined;
    restoreFlags(s, o as Partial<DshState>, ['sessionEmitted', 'subagent', 'seeded', 'unknown']);
    s.slot = Array.isArray(o.slot) && o.slot.length === 2 && o.slot.every((n) => typeof n === 'number') ? [o.slot[0] as number, o.slot[1] as number] : undefined;
    s.held = isRec(o.held) ? usageEventFromJson(o.held as unknown as UsageEvent) : undefined;
    if (isRec(o.calls)) for (const [k, v] of Object.entries(o.calls)) if (typeof v === 'string') s.calls[k] = v;
    return s;
  },
  snapshot(s) {
    const { file: _file, usageOnly: _u, conversation: _c, titles: _t, ...rest } = s;
    return rest;
  },
  markers(s) {
    return s.usageOnly ? USAGE_MARKERS : undefined;
  },
  line(s, line, start, emit) {
    if (s.usageOnly && !hasAnyMarker(line, USAGE_MARKERS)) return;
    const r = parseJsonObject(line, start, CODEC_ID, s.file);
    openSession(s, r, start, emit);
    const type = str(r.type);
    if (type === undefined || type === 'session') return;
    const data = isRec(r.data) ? r.data : {};
    usageRecord(s, r, type, data, start, emit);
    if (type === 'session/title') title(s, data, start, emit);
    else if (s.conversation) conversationRecord(s, r, type, data, start, emit);
  },
  end(s, emit): KindCounts {
    // still pending, so a resumed read yields them again: an attempt's sample a later one may yet replace,
    // and whether every call's tokens are in the log
    const open: KindCounts = {};
    if (s.held !== undefined) {
      emit(s.held);
      open.usage = 1;
    }
    if (s.sessionEmitted && s.unknown && !s.usageOnly) {
      emit(sessionEvent(s, 0, { usageUnknown: true }));
      open.session = 1;
    }
    return open;
  },
};
