/**
 * The Grok Build engine: a pure, synchronous LineCore (no I/O) over `updates.jsonl`, one update per line in
 * Grok's envelope `{"timestamp","method","params":{"sessionId","update":{"sessionUpdate",…},"_meta":{…}}}`:
 * `session/update` for the Agent Client Protocol's updates, `_x.ai/session/update` for Grok's own (README
 * "Record").
 *
 * - `session` from the first record (the workspace from the folder name, the first timestamp and model); again
 *   when a copied record names the session a fork was made from.
 * - `message`: the protocol streams a message as chunks (`user_message_chunk`, `agent_message_chunk`,
 *   `agent_thought_chunk`), one line each. Consecutive chunks of one speaker are one message: it is emitted
 *   at the offset of its first chunk when the speaker changes or a tool call, tool result or usage line
 *   comes, and from `end()` as still open (a later chunk can extend it).
 * - `tool_call` for a `tool_call` update, `tool_result` for a `tool_call_update` whose status is `completed`
 *   or `failed`.
 * - `usage` for a `turn_completed` update's `usage`, one per model of the turn (usage.ts, README "Tokens"),
 *   keyed by the update's `eventId`, which a fork's copy keeps: the copy is marked `copied`. A subagent's own
 *   session counts none (its parent's turn holds them). The cumulative `_meta.totalTokens` counter has no
 *   input/output split and is not counted: a file without any usage ends with a session event saying its usage
 *   is unknown, as does one with a turn Grok marks `usageIsIncomplete`.
 * - A usage-only read (kinds ⊆ {usage, session}) parses only the lines with a usage or model marker (`markers`)
 *   once the first record is out and the first event id has said whether the file is a fork's copy.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { hasAnyMarker, parseJsonObject, restoreFlags, restoreStrings } from '../../cursors/core.js';
import type { EventKind, KindCounts, SessionEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf, type SessionFields } from '../../cursors/protocol/events.js';
import { CODEC_ID, grokSessionId, grokWorkspace } from './paths.js';
import { turnSpends } from './usage.js';
import { isoOf, isRec, msTime } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

/** What the files beside a session say of it (meta.ts): read by the adapter, handed to the pure core. */
export interface GrokSessionMeta {
  /** `summary.json` names the session a subagent's (`session_kind`): its spend is in its parent's turns. */
  subagent?: boolean;
  /** The parent session of a subagent (`parent_session_id`). */
  parent?: string;
  /** The working folder, when the workspace folder's name is a hash of it (its `.cwd`). */
  cwd?: string;
}

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
  /** Whether a turn's usage was marked incomplete by Grok. */
  incomplete: boolean;
  /** The session a fork was copied from: the session its copied records' event ids name. */
  origin: string | undefined;
  /** The message whose chunks are still arriving. */
  pending: Pending | undefined;
  /** Whether an update has borne a `<session id>-<n>` event id: the first one tells a fork's copy (`origin`). */
  settled: boolean;
  /** A usage-only read's byte markers (`USAGE_MARKERS`); undefined when the read wants the conversation. */
  filter: readonly Buffer[] | undefined;
}

/**
 * What a usage-only read needs of a line once the session is out and settled: a turn's usage
 * (`turn_completed`) or a model (`modelId`, `model_changed`'s `model_id`, `model_auto_switched`'s
 * `new_model_id`), the model a later turn without its own falls back to. Quoted at their end: a quote inside a
 * JSON string is escaped, so text that mentions them does not match.
 */
const USAGE_MARKERS: readonly Buffer[] = ['"turn_completed"', '"modelId"', 'model_id"'].map((m) => Buffer.from(m));

