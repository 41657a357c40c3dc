/**
 * One Claude usage record → one candidate UsageEvent, plus the rules that pick one record per API response.
 *
 * Claude Code writes one line per content block, and each line repeats the response's `usage`. Some
 * versions write streaming snapshots too: an early line with `output_tokens: 1`, a later one with the
 * final count. So the lines of a response (same `message.id`; `requestId` only without one) are candidates, and the
 * response counts once, with its largest record: the one with most output tokens, then most tokens in
 * all; among equals the first. Never the first snapshot, never a sum.
 *
 * Token mapping (Anthropic Messages `usage`): `input_tokens` already excludes cache reads and writes, so it
 * is our uncached `inputTokens`; `cache_creation_input_tokens` is every cache write, of which
 * `cache_creation.ephemeral_1h_input_tokens` were 1-hour writes; `output_tokens` includes thinking.
 * `speed: "fast"` (Opus fast mode) and `server_tool_use.web_search_requests` change the bill, so they are
 * carried as `speed` and `webSearchRequests`; the provider comes from the model id's shape.
 *
 * USAGE_LINE_FIELDS lists every field `extractUsage` reads: the usage-only fast path (cursors/scan-fields.ts) parses
 * exactly these from a line, so a field read here and missing there would silently read as absent. The
 * property tests in test/claude-usage-scan.test.ts compare both paths; keep the two in step.
 */
import { blankUsageEvent, zeroTokens, type TokenCounts, type UsageEvent } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { extractTimestamp, isRecord, str, SYNTHETIC_MODEL } from './schema.js';
import { saneCost, saneCount, uncachedInput } from '../../cursors/sane.js';
import type { FieldProjection } from '../../cursors/scan-fields.js';

const MESSAGE_FIELDS = {
  id: true,
  model: true,
  usage: {
    input_tokens: true,
    output_tokens: true,
    cache_creation_input_tokens: true,
    cache_read_input_tokens: true,
    cache_creation: { ephemeral_5m_input_tokens: true, ephemeral_1h_input_tokens: true },
    output_tokens_details: { thinking_tokens: true },
    server_tool_use: { web_search_requests: true },
    speed: true,
  },
} as const satisfies FieldProjection;

/**
 * Every field of a line that `extractUsage` (and the core's session-id lock) reads: an assistant line's own
 * fields, and a `progress` line's copy of a subagent's line under `data.message` (README.md, "`progress` /
 * `agent_progress` lines and subagent files").
 */
export const USAGE_LINE_FIELDS = {
  type: true,
  sessionId: true,
  requestId: true,
  costUSD: true,
  uuid: true,
  timestamp: true,
  forkedFrom: { sessionId: true },
  message: MESSAGE_FIELDS,
  data: {
    agentId: true,
    message: { requestId: true, costUSD: true, uuid: true, timestamp: true, message: MESSAGE_FIELDS },
  },
} as const satisfies FieldProjection;

/** Bedrock model ids: `anthropic.claude-…-v1:0`, with a cross-region prefix (`us.`, `eu.`, `apac.`, `global.`, …). */
const BEDROCK_MODEL_RE = /^(?:[a-z]{2,6}(?:-[a-z]+)?\.)?anthropic\./;
/** Vertex AI model ids: `claude-opus-4-1@20250805`. */
const VERTEX_MODEL_RE = /^claude-[^@/]*@\d{8}$/;

/**
 * The provider a model id says served the request: a gateway's `<provider>/<model>` prefix, `aws` for a
 * Bedrock id, `google` for a Vertex id, `anthropic` for a plain `claude-…` id, and undefined for anything
 * else (Claude Code pointed at another vendor's Anthropic-compatible endpoint records that vendor's model).
 */
export function getModelProvider(model: string): string | undefined {
  // Once per model id: a history holds a handful of models and a usage event per response, mostly a run of
  // the same one (the last is compared first: a model string is decoded afresh per line, so a lookup hashes it).
  if (model === last.model) return last.provider;
  let p: string | undefined;
  if (PROVIDERS.has(model)) p = PROVIDERS.get(model);
  else {
    if (PROVIDERS.size >= 1024) PROVIDERS.clear();
    p = providerOf(model);
    PROVIDERS.set(model, p);
  }
  last.model = model;
  last.provider = p;
  return p;
}

const PROVIDERS = new Map<string, string | undefined>();
const last: { model: string | undefined; provider: string | undefined } = { model: undefined, provider: undefined };

