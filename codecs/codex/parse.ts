/**
 * The engine of the `codex` codec: a pure, synchronous LineCore over rollout lines (see README.md for the
 * format and every rule below, with its reason).
 *
 * - The first line owns the file: a `session_meta` there gives the session id, start time, fork/subagent
 *   parent and the ordinal where the file's own history starts. Later `session_meta` lines are copies of a
 *   parent's header (forks and subagents replay the parent's history after their own header).
 * - A line is inherited (copied parent history) when its `ordinal` is below the owner's history start, or,
 *   in a fork/subagent, when it is timestamped before the owner's start. Inherited lines update the model and
 *   the token baseline but yield nothing.
 * - Usage (usage.ts): `token_usage_record` rows (one per response) win; otherwise the delta of
 *   `total_token_usage` between `token_count` events, pending until the next usage line.
 * - Cursor state is one plain object; seen response ids are kept exactly during a read and as 32-bit hashes
 *   across reads (a hash hit in restored state returns RESTART).
 */
import { basename } from 'node:path';
import type { CoreContext, Emit, LineCore, LineResult, WalkedLine } from '../../cursors/core.js';
import { parseJsonObject, UNWALKED } from '../../cursors/core.js';
import { hashId32 } from '../../cursors/ids.js';
import type { KindCounts, MessageRole, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventFromJson } from '../../cursors/protocol/events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { classifyMessage, contentText, extractCall, extractOutput, reasoningText } from './items.js';
import { parseRolloutFileName } from './paths.js';
import { CODEX_HEADER_FIELDS, CODEX_USAGE_FIELDS, CODEX_USAGE_MARKERS, mayHoldUsage, mayHoldUsageAt } from './prefilter.js';
import { scanFields, slotOf, walkedFields, walkedIs, walkedObject, walkedValue } from '../../cursors/scan-fields.js';
import { asNumber, asObject, asString, asTimestamp, EVENT, getSpawnParent, isSubagentSource, ITEM, type Json, LEGACY_ITEM_TYPES, RECORD } from './schema.js';
import { tokOf, type Tok } from './tokens.js';
import { isCopiedTurn, isTokenCount, onTokenCount, onUsageRecord, PARSED_TOKEN_COUNT, type TokenCountReader } from './usage.js';
import { CODEC_ID } from './descriptor.js';
import type { CodexState, Source } from './state.js';

export { CODEC_ID };
export { CODEX_USAGE_MARKERS } from './prefilter.js';
export { buildCodexUsage, FALLBACK_MODEL, type CodexUsageValues } from './usage.js';
export type { CodexState } from './state.js';
export const MAX_OPEN_CALLS = 256;
export const MAX_RECENT_MESSAGES = 16;
const STATE_VERSION = 1;

/** The cursor's JSON of a state: its plain fields as they are, the hash set and the call map as arrays. */
type Snapshot = Pick<CodexState, 'decided' | 'sessionId' | 'forked' | 'bornAt' | 'historyStart' | 'region' | 'copiedTurn' | 'epoch' | 'totals' | 'model' | 'metaProvider' | 'ctxProvider' | 'lastTs' | 'recordsSeen' | 'pending' | 'recent'> & {
  v: number;
  seen: number[];
  openCalls: [string, string][];
};

/** The id a rollout without a header takes: its file name's (see paths.ts). */
export function fileIdOf(file: string): string {
  const name = basename(file);
  return parseRolloutFileName(name)?.id ?? name.replace(/\.jsonl(\.zst)?$/i, '');
}

function isUsageOnly(ctx: CoreContext): boolean {
  for (const k of ctx.options.kinds) if (k !== 'usage' && k !== 'session') return false;
  return true;
}

function invalidState(detail: string): SessionfoldError {
  return new SessionfoldError('CURSOR_INVALID', `Invalid codex cursor state: ${detail}`, { agent: CODEC_ID });
}

