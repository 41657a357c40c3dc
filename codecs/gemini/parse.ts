/**
 * The Gemini CLI engine for append-only JSONL chats: a pure, synchronous LineCore (no I/O). Rules (README):
 *
 * - `session` from the metadata record (the first line), again when a `$set` gives a new `summary` (title).
 * - `usage` once per message id, from the first copy that carries `tokens` (Gemini CLI fills a message's
 *   tokens once and never changes them), emitted at once and never taken back: a rewind or a checkpoint
 *   drops messages from the conversation, not from the bill.
 * - `message`, `tool_call`, `tool_result`: the conversation. The current turn (from its user message on) is
 *   held open in the state: a copy of a message re-appended under its id replaces it in place (the last write
 *   wins), `$rewindTo` drops the message and everything after it, a `$set.messages` checkpoint replaces the
 *   turn, a `$patch` changes, removes or reorders its messages. The turn's events go out when the next user message closes it, or from `end()` as still open (their
 *   counts are `replaced`, so a resumed read yields them again, changed or not). With the lookahead
 *   (`GeminiCoreOptions.rewinds`), a message a later line rewinds to keeps the turns open until that rewind;
 *   a resumed state that meets a rewind into a closed turn returns RESTART. Without it (a stream), a rewind
 *   into a closed turn drops only the open one. A closed turn's later copies or checkpoints change nothing.
 *
 * Usage-only reads parse the metadata line, then only lines holding `"tokens"` (and `"summary"` when titles
 * are wanted), those through the exact field scanner (USAGE_FIELDS); a checkpoint or a patch is never parsed
 * for usage (a checkpoint's messages are copies of appended ones, a patch holds no tokens).
 */
import type { CoreContext, Emit, LineCore, LineResult } from '../../cursors/core.js';
import { parseJsonObject, RESTART } from '../../cursors/core.js';
import { compileProjection, scanFields } from '../../cursors/scan-fields.js';
import type { KindCounts, SessionEvent, SessionfoldEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID, getGeminiPathInfo, type ProjectPaths } from './paths.js';
import { isMetadataRecord, isRecord, messageEvent, str, toolEvents, usageEvent, type Rec } from './schema.js';

/** One message of the open turn: its latest copy, the offset of the line that carried it, and of its first. */
interface OpenMessage {
  id: string;
  rec: Rec;
  offset: number;
  first: number;
}

export interface GeminiState {
  file: string;
  cwd: string | undefined;
  byHash: Record<string, string>;
  parentSessionId: string | undefined;
  /** Only usage (and session) events are wanted: no conversation is kept. */
  usageOnly: boolean;
  titles: boolean;
  info: { filteredLines: number };
  sessionId: string;
  sessionEmitted: boolean;
  title: string | undefined;
  /** What the metadata record said that the session event repeats. */
  meta: SessionMeta;
  /** The last model a response named (a fallback for a response without one). */
  model: string | undefined;
  /** Message ids whose usage is out. */
  counted: Set<string>;
  /** Message ids of closed turns. */
  closed: Set<string>;
  turn: OpenMessage[];
  /** Lookahead (rewinds.ts): message id → offset of the last line that rewinds to it. */
  rewinds: Map<string, number>;
  /** Restored from a cursor: a rewind into a closed turn restarts the read (with the whole file's lookahead). */
  resumed: boolean;
}

interface SessionMeta {
  startTime?: string | undefined;
  projectHash?: string | undefined;
  kind?: string | undefined;
}

interface GeminiSnapshot {
  sessionId: string;
  sessionEmitted: boolean;
  title?: string | undefined;
  meta?: SessionMeta;
  model?: string | undefined;
  counted: string[];
  closed: string[];
  turn: OpenMessage[];
  rewinds?: [string, number][];
}

export interface GeminiCoreOptions {
  /** The project paths of the chat's folder (paths.ts `getProjectPaths`). */
  projects?: ProjectPaths;
  /**
   * Where the bytes to be read rewind (rewinds.ts `findRewinds`), read when a state is made or restored:
   * the caller may fill it up to then (a read does, in its `onStart`). Without it, a rewind reaches only the
   * open turn.
   */
  rewinds?: Map<string, number>;
}