function providerOf(model: string): string | undefined {
  const slash = model.indexOf('/');
  if (slash > 0) return model.slice(0, slash).toLowerCase();
  const m = model.toLowerCase();
  if (BEDROCK_MODEL_RE.test(m)) return 'aws';
  if (VERTEX_MODEL_RE.test(m)) return 'google';
  if (m.startsWith('claude')) return 'anthropic';
  return undefined;
}

/** A usage record of one line, with the key its response is deduplicated on. */
export interface UsageCandidate {
  /** `claude:<message.id>`, `claude::<requestId>` without a message id; undefined when neither id exists. */
  key: string | undefined;
  event: UsageEvent;
}

/** Sentinel timestamp of a usage record whose line has none (folds may treat it as unknown). */
export const EPOCH = '1970-01-01T00:00:00.000Z';

/**
 * The dedup key of a response: its message id, or its request id when it has none. The API gives every
 * response its own `message.id`, so the id alone names it; `requestId` is left out because copies of one
 * response disagree on it (a streamed or resumed copy, a sub-agent path or a gateway omits it), and a key
 * holding it would count such a copy twice (README.md, Dedup rules). native/claude.c builds the same key.
 */
export function getResponseKey(messageId: string | undefined, requestId: string | undefined): string | undefined {
  if (keysOnLineUuid(messageId, requestId)) return undefined;
  return keysOnRequestId(messageId) ? `${CODEC_ID}::${requestId}` : `${CODEC_ID}:${messageId}`;
}

/**
 * Whether a usage line's request id can key it: only when it has no message id (`getResponseKey`). The
 * engines that decode fields lazily (the walked path, the native blocks) decode the request id only then.
 */
export function keysOnRequestId(messageId: string | undefined): boolean {
  return messageId === undefined;
}

/**
 * Whether a usage line is keyed on its own uuid: exactly when it has no response key (`getResponseKey`),
 * having neither a message id nor a request id. Only then does `buildUsage` read the uuid, so the engines
 * that decode fields lazily (the walked path, the native blocks) decode it only then.
 */
export function keysOnLineUuid(messageId: string | undefined, requestId: string | undefined): boolean {
  return messageId === undefined && requestId === undefined;
}

/** A subagent id that names its transcript `agent-<id>.jsonl` (Claude Code's are hex, 7 or 17 characters). */
const AGENT_ID_RE = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The session a `progress` line's copy of a subagent response belongs to: the subagent's, `agent-<agentId>`,
 * which is also the session id of the subagent's own transcript (paths.ts), so the copy and the subagent's
 * own line count in one session whichever of them a fold keeps. Without a usable agent id, the file's.
 */
export function relayedSessionId(agentId: unknown, sessionId: string): string {
  const id = str(agentId);
  if (id === undefined || !AGENT_ID_RE.test(id)) return sessionId;
  return id.startsWith('agent-') ? id : `agent-${id}`;
}

/**
 * Whether a line of the transcript whose own session is `own` (paths.ts `getOwnSessionId`) was copied from
 * another session: its `sessionId` (a `--resume` copy keeps the origin's) or its `forkedFrom.sessionId`
 * (`/branch` and `--fork-session` stamp the origin there) names one. Such a response counts in the origin's
 * session on a tie (src/cost/fold-ledger.ts `beatsCopy`), as ccusage, reading files oldest first, counts it.
 */
export function isCopiedLine(own: string | undefined, sessionId: unknown, forkedFrom: unknown): boolean {
  if (own === undefined) return false;
  const line = str(sessionId);
  if (line !== undefined && line !== own) return true;
  const origin = str(forkedFrom);
  return origin !== undefined && origin !== own;
}

/**
 * What `usageOf` reads of a line, as JSON.parse gives it (an object only as whether it is one): filled from a
 * parsed line (`extractUsage`) or from one the WebAssembly kernel walked (parse.ts), so the rules are written
 * once, in `usageOf`.
 */
export interface UsageFields {
  /** `message` is an object, and `message.usage` is one. */
  message: boolean;
  usage: boolean;
  model: unknown;
  messageId: unknown;
  requestId: unknown;
  uuid: unknown;
  timestamp: unknown;
  costUSD: unknown;
  speed: unknown;
  input: unknown;
  output: unknown;
  cacheWrite: unknown;
  cacheRead: unknown;
  /** `usage.cache_creation` is an object, and its two counts. */
  breakdown: boolean;
  write5m: unknown;
  write1h: unknown;
  /** `usage.output_tokens_details` is an object, and its thinking count. */
  details: boolean;
  thinking: unknown;
  /** `usage.server_tool_use` is an object, and its search count. */
  serverToolUse: boolean;
  webSearch: unknown;
  /** The line was copied from another session (`isCopiedLine`). */
  copied: boolean;
}

