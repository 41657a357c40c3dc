/**
 * The fx engine: a pure, synchronous LineCore (no I/O) over a session's `events.jsonl`, one envelope per line
 * (`schema_version`, `log_generation`, `seq`, `event_id`, `timestamp_ms`, `kind`, `payload`; README.md has the
 * format and its sources).
 *
 * - `session` at `session_started` (id: the folder's name; cwd: `workspace_root`; start: `created_at_ms`;
 *   model: the preferred one), again when `workspace_rebound` or `preferences_changed` changes one of those,
 *   and when the usage becomes unknown or known again (below).
 * - `usage` per model per `usage_checkpointed`: fx writes the session's whole cumulative ledger there each
 *   time, so each event is what a model's totals grew by since the previous checkpoint (a span of calls,
 *   dated by the checkpoint's `timestamp_ms`). A count that fell is taken as no growth, and the highest value
 *   seen stays the baseline, so nothing is counted twice. `session_started.usage` (a session fx carried over)
 *   is read the same way.
 * - A session is `usageUnknown` while its last checkpoint's `billing` is not `complete`, and after a state
 *   replacement (its ledger is inside the replaced state, which this reader does not decode) until the next
 *   checkpoint brings the cumulative totals back.
 * - `usage` per call per `usage_recorded` (fx's per-call ledger, recorded.ts): one event per generation, the
 *   last line of a generation winning; held open while a later line may still replace it. Each call also raises
 *   its model's baseline, so a checkpoint after such lines counts only what they do not hold.
 * - A session is `usageUnknown` for good once a turn is committed (`history_turn_committed`, or a later fx's
 *   `turn_completed`) before any usage came: its calls were booked nowhere in this log. fx gives a subagent child's ledger no
 *   checkpoint sink, so this is how a child's log looks (README.md "Subagents"); so does a session that
 *   predates fx's usage ledger.
 * - `subagent` when `session_started.subagent_child` says so (a later fx's log; discovery marks the children
 *   of older logs from their parent's registry).
 *
 * - `message`, `tool_call` and `tool_result` from the conversation's lines (conversation.ts), only when the
 *   read wants one of those kinds: a usage-only read still judges a turn line by its kind alone.
 *
 * Lines of other kinds are recognised by the `kind` near the line's start and never parsed.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { parseJsonObject, restoreFlags, restoreStrings } from '../../cursors/core.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import type { KindCounts, SessionEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf, usageEventsFromJson } from '../../cursors/protocol/events.js';
import { saneCost, saneCount } from '../../cursors/sane.js';
import { CODEC_ID, fxSessionIdOf } from './paths.js';
import { historyTurn, messageCompleted, reasoningCompleted, turnStarted, type TurnContext } from './conversation.js';
import { flushRecorded, holdRecorded, rawOf, recordedCallOf, recordedEvent } from './recorded.js';
import { msTime, rec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

/** One model's cumulative ledger as last seen: the baseline the next checkpoint's growth is measured from. */
interface Ledger {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  web: number;
  cost: number;
}

export interface FxState {
  file: string;
  sessionId: string;
  sessionEmitted: boolean;
  startedAt: string | undefined;
  cwd: string | undefined;
  model: string | undefined;
  /** Per model, the highest cumulative totals seen. */
  ledgers: Record<string, Ledger>;
  /** The state was replaced after the last checkpoint: the ledger lies where this reader does not look. */
  replaced: boolean;
  /** The last checkpoint's `billing` was not `complete`. */
  billingOpen: boolean;
  /** The per-call events a later `usage_recorded` line may still replace, oldest first (recorded.ts). */
  open: UsageEvent[];
  /** Usage came (a checkpoint, a ledger carried over at the start, or a call's line). */
  booked: boolean;
  /** A turn was committed before any ledger came: its calls are in no checkpoint here. */
  unbooked: boolean;
  /** `session_started.subagent_child` was true. */
  subagent: boolean;
  /** The read wants the conversation (from the read's kinds; not part of the snapshot). */
  conversation: boolean;
  /** The reasoning items of the open turn already emitted: fx repeats a retried block under its id. */
  reasoningIds: string[];
}