function init(ctx: CoreContext): CodexState {
  const fileId = fileIdOf(ctx.file);
  return {
    file: ctx.file,
    fileId,
    info: ctx.options.info,
    usageOnly: isUsageOnly(ctx),
    seenExact: new Set(),
    restored: false,
    decided: false,
    sessionId: fileId,
    forked: false,
    bornAt: null,
    historyStart: null,
    region: null,
    copiedTurn: false,
    epoch: 0,
    totals: null,
    model: null,
    metaProvider: null,
    ctxProvider: null,
    lastTs: null,
    recordsSeen: false,
    pending: null,
    seenHash: new Set(),
    openCalls: new Map(),
    recent: [],
  };
}

function tokFromSnapshot(v: unknown): Tok | null {
  const o = asObject(v);
  if (o === undefined) return null;
  const t: Tok = { input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0, total: 0 };
  for (const k of Object.keys(t) as (keyof Tok)[]) {
    const x = asNumber(o[k]);
    if (x === undefined) throw invalidState(`totals.${k} is not a number`);
    t[k] = x;
  }
  return t;
}

function restore(snapshot: unknown, ctx: CoreContext): CodexState {
  const o = asObject(snapshot) as Partial<Snapshot> | undefined;
  if (o === undefined || o.v !== STATE_VERSION) throw invalidState(`expected {v:${STATE_VERSION}}, got ${JSON.stringify(snapshot)?.slice(0, 100)}`);
  if (typeof o.sessionId !== 'string' || !Array.isArray(o.seen) || !Array.isArray(o.openCalls) || !Array.isArray(o.recent)) throw invalidState('missing fields');
  const s = init(ctx);
  s.restored = true;
  s.decided = o.decided === true;
  s.sessionId = o.sessionId;
  s.forked = o.forked === true;
  s.bornAt = asNumber(o.bornAt) ?? null;
  s.historyStart = asNumber(o.historyStart) ?? null;
  s.region = asString(o.region) ?? null;
  s.copiedTurn = o.copiedTurn === true;
  s.epoch = asNumber(o.epoch) ?? 0;
  s.totals = tokFromSnapshot(o.totals);
  s.model = asString(o.model) ?? null;
  s.metaProvider = asString(o.metaProvider) ?? null;
  s.ctxProvider = asString(o.ctxProvider) ?? null;
  s.lastTs = asString(o.lastTs) ?? null;
  s.recordsSeen = o.recordsSeen === true;
  s.pending = asObject(o.pending) !== undefined ? usageEventFromJson(o.pending as UsageEvent) : null;
  s.seenHash = new Set(o.seen.filter((h): h is number => typeof h === 'number'));
  s.openCalls = new Map(o.openCalls.filter((e): e is [string, string] => Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'string'));
  s.recent = o.recent.filter((e): e is [number, Source] => Array.isArray(e) && typeof e[0] === 'number' && (e[1] === 0 || e[1] === 1));
  return s;
}

function snapshot(s: CodexState): Snapshot {
  return {
    v: STATE_VERSION,
    decided: s.decided,
    sessionId: s.sessionId,
    forked: s.forked,
    bornAt: s.bornAt,
    historyStart: s.historyStart,
    region: s.region,
    copiedTurn: s.copiedTurn,
    epoch: s.epoch,
    totals: s.totals,
    model: s.model,
    metaProvider: s.metaProvider,
    ctxProvider: s.ctxProvider,
    lastTs: s.lastTs,
    recordsSeen: s.recordsSeen,
    pending: s.pending,
    seen: [...s.seenHash],
    openCalls: [...s.openCalls],
    recent: s.recent,
  };
}

/**
 * Take the owner's header: the session event and everything the inherited-history rules need. Every field it
 * reads must be in CODEX_HEADER_PROJECTION (prefilter.ts); exported so test/codex-header-projection.test.ts
 * can hold the two in step.
 */
