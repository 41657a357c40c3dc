/**
 * The normalized event protocol. Codecs yield these; folds (SessionManager, cost, the event cache) consume
 * them. Every event is a plain JSON-serializable object whose `type` names its kind. Folds must ignore kinds
 * they do not know, so adding a kind is never a breaking change. The table lives in ARCHITECTURE.md.
 */

/**
 * Goes up when shared normalization would turn an unchanged file into different events. Combined with a
 * codec's own `parserVersion` by `getParserVersion` into `n<CORE_EVENT_VERSION>.p<parserVersion>`.
 */
export const CORE_EVENT_VERSION = 1;

/** The kinds of event every codec may yield, in the order the event table lists them. */
export const EVENT_KINDS = ['session', 'message', 'usage', 'tool_call', 'tool_result'] as const;
/** One of `EVENT_KINDS`. */
export type EventKind = (typeof EVENT_KINDS)[number];

/** Who a message is from. */
export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';

/** Fields every event carries. */
export interface EventBase {
  /** Codec id, e.g. `claude`. */
  agent: string;
  /** Native session id the event belongs to. */
  sessionId: string;
  /** Byte offset of the start of the line (or record index for non-line formats) it came from. */
  offset: number;
}

/** One per session file (or per session inside a multi-session file); may repeat when metadata changes. */
export interface SessionEvent extends EventBase {
  type: 'session';
  /** Native session id (same as sessionId unless the file names a different one). */
  nativeId: string;
  cwd?: string;
  /** ISO-8601. */
  startedAt?: string;
  title?: string;
  /** Native id of the session this one was forked or resumed from, or the parent of a subagent. */
  forkedFrom?: string;
  /** The agent's own version string (cli_version, version). */
  version?: string;
  gitBranch?: string;
  /** True for subagent / sidechain transcripts. */
  subagent?: boolean;
  /** A subagent's type as its agent recorded it (Claude Code `agentType`: `general-purpose`, `Explore`, …). */
  agentType?: string;
  /** How deep a subagent was spawned: 1 for one started by the main session, 2 for one started by a subagent. */
  spawnDepth?: number;
  /** Model the session declares up front, if any. */
  model?: string;
  provider?: string;
  /**
   * `false` when the agent records no token usage at all (Cursor): the session has no usage events because
   * none exist, not because none were read, so its cost is "not recorded", never a measured $0. Absent means
   * the agent records usage where it has any.
   */
  usageRecorded?: boolean;
  /**
   * True when the agent has not recorded all of this session's token usage (GitHub Copilot CLI writes tokens
   * only when a run of the process ends): the session's usage events are a lower bound, possibly none, and
   * its cost is unknown rather than zero. Absent: the usage is as complete as the agent records it.
   */
  usageUnknown?: boolean;
}

/** A session event's optional fields, each of which may be given as undefined (and is then left out). */
export type SessionFields = { [K in Exclude<keyof SessionEvent, keyof EventBase | 'type' | 'nativeId'>]?: SessionEvent[K] | undefined };

/**
 * The session event of `sessionId` (its `nativeId` too), with the `fields` that are not undefined, in the order
 * given: the JSON keys are type, agent, sessionId, offset, nativeId, then the fields. A flag a codec sets only
 * when true is passed as `flag || undefined`.
 */
export function sessionEventOf(agent: string, sessionId: string, offset: number, fields: SessionFields = {}): SessionEvent {
  const e: SessionEvent = { type: 'session', agent, sessionId, offset, nativeId: sessionId };
  // for-in, not Object.entries: the same keys in the same order, without an array of pairs per session event.
  for (const key in fields) {
    const value = (fields as Record<string, unknown>)[key];
    if (value !== undefined) (e as unknown as Record<string, unknown>)[key] = value;
  }
  return e;
}

/** One message of the conversation: user, assistant, system or tool text, with thinking where recorded. */
export interface MessageEvent extends EventBase {
  type: 'message';
  role: MessageRole;
  text: string;
  thinking?: string;
  /** ISO-8601. */
  timestamp?: string;
  model?: string;
  /** The agent's id for the message (Claude `message.id`, a uuid, …). Lines sharing it form one message. */
  nativeId?: string;
  /** The agent's parent pointer (Claude `parentUuid`, pi `parentId`). */
  parentId?: string;
  /** Per-line id (Claude `uuid`) when it differs from nativeId. */
  lineId?: string;
  /** Set on injected context, compaction summaries and other non-conversational text. */
  subtype?: string;
}

/** A message's optional fields; one left undefined is left out. */
export type MessageFields = Partial<Pick<MessageEvent, 'thinking' | 'timestamp' | 'model' | 'nativeId' | 'parentId' | 'lineId' | 'subtype'>>;

/**
 * A message event with only the fields that are set, in the order `fields` names them (golden files compare
 * the JSON text, so a codec keeps one order).
 */
