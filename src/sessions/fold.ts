/**
 * The session fold: codec events in, a Session (or the numbers of a SessionSummary) out. Pure and
 * synchronous, so `get()`, `list()`'s exact reads, the head/tail peek and search all count messages, turns,
 * titles and cost the same way, and `list().messageCount` always equals `get().messages.length`.
 *
 * Rules (each a test):
 * - Consecutive message events with the same role and native id are one message (Claude writes one API
 *   response over several lines); their texts join with a blank line, exact repeats are dropped.
 * - A tool_call attaches to the message whose native id it names, else to the last message when that is an
 *   assistant one, else to a new tool-only assistant message.
 * - A tool_result fills its call's output and becomes a `tool` message, or completes a `tool` message
 *   the same line already produced (sessionfold-jsonl writes both).
 * - Usage counts once per dedupKey and attaches to the message it names, else to the last assistant message.
 *   Usage may come before the message it names (Gemini's codec yields a turn's usage as it reads it and the
 *   turn's messages when the turn closes): it waits for that message, and only when the events end without
 *   it goes to the last assistant message of when it came.
 *   A usage event naming another session than the file's (its first session event's, else its first event's)
 *   is that session's (a Claude parent's copy of a subagent response, codecs/claude/README.md): skipped.
 * - Usage marked `copied` (the file copied the response from another session: a resumed, branched or forked
 *   history) is that session's spend: it stays on its message, but the session's `cost` and `costByModel`
 *   leave it out and `copiedCost` holds it, so the costs of a parent and its forks add up to `totalCost`'s.
 * - Messages with no text, thinking, tool call or result are dropped (Claude's tool-result-only user lines).
 * - Unknown event kinds are ignored.
 */
