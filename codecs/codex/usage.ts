/**
 * The usage rules of the `codex` codec (README.md, "Token usage"), over the state of parse.ts's LineCore:
 *
 * - `token_usage_record` rows (one per response) win; otherwise the delta of `total_token_usage` between
 *   `token_count` events, keyed on the thread whose counter it is (`regionKey`) and its epoch (a counter that
 *   went down was restarted by a new process).
 * - A token_count delta waits (pending) until the next usage line, because in Codex >= 0.153 the same
 *   response's `token_usage_record` may follow it: a matching record replaces it.
 * - Every event is built by `buildCodexUsage`, the JavaScript path's and the native engine's
 *   (codecs/codex/native.ts), on `blankUsageEvent()`'s one shape.
 */
import type { Emit, LineResult } from '../../cursors/core.js';
import { RESTART } from '../../cursors/core.js';
import { hashId32 } from '../../cursors/ids.js';
import { blankUsageEvent, type UsageEvent } from '../../cursors/protocol/events.js';
import type { CodexState } from './state.js';
import { asObject, asString, EVENT, type Json, RECORD } from './schema.js';
import { anyDecrease, eqTok, fitsWithin, isZeroTok, readTok, sameUsage, subTok, type Tok, tokKey, toUsageFields } from './tokens.js';
import { CODEC_ID } from './descriptor.js';

/** Model reported when no `turn_context` named one (early Sept 2025 builds wrote none); flagged `modelFallback`. */
export const FALLBACK_MODEL = 'gpt-5';
const EPOCH_TS = '1970-01-01T00:00:00.000Z';

/** What a Codex usage event is made of (`usageEvent` below; the native engine, codecs/codex/native.ts). */
export interface CodexUsageValues {
  sessionId: string;
  model: string | null;
  provider: string | null;
  timestamp: string;
  tok: Tok;
  singleRequest: boolean;
  dedupKey: string;
  messageId?: string | undefined;
  /** Another thread's response that this rollout copied (`isCopiedTurn`). */
  copied: boolean;
}

/** A Codex usage event (one builder for both engines), on `e`: by default a fresh `blankUsageEvent()`. */
export function buildCodexUsage(v: CodexUsageValues, start: number, e = blankUsageEvent()): UsageEvent {
  // Field by field onto the blank (every field present: each event has the one shape), in its order.
  e.type = 'usage';
  e.agent = CODEC_ID;
  e.sessionId = v.sessionId;
  e.offset = start;
  e.model = v.model ?? FALLBACK_MODEL;
  if (v.model === null) e.modelFallback = true;
  if (v.provider !== null) e.provider = v.provider;
  e.timestamp = v.timestamp;
  toUsageFields(v.tok, e);
  e.singleRequest = v.singleRequest;
  e.dedupKey = v.dedupKey;
  if (v.messageId !== undefined) e.messageId = v.messageId;
  if (v.copied) e.copied = true;
  return e;
}

const ZERO: Tok = { input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0, total: 0 };
/**
 * The one values record `usageEvent` fills, module-level on purpose: a record per usage event was garbage the
 * scan paid for (bench/RESULTS.md, "The walking pass"). It is safe because `usageEvent` is synchronous (no other
 * event can fill it in between) and keeps nothing past its call: `buildCodexUsage` copies what the event needs,
 * and `releaseValues` then empties it, so no line's counts or strings stay reachable until the next event.
 */
const values: CodexUsageValues = { sessionId: '', model: null, provider: null, timestamp: '', tok: ZERO, singleRequest: false, dedupKey: '', messageId: undefined, copied: false };

/** `v` back to its empty state: no line's counts or strings. */
function releaseValues(v: CodexUsageValues): void {
  v.sessionId = '';
  v.model = null;
  v.provider = null;
  v.timestamp = '';
  v.tok = ZERO;
  v.singleRequest = false;
  v.dedupKey = '';
  v.messageId = undefined;
  v.copied = false;
}

function usageEvent(s: CodexState, t: Tok, ts: string, start: number, singleRequest: boolean, dedupKey: string, messageId?: string): UsageEvent {
  const v = values;
  v.sessionId = s.sessionId;
  v.model = s.model;
  v.provider = s.metaProvider ?? s.ctxProvider;
  v.timestamp = ts;
  v.tok = t;
  v.singleRequest = singleRequest;
  v.dedupKey = dedupKey;
  v.messageId = messageId;
  v.copied = s.copiedTurn;
  try {
    return buildCodexUsage(v, start);
  } finally {
    releaseValues(v);
  }
}

/**
 * Whether a `turn_context` opens a turn another thread ran, which this rollout copied: it sits under another
 * thread's region (after a copied `session_meta`), and its `turn_id` is a UUIDv7 minted before the owner's id
 * (the first 48 bits are the milliseconds of minting, so the first 13 characters of two lowercase UUIDv7s
 * compare as their times). A fork copies its parent's turns, minted when they ran, before the fork was; its own
 * turns are minted after it, though they continue the parent's counter region. Without two UUIDv7s nothing is
 * known: the turn is not marked. native/codex.c `copied_turn` applies the same rule to the same bytes.
 */