const TOKENS_MARKER = Buffer.from('"tokens"');
const SUMMARY_MARKER = Buffer.from('"summary"');
/** Lines that never carry usage (metadata, checkpoints, patches), told by their first bytes. */
const NO_USAGE_PREFIXES: readonly Buffer[] = [Buffer.from('{"$set":'), Buffer.from('{"$patch":')];
const USAGE_MARKERS: readonly Buffer[] = [TOKENS_MARKER];

/**
 * Every field a usage-only read looks at once the session is out (onLine's dispatch, countUsage and
 * usageEvent): the exact scanner (cursors/scan-fields.ts) reads only these from a line, equal to what
 * JSON.parse would give, and leaves a line it cannot vouch for to JSON.parse.
 */
export const USAGE_FIELDS = compileProjection({
  $rewindTo: true,
  id: true,
  timestamp: true,
  model: true,
  tokens: { input: true, output: true, cached: true, thoughts: true, tool: true },
});
const USAGE_AND_TITLE_MARKERS: readonly Buffer[] = [TOKENS_MARKER, SUMMARY_MARKER];

/** The session event as the state knows the session (every event repeats every field). */
function sessionEvent(s: GeminiState, offset: number): SessionEvent {
  const meta = s.meta;
  const cwd = s.cwd ?? (meta.projectHash !== undefined ? s.byHash[meta.projectHash] : undefined);
  const startedAt = meta.startTime;
  const subagent = s.parentSessionId !== undefined || meta.kind === 'subagent';
  return sessionEventOf(CODEC_ID, s.sessionId, offset, { cwd, startedAt, title: s.title, subagent: subagent || undefined, spawnDepth: subagent ? 1 : undefined, forkedFrom: s.parentSessionId, provider: 'google' });
}

function ensureSession(s: GeminiState, offset: number, emit: Emit): void {
  if (s.sessionEmitted) return;
  s.sessionEmitted = true;
  emit(sessionEvent(s, offset));
}

/** The events of one message of the conversation (not its usage). */
function conversationEvents(s: GeminiState, m: OpenMessage, emit: (e: SessionfoldEvent) => void): void {
  const msg = messageEvent(m.rec, s.sessionId, m.offset);
  if (msg !== undefined) emit(msg);
  toolEvents(m.rec, s.sessionId, m.offset, emit);
}

function closeTurn(s: GeminiState, emit: Emit): void {
  for (const m of s.turn) {
    conversationEvents(s, m, emit);
    s.closed.add(m.id);
  }
  s.turn = [];
}

/**
 * Usage of a message copy. Only copies whose line holds `"tokens"` are looked at (a usage-only read parses
 * no other), so the fallback model is the same in every read.
 */
function countUsage(s: GeminiState, rec: Rec, offset: number, emit: Emit): void {
  const model = str(rec.model);
  const id = str(rec.id);
  const u = id === undefined || s.counted.has(id) ? undefined : usageEvent(rec, s.sessionId, offset, s.model, s.meta.startTime);
  if (model !== undefined) s.model = model;
  if (u === undefined || id === undefined) return;
  s.counted.add(id);
  emit(u);
}

function onMessage(s: GeminiState, rec: Rec, id: string, offset: number, emit: Emit, tokens: boolean): void {
  ensureSession(s, offset, emit);
  if (tokens) countUsage(s, rec, offset, emit);
  if (s.usageOnly) return;
  const at = s.turn.findIndex((m) => m.id === id);
  if (at !== -1) s.turn[at] = { id, rec, offset, first: (s.turn[at] as OpenMessage).first };
  else if (!s.closed.has(id)) {
    if (rec.type === 'user' && !holding(s)) closeTurn(s, emit);
    s.turn.push({ id, rec, offset, first: offset });
  }
}

/** An open message that a later line rewinds to keeps the turns open until that rewind. */
function holding(s: GeminiState): boolean {
  if (s.rewinds.size === 0) return false;
  for (const m of s.turn) if ((s.rewinds.get(m.id) ?? -1) > m.first) return true;
  return false;
}