export function takeOwner(s: CodexState, p: Json, ts: string | undefined, start: number, emit: Emit): void {
  const id = asString(p.id) ?? asString(p.session_id) ?? s.fileId;
  const forkedFrom = asString(p.forked_from_id) ?? asString(p.parent_thread_id) ?? getSpawnParent(p.source);
  const subagent = isSubagentSource(p.source);
  const base = asObject(p.history_base);
  const startedAt = asTimestamp(p.timestamp) ?? ts;
  s.sessionId = id;
  s.region = id;
  s.forked = forkedFrom !== undefined || subagent || base !== undefined;
  s.bornAt = startedAt !== undefined ? Date.parse(startedAt) : null;
  s.historyStart = asNumber(p.subagent_history_start_ordinal) ?? asNumber(base?.end_ordinal_exclusive) ?? null;
  s.metaProvider = asString(p.model_provider) ?? null;
  const cwd = asString(p.cwd);
  const version = asString(p.cli_version);
  const gitBranch = asString(asObject(p.git)?.branch);
  emit(sessionEventOf(CODEC_ID, id, start, { cwd, startedAt, forkedFrom, version, gitBranch, subagent: subagent || undefined, provider: s.metaProvider ?? undefined }));
}

/** Whether a line (its `ordinal` value and its time) is a copied parent's history, counted there. */
function isInherited(s: CodexState, ordinalV: unknown, ts: string | undefined): boolean {
  if (s.historyStart !== null) {
    const ordinal = asNumber(ordinalV);
    if (ordinal !== undefined && ordinal < s.historyStart) return true;
  }
  return s.forked && s.bornAt !== null && ts !== undefined && Date.parse(ts) < s.bornAt;
}

/** Emit a message unless its twin from the other source (event_msg vs response_item) was just emitted. */
function emitMessage(s: CodexState, src: Source, role: MessageRole, text: string, extra: Record<string, unknown>, start: number, emit: Emit): void {
  const h = hashId32(`${role}\u0000${text}`);
  const twin = s.recent.findIndex(([rh, rs]) => rh === h && rs !== src);
  if (twin !== -1) {
    s.recent.splice(twin, 1);
    return;
  }
  s.recent.push([h, src]);
  if (s.recent.length > MAX_RECENT_MESSAGES) s.recent.shift();
  emit({ type: 'message', agent: CODEC_ID, sessionId: s.sessionId, offset: start, role, text, ...extra });
}

function onResponseItem(s: CodexState, p: Json, ts: string | undefined, start: number, emit: Emit): void {
  const base = { agent: CODEC_ID, sessionId: s.sessionId, offset: start };
  const at = ts !== undefined ? { timestamp: ts } : {};
  const nativeId = asString(p.id);
  if (p.type === ITEM.message) {
    const text = contentText(p.content);
    if (text.length === 0) return;
    const c = classifyMessage(asString(p.role) ?? 'user', text);
    const model = c.role === 'assistant' && s.model !== null ? { model: s.model } : {};
    emitMessage(s, 1, c.role, text, { ...at, ...model, ...(nativeId !== undefined && { nativeId }), ...(c.subtype !== undefined && { subtype: c.subtype }) }, start, emit);
    return;
  }
  if (p.type === ITEM.reasoning) {
    const thinking = reasoningText(p);
    if (thinking.length === 0) return;
    emit({ type: 'message', ...base, role: 'assistant', text: '', thinking, ...at, ...(s.model !== null && { model: s.model }), ...(nativeId !== undefined && { nativeId }) });
    return;
  }
  const call = extractCall(p);
  if (call !== undefined) {
    if (call.callId.length > 0) {
      s.openCalls.delete(call.callId);
      s.openCalls.set(call.callId, call.name);
      if (s.openCalls.size > MAX_OPEN_CALLS) s.openCalls.delete(s.openCalls.keys().next().value as string);
    }
    emit({ type: 'tool_call', ...base, callId: call.callId, name: call.name, input: call.input, ...at, ...(nativeId !== undefined && { messageId: nativeId }) });
    return;
  }
  const out = extractOutput(p);
  if (out !== undefined) {
    const toolName = s.openCalls.get(out.callId);
    s.openCalls.delete(out.callId);
    emit({ type: 'tool_result', ...base, callId: out.callId, ...(toolName !== undefined && { toolName }), output: out.output, isError: out.isError, ...at });
  }
}