/** The kinds whose payload this reader needs; any other line is passed over unparsed. */
const READ_KINDS = new Set(['session_started', 'preferences_changed', 'workspace_rebound', 'usage_checkpointed', 'usage_recorded', 'state_replacement_committed']);
/** The kinds that close a turn: one before any usage means calls this log booked nowhere. */
const TURN_KINDS = new Set(['history_turn_committed', 'turn_completed']);
/** The kinds that hold the conversation, parsed only when a read wants it. */
const CONVERSATION_KINDS = new Set(['history_turn_committed', 'turn_started', 'assistant_message_completed', 'reasoning_completed']);
/** fx writes `kind` after four fixed fields (a later fx: second), well inside this many bytes. */
const KIND_WINDOW = 384;
const KIND_RE = /"kind":"([a-z_]+)"/;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** The envelope's `kind`, read from the line's head without parsing it. */
function kindOf(line: Buffer): string | undefined {
  return KIND_RE.exec(line.subarray(0, KIND_WINDOW).toString('latin1'))?.[1];
}

function emitSession(s: FxState, offset: number, emit: Emit, extra: Partial<SessionEvent> = {}): void {
  s.sessionEmitted = true;
  emit(sessionEventOf(CODEC_ID, s.sessionId, offset, { cwd: s.cwd, startedAt: s.startedAt, model: s.model, ...(s.subagent && { subagent: true }), ...extra }));
}

const unknownNow = (s: FxState): boolean => s.replaced || s.billingOpen || s.unbooked;

/** Emits a session event when the usage's known state changed (and the session's first one if none came yet). */
function setUnknown(s: FxState, before: boolean, offset: number, emit: Emit): void {
  const now = unknownNow(s);
  if (!s.sessionEmitted || now !== before) emitSession(s, offset, emit, { usageUnknown: now });
}

/** One model's cumulative totals of a snapshot, every count checked before anything changes. */
function ledgerOf(m: Rec): Ledger {
  return {
    input: saneCount(m.input_tokens, 'input_tokens'),
    output: saneCount(m.output_tokens, 'output_tokens'),
    cacheRead: saneCount(m.cache_read_tokens, 'cache_read_tokens'),
    cacheWrite: saneCount(m.cache_write_tokens, 'cache_write_tokens'),
    web: saneCount(m.billable_web_search_calls, 'billable_web_search_calls'),
    cost: saneCost(m.total_cost, 'total_cost') ?? 0,
  };
}

const ZERO: Ledger = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, web: 0, cost: 0 };
const grown = (now: number, before: number): number => Math.max(0, now - before);

/** The usage events of one cumulative snapshot: each model's growth over its baseline, which then moves up. */
function checkpoint(s: FxState, usage: Rec, env: Rec, offset: number): UsageEvent[] {
  const models = Array.isArray(usage.models) ? usage.models : [];
  const read: [string, Ledger][] = [];
  for (const v of models) {
    const m = rec(v);
    const name = str(m?.model);
    if (m !== undefined && name !== undefined) read.push([name, ledgerOf(m)]);
  }
  const timestamp = msTime(env.timestamp_ms) ?? msTime(env.ts);
  // the later envelope has no event id: its session id and sequence name the line as well
  const id = str(env.event_id) ?? `${str(env.session_id) ?? s.sessionId}#${typeof env.seq === 'number' ? env.seq : `@${offset}`}`;
  const out: UsageEvent[] = [];
  for (const [model, now] of read) {
    const was = s.ledgers[model] ?? ZERO;
    const d: Ledger = { input: grown(now.input, was.input), output: grown(now.output, was.output), cacheRead: grown(now.cacheRead, was.cacheRead), cacheWrite: grown(now.cacheWrite, was.cacheWrite), web: grown(now.web, was.web), cost: grown(now.cost, was.cost) };
    // the input baseline rises by what this event counts (input with its cache): where the cache grew past the
    // input and the uncached part was clamped at zero, that is more than the input grew, and a later snapshot
    // or call must not count the difference again (as a call's baseline is its counted figures, rawOf)
    const counted = Math.max(d.input, d.cacheRead + d.cacheWrite);
    s.ledgers[model] = { input: was.input + counted, output: Math.max(now.output, was.output), cacheRead: Math.max(now.cacheRead, was.cacheRead), cacheWrite: Math.max(now.cacheWrite, was.cacheWrite), web: Math.max(now.web, was.web), cost: Math.max(now.cost, was.cost) };
    if (d.input + d.output + d.cacheRead + d.cacheWrite === 0 && d.cost === 0) continue;
    out.push(
      usageEventOf(CODEC_ID, s.sessionId, offset, {
        model,
        timestamp,
        // fx's input counts cache reads and writes in (README "Tokens"): taken out, never below zero
        inputTokens: Math.max(0, d.input - d.cacheRead - d.cacheWrite),
        outputTokens: d.output,
        cacheReadTokens: d.cacheRead,
        cacheWriteTokens: d.cacheWrite,
        costUsd: d.cost > 0 ? d.cost : undefined,
        webSearchRequests: d.web > 0 ? d.web : undefined,
        singleRequest: false,
        // the checkpoint's own id: a verbatim copy of the folder keeps it, so folds count it once
        dedupKey: `${CODEC_ID}:${id}:${model}`,
      }),
    );
  }
  return out;
}