function onRewind(s: GeminiState, target: string, offset: number): LineResult {
  if (s.usageOnly) return;
  if ((s.rewinds.get(target) ?? -1) <= offset) s.rewinds.delete(target);
  const at = s.turn.findIndex((m) => m.id === target);
  if (at !== -1) {
    s.turn = s.turn.slice(0, at);
    return;
  }
  // A closed message: a resumed read did not know of this rewind when it closed it; a read from byte 0 does.
  if (s.resumed && s.closed.has(target)) return RESTART;
  // Without the lookahead (a stream), or a target Gemini CLI does not know (it clears the chat): the open
  // turn goes, the closed ones stay.
  s.turn = [];
}

/** One message's `$patch`: new content, or new results of its tool calls (by call id). */
function patched(rec: Rec, patch: Rec): Rec {
  const out: Rec = { ...rec };
  if (patch.content !== undefined) out.content = patch.content;
  if (Array.isArray(patch.toolCalls) && Array.isArray(rec.toolCalls)) {
    const results = new Map<string, unknown>();
    for (const tc of patch.toolCalls) if (isRecord(tc) && typeof tc.id === 'string' && 'result' in tc) results.set(tc.id, tc.result);
    out.toolCalls = rec.toolCalls.map((tc: unknown) => (isRecord(tc) && typeof tc.id === 'string' && results.has(tc.id) ? { ...tc, result: results.get(tc.id) } : tc));
  }
  return out;
}

/**
 * A `$patch` (Gemini CLI's history sync: masked content and tool results, messages removed, a new order)
 * changes the open turn as Gemini CLI's loader changes its messages; closed turns keep their events.
 */
function onPatch(s: GeminiState, patch: Rec, offset: number): void {
  if (s.usageOnly) return;
  const updates = [patch, ...(Array.isArray(patch.updates) ? patch.updates : [])];
  for (const u of updates) {
    if (!isRecord(u) || typeof u.id !== 'string') continue;
    const at = s.turn.findIndex((m) => m.id === u.id);
    const m = s.turn[at];
    if (m !== undefined) s.turn[at] = { ...m, rec: patched(m.rec, u), offset };
  }
  const removed = new Set(strings(patch.removeIds));
  if (removed.size > 0) s.turn = s.turn.filter((m) => !removed.has(m.id));
  const order = strings(patch.orderIds);
  if (order.length > 0) {
    const byId = new Map(s.turn.map((m) => [m.id, m]));
    const ordered = order.flatMap((id) => byId.get(id) ?? []);
    const placed = new Set(ordered.map((m) => m.id));
    s.turn = [...s.turn.filter((m) => !placed.has(m.id)), ...ordered];
  }
}

/** A checkpoint's list replaces the open turn: kept and new messages in its order; closed ones stay as they were. */
function onCheckpoint(s: GeminiState, messages: unknown[], offset: number): void {
  const turn: OpenMessage[] = [];
  const seen = new Set<string>();
  for (const m of messages) {
    if (!isRecord(m) || typeof m.id !== 'string' || s.closed.has(m.id) || seen.has(m.id)) continue;
    seen.add(m.id);
    turn.push({ id: m.id, rec: m, offset, first: s.turn.find((o) => o.id === m.id)?.first ?? offset });
  }
  s.turn = turn;
}

function onSet(s: GeminiState, set: Rec, offset: number, emit: Emit): void {
  const summary = str(set.summary);
  if (summary !== undefined && summary !== s.title) {
    s.title = summary;
    if (s.sessionEmitted) emit(sessionEvent(s, offset));
  }
  if (!s.usageOnly && Array.isArray(set.messages)) onCheckpoint(s, set.messages, offset);
}

function onLine(s: GeminiState, rec: Rec, offset: number, emit: Emit, tokens: boolean): LineResult {
  if (typeof rec.$rewindTo === 'string') return onRewind(s, rec.$rewindTo, offset);
  if (isRecord(rec.$patch)) return onPatch(s, rec.$patch, offset);
  const id = rec.id;
  if (typeof id === 'string') return onMessage(s, rec, id, offset, emit, tokens);
  if (isRecord(rec.$set)) return onSet(s, rec.$set, offset, emit);
  if (isMetadataRecord(rec) && !s.sessionEmitted) {
    s.sessionId = rec.sessionId as string;
    s.title = str(rec.summary) ?? s.title;
    s.meta = { startTime: str(rec.startTime), projectHash: str(rec.projectHash), kind: str(rec.kind) };
    s.sessionEmitted = true;
    emit(sessionEvent(s, offset));
  }
}