export function isCopiedTurn(s: CodexState, turnId: unknown): boolean {
  return s.region !== null && s.region !== s.sessionId && typeof turnId === 'string' && isUuidV7(turnId) && isUuidV7(s.sessionId) && turnId.slice(0, 13) < s.sessionId.slice(0, 13);
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A UUID of version 7 as Codex writes one (lowercase hex). */
function isUuidV7(id: string): boolean {
  return UUID_V7.test(id);
}

/** Dedup-key prefix of cumulative counters: the thread whose counter it is (or the line time without one). */
function regionKey(s: CodexState, ts: string | undefined): string {
  const r = s.region ?? `@${ts ?? s.lastTs ?? ''}`;
  return s.epoch > 0 ? `${r}#${s.epoch}` : r;
}

/**
 * Whether a record is a `token_count` event: an `event_msg` whose payload is an object of that type. The one
 * routing rule of the parsed path (parse.ts `onRecord`) and the walked one (`lineWalked`, which compares the two
 * types as bytes where they lie, `walkedIs`, and must keep to this rule): a walked payload must
 * be checked to be an object, because a later duplicate `"payload"` that is not one leaves the earlier
 * object's inner slots set, where JSON.parse keeps only the later value.
 */
export function isTokenCount(type: unknown, payloadIsObject: boolean, payloadType: unknown): boolean {
  return type === RECORD.eventMsg && payloadIsObject && payloadType === EVENT.tokenCount;
}

/** How a token_count line's `info` is read: from a parsed payload (`PARSED_TOKEN_COUNT`) or a walked line's slots. */
export interface TokenCountReader<L> {
  /** Whether `payload.info` is an object (only then are its counters read: see `isTokenCount` on duplicates). */
  hasInfo(line: L): boolean;
  total(line: L): Tok | undefined;
  last(line: L): Tok | undefined;
}

/** A parsed `token_count` payload's reader. */
export const PARSED_TOKEN_COUNT: TokenCountReader<Json> = {
  hasInfo: (p) => asObject(p.info) !== undefined,
  total: (p) => readTok((p.info as Json).total_token_usage),
  last: (p) => readTok((p.info as Json).last_token_usage),
};

/**
 * A `token_count` line (`isTokenCount`), parsed or walked: the delta of its cumulative counter since the last,
 * held pending, when its `info` is an object; its time becomes the last seen either way.
 */
export function onTokenCount<L>(s: CodexState, r: TokenCountReader<L>, line: L, ts: string | undefined, inherited: boolean, start: number, emit: Emit): void {
  if (r.hasInfo(line)) {
    const total = r.total(line);
    onTokenCounts(s, total, r.last(line), ts, inherited, start, emit);
  }
  if (ts !== undefined) s.lastTs = ts;
}

/**
 * `onTokenCount` once its `info` object's two counters are read: of a parsed payload, or of a walked line's
 * slots.
 */
function onTokenCounts(s: CodexState, total: Tok | undefined, last: Tok | undefined, ts: string | undefined, inherited: boolean, start: number, emit: Emit): void {
  const when = ts ?? s.lastTs ?? EPOCH_TS;
  if (total === undefined) {
    if (last === undefined || inherited || s.recordsSeen || isZeroTok(last)) return;
    queue(s, usageEvent(s, last, when, start, true, `codex:${regionKey(s, ts)}:last:${when}:${tokKey(last)}`), emit);
    return;
  }
  const prev = s.totals;
  let delta: Tok;
  if (prev !== null && !anyDecrease(total, prev)) delta = subTok(total, prev);
  else {
    // No baseline (first count of the file or of a copied header), or the counter went down (a new process
    // restarted it): this row's own last_token_usage is the only usage it can vouch for.
    if (prev !== null) s.epoch++;
    delta = last !== undefined && fitsWithin(last, total) ? last : total;
  }
  s.totals = total;
  if (inherited || s.recordsSeen || isZeroTok(delta)) return;
  const single = last !== undefined && eqTok(delta, last);
  queue(s, usageEvent(s, delta, when, start, single, `codex:${regionKey(s, ts)}:${tokKey(total)}`), emit);
}

/** Hold a token_count usage until the next usage line: a token_usage_record for the same response replaces it. */
function queue(s: CodexState, e: UsageEvent, emit: Emit): void {
  if (s.pending !== null) emit(s.pending);
  s.pending = e;
}

/** A `token_usage_record` payload: one response's usage, once per response id, replacing a matching pending count. */
export function onUsageRecord(s: CodexState, p: Json, ts: string | undefined, inherited: boolean, start: number, emit: Emit): LineResult {
  const usage = readTok(p.usage);
  if (usage === undefined) return;
  const rid = asString(p.response_id);
  if (rid !== undefined) {
    if (s.seenExact.has(rid)) return;
    const h = hashId32(rid);
    if (s.restored && s.seenHash.has(h)) return RESTART;
    s.seenExact.add(rid);
    s.seenHash.add(h);
  }
  const thread = asString(p.thread_id);
  if (inherited || (thread !== undefined && s.region !== null && thread !== s.sessionId && thread !== s.region) || isZeroTok(usage)) return;
  s.recordsSeen = true;
  const when = ts ?? s.lastTs ?? EPOCH_TS;
  const e = usageEvent(s, usage, when, start, true, rid !== undefined ? `codex:resp:${rid}` : `codex:${regionKey(s, ts)}:rec:${when}:${tokKey(usage)}`, rid);
  if (s.pending !== null) {
    if (!sameUsage(s.pending, e)) emit(s.pending);
    s.pending = null;
  }
  emit(e);
}
