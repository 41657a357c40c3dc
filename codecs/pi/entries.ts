/**
 * One pi entry to its events: pure functions, no state. `conversationEvents` gives the `message`,
 * `tool_call` and `tool_result` events of an entry (which follow the branch, see tree.ts), `usageEvent` the
 * usage of an assistant message (which never does: an abandoned branch was paid for too).
 */
import type { MessageEvent, MessageRole, SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { usageEventOf } from '../../cursors/protocol/events.js';
import { asObject, asString, isBadCount, isoTimestamp, tokenCount, usdAmount, type Json, type PiEntry } from './schema.js';
import { uncachedInput } from '../../cursors/sane.js';
import { summaryUsage } from './rlm.js';
import { msTime } from '../../cursors/json-value.js';

/** What an entry's events carry besides the entry itself. */
export interface EntryContext {
  agent: string;
  sessionId: string;
  offset: number;
  /** The entry's id as written (undefined in v1 files). */
  id: string | undefined;
  /** Attach the entry itself as `raw`. */
  raw: boolean;
  /** Prime's summaries: a compaction's or branch summary's `usage` is a model call of its own (rlm.ts). */
  summaries?: boolean;
}

/** The model in effect (last `model_change`, or a v1 header), for a response that names none. */
export interface ModelFallback {
  model: string | undefined;
  provider: string | undefined;
}

/** Text of a content value: a string as it is, text blocks joined, images as `[image]`. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content) {
    const o = asObject(b);
    if (o?.type === 'text' && typeof o.text === 'string') parts.push(o.text);
    else if (o?.type === 'image') parts.push('[image]');
  }
  return parts.join('\n');
}

function thinkingText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const b of content) {
    const o = asObject(b);
    if (o?.type === 'thinking' && typeof o.thinking === 'string' && o.thinking !== '') parts.push(o.thinking);
  }
  return parts.length > 0 ? parts.join('\n') : undefined;
}

function entryTime(entry: PiEntry, msg: Json | undefined): string | undefined {
  return isoTimestamp(entry.timestamp) ?? msTime(msg?.timestamp);
}

function withRaw<E extends SessionfoldEvent>(e: E, ctx: EntryContext, entry: PiEntry): E {
  if (ctx.raw) (e as E & { raw?: unknown }).raw = entry;
  return e;
}

function message(ctx: EntryContext, entry: PiEntry, role: MessageRole, text: string, extra: Partial<MessageEvent> = {}): MessageEvent {
  const e: MessageEvent = { type: 'message', agent: ctx.agent, sessionId: ctx.sessionId, offset: ctx.offset, role, text };
  const ts = entryTime(entry, asObject(entry.message));
  if (ts !== undefined) e.timestamp = ts;
  Object.assign(e, extra);
  if (ctx.id !== undefined) e.nativeId = ctx.id;
  if (typeof entry.parentId === 'string') e.parentId = entry.parentId;
  return withRaw(e, ctx, entry);
}

/** The roles of `packages/coding-agent/src/core/messages.ts` that are not plain conversation. */
const SPECIAL_ROLES: Record<string, [MessageRole, string]> = {
  bashExecution: ['tool', 'bash'],
  custom: ['user', 'custom'],
  hookMessage: ['user', 'custom'],
  branchSummary: ['system', 'branch_summary'],
  compactionSummary: ['system', 'compaction'],
};

function messageEntryEvents(ctx: EntryContext, entry: PiEntry, msg: Json, out: SessionfoldEvent[]): void {
  const role = asString(msg.role);
  const ts = entryTime(entry, msg);
  if (role === 'user') out.push(message(ctx, entry, 'user', contentText(msg.content)));
  else if (role === 'assistant') {
    const thinking = thinkingText(msg.content);
    const model = asString(msg.model);
    out.push(message(ctx, entry, 'assistant', contentText(msg.content), { ...(thinking !== undefined && { thinking }), ...(model !== undefined && { model }) }));
    if (!Array.isArray(msg.content)) return;
    for (const b of msg.content) {
      const o = asObject(b);
      if (o?.type !== 'toolCall' || typeof o.id !== 'string') continue;
      const call = { type: 'tool_call' as const, agent: ctx.agent, sessionId: ctx.sessionId, offset: ctx.offset, callId: o.id, name: asString(o.name) ?? '', input: o.arguments ?? null };
      out.push(withRaw({ ...call, ...(ts !== undefined && { timestamp: ts }), ...(ctx.id !== undefined && { messageId: ctx.id }) }, ctx, entry));
    }
  } else if (role === 'toolResult' && typeof msg.toolCallId === 'string') {
    const toolName = asString(msg.toolName);
    const output = typeof msg.content === 'string' ? msg.content : contentText(msg.content);
    const r = { type: 'tool_result' as const, agent: ctx.agent, sessionId: ctx.sessionId, offset: ctx.offset, callId: msg.toolCallId, output, isError: msg.isError === true };
    out.push(withRaw({ ...r, ...(toolName !== undefined && { toolName }), ...(ts !== undefined && { timestamp: ts }) }, ctx, entry));
  } else if (role === 'bashExecution') {
    const text = `$ ${typeof msg.command === 'string' ? msg.command : ''}\n${typeof msg.output === 'string' ? msg.output : ''}`;
    out.push(message(ctx, entry, 'tool', text, { subtype: 'bash' }));
  } else if (role !== undefined && SPECIAL_ROLES[role] !== undefined) {
    const [r, subtype] = SPECIAL_ROLES[role];
    const text = typeof msg.summary === 'string' ? msg.summary : contentText(msg.content);
    out.push(message(ctx, entry, r, text, { subtype }));
  } else if (role === 'system') out.push(message(ctx, entry, 'system', contentText(msg.content)));
  else if (role !== undefined) out.push(message(ctx, entry, 'system', contentText(msg.content), { subtype: role }));
}

function ruleText(rules: unknown): string {
  if (!Array.isArray(rules)) return typeof rules === 'string' ? rules : '';
  return rules.map((r) => (typeof r === 'string' ? r : (asString(asObject(r)?.name) ?? asString(asObject(r)?.content) ?? ''))).filter((s) => s !== '').join('\n');
}

/**
 * The conversational events of one entry, in order: a message entry's message (and its tool calls or its
 * tool result); injected messages, compaction and branch summaries as `message` events with a `subtype`.
 * `all`: entries without a conversational meaning (model changes, labels, custom state) give a system
 * message with subtype `entry:<type>` too, so a raw read keeps every entry.
 */
export function conversationEvents(ctx: EntryContext, entry: PiEntry, all: boolean): SessionfoldEvent[] {
  const out: SessionfoldEvent[] = [];
  const msg = asObject(entry.message);
  switch (entry.type) {
    case 'message':
      if (msg !== undefined) messageEntryEvents(ctx, entry, msg, out);
      break;
    case 'custom_message':
      out.push(message(ctx, entry, 'user', contentText(entry.content), { subtype: 'custom_message' }));
      break;
    case 'compaction':
      out.push(message(ctx, entry, 'system', typeof entry.summary === 'string' ? entry.summary : '', { subtype: 'compaction' }));
      break;
    case 'branch_summary':
      out.push(message(ctx, entry, 'system', typeof entry.summary === 'string' ? entry.summary : '', { subtype: 'branch_summary' }));
      break;
    case 'ttsr_injection':
      out.push(message(ctx, entry, 'system', ruleText(entry.injectedRules), { subtype: 'ttsr_injection' }));
      break;
  }
  if (all && out.length === 0) out.push(message(ctx, entry, 'system', '', { subtype: `entry:${entry.type}` }));
  return out;
}

/** The usage fields of a pi `Usage`, or undefined when it holds an insane count or no tokens at all. */
function usageTokens(u: Json): [number, number, number, number] | undefined {
  const input = uncachedInput(u.input, u.cacheRead); // Kimi's -1 for a full cache hit (cursors/sane.ts)
  if (isBadCount(input) || isBadCount(u.output) || isBadCount(u.cacheRead) || isBadCount(u.cacheWrite)) return undefined;
  const t: [number, number, number, number] = [tokenCount(input), tokenCount(u.output), tokenCount(u.cacheRead), tokenCount(u.cacheWrite)];
  return t[0] + t[1] + t[2] + t[3] === 0 ? undefined : t;
}

/**
 * The parts some of the family record inside the four counts (gajae-code's `Usage`, from omp): reasoning of
 * `output` (`reasoningTokens`), one-hour cache writes of `cacheWrite` (`cttl.ephemeral1h`) and web searches
 * (`server.webSearch`). A part larger than its whole is not a part of it, and counts 0.
 */
function usageParts(u: Json, output: number, cacheWrite: number): { reasoning: number; write1h: number; searches: number | undefined } {
  const reasoning = tokenCount(u.reasoningTokens);
  const write1h = tokenCount(asObject(u.cttl)?.ephemeral1h);
  const searches = tokenCount(asObject(u.server)?.webSearch);
  return { reasoning: reasoning <= output ? reasoning : 0, write1h: write1h <= cacheWrite ? write1h : 0, searches: searches > 0 ? searches : undefined };
}

/**
 * Where an entry's usage is: an assistant message's, (omp) a `model_usage` entry's own, or (Prime, with
 * `summaries`) a compaction's or branch summary's, which no message repeats.
 */
function usageSource(entry: PiEntry, summaries: boolean | undefined): { u: Json; holder: Json; stamp: unknown } | undefined {
  if (entry.type === 'model_usage') {
    const u = asObject(entry.usage);
    return u === undefined ? undefined : { u, holder: entry, stamp: entry.timestamp };
  }
  if (summaries === true) {
    const u = summaryUsage(entry);
    if (u !== undefined) return { u, holder: entry, stamp: entry.timestamp };
  }
  if (entry.type !== 'message') return undefined;
  const msg = asObject(entry.message);
  const u = asObject(msg?.usage);
  return msg === undefined || u === undefined || msg.role !== 'assistant' ? undefined : { u, holder: msg, stamp: msg.timestamp };
}

/**
 * The usage event of an assistant message entry (or of an omp `model_usage` entry: a call outside the
 * conversation, a title or a summary), or undefined. Token fields map one to one (pi's `input` is the
 * uncached prompt; `output` includes reasoning, which pi does not count apart). The recorded `cost.total`
 * becomes `costUsd` only when positive: pi records 0 for a model it has no price for. The dedup key is the
 * entry id (which a fork copies) with the message's own timestamp; v1 entries have no id, so theirs is the
 * timestamp with the model.
 */
export function usageEvent(ctx: EntryContext, entry: PiEntry, fallback: ModelFallback): UsageEvent | undefined {
  const src = usageSource(entry, ctx.summaries);
  if (src === undefined) return undefined;
  const { u, holder } = src;
  const tokens = usageTokens(u);
  if (tokens === undefined) return undefined;
  const named = asString(holder.model);
  const model = named ?? fallback.model ?? 'unknown';
  const provider = asString(holder.provider) ?? (named === undefined ? fallback.provider : undefined);
  const stamp = typeof src.stamp === 'number' || typeof src.stamp === 'string' ? String(src.stamp) : String(ctx.offset);
  const cost = usdAmount(asObject(u.cost)?.total);
  const parts = usageParts(u, tokens[1], tokens[3]);
  const e = usageEventOf(ctx.agent, ctx.sessionId, ctx.offset, {
    model,
    modelFallback: named === undefined,
    provider,
    timestamp: entryTime(entry, holder),
    inputTokens: tokens[0],
    outputTokens: tokens[1],
    reasoningTokens: parts.reasoning,
    cacheReadTokens: tokens[2],
    cacheWriteTokens: tokens[3],
    cacheWrite1hTokens: parts.write1h,
    costUsd: cost !== undefined && cost > 0 ? cost : undefined,
    webSearchRequests: parts.searches,
    // A summary may take more than one call (a split turn is summarized apart) and records their sum.
    singleRequest: entry.type !== 'compaction' && entry.type !== 'branch_summary',
    dedupKey: ctx.id !== undefined ? `${ctx.agent}:${ctx.id}:${stamp}` : `${ctx.agent}:v1:${stamp}:${model}`,
    messageId: ctx.id,
  });
  return withRaw(e, ctx, entry);
}