/** A blank UsageFields (readers reuse one: this runs once per usage line of a history). */
export function blankUsageFields(): UsageFields {
  return {
    message: false,
    usage: false,
    model: undefined,
    messageId: undefined,
    requestId: undefined,
    uuid: undefined,
    timestamp: undefined,
    costUSD: undefined,
    speed: undefined,
    input: undefined,
    output: undefined,
    cacheWrite: undefined,
    cacheRead: undefined,
    breakdown: false,
    write5m: undefined,
    write1h: undefined,
    details: false,
    thinking: undefined,
    serverToolUse: false,
    webSearch: undefined,
    copied: false,
  };
}

const parsed = blankUsageFields();

/**
 * The usage candidate of a parsed line, or undefined when the line holds none: no `message.usage` object,
 * or a `<synthetic>` message (written by Claude Code itself, no API call). A `progress` line (Claude Code
 * 2.1.x's `agent_progress`) holds a subagent's line under `data.message`: its response counts like the
 * subagent's own line, under the same key, in the subagent's session (README.md, "`progress` /
 * `agent_progress` lines and subagent files").
 */
export function extractUsage(rec: Record<string, unknown>, sessionId: string, start: number, own?: string): UsageCandidate | undefined {
  if (isRecord(rec.message)) return usageOf(fillFields(parsed, rec, rec.message, undefined, own), sessionId, start);
  if (rec.type !== 'progress' || !isRecord(rec.data)) return undefined;
  const copy = rec.data.message;
  if (!isRecord(copy) || !isRecord(copy.message)) return undefined;
  // Copied or not as the progress line is: a resumed parent copies its origin's progress lines.
  const fields = fillFields(parsed, copy, copy.message, rec.timestamp, undefined);
  fields.copied = isCopiedLine(own, rec.sessionId, forkOrigin(rec));
  return usageOf(fields, relayedSessionId(rec.data.agentId, sessionId), start);
}

/** A parsed line's `forkedFrom.sessionId` value. */
function forkOrigin(line: Record<string, unknown>): unknown {
  const f = line.forkedFrom;
  return isRecord(f) ? f.sessionId : undefined;
}

/**
 * `f` filled from a parsed line (an assistant line, or a progress line's copy) whose message is `msg`. A
 * copy's own time is the subagent line's; `fallbackTime` (the progress line's, when the parent wrote it)
 * stands in only when the copy has none.
 */
function fillFields(f: UsageFields, line: Record<string, unknown>, msg: Record<string, unknown>, fallbackTime: unknown, own: string | undefined): UsageFields {
  f.message = true;
  f.copied = isCopiedLine(own, line.sessionId, forkOrigin(line));
  const u = msg.usage;
  f.usage = isRecord(u);
  if (!f.usage) return f;
  const usage = u as Record<string, unknown>;
  f.model = msg.model;
  f.messageId = msg.id;
  f.requestId = line.requestId;
  f.uuid = line.uuid;
  f.timestamp = line.timestamp === undefined ? fallbackTime : line.timestamp;
  f.costUSD = line.costUSD;
  f.speed = usage.speed;
  f.input = usage.input_tokens;
  f.output = usage.output_tokens;
  f.cacheWrite = usage.cache_creation_input_tokens;
  f.cacheRead = usage.cache_read_input_tokens;
  const b = usage.cache_creation;
  f.breakdown = isRecord(b);
  f.write5m = f.breakdown ? (b as Record<string, unknown>).ephemeral_5m_input_tokens : undefined;
  f.write1h = f.breakdown ? (b as Record<string, unknown>).ephemeral_1h_input_tokens : undefined;
  const d = usage.output_tokens_details;
  f.details = isRecord(d);
  f.thinking = f.details ? (d as Record<string, unknown>).thinking_tokens : undefined;
  const t = usage.server_tool_use;
  f.serverToolUse = isRecord(t);
  f.webSearch = f.serverToolUse ? (t as Record<string, unknown>).web_search_requests : undefined;
  return f;
}