function initState(ctx: CoreContext, options: GeminiCoreOptions): GeminiState {
  const kinds = ctx.options.kinds;
  const usageOnly = !kinds.has('message') && !kinds.has('tool_call') && !kinds.has('tool_result');
  const path = getGeminiPathInfo(ctx.file);
  return {
    file: ctx.file,
    cwd: options.projects?.dir,
    byHash: options.projects?.byHash ?? {},
    parentSessionId: path.parentSessionId,
    usageOnly,
    titles: ctx.options.titles && kinds.has('session'),
    info: ctx.options.info,
    sessionId: path.stem,
    sessionEmitted: false,
    title: undefined,
    meta: {},
    model: undefined,
    counted: new Set(),
    closed: new Set(),
    turn: [],
    rewinds: new Map(options.rewinds),
    resumed: false,
  };
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** A Gemini CLI LineCore bound to a chat's project paths (the cwd of its session event). */
export function createGeminiCore(options: GeminiCoreOptions = {}): LineCore<GeminiState> {
  return {
    init: (ctx) => initState(ctx, options),
    restore(snapshot, ctx) {
      const s = initState(ctx, options);
      const o = (isRecord(snapshot) ? snapshot : {}) as Partial<GeminiSnapshot>;
      if (typeof o.sessionId === 'string') s.sessionId = o.sessionId;
      s.sessionEmitted = o.sessionEmitted === true;
      s.title = str(o.title);
      const meta = isRecord(o.meta) ? o.meta : {};
      s.meta = { startTime: str(meta.startTime), projectHash: str(meta.projectHash), kind: str(meta.kind) };
      s.model = str(o.model);
      s.counted = new Set(strings(o.counted));
      s.closed = new Set(strings(o.closed));
      if (Array.isArray(o.turn)) s.turn = o.turn.filter((m) => isRecord(m) && typeof m.id === 'string' && isRecord(m.rec) && typeof m.offset === 'number' && typeof m.first === 'number');
      // The lookahead the earlier read had, and what the caller found in the bytes after it.
      if (Array.isArray(o.rewinds)) for (const r of o.rewinds) if (Array.isArray(r) && typeof r[0] === 'string' && typeof r[1] === 'number' && !s.rewinds.has(r[0])) s.rewinds.set(r[0], r[1]);
      s.resumed = true;
      return s;
    },
    snapshot(s): GeminiSnapshot {
      return { sessionId: s.sessionId, sessionEmitted: s.sessionEmitted, title: s.title, meta: s.meta, model: s.model, counted: [...s.counted], closed: [...s.closed], turn: s.turn, rewinds: [...s.rewinds] };
    },
    line(s, line, start, emit) {
      const tokens = line.indexOf(TOKENS_MARKER) !== -1;
      if (s.usageOnly && s.sessionEmitted) {
        const title = s.titles && line.indexOf(SUMMARY_MARKER) !== -1;
        if (!title) {
          if (!tokens || NO_USAGE_PREFIXES.some((p) => line.subarray(0, p.length).equals(p))) {
            s.info.filteredLines++;
            return;
          }
          const fields = scanFields(line, USAGE_FIELDS);
          if (fields !== undefined) return onLine(s, fields, start, emit, tokens);
        }
      }
      return onLine(s, parseJsonObject(line, start, CODEC_ID, s.file), start, emit, tokens);
    },
    end(s, emit): KindCounts {
      const counts: KindCounts = {};
      const counting = (e: SessionfoldEvent) => {
        counts[e.type] = (counts[e.type] ?? 0) + 1;
        emit(e);
      };
      for (const m of s.turn) conversationEvents(s, m, counting);
      return counts;
    },
    markers(s) {
      if (!s.usageOnly || !s.sessionEmitted) return undefined;
      return s.titles ? USAGE_AND_TITLE_MARKERS : USAGE_MARKERS;
    },
  };
}

/** The Gemini CLI LineCore without project paths (no cwd). */
export const geminiCore: LineCore<GeminiState> = createGeminiCore();