function onEventMsg(s: CodexState, p: Json, ts: string | undefined, start: number, emit: Emit): void {
  if (p.type !== EVENT.userMessage && p.type !== EVENT.agentMessage) return;
  const text = typeof p.message === 'string' ? p.message : '';
  if (text.length === 0) return;
  const c = p.type === EVENT.agentMessage ? classifyMessage('assistant', text) : classifyMessage('user', text, asString(p.kind));
  const model = c.role === 'assistant' && s.model !== null ? { model: s.model } : {};
  emitMessage(s, 0, c.role, text, { ...(ts !== undefined && { timestamp: ts }), ...model, ...(c.subtype !== undefined && { subtype: c.subtype }) }, start, emit);
}

function line(s: CodexState, buf: Buffer, start: number, emit: Emit, fast: boolean): LineResult {
  const fieldsOnly = s.usageOnly && s.decided;
  if (fieldsOnly && !mayHoldUsage(buf)) {
    s.info.filteredLines++;
    return;
  }
  // Usage-only: the projected fields, exactly as JSON.parse would give them (or the whole parse when the
  // scanner cannot be sure, which also reports a malformed line).
  const scanned = fast && s.usageOnly ? (fieldsOnly ? scanFields(buf, CODEX_USAGE_FIELDS) : headerFields(buf)) : undefined;
  return onRecord(s, scanned ?? parseJsonObject(buf, start, CODEC_ID, s.file), start, emit);
}

/** The first line's header fields when it is a `session_meta` record with a payload (all `onRecord` reads of it then); else undefined. */
function headerFields(buf: Buffer): Json | undefined {
  const rec = scanFields(buf, CODEX_HEADER_FIELDS);
  return rec !== undefined && rec.type === RECORD.sessionMeta && asObject(rec.payload) !== undefined ? rec : undefined;
}

/**
 * A line the WebAssembly pass walked with CODEX_USAGE_FIELDS (the core's `walk`, usage-only reads past the
 * header): what `line()` does with `scanFields`'s answer for it, its record read from the walk's spans.
 */
function lineWalked(s: CodexState, w: WalkedLine, start: number, emit: Emit): LineResult | typeof UNWALKED {
  if (!(s.usageOnly && s.decided)) return UNWALKED;
  if (!mayHoldUsageAt(w.bytes, w.lineAt, w.lineEnd)) {
    s.info.filteredLines++;
    return;
  }
  // `isTokenCount`'s rule, the two types compared as bytes where they lie (`walkedIs`: no string per line).
  if (walkedIs(w, WALKED.type, RECORD.eventMsg, EVENT_MSG) && walkedObject(w, WALKED.payload) && walkedIs(w, WALKED.payloadType, EVENT.tokenCount, TOKEN_COUNT)) {
    onWalkedTokenCount(s, w, start, emit);
    return;
  }
  return onRecord(s, walkedFields(w, CODEX_USAGE_FIELDS), start, emit);
}

const EVENT_MSG = Buffer.from(RECORD.eventMsg);
const TOKEN_COUNT = Buffer.from(EVENT.tokenCount);