function onUsage(s: FxState, usage: Rec | undefined, env: Rec, offset: number, emit: Emit): void {
  if (usage === undefined) return;
  const before = unknownNow(s);
  s.booked = true;
  const events = checkpoint(s, usage, env, offset);
  if (!s.sessionEmitted) emitSession(s, offset, emit);
  for (const e of events) emit(e);
  s.replaced = false;
  s.billingOpen = usage.billing !== 'complete';
  setUnknown(s, before, offset, emit);
}

function record(s: FxState, kind: string, env: Rec, offset: number, emit: Emit): void {
  const p = rec(env.payload) ?? {};
  switch (kind) {
    case 'session_started': {
      s.cwd = str(p.workspace_root) ?? s.cwd;
      s.startedAt = msTime(p.created_at_ms) ?? msTime(env.timestamp_ms) ?? msTime(env.ts);
      s.model = str(rec(p.preferences)?.model) ?? s.model;
      s.subagent = p.subagent_child === true;
      emitSession(s, offset, emit);
      onUsage(s, rec(p.usage), env, offset, emit);
      return;
    }
    case 'preferences_changed': {
      const model = str(p.model_id) ?? str(p.model);
      if (model === undefined || model === s.model) return;
      s.model = model;
      emitSession(s, offset, emit);
      return;
    }
    case 'workspace_rebound': {
      const cwd = str(p.workspace_root);
      if (cwd === undefined || cwd === s.cwd) return;
      s.cwd = cwd;
      emitSession(s, offset, emit);
      return;
    }
    case 'usage_checkpointed':
      onUsage(s, rec(p.usage), env, offset, emit);
      return;
    case 'usage_recorded':
      onRecorded(s, p, env, offset, emit);
      return;
    default: {
      // state_replacement_committed
      const before = unknownNow(s);
      s.replaced = true;
      // the replaced state holds the session's ledger: its calls were booked, where this reader does not look
      s.booked = true;
      setUnknown(s, before, offset, emit);
    }
  }
}

/** One call's line: its event held open, and its model's baseline raised by what it adds (or changes). */
function onRecorded(s: FxState, p: Rec, env: Rec, offset: number, emit: Emit): void {
  const call = recordedCallOf(p, s.file, offset);
  const timestamp = msTime(env.ts) ?? msTime(env.timestamp_ms);
  if (timestamp === undefined) throw new SessionfoldError('MALFORMED_LINE', `usage_recorded at byte ${offset} of ${s.file}: no time`, { agent: CODEC_ID, file: s.file, byteOffset: offset });
  if (!s.sessionEmitted) emitSession(s, offset, emit);
  s.booked = true;
  const event = recordedEvent(s.sessionId, offset, timestamp, call);
  const was = holdRecorded(s.open, event, emit);
  // a replacement may name another model than its first line: what that line booked comes off its own model
  if (was !== undefined) bookCall(s, was.model, rawOf(was), -1);
  bookCall(s, call.model, rawOf(event), 1);
}

const LEDGER_KEYS = ['input', 'output', 'cacheRead', 'cacheWrite', 'web', 'cost'] as const;

/** A call's counted figures added to (1) or taken off (-1) its model's baseline, never below zero. */
function bookCall(s: FxState, model: string, raw: Ledger, sign: 1 | -1): void {
  const l = (s.ledgers[model] ??= { ...ZERO });
  for (const k of LEDGER_KEYS) l[k] = Math.max(0, l[k] + sign * raw[k]);
}