export function messageEventOf(agent: string, sessionId: string, offset: number, role: MessageRole, text: string, fields: MessageFields = {}): MessageEvent {
  const e: MessageEvent = { type: 'message', agent, sessionId, offset, role, text };
  for (const key in fields) {
    const value = (fields as Record<string, unknown>)[key];
    if (value !== undefined) (e as unknown as Record<string, unknown>)[key] = value;
  }
  return e;
}

/** The six token counts, declared once; every other shape that carries tokens derives from `TokenCounts`. */
export const TOKEN_FIELDS = ['inputTokens', 'outputTokens', 'reasoningTokens', 'cacheReadTokens', 'cacheWriteTokens', 'cacheWrite1hTokens'] as const;
export type TokenField = (typeof TOKEN_FIELDS)[number];

/**
 * Token counts in sessionfold's semantics, whatever the agent's own: the fields never overlap, so total billed
 * input = inputTokens + cacheReadTokens + cacheWriteTokens, and the "of which" fields are parts of another.
 */
export interface TokenCounts {
  /** Uncached input tokens. */
  inputTokens: number;
  /** Output tokens, reasoning included. */
  outputTokens: number;
  /** Of outputTokens, how many were reasoning. */
  reasoningTokens: number;
  cacheReadTokens: number;
  /** All cache-write tokens (5-minute and 1-hour). */
  cacheWriteTokens: number;
  /** Of cacheWriteTokens, how many were 1-hour writes. */
  cacheWrite1hTokens: number;
}

/**
 * Token usage of one API response (or, where the agent only records more, a span of them: then
 * `singleRequest` is false).
 */
export interface UsageEvent extends EventBase, TokenCounts {
  type: 'usage';
  model: string;
  /** True when the model was not recorded and a fallback was used. */
  modelFallback?: boolean;
  provider?: string;
  /** ISO-8601. */
  timestamp: string;
  /** Cost the agent itself recorded, in USD. */
  costUsd?: number;
  /**
   * Inference speed mode when the agent recorded a non-standard one (Anthropic `usage.speed: "fast"`: Opus
   * fast mode, billed at a multiple of the standard rates). Absent means standard.
   */
  speed?: string;
  /**
   * Server-side web searches the request ran (Anthropic `usage.server_tool_use.web_search_requests`),
   * billed per search on top of tokens. Absent means none recorded.
   */
  webSearchRequests?: number;
  /** True when the event covers exactly one model request (long-context tiers may apply). */
  singleRequest: boolean;
  /** Key that identifies this response across files; folds count each key once. */
  dedupKey: string;
  /** Agent's message / response id, when there is one. */
  messageId?: string;
  /**
   * True when the record is a copy of a response made in another session, which this file copied (Claude
   * Code's `--resume` copy, `/branch`, `--fork-session`): folds keep the origin's own copy on a tie. Absent
   * for a copy the file's own session made.
   */
  copied?: boolean;
}

/**
 * A usage event with every field present (optional ones undefined), in the order above, for a builder to fill:
 * every usage event is built on it (`usageEventOf`, the codecs' own builders, their native engines), so they
 * all share one shape whichever fields they end up setting, and a fold reading millions of them stays
 * monomorphic. An optional field left undefined is present as undefined: JSON leaves it out, so an event's
 * JSON (a golden file, the event cache, the CLI's output) is what it would be with the field absent. Its keys
 * come in this shared order for every codec, not in the order a codec fills them or its agent writes them:
 * building a codec's events on the shape (pi's, Hermes', OpenCode's) reorders the keys of its JSON, so the bytes
 * `sessionfold read` prints for it, and never changes a value.
 */
export function blankUsageEvent(): UsageEvent {
  return {
    type: 'usage',
    agent: '',
    sessionId: '',
    offset: 0,
    model: '',
    modelFallback: undefined,
    provider: undefined,
    timestamp: '',
    inputTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    costUsd: undefined,
    speed: undefined,
    webSearchRequests: undefined,
    singleRequest: false,
    dedupKey: '',
    messageId: undefined,
    copied: undefined,
  } as UsageEvent;
}

/**
 * Every count of `t` to 0, field by field: this runs once per usage record, mostly before the JIT has compiled
 * it, where a for-of over TOKEN_FIELDS makes an iterator result per step.
 */
export function zeroTokens(t: TokenCounts): void {
  t.inputTokens = 0;
  t.outputTokens = 0;
  t.reasoningTokens = 0;
  t.cacheReadTokens = 0;
  t.cacheWriteTokens = 0;
  t.cacheWrite1hTokens = 0;
}

/**
 * `e` (a usage event on `blankUsageEvent()`'s shape) back to the blank's values, field by field, keeping its
 * shape: a consumer that decodes many events onto one object (a native engine's block, `UsageBlock`) builds
 * each on a clean blank without allocating one.
 */