/** The slots of CODEX_USAGE_FIELDS a walked token_count line is read from. */
const WALKED = {
  type: slotOf(CODEX_USAGE_FIELDS, ['type']),
  timestamp: slotOf(CODEX_USAGE_FIELDS, ['timestamp']),
  ordinal: slotOf(CODEX_USAGE_FIELDS, ['ordinal']),
  payload: slotOf(CODEX_USAGE_FIELDS, ['payload']),
  payloadType: slotOf(CODEX_USAGE_FIELDS, ['payload', 'type']),
  info: slotOf(CODEX_USAGE_FIELDS, ['payload', 'info']),
};

/** The slots of a TokenUsage object under `payload.info` (`readTok`'s fields). */
function tokSlots(name: string) {
  const at = (field: string) => slotOf(CODEX_USAGE_FIELDS, ['payload', 'info', name, field]);
  return {
    object: slotOf(CODEX_USAGE_FIELDS, ['payload', 'info', name]),
    input: at('input_tokens'),
    output: at('output_tokens'),
    total: at('total_tokens'),
    cachedInput: at('cached_input_tokens'),
    cacheRead: at('cache_read_input_tokens'),
    cacheWrite: at('cache_write_input_tokens'),
    reasoning: at('reasoning_output_tokens'),
  };
}
const TOTAL_TOK = tokSlots('total_token_usage');
const LAST_TOK = tokSlots('last_token_usage');

/** `readTok` of a walked TokenUsage object, read from its slots (no object per collected object). */
function walkedTok(w: WalkedLine, t: ReturnType<typeof tokSlots>): Tok | undefined {
  if (!walkedObject(w, t.object)) return undefined;
  const input = walkedValue(w, t.input);
  const output = walkedValue(w, t.output);
  const total = walkedValue(w, t.total);
  const cached = walkedValue(w, t.cachedInput) ?? walkedValue(w, t.cacheRead);
  return tokOf(input, output, total, cached, walkedValue(w, t.cacheWrite), walkedValue(w, t.reasoning));
}

/** A walked token_count line's reader: `readTok` of `payload.info`'s counters, from the slots. */
const WALKED_TOKEN_COUNT: TokenCountReader<WalkedLine> = {
  hasInfo: (w) => walkedObject(w, WALKED.info),
  total: (w) => walkedTok(w, TOTAL_TOK),
  last: (w) => walkedTok(w, LAST_TOK),
};

/**
 * A walked `event_msg` line whose payload is a `token_count` (most of a usage-only read's lines): what
 * `onRecord` does with `walkedFields`'s record of it, read from the slots, so no object is built for each of
 * its collected objects. The header is taken (the walk runs only then), so only the record's time, its
 * ordinal and the payload's two counters matter.
 */
function onWalkedTokenCount(s: CodexState, w: WalkedLine, start: number, emit: Emit): void {
  const ts = asTimestamp(walkedValue(w, WALKED.timestamp));
  const inherited = isInherited(s, s.historyStart === null ? undefined : walkedValue(w, WALKED.ordinal), ts);
  onTokenCount(s, WALKED_TOKEN_COUNT, w, ts, inherited, start, emit);
}