/**
 * The responses a reader holds already (parse.ts's state): those still open, and the keys of those counted.
 * Given to `usageOf`, a line that repeats one without replacing it is answered `REPEATED`.
 */
export interface HeldResponses {
  readonly pending: readonly { readonly key: string; readonly event: UsageEvent }[];
  readonly seen: ReadonlySet<string>;
}

/**
 * `usageOf`'s answer for a line of a response already counted, or open with a record at least as large: the
 * candidate `onUsage` would drop, not built (most usage lines repeat their response's: a line per content block).
 */
export const REPEATED: UsageCandidate = Object.freeze({ key: undefined, event: blankUsageEvent() });

/**
 * The usage candidate of a line's fields (see `extractUsage`). With `held`: `REPEATED` for a line that cannot
 * change what is held (after the same checks of its values, so it refuses the same lines).
 */
export function usageOf(f: UsageFields, sessionId: string, start: number, held?: HeldResponses): UsageCandidate | undefined {
  if (!f.message || !f.usage) return undefined;
  const model = str(f.model);
  if (model === SYNTHETIC_MODEL) return undefined;
  const messageId = str(f.messageId);
  const requestId = str(f.requestId);

  const write5m = saneCount(f.breakdown ? f.write5m : undefined, 'ephemeral_5m_input_tokens');
  const write1h = saneCount(f.breakdown ? f.write1h : undefined, 'ephemeral_1h_input_tokens');
  // The total is authoritative; the breakdown fills in when an older or proxied record omits it.
  const cacheWrite = typeof f.cacheWrite === 'number' ? saneCount(f.cacheWrite, 'cache_creation_input_tokens') : write5m + write1h;
  const outputTokens = saneCount(f.output, 'output_tokens');
  // Into the one module record (`values` below; the counts in the order they are checked, so the first absurd
  // one is named), emptied again whether the line gives a candidate or is refused.
  const v = values;
  try {
    v.model = model;
    v.messageId = messageId;
    v.requestId = requestId;
    v.uuid = str(f.uuid);
    v.timestamp = f.timestamp;
    v.timestampValid = undefined;
    v.cost = f.costUSD;
    v.speed = str(f.speed);
    v.inputTokens = saneCount(uncachedInput(f.input, f.cacheRead), 'input_tokens');
    v.outputTokens = outputTokens;
    v.reasoningTokens = Math.min(saneCount(f.details ? f.thinking : undefined, 'thinking_tokens'), outputTokens);
    v.cacheReadTokens = saneCount(f.cacheRead, 'cache_read_input_tokens');
    v.cacheWriteTokens = cacheWrite;
    v.cacheWrite1hTokens = Math.min(write1h, cacheWrite);
    v.webSearchRequests = saneCount(f.serverToolUse ? f.webSearch : undefined, 'web_search_requests');
    v.copied = f.copied;
    if (held !== undefined && repeats(v, held)) {
      saneCost(v.cost, 'costUSD'); // `fillUsage`'s one check: the line is refused as it would be
      return REPEATED;
    }
    return buildUsage(v, sessionId, start);
  } finally {
    releaseValues(v);
  }
}

/**
 * A usage record's values once the token rules are applied (extractUsage above; the native engine,
 * native/claude.c, applies the same rules in C and hands its values to codecs/claude/native.ts).
 */
export interface UsageValues extends TokenCounts {
  model: string | undefined;
  messageId: string | undefined;
  requestId: string | undefined;
  uuid: string | undefined;
  /** The line's `timestamp` value, as JSON.parse gives it. */
  timestamp: unknown;
  /** True when `timestamp` is known to be a string Date.parse accepts (the native engine checked it). */
  timestampValid?: boolean | undefined;
  /** The line's `costUSD` value, as JSON.parse gives it. */
  cost: unknown;
  speed: string | undefined;
  webSearchRequests: number;
  /** The line was copied from another session (`isCopiedLine`). */
  copied: boolean;
}

/**
 * The one values record `usageOf` fills, module-level on purpose: a record per usage line was garbage the scan
 * paid for (bench/RESULTS.md, "The walking pass"). It is safe because `usageOf` is synchronous (no other line
 * can fill it in between) and keeps nothing past its call: `buildUsage` copies what the event needs, and
 * `releaseValues` then empties it, so no line's strings or parsed values stay reachable until the next usage line.
 */
const values = blankUsageValues();