export function resetUsageEvent(e: UsageEvent): UsageEvent {
  e.type = 'usage';
  e.agent = '';
  e.sessionId = '';
  e.offset = 0;
  e.model = '';
  e.modelFallback = undefined;
  e.provider = undefined;
  e.timestamp = '';
  zeroTokens(e);
  e.costUsd = undefined;
  e.speed = undefined;
  e.webSearchRequests = undefined;
  e.singleRequest = false;
  e.dedupKey = '';
  e.messageId = undefined;
  e.copied = undefined;
  return e;
}

/**
 * A usage event back from JSON (a cursor's state holding an event not yet emitted), which left its undefined
 * fields out: on `blankUsageEvent()`'s shape again, as every usage event read is.
 */
export function usageEventFromJson(e: UsageEvent): UsageEvent {
  return Object.assign(blankUsageEvent(), e);
}

/** The usage events of a cursor state's list back from JSON (`usageEventFromJson`); anything else in it is dropped. */
export function usageEventsFromJson(v: unknown): UsageEvent[] {
  if (!Array.isArray(v)) return [];
  return v.filter((e): e is UsageEvent => e !== null && typeof e === 'object' && (e as { type?: unknown }).type === 'usage').map((e) => usageEventFromJson(e));
}

/** What a codec reads of one usage record; `usageEventOf` makes the event of it. */
export interface UsageRecord extends Partial<TokenCounts> {
  /** The model named for the record; undefined gives `unknown`, marked as a fallback. */
  model: string | undefined;
  /** Whether `model` stands in for one the record did not name (the session's); by default, whether it is undefined. */
  modelFallback?: boolean;
  provider?: string;
  /** ISO-8601; undefined gives the epoch, so an undated record sorts first rather than vanishing. */
  timestamp: string | undefined;
  costUsd?: number;
  speed?: string;
  webSearchRequests?: number;
  singleRequest: boolean;
  dedupKey: string;
  messageId?: string;
  /** The record is a copy another session made (UsageEvent.copied). */
  copied?: boolean;
}

/**
 * A usage event of `record`, on `blankUsageEvent()`'s shape: token counts it leaves out are 0, and optional
 * fields it leaves undefined stay undefined (absent from the JSON). One literal with every field, in the
 * blank's order, for every codec that builds its events here.
 */
export function usageEventOf(agent: string, sessionId: string, offset: number, record: UsageRecord): UsageEvent {
  const r = record;
  return {
    type: 'usage',
    agent,
    sessionId,
    offset,
    model: r.model ?? 'unknown',
    modelFallback: (r.modelFallback ?? r.model === undefined) || undefined,
    provider: r.provider,
    timestamp: r.timestamp ?? '1970-01-01T00:00:00.000Z',
    inputTokens: r.inputTokens ?? 0,
    outputTokens: r.outputTokens ?? 0,
    reasoningTokens: r.reasoningTokens ?? 0,
    cacheReadTokens: r.cacheReadTokens ?? 0,
    cacheWriteTokens: r.cacheWriteTokens ?? 0,
    cacheWrite1hTokens: r.cacheWrite1hTokens ?? 0,
    costUsd: r.costUsd,
    speed: r.speed,
    webSearchRequests: r.webSearchRequests,
    singleRequest: r.singleRequest,
    dedupKey: r.dedupKey,
    messageId: r.messageId,
    copied: r.copied || undefined,
  } as UsageEvent;
}

/** A tool call the assistant made, with its input. */
export interface ToolCallEvent extends EventBase {
  type: 'tool_call';
  callId: string;
  name: string;
  input: unknown;
  /** ISO-8601. */
  timestamp?: string;
  /** The message (nativeId) that issued it. */
  messageId?: string;
}

/** The result of a tool call, matched to it by `callId`. */
export interface ToolResultEvent extends EventBase {
  type: 'tool_result';
  callId: string;
  toolName?: string;
  output: unknown;
  isError: boolean;
  /** ISO-8601. */
  timestamp?: string;
  durationMs?: number;
}

/** Every event a codec yields: a plain JSON-serializable object whose `type` names its kind. */
export type SessionfoldEvent = SessionEvent | MessageEvent | UsageEvent | ToolCallEvent | ToolResultEvent;

/** An event whose kind this version does not know; folds skip it. */
export interface UnknownEvent extends EventBase {
  type: string;
  [key: string]: unknown;
}

/** The event type of one kind: `EventOfKind<'usage'>` is `UsageEvent`. */
export type EventOfKind<K extends EventKind> = Extract<SessionfoldEvent, { type: K }>;

/** True when `value` names an event kind this version knows. */
export function isEventKind(value: string): value is EventKind {
  return (EVENT_KINDS as readonly string[]).includes(value);
}

/** Narrows an event to a usage event. */
export function isUsageEvent(e: { type: string }): e is UsageEvent {
  return e.type === 'usage';
}

/** Per-kind counts, used by `replaced`. Unset kinds mean 0. */
export type KindCounts = Partial<Record<EventKind, number>>;