/** A line's record (parsed, or the fields a usage-only read projects) through the state. */
function onRecord(s: CodexState, rec: Json, start: number, emit: Emit): LineResult {
  let type = asString(rec.type);
  let payload = asObject(rec.payload);
  if (payload === undefined && type !== undefined && LEGACY_ITEM_TYPES.has(type)) {
    payload = rec;
    type = RECORD.responseItem;
  }
  const ts = asTimestamp(rec.timestamp);
  if (!s.decided) {
    s.decided = true;
    if (type === RECORD.sessionMeta && payload !== undefined) {
      if (ts !== undefined) s.lastTs = ts;
      takeOwner(s, payload, ts, start, emit);
      return;
    }
    if (type === undefined && asString(rec.id) !== undefined) {
      takeOwner(s, rec, ts, start, emit); // pre-RolloutLine header: {id, timestamp, instructions, git}
      return;
    }
    if (type !== undefined && payload === undefined) {
      // Every rollout line but the pre-RolloutLine header carries a payload: a typed line without one (pi's
      // and OpenClaw's `{type: "session"}`, Claude's `{type: "user", message}`) means another agent's file.
      throw new SessionfoldError('FORMAT_MISMATCH', `${s.file} is not a Codex rollout: its first line is a "${type}" record without a payload`, { agent: CODEC_ID, file: s.file, byteOffset: start });
    }
    emit(sessionEventOf(CODEC_ID, s.sessionId, start, { startedAt: ts }));
  }
  if (payload === undefined) return;
  const inherited = isInherited(s, rec.ordinal, ts);
  if (isTokenCount(type, true, payload.type)) {
    onTokenCount(s, PARSED_TOKEN_COUNT, payload, ts, inherited, start, emit);
    return;
  }
  switch (type) {
    case RECORD.sessionMeta: {
      // Another thread's header (a copied parent): its counter starts here, without a baseline. The same
      // thread's header again keeps the baseline (a restarted counter is caught by the decrease rule).
      const id = asString(payload.id) ?? asString(payload.session_id);
      if (id === undefined || id !== s.region) {
        s.region = id ?? null;
        s.epoch = 0;
        s.totals = null;
      }
      s.copiedTurn = false; // a turn_context decides again (usage.ts `isCopiedTurn`)
      if (ts !== undefined) s.lastTs = ts;
      return;
    }
    case RECORD.turnContext:
      s.copiedTurn = isCopiedTurn(s, payload.turn_id);
      s.model = asString(payload.model) ?? s.model;
      s.ctxProvider = asString(payload.model_provider) ?? s.ctxProvider;
      if (ts !== undefined) s.lastTs = ts;
      return;
    case RECORD.tokenUsageRecord: {
      const r = onUsageRecord(s, payload, ts, inherited, start, emit);
      if (ts !== undefined) s.lastTs = ts;
      return r;
    }
    case RECORD.eventMsg: // a token_count is taken above
      if (!s.usageOnly && !inherited) onEventMsg(s, payload, ts, start, emit);
      return;
    case RECORD.responseItem:
      if (!s.usageOnly && !inherited) onResponseItem(s, payload, ts, start, emit);
      return;
    case RECORD.compacted: {
      const text = asString(payload.message);
      if (!s.usageOnly && !inherited && text !== undefined) {
        emit({ type: 'message', agent: CODEC_ID, sessionId: s.sessionId, offset: start, role: 'system', text, subtype: 'compaction', ...(ts !== undefined && { timestamp: ts }) });
      }
      return;
    }
    default:
      return; // unknown record types are skipped
  }
}

function end(s: CodexState, emit: Emit): KindCounts {
  if (s.pending === null) return {};
  emit(s.pending);
  return { usage: 1 };
}

export interface CodexCoreOptions {
  /** Usage-only reads take their fields with the exact field scanner (default true; false: JSON.parse). */
  fastScan?: boolean | undefined;
}

/** A Codex rollout LineCore; `codexCore` is the default one. */
export function createCodexCore(options: CodexCoreOptions = {}): LineCore<CodexState> {
  const fast = options.fastScan ?? true;
  return {
    init,
    restore,
    snapshot,
    line: (s, buf, start, emit) => line(s, buf, start, emit, fast),
    end,
    // What `line()` lets through once the header is read in a usage-only read: `mayHoldUsage` lines, each of
    // which holds a marker; the native line source applies the rule itself (`headRule`).
    markers: (s) => (s.usageOnly && s.decided ? CODEX_USAGE_MARKERS : undefined),
    headRule: 'codex-rollout',
    // The WebAssembly pass walks the lines holding a marker with the projection `line()` would scan them with.
    ...(fast && { walk: (s: CodexState) => (s.usageOnly && s.decided ? CODEX_USAGE_FIELDS : undefined), lineWalked }),
  };
}

/** The Codex rollout LineCore. */
export const codexCore: LineCore<CodexState> = createCodexCore();