function usageFilter(kinds: ReadonlySet<EventKind>): readonly Buffer[] | undefined {
  for (const k of kinds) if (k !== 'usage' && k !== 'session') return undefined;
  return USAGE_MARKERS;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A time written as epoch milliseconds (from 2000 to 2200) or as a date string. */
const timeOf = (v: unknown): string | undefined => msTime(v, { plausible: true }) ?? isoOf(v);

/** The envelope's own `timestamp`: whole seconds, and the time of a fork's copy for a copied record. */
const secTime = (v: unknown): string | undefined => (typeof v === 'number' ? timeOf(v * 1000) : undefined);

function timestampOf(rec: Rec, params: Rec, update: Rec): string | undefined {
  const meta = isRec(params._meta) ? params._meta : {};
  const umeta = isRec(update._meta) ? update._meta : {};
  return timeOf(meta.agentTimestampMs) ?? timeOf(umeta.agentTimestampMs) ?? timeOf(params.timestamp) ?? secTime(rec.timestamp);
}

function modelOf(params: Rec, update: Rec): string | undefined {
  const umeta = isRec(update._meta) ? update._meta : {};
  const meta = isRec(params._meta) ? params._meta : {};
  const switched = update.sessionUpdate === 'model_changed' ? update.model_id : update.sessionUpdate === 'model_auto_switched' ? update.new_model_id : undefined;
  return str(umeta.modelId) ?? str(meta.modelId) ?? str(params.modelId) ?? str(switched);
}

/** Grok's event ids are `<session id>-<n>`; a fork's copy keeps its origin's. */
const EVENT_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-\d+$/i;

/** The session an event id names, when it is Grok's `<session id>-<n>`. */
const eventSession = (eventId: string | undefined): string | undefined => (eventId === undefined ? undefined : EVENT_ID.exec(eventId)?.[1]);

/** The session another session's event id names, when it is not this one's. */
function copiedFrom(s: GrokState, eventId: string | undefined): string | undefined {
  const from = eventSession(eventId);
  return from !== undefined && from.toLowerCase() !== s.sessionId.toLowerCase() ? from : undefined;
}

function sessionEvent(s: GrokState, meta: GrokSessionMeta, offset: number, extra?: SessionFields): SessionEvent {
  const subagent = meta.subagent === true;
  return sessionEventOf(CODEC_ID, s.sessionId, offset, {
    cwd: grokWorkspace(s.file) ?? meta.cwd,
    startedAt: s.startedAt,
    forkedFrom: subagent ? meta.parent : s.origin,
    subagent: subagent || undefined,
    model: s.model,
    provider: 'xai',
    ...extra,
  });
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

/** A `turn_completed` update's usage as sessionfold counts it (README "Tokens"): one event per model. */
export function grokUsage(s: GrokState, params: Rec, update: Rec, offset: number, ts: string | undefined): UsageEvent[] {
  const u = update.usage;
  if (update.sessionUpdate !== 'turn_completed' || !isRec(u)) return [];
  const meta = isRec(params._meta) ? params._meta : {};
  const eventId = str(meta.eventId);
  const copied = copiedFrom(s, eventId) !== undefined;
  const { byModel, spends } = turnSpends(u, s.model);
  if (u.usageIsIncomplete === true) s.incomplete = true;
  const base = eventId === undefined ? `${CODEC_ID}:${s.sessionId}:@${offset}` : `${CODEC_ID}:${eventId}`;
  return spends.map((t) =>
    usageEventOf(CODEC_ID, s.sessionId, offset, {
      model: t.model,
      provider: 'xai',
      timestamp: ts ?? s.startedAt,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      reasoningTokens: t.reasoningTokens,
      cacheReadTokens: t.cacheReadTokens,
      cacheWriteTokens: t.cacheWriteTokens,
      costUsd: t.costUsd,
      singleRequest: false,
      dedupKey: byModel ? `${base}:${t.model ?? ''}` : base,
      messageId: eventId,
      copied,
    }),
  );
}

const CHUNKS = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk']);
/** The method of Grok's own updates (grok-build `SessionUpdateEnvelope`): `turn_completed` rides it. */
const XAI_METHOD = '_x.ai/session/update';

function record(s: GrokState, meta: GrokSessionMeta, rec: Rec, offset: number, emit: Emit): void {
  if ((rec.method !== 'session/update' && rec.method !== XAI_METHOD) || !isRec(rec.params)) return;
  const params = rec.params;
  const update = isRec(params.update) ? params.update : {};
  // The folder is named after the session and every record names it too; the records win (a copy elsewhere).
  if (!s.sessionEmitted && str(params.sessionId) !== undefined) s.sessionId = params.sessionId as string;
  const ts = timestampOf(rec, params, update);
  const model = modelOf(params, update);
  if (model !== undefined) s.model = model;
  const eventId = str(isRec(params._meta) ? params._meta.eventId : undefined);
  const origin = s.origin === undefined ? copiedFrom(s, eventId) : undefined;
  if (origin !== undefined) s.origin = origin;
  // A fork copies its origin's lines before it writes its own (README "Forks and subagents"): the first event
  // id names another session in a fork's copy and this one otherwise, and no later line changes `origin`.
  s.settled ||= eventSession(eventId) !== undefined;
  if (!s.sessionEmitted) {
    s.sessionEmitted = true;
    s.startedAt = ts;
    emit(sessionEvent(s, meta, offset));
  } else if (origin !== undefined) {
    emit(sessionEvent(s, meta, offset));
  }
  const kind = str(update.sessionUpdate) ?? '';
  if (CHUNKS.has(kind)) {
    chunk(s, kind, update, offset, ts, emit);
    return;
  }
  // a subagent's own turns are counted in its parent's turn (README "Subagents")
  const usage = meta.subagent === true ? [] : grokUsage(s, params, update, offset, ts);
  const isTool = kind === 'tool_call' || kind === 'tool_call_update';
  if (!isTool && usage.length === 0) return;
  flush(s, emit);
  if (isTool) toolEvents(s, kind, update, offset, ts, emit);
  for (const e of usage) {
    s.sawUsage = true;
    emit(e);
  }
}

/** The Grok Build line core of a session, with what the files beside it say (`GrokSessionMeta`). */
export function createGrokCore(meta: GrokSessionMeta = {}): LineCore<GrokState> {
  return {
    init(ctx: CoreContext): GrokState {
      return {
        file: ctx.file,
        sessionId: grokSessionId(ctx.file),
        sessionEmitted: false,
        startedAt: undefined,
        model: undefined,
        sawUsage: false,
        incomplete: false,
        origin: undefined,
        pending: undefined,
        settled: false,
        filter: usageFilter(ctx.options.kinds),
      };
    },
    restore(snapshot, ctx) {
      const s = this.init(ctx);
      const o = (isRec(snapshot) ? snapshot : {}) as Partial<GrokState>;
      restoreStrings(s, o, ['sessionId', 'startedAt', 'model', 'origin']);
      restoreFlags(s, o, ['sessionEmitted', 'sawUsage', 'incomplete', 'settled']);
      const p = o.pending as Partial<Pending> | undefined;
      if (isRec(p) && (p.role === 'user' || p.role === 'assistant') && typeof p.text === 'string' && typeof p.thinking === 'string' && typeof p.offset === 'number') {
        s.pending = { role: p.role, text: p.text, thinking: p.thinking, offset: p.offset, timestamp: typeof p.timestamp === 'string' ? p.timestamp : undefined, model: typeof p.model === 'string' ? p.model : undefined };
      }
      return s;
    },
    snapshot: ({ file: _f, filter: _m, ...rest }) => rest,
    markers: (s) => (s.sessionEmitted && s.settled ? s.filter : undefined),
    line(s, line, start, emit) {
      if (s.filter !== undefined && s.sessionEmitted && s.settled && !hasAnyMarker(line, s.filter)) return;
      record(s, meta, parseJsonObject(line, start, CODEC_ID, s.file), start, emit);
    },
    end(s, emit): KindCounts {
      const open: KindCounts = {};
      if (s.pending !== undefined && (s.pending.text !== '' || s.pending.thinking !== '')) {
        emitPending(s, s.pending, emit);
        open.message = 1;
      }
      if (s.sessionEmitted && meta.subagent !== true && (!s.sawUsage || s.incomplete)) {
        emit(sessionEvent(s, meta, 0, { usageUnknown: true }));
        open.session = 1;
      }
      return open;
    },
  };
}

/** The Grok Build line core of a session nothing beside it is known of (stdin, a file elsewhere). */
export const grokCore: LineCore<GrokState> = createGrokCore();