import type { CostRecord } from '../cost/types.js';
import type { MessageEvent, SessionEvent, SessionfoldEvent, ToolCallEvent, ToolResultEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { OwnSession } from '../own-session.js';
import { addUsage, emptyCost, sumUsage, type PriceFn } from './cost.js';
import { cutTitle, outputText } from './fold-text.js';
import type { OrphanUsage, SessionMessage, SessionToolCall } from './types.js';

interface Draft {
  role: SessionMessage['role'];
  parts: string[];
  thinkingParts: string[];
  hasText: boolean;
  hasThinking: boolean;
  /** Keep text (always in content mode; in summary mode only for the title candidate). */
  keep: boolean;
  timestamp?: string | undefined;
  model?: string | undefined;
  id?: string | undefined;
  subtype?: string | undefined;
  /** Offset of the last event folded into it. */
  offset: number;
  /** Its place among the file's drafts, from 0 (the index `touches` are kept by). */
  seq: number;
  toolCalls?: SessionToolCall[];
  toolResult?: SessionMessage['toolResult'];
  usage?: UsageEvent[];
  usd?: number | undefined;
  unpriced?: number;
}

/** Usage naming a message not folded yet, and where it goes if that message never comes. */
interface PendingUsage {
  e: UsageEvent;
  usd: number | undefined;
  fallback: Draft | undefined;
}

export interface FoldOptions {
  /** Keep message text, thinking, tool inputs and outputs (get). False for summaries. */
  content: boolean;
  /** Prices usage events; without it, cost records count tokens only and every event is unpriced. */
  price?: PriceFn | undefined;
  /**
   * A first pass: record, for each draft, the index of the last pushed event that changed it or looked it
   * up (`FoldResult.touches`). A second pass given them (`settle`) hands out each message once no later
   * event can change it (`takeSettled`), so a session can be shown without holding it whole.
   */
  track?: boolean;
  /** The first pass's `touches`: this fold releases settled messages (content mode). */
  settle?: readonly number[];
  /** Without content: still attach usage to messages, so `orphanUsage` is the content fold's. */
  orphans?: boolean;
  /** Keep every usage event folded (`FoldResult.usageEvents`). */
  usageEvents?: boolean;
}

/** What a fold knows at the end. */
export interface FoldResult {
  /** Kept messages (text only in content mode). */
  messages: SessionMessage[];
  messageCount: number;
  turnCount: number;
  /** The agent's title, else the first user prompt cut to 100 characters, else ''. */
  title: string;
  /** Whether the title came from the agent. */
  agentTitle: boolean;
  cwd?: string;
  forkedFrom?: string;
  subagent?: boolean;
  /** The last session event said `usageUnknown: true`: the usage folded is a lower bound (SessionEvent.usageUnknown). */
  usageUnknown?: true;
  /** A session event said `usageRecorded: false` (an export of a Cursor session): no cost, and not $0. */
  usageRecorded?: false;
  /** Earliest timestamp (session start, else first event), ms. */
  firstMs?: number;
  /** Latest event timestamp, ms. */
  lastMs?: number;
  /** Most-used model (by requests), else the last message model, else the declared one. */
  model?: string;
  /** Every model used, by requests. */
  models: Map<string, number>;
  /** The session's own spend; undefined when no usage event was seen (a zero record when all were copied). */
  cost?: CostRecord;
  /** Usage marked `copied` (another session's spend, in this file's copy of its history); undefined without any. */
  copiedCost?: CostRecord;
  /** The own spend per model. */
  costByModel: Record<string, CostRecord>;
  sessionEvents: SessionEvent[];
  /** The first session id seen on an event (session events first). */
  sessionId?: string;
  /** Usage events attached to no kept message (content mode only), each as a one-event usage. */
  orphanUsage: OrphanUsage[];
  unmatchedToolResults: number;
  events: number;
  /** With `track`: per draft, in creation order, the index of the last pushed event that touched it. */
  touches?: number[];
  /** With `track`: each kept message's calls' durations by call id (a later call of the same id wins). */
  callDurations?: Map<string, number>;
  /**
   * With `usageEvents`: the usage events folded, in order, each dedup key once (the first) and only the
   * file's own session's (the events a message's `+`-joined usage key is made of).
   */
  usageEvents?: UsageEvent[];
}

function tsMs(ts: string | undefined): number | undefined {
  if (ts === undefined) return undefined;
  const ms = Date.parse(ts);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

export class SessionFold {
  readonly #content: boolean;
  readonly #price: PriceFn | undefined;
  readonly #drafts: Draft[] = [];
  readonly #byId = new Map<string, Draft>();
  readonly #calls = new Map<string, SessionToolCall>();
  /** The draft each call belongs to (a result touches it: it sets the call's duration and error flag). */
  readonly #callDraft = new WeakMap<SessionToolCall, Draft>();
  readonly #dedup = new Set<string>();
  readonly #models = new Map<string, number>();
  readonly #costByModel: Record<string, CostRecord> = {};
  readonly #sessionEvents: SessionEvent[] = [];
  #cost: CostRecord | undefined;
  #copiedCost: CostRecord | undefined;
  #titleDraft: Draft | undefined;
  #agentTitle: string | undefined;
  #cwd: string | undefined;
  #forkedFrom: string | undefined;
  #subagent: boolean | undefined;
  #usageUnknown: boolean | undefined;
  #usageRecorded: boolean | undefined;
  #declaredModel: string | undefined;
  #startMs: number | undefined;
  #firstMs: number | undefined;
  #lastMs: number | undefined;
  #sessionId: string | undefined;
  readonly #orphans: UsageEvent[] = [];
  /** Usage by the message id it names, until a message of that id is folded (or the events end). */
  readonly #pending = new Map<string, PendingUsage[]>();
  #unmatched = 0;
  #events = 0;
  /** The session this fold counts usage for: its first session event's `sessionId`, else its first event's. */
  readonly #own = new OwnSession();
  readonly #touches: number[] | undefined;
  readonly #settle: readonly number[] | undefined;
  readonly #keepOrphans: boolean;
  readonly #usageLog: UsageEvent[] | undefined;
  /** Events pushed so far (every kind), so the index of the one being folded is `#pushed - 1`. */
  #pushed = 0;
  #nextSeq = 0;

  constructor(options: FoldOptions) {
    this.#content = options.content;
    this.#price = options.price;
    if (options.track === true) this.#touches = [];
    this.#settle = options.settle;
    this.#keepOrphans = options.orphans === true;
    if (options.usageEvents === true) this.#usageLog = [];
  }

  #touch(d: Draft): void {
    if (this.#touches !== undefined) this.#touches[d.seq] = this.#pushed - 1;
  }

  /** The session this fold counts usage for, once an event has named it (the lazy list's tail window counts for it). */
  get ownSessionId(): string | undefined {
    return this.#own.id;
  }

  /** Fold one event; unknown kinds are ignored. */
  push(e: SessionfoldEvent | { type: string }): void {
    this.#pushed++;
    switch (e.type) {
      case 'session':
        return this.#session(e as SessionEvent);
      case 'message':
        return this.#message(e as MessageEvent);
      case 'tool_call':
        return this.#toolCall(e as ToolCallEvent);
      case 'tool_result':
        return this.#toolResult(e as ToolResultEvent);
      case 'usage':
        return this.#usage(e as UsageEvent);
      default:
        return;
    }
  }

  #seen(e: { sessionId?: unknown; timestamp?: unknown }): void {
    this.#events++;
    this.#own.claim(e.sessionId);
    if (this.#sessionId === undefined && typeof e.sessionId === 'string' && e.sessionId !== '') this.#sessionId = e.sessionId;
    this.#time(typeof e.timestamp === 'string' ? e.timestamp : undefined);
  }

  #time(ts: string | undefined): void {
    const ms = tsMs(ts);
    if (ms === undefined) return;
    if (this.#firstMs === undefined || ms < this.#firstMs) this.#firstMs = ms;
    if (this.#lastMs === undefined || ms > this.#lastMs) this.#lastMs = ms;
  }

  #session(e: SessionEvent): void {
    this.#events++;
    // The first session event names the file's session, also over an earlier line's.
    if (this.#sessionEvents.length === 0) this.#own.name(e.sessionId);
    if (typeof e.nativeId === 'string' && e.nativeId !== '' && this.#sessionEvents.length === 0) this.#sessionId = e.nativeId;
    this.#sessionEvents.push(e);
    this.#cwd ??= e.cwd;
    this.#forkedFrom ??= e.forkedFrom;
    this.#declaredModel ??= e.model;
    if (e.subagent !== undefined) this.#subagent ??= e.subagent;
    if (typeof e.usageUnknown === 'boolean') this.#usageUnknown = e.usageUnknown;
    if (typeof e.usageRecorded === 'boolean') this.#usageRecorded = e.usageRecorded;
    if (typeof e.title === 'string' && e.title.trim() !== '') this.#agentTitle = e.title;
    const ms = tsMs(e.startedAt);
    if (ms !== undefined && this.#startMs === undefined) this.#startMs = ms;
    this.#time(e.startedAt);
  }

  #newDraft(role: Draft['role'], offset: number, fields: Partial<Draft>): Draft {
    const d: Draft = { role, parts: [], thinkingParts: [], hasText: false, hasThinking: false, keep: this.#content, offset, seq: this.#nextSeq++, ...fields };
    this.#drafts.push(d);
    this.#touch(d);
    if (d.id !== undefined) {
      this.#byId.set(d.id, d);
      const waiting = this.#pending.get(d.id);
      if (waiting !== undefined) {
        this.#pending.delete(d.id);
        for (const p of waiting) this.#attach(d, p.e, p.usd);
      }
    }
    return d;
  }

  #message(e: MessageEvent): void {
    this.#seen(e);
    const last = this.#drafts[this.#drafts.length - 1];
    let d: Draft;
    if (last !== undefined && e.nativeId !== undefined && last.id === e.nativeId && last.role === e.role) {
      d = last;
      this.#touch(d);
      d.offset = e.offset;
      d.model ??= e.model;
      d.timestamp ??= e.timestamp;
    } else {
      d = this.#newDraft(e.role, e.offset, { timestamp: e.timestamp, model: e.model, id: e.nativeId, subtype: e.subtype });
    }
    const text = typeof e.text === 'string' ? e.text : '';
    if (text !== '') {
      if (d.role === 'user' && d.subtype === undefined && this.#titleDraft === undefined) {
        this.#titleDraft = d;
        d.keep = true;
      }
      if (d.keep) {
        if (d.parts[d.parts.length - 1] !== text) d.parts.push(text);
      }
      d.hasText = true;
    }
    if (typeof e.thinking === 'string' && e.thinking !== '') {
      if (this.#content && d.thinkingParts[d.thinkingParts.length - 1] !== e.thinking) d.thinkingParts.push(e.thinking);
      d.hasThinking = true;
    }
  }

  #toolCall(e: ToolCallEvent): void {
    this.#seen(e);
    let d = e.messageId !== undefined ? this.#byId.get(e.messageId) : undefined;
    const last = this.#drafts[this.#drafts.length - 1];
    if (d === undefined && last?.role === 'assistant') d = last;
    if (d !== undefined) this.#touch(d);
    d ??= this.#newDraft('assistant', e.offset, { timestamp: e.timestamp, id: e.messageId });
    const call: SessionToolCall = { toolCallId: e.callId, toolName: e.name, input: this.#content ? e.input : undefined };
    (d.toolCalls ??= []).push(call);
    this.#calls.set(e.callId, call);
    this.#callDraft.set(call, d);
  }

  #toolResult(e: ToolResultEvent): void {
    this.#seen(e);
    const call = this.#calls.get(e.callId);
    if (call === undefined) this.#unmatched++;
    else {
      const owner = this.#callDraft.get(call);
      if (owner !== undefined) this.#touch(owner);
      if (this.#content) call.output = e.output;
      if (e.isError) call.isError = true;
      if (e.durationMs !== undefined) call.durationMs = e.durationMs;
    }
    const toolName = e.toolName || call?.toolName || '';
    const result: NonNullable<Draft['toolResult']> = { toolCallId: e.callId, toolName, output: this.#content ? e.output : undefined, ...(e.isError && { isError: true }) };
    const last = this.#drafts[this.#drafts.length - 1];
    if (last !== undefined && last.role === 'tool' && last.offset === e.offset && last.toolResult === undefined) {
      this.#touch(last);
      last.toolResult = result;
      return;
    }
    const d = this.#newDraft('tool', e.offset, { timestamp: e.timestamp, toolResult: result });
    const text = this.#content ? outputText(e.output) : '';
    if (text !== '') d.parts.push(text);
    d.hasText = this.#content ? text !== '' : e.output !== undefined && e.output !== null && e.output !== '';
  }

  #usage(e: UsageEvent): void {
    if (!this.#own.claim(e.sessionId)) return;
    this.#seen(e);
    if (this.#dedup.has(e.dedupKey)) return;
    this.#dedup.add(e.dedupKey);
    this.#usageLog?.push(e);
    const usd = this.#price?.(e);
    this.#cost ??= emptyCost();
    if (e.copied === true) addUsage((this.#copiedCost ??= emptyCost()), e, usd);
    else {
      addUsage(this.#cost, e, usd);
      addUsage((this.#costByModel[e.model] ??= emptyCost()), e, usd);
    }
    if (e.modelFallback !== true) this.#models.set(e.model, (this.#models.get(e.model) ?? 0) + 1);
    if (!this.#content && this.#touches === undefined && !this.#keepOrphans) return;
    const named = e.messageId !== undefined ? this.#byId.get(e.messageId) : undefined;
    if (e.messageId !== undefined && named === undefined) {
      const waiting = this.#pending.get(e.messageId);
      const p = { e, usd, fallback: this.#lastAssistant() };
      if (waiting === undefined) this.#pending.set(e.messageId, [p]);
      else waiting.push(p);
      return;
    }
    this.#attach(named ?? this.#lastAssistant(), e, usd);
  }

  #lastAssistant(): Draft | undefined {
    for (let i = this.#drafts.length - 1; i >= 0; i--) if (this.#drafts[i]?.role === 'assistant') return this.#drafts[i];
    return undefined;
  }

  #attach(d: Draft | undefined, e: UsageEvent, usd: number | undefined): void {
    if (d !== undefined) this.#touch(d);
    if (!this.#content && !this.#keepOrphans) return;
    if (d === undefined) {
      this.#orphans.push(e);
      return;
    }
    (d.usage ??= []).push(e);
    if (usd === undefined) d.unpriced = (d.unpriced ?? 0) + 1;
    else d.usd = (d.usd ?? 0) + usd;
  }

  /** Usage whose message never came goes where it would have gone naming none. */
  #flushPending(): void {
    for (const waiting of this.#pending.values()) {
      for (const p of waiting) {
        this.#attach(p.fallback, p.e, p.usd);
        // the second pass flushes only after its last event: it must still hold this message then
        if (p.fallback !== undefined && this.#touches !== undefined) this.#touches[p.fallback.seq] = this.#pushed;
      }
    }
    this.#pending.clear();
  }

  finish(): FoldResult {
    this.#flushPending();
    const kept: Draft[] = [];
    const orphans = [...this.#orphans];
    for (const d of this.#drafts) {
      if (d.hasText || d.hasThinking || (d.toolCalls?.length ?? 0) > 0 || d.toolResult !== undefined) kept.push(d);
      else if (d.usage !== undefined) orphans.push(...d.usage);
    }
    let turns = 0;
    let pendingUser = false;
    for (const d of kept) {
      if (d.role === 'user' && d.subtype === undefined && d.hasText) pendingUser = true;
      else if (d.role === 'assistant' && pendingUser) {
        turns++;
        pendingUser = false;
      }
    }
    const messages = this.#content ? kept.map((d) => this.#toMessage(d)) : [];
    const titleText = this.#titleDraft?.parts.join('\n\n');
    let model = topModel(this.#models);
    if (model === undefined) for (let i = kept.length - 1; i >= 0 && model === undefined; i--) model = kept[i]?.model;
    model ??= this.#declaredModel;
    const firstMs = this.#startMs ?? this.#firstMs;
    return {
      messages,
      messageCount: kept.length,
      turnCount: turns,
      title: this.#agentTitle !== undefined ? cutTitle(this.#agentTitle) : titleText !== undefined ? cutTitle(titleText) : '',
      agentTitle: this.#agentTitle !== undefined,
      ...(this.#cwd !== undefined && { cwd: this.#cwd }),
      ...(this.#forkedFrom !== undefined && { forkedFrom: this.#forkedFrom }),
      ...(this.#subagent !== undefined && { subagent: this.#subagent }),
      ...(this.#usageUnknown === true && { usageUnknown: true as const }),
      ...(this.#usageRecorded === false && { usageRecorded: false as const }),
      ...(firstMs !== undefined && { firstMs }),
      ...(this.#lastMs !== undefined && { lastMs: this.#lastMs }),
      ...(model !== undefined && { model }),
      models: this.#models,
      ...(this.#cost !== undefined && { cost: this.#cost }),
      ...(this.#copiedCost !== undefined && { copiedCost: this.#copiedCost }),
      costByModel: this.#costByModel,
      sessionEvents: this.#sessionEvents,
      ...(this.#sessionId !== undefined && { sessionId: this.#sessionId }),
      orphanUsage: orphans.map((e) => ({ ...sumUsage([e]), timestamp: e.timestamp })),
      unmatchedToolResults: this.#unmatched,
      events: this.#events,
      ...(this.#touches !== undefined && { touches: this.#touches, callDurations: callDurations(kept) }),
      ...(this.#usageLog !== undefined && { usageEvents: this.#usageLog }),
    };
  }

  /**
   * With `settle`: the kept messages, in order, of the leading drafts no later event touches (the first
   * pass's `touches`; `all` at the end releases the rest), dropped from this fold. A dropped draft's usage
   * goes to the orphans as `finish` would put it. Message counts, turns and the title are the first pass's.
   */
  takeSettled(all = false): SessionMessage[] {
    const settle = this.#settle;
    if (settle === undefined) return [];
    if (all) this.#flushPending();
    const now = this.#pushed - 1;
    let n = 0;
    while (n < this.#drafts.length) {
      const d = this.#drafts[n] as Draft;
      if (!all && (settle[d.seq] ?? Infinity) > now) break;
      n++;
    }
    if (n === 0) return [];
    const out: SessionMessage[] = [];
    for (const d of this.#drafts.splice(0, n)) {
      if (d.id !== undefined && this.#byId.get(d.id) === d) this.#byId.delete(d.id);
      for (const c of d.toolCalls ?? []) if (this.#calls.get(c.toolCallId) === c) this.#calls.delete(c.toolCallId);
      if (this.#titleDraft === d) this.#titleDraft = undefined;
      if (d.hasText || d.hasThinking || (d.toolCalls?.length ?? 0) > 0 || d.toolResult !== undefined) out.push(this.#toMessage(d));
      else if (d.usage !== undefined) this.#orphans.push(...d.usage);
    }
    return out;
  }

  #toMessage(d: Draft): SessionMessage {
    const m: SessionMessage = { role: d.role, content: d.parts.join('\n\n') };
    if (d.timestamp !== undefined && tsMs(d.timestamp) !== undefined) m.timestamp = new Date(d.timestamp);
    if (d.toolCalls !== undefined && d.toolCalls.length > 0) m.toolCalls = d.toolCalls;
    if (d.toolResult !== undefined) m.toolResult = d.toolResult;
    if (d.thinkingParts.length > 0) m.thinking = d.thinkingParts.join('\n\n');
    const usageModel = d.usage?.find((u) => u.modelFallback !== true)?.model;
    if (d.model !== undefined || usageModel !== undefined) m.model = d.model ?? usageModel;
    if (d.id !== undefined) m.id = d.id;
    if (d.subtype !== undefined) m.subtype = d.subtype;
    if (d.usage !== undefined && d.usage.length > 0) {
      const u = sumUsage(d.usage);
      m.usage = u;
      m.tokenUsage = { inputTokens: u.inputTokens, outputTokens: u.outputTokens, thinkingTokens: u.reasoningTokens, cachedTokens: u.cacheReadTokens + u.cacheWriteTokens };
      const cost = emptyCost();
      for (const e of d.usage) addUsage(cost, e, undefined);
      cost.unpricedCount = d.unpriced ?? 0;
      cost.totalUsd = d.usd ?? 0;
      m.cost = cost;
    }
    return m;
  }
}

function callDurations(kept: readonly Draft[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of kept) for (const c of d.toolCalls ?? []) if (c.durationMs !== undefined) out.set(c.toolCallId, c.durationMs);
  return out;
}

/** The most-used model by requests (the first seen wins a tie). */
export function topModel(models: ReadonlyMap<string, number>): string | undefined {
  let model: string | undefined;
  let best = 0;
  for (const [m, n] of models) if (n > best) [model, best] = [m, n];
  return model;
}