/** A conversation line's events (conversation.ts); a turn line first counts as a turn for the usage. */
function onConversation(s: FxState, kind: string, line: Buffer, start: number, emit: Emit): void {
  if (TURN_KINDS.has(kind)) onTurn(s, start, emit);
  const env = parseJsonObject(line, start, CODEC_ID, s.file);
  if (env.kind !== kind) return;
  const p = rec(env.payload) ?? {};
  const c: TurnContext = { sessionId: s.sessionId, offset: start, timestamp: msTime(env.timestamp_ms) ?? msTime(env.ts), model: s.model, emit };
  const itemId = str(env.item_id);
  switch (kind) {
    case 'history_turn_committed': {
      const turn = rec(p.turn);
      if (turn !== undefined) historyTurn(c, turn);
      return;
    }
    case 'turn_started':
      s.reasoningIds = [];
      turnStarted(c, p, str(env.turn_id));
      return;
    case 'assistant_message_completed':
      messageCompleted(c, p, itemId);
      return;
    default:
      // reasoning_completed
      if (itemId !== undefined && s.reasoningIds.includes(itemId)) return;
      if (itemId !== undefined) s.reasoningIds.push(itemId);
      reasoningCompleted(c, p, itemId);
  }
}

/** A committed turn, judged by its kind alone (its payload, the turn's whole content, is not parsed). */
function onTurn(s: FxState, offset: number, emit: Emit): void {
  if (s.booked || s.unbooked || !s.sessionEmitted) return;
  s.unbooked = true;
  emitSession(s, offset, emit, { usageUnknown: true });
}

function restoreLedgers(v: unknown): Record<string, Ledger> {
  const out: Record<string, Ledger> = {};
  for (const [model, l] of Object.entries(rec(v) ?? {})) {
    const r = rec(l);
    if (r === undefined) continue;
    const n = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0);
    out[model] = { input: n(r.input), output: n(r.output), cacheRead: n(r.cacheRead), cacheWrite: n(r.cacheWrite), web: n(r.web), cost: n(r.cost) };
  }
  return out;
}

/** The fx line core. */
export const fxCore: LineCore<FxState> = {
  init(ctx: CoreContext): FxState {
    return { file: ctx.file, sessionId: fxSessionIdOf(ctx.file), sessionEmitted: false, startedAt: undefined, cwd: undefined, model: undefined, ledgers: {}, replaced: false, billingOpen: false, open: [], booked: false, unbooked: false, subagent: false, conversation: ctx.options.conversation, reasoningIds: [] };
  },
  restore(snapshot, ctx) {
    const s = this.init(ctx);
    const o = rec(snapshot) ?? {};
    restoreStrings(s, o as Partial<FxState>, ['startedAt', 'cwd', 'model']);
    restoreFlags(s, o as Partial<FxState>, ['sessionEmitted', 'replaced', 'billingOpen', 'booked', 'unbooked', 'subagent']);
    s.ledgers = restoreLedgers(o.ledgers);
    s.open = usageEventsFromJson(o.open);
    s.reasoningIds = Array.isArray(o.reasoningIds) ? o.reasoningIds.filter((x): x is string => typeof x === 'string') : [];
    return s;
  },
  snapshot(s) {
    return { sessionEmitted: s.sessionEmitted, startedAt: s.startedAt, cwd: s.cwd, model: s.model, ledgers: s.ledgers, replaced: s.replaced, billingOpen: s.billingOpen, open: s.open, booked: s.booked, unbooked: s.unbooked, subagent: s.subagent, reasoningIds: s.reasoningIds };
  },
  line(s, line, start, emit) {
    const kind = kindOf(line);
    if (kind !== undefined && s.conversation && CONVERSATION_KINDS.has(kind)) return onConversation(s, kind, line, start, emit);
    if (kind !== undefined && TURN_KINDS.has(kind)) return onTurn(s, start, emit);
    if (kind === undefined || !READ_KINDS.has(kind)) return;
    const env = parseJsonObject(line, start, CODEC_ID, s.file);
    if (env.kind !== kind) return;
    record(s, kind, env, start, emit);
  },
  end(s, emit): KindCounts {
    return flushRecorded(s.open, emit);
  },
};