/** A UsageValues to fill and release (`releaseValues`) again, for a reader that reuses one. */
export function blankUsageValues(): UsageValues {
  const v = { model: undefined, messageId: undefined, requestId: undefined, uuid: undefined, timestamp: undefined, timestampValid: undefined, cost: undefined, speed: undefined, webSearchRequests: 0, copied: false } as UsageValues;
  releaseValues(v);
  return v;
}

/** `v` back to its empty state: no strings or line values, every count 0. */
export function releaseValues(v: UsageValues): void {
  v.model = undefined;
  v.messageId = undefined;
  v.requestId = undefined;
  v.uuid = undefined;
  v.timestamp = undefined;
  v.timestampValid = undefined;
  v.cost = undefined;
  v.speed = undefined;
  v.webSearchRequests = 0;
  v.copied = false;
  zeroTokens(v);
}

/**
 * The candidate of a usage record: the event and its response key (one builder for both engines). A cost
 * that is not sane (cursors/sane.ts) refuses the record with MALFORMED_LINE; the counts were checked where
 * they were read (extractUsage; the native engine leaves a file with an absurd count to `read()`).
 */
export function buildUsage(v: UsageValues, sessionId: string, start: number, event = blankUsageEvent()): UsageCandidate {
  const key = fillUsage(v, sessionId, start, event);
  return { key, event };
}

/**
 * `buildUsage` onto `event` (a blank, or one `resetUsageEvent` cleared), without the candidate object: the
 * response key it returns. The native engine's blocks (native.ts) decode each event with it.
 */
export function fillUsage(v: UsageValues, sessionId: string, start: number, event: UsageEvent): string | undefined {
  const { model, messageId, cost, speed } = v;
  const key = getResponseKey(messageId, v.requestId);
  // Field by field onto the blank (every field present: each event has the one shape), in its order.
  event.type = 'usage';
  event.agent = CODEC_ID;
  event.sessionId = sessionId;
  event.offset = start;
  event.model = model ?? 'unknown';
  if (model === undefined) event.modelFallback = true;
  else {
    const provider = getModelProvider(model);
    if (provider !== undefined) event.provider = provider;
  }
  event.timestamp = v.timestampValid === true ? (v.timestamp as string) : (extractTimestamp(v.timestamp) ?? EPOCH);
  event.inputTokens = v.inputTokens;
  event.outputTokens = v.outputTokens;
  event.reasoningTokens = v.reasoningTokens;
  event.cacheReadTokens = v.cacheReadTokens;
  event.cacheWriteTokens = v.cacheWriteTokens;
  event.cacheWrite1hTokens = v.cacheWrite1hTokens;
  const costUsd = saneCost(cost, 'costUSD');
  if (costUsd !== undefined) event.costUsd = costUsd;
  if (speed !== undefined && speed !== 'standard') event.speed = speed;
  if (v.webSearchRequests > 0) event.webSearchRequests = v.webSearchRequests;
  event.singleRequest = true;
  // Without any id (no key: `keysOnLineUuid`) the line cannot be matched to another: its key is unique to the line.
  event.dedupKey = key ?? `${CODEC_ID}:line:${sessionId}:${v.uuid ?? `@${start}`}`;
  if (messageId !== undefined) event.messageId = messageId;
  if (v.copied) event.copied = true;
  return key;
}

/** Whether the line of values `v` repeats a response `held` holds without replacing it (parse.ts `onUsage`'s rule). */
function repeats(v: UsageValues, held: HeldResponses): boolean {
  const key = getResponseKey(v.messageId, v.requestId);
  if (key === undefined) return false;
  const pending = held.pending;
  for (let i = 0; i < pending.length; i++) {
    const p = pending[i] as (typeof pending)[number];
    if (p.key === key) {
      const e = p.event;
      if (v.outputTokens !== e.outputTokens) return v.outputTokens < e.outputTokens;
      return v.inputTokens + v.outputTokens + v.cacheReadTokens + v.cacheWriteTokens <= totalTokens(e);
    }
  }
  return held.seen.has(key);
}

function totalTokens(e: UsageEvent): number {
  return e.inputTokens + e.outputTokens + e.cacheReadTokens + e.cacheWriteTokens;
}

/** True when `next` is a larger record of the same response than `current` (it replaces it). */
export function isLargerUsage(next: UsageEvent, current: UsageEvent): boolean {
  if (next.outputTokens !== current.outputTokens) return next.outputTokens > current.outputTokens;
  return totalTokens(next) > totalTokens(current);
}
