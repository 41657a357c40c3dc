/**
 * The engine of the copilot codec: pure and synchronous (a LineCore). One line is one session event
 * (schema.ts); this core turns them into sessionfold events:
 * - `session.start` / `session.resume` → `session` (cwd, branch, version, selected model), and
 *   `session.model_change` → `session` with the new model (not in a read with `titles: false`);
 * - `user.message`, `system.message`, `assistant.message` (its `reasoningText` as thinking),
 *   `assistant.reasoning`, `session.compaction_complete` (subtype `compaction`) → `message`;
 * - `assistant.message` `toolRequests` → `tool_call`; `tool.execution_complete` → `tool_result`, its duration
 *   the tool's own `toolTelemetry.metrics.durationMs`, else the time since its `tool.execution_start`;
 * - `session.shutdown` → `usage` (usage.ts), unless `session-store.db` recorded the run's calls one by one
 *   (store.ts): then one `usage` per call, in place of the run's totals.
 * Usage the file does not hold: a run of the process that called a model and has no shutdown after it (still
 * running, crashed, left with `/new`) has no tokens on disk. Then `end()` emits a `session` event with
 * `usageUnknown: true`, still open (a later shutdown takes it back), so a fold can tell "unknown" from zero.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { parseJsonObject } from '../../cursors/core.js';
import type { KindCounts } from '../../cursors/protocol/events.js';
import { sessionEventOf, type SessionFields } from '../../cursors/protocol/events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { CODEC_ID, sessionIdOfPath } from './paths.js';
import { asObject, str, timestampOf, TYPE, type Json } from './schema.js';
import { callUsage, shutdownUsage, type PerCall } from './usage.js';
import type { Workspace } from './workspace.js';
import { emitAssistant, emitMessage, toolComplete, toolStart, type OpenCall } from './messages.js';

export { MAX_OPEN_CALLS } from './messages.js';
export { CODEC_ID } from './paths.js';

const STATE_VERSION = 1;

export interface CopilotState {
  file: string;
  sessionId: string;
  /** `session.start` named the session: its id wins over the path's. */
  named: boolean;
  /** The model in use (selected at start, changed, or named by the last assistant message). */
  model: string | undefined;
  /** `session.start`'s own timestamp: the time of a shutdown that has none. */
  startTs: string | undefined;
  /** Offset of the first model activity after the last shutdown (or start), -1 when none. */
  open: number;
  /** Offset of the first run that called a model and ended without a shutdown, -1 when none. */
  lost: number;
  calls: Map<string, OpenCall>;
  /** Every kind is read: every line is parsed. Otherwise only the lines `markers` names matter. */
  full: boolean;
  wantSession: boolean;
  wantUsage: boolean;
  titles: boolean;
  /** The session's title from its workspace.yaml (read with titles only). */
  title: string | undefined;
  markers: Buffer[] | undefined;
  /** The session's calls from `session-store.db` in time order (handed to the core, not in the cursor). */
  perCall: readonly PerCall[];
  /** The first call no shutdown has taken yet. */
  perCallAt: number;
  /** The time of the latest start or resume (ms), -1 when unknown: the calls after it are the open run's. */
  runStartMs: number;
  /** Offset of the last shutdown (0 before one): where the calls after it are reported until one comes. */
  shutdownAt: number;
}

/**
 * The lines a read without message kinds needs. At most four markers: the native line source
 * (cursors/native-lines.ts) searches for up to four at once. A read that wants session events takes every
 * `"session.` line (start, resume, model change, shutdown; `line()` skips the others from their head).
 */
const USAGE_MARKERS = ['"session.shutdown"', '"session.start"'];
const SESSION_MARKERS = ['"session.', '"assistant.turn_start"', '"assistant.message"'];

function init(ctx: CoreContext, ws?: Workspace, perCall: readonly PerCall[] = []): CopilotState {
  const k = ctx.options.kinds;
  const full = k.has('message') || k.has('tool_call') || k.has('tool_result');
  const wantSession = k.has('session');
  const titles = ctx.options.titles;
  const markers = full ? undefined : wantSession ? SESSION_MARKERS : USAGE_MARKERS;
  return {
    file: ctx.file,
    sessionId: sessionIdOfPath(ctx.file),
    named: false,
    model: undefined,
    startTs: undefined,
    open: -1,
    lost: -1,
    calls: new Map(),
    full,
    wantSession,
    wantUsage: k.has('usage'),
    titles,
    title: titles ? ws?.title : undefined,
    markers: markers?.map((m) => Buffer.from(m)),
    perCall,
    perCallAt: 0,
    runStartMs: -1,
    shutdownAt: 0,
  };
}

function invalidState(detail: string): SessionfoldError {
  return new SessionfoldError('CURSOR_INVALID', `Invalid copilot cursor state: ${detail}`, { agent: CODEC_ID });
}

function restore(snapshot: unknown, ctx: CoreContext, ws?: Workspace, perCall?: readonly PerCall[]): CopilotState {
  const o = asObject(snapshot);
  if (o === undefined || o.v !== STATE_VERSION) throw invalidState(`expected {v:${STATE_VERSION}}`);
  if (typeof o.sessionId !== 'string' || !Number.isSafeInteger(o.open) || !Number.isSafeInteger(o.lost) || !Array.isArray(o.calls)) throw invalidState('missing fields');
  const s = init(ctx, ws, perCall);
  const at = o.perCallAt ?? 0;
  if (!Number.isSafeInteger(at) || (at as number) < 0 || (at as number) > s.perCall.length) throw invalidState('bad per-call position');
  s.perCallAt = at as number;
  s.runStartMs = typeof o.runStartMs === 'number' ? o.runStartMs : -1;
  s.shutdownAt = typeof o.shutdownAt === 'number' ? o.shutdownAt : 0;
  s.sessionId = o.sessionId;
  s.named = o.named === true;
  s.model = str(o.model);
  s.startTs = str(o.startTs);
  s.open = o.open as number;
  s.lost = o.lost as number;
  for (const c of o.calls as unknown[]) {
    if (!Array.isArray(c) || typeof c[0] !== 'string') throw invalidState('bad open call');
    s.calls.set(c[0], { name: str(c[1]), startMs: typeof c[2] === 'number' ? c[2] : undefined });
  }
  return s;
}

function snapshot(s: CopilotState): unknown {
  const calls = [...s.calls].map(([id, c]) => [id, c.name ?? null, c.startMs ?? null]);
  return { v: STATE_VERSION, sessionId: s.sessionId, named: s.named, model: s.model ?? null, startTs: s.startTs ?? null, open: s.open, lost: s.lost, calls, perCallAt: s.perCallAt, runStartMs: s.runStartMs, shutdownAt: s.shutdownAt };
}

const HEAD = Buffer.from('{"type":"');

/** The `type` of a line that starts `{"type":"…"` (how the CLI writes them), read without parsing; else undefined. */
function headType(line: Buffer): string | undefined {
  if (line.length <= HEAD.length || line.compare(HEAD, 0, HEAD.length, 0, HEAD.length) !== 0) return undefined;
  const end = line.indexOf(0x22, HEAD.length);
  if (end === -1) return undefined;
  const t = line.toString('latin1', HEAD.length, end);
  return t.includes('\\') ? undefined : t;
}

/** Types a filtered read acts on without their content: model activity opens a run whose usage is pending. */
const ACTIVITY = new Set<string>([TYPE.turnStart, TYPE.assistantMessage]);
/** Types a filtered read parses. */
const PARSED = new Set<string>([TYPE.start, TYPE.resume, TYPE.shutdown, TYPE.modelChange]);

function line(s: CopilotState, buf: Buffer, start: number, emit: Emit): void {
  let rec: Json | undefined;
  let type: string | undefined;
  if (s.full) {
    // Activity is decided from the head in every kind of read (a filtered one parses no assistant message),
    // so a damaged reply line, the model called but its line cut short, counts alike in all of them.
    const head = headType(buf);
    if (head !== undefined && ACTIVITY.has(head)) activity(s, start);
    rec = parseJsonObject(buf, start, CODEC_ID, s.file);
    type = str(rec.type);
  } else {
    type = headType(buf);
    if (type === undefined) {
      rec = parseJsonObject(buf, start, CODEC_ID, s.file);
      type = str(rec.type);
    }
    if (type === undefined || (!PARSED.has(type) && !ACTIVITY.has(type))) return;
    if (ACTIVITY.has(type)) {
      if (s.wantSession) activity(s, start);
      return;
    }
    rec ??= parseJsonObject(buf, start, CODEC_ID, s.file);
  }
  if (type !== undefined) record(s, type, rec, start, emit);
}

/** A model was called: the run's usage is pending until a shutdown. */
function activity(s: CopilotState, start: number): void {
  if (s.open === -1) s.open = start;
}

/**
 * A new run of the process: a previous run that called a model without a shutdown has lost its usage, unless
 * `session-store.db` recorded its calls (calls no shutdown took, before this run began).
 */
function newRun(s: CopilotState, rec: Json): void {
  const ms = timeMs(rec.timestamp);
  const next = s.perCall[s.perCallAt];
  const recorded = next !== undefined && ms !== -1 && next.ms < ms;
  if (s.open !== -1 && s.lost === -1 && !recorded) s.lost = s.open;
  s.open = -1;
  s.runStartMs = ms;
}

function timeMs(v: unknown): number {
  const t = timestampOf(v);
  return t === undefined ? -1 : Date.parse(t);
}

function record(s: CopilotState, type: string, rec: Json, start: number, emit: Emit): void {
  const d = asObject(rec.data) ?? {};
  const base = { agent: CODEC_ID, sessionId: s.sessionId, offset: start };
  switch (type) {
    case TYPE.start:
      return sessionStart(s, d, rec, start, emit);
    case TYPE.resume:
      newRun(s, rec);
      s.model = str(d.selectedModel) ?? s.model;
      return sessionMeta(s, d, start, emit, {});
    case TYPE.modelChange: {
      const model = str(d.newModel);
      if (model === undefined) return;
      s.model = model;
      if (s.wantSession && s.titles) emit(sessionEventOf(CODEC_ID, s.sessionId, start, { model }));
      return;
    }
    case TYPE.shutdown:
      return shutdown(s, d, rec, start, emit);
    case TYPE.turnStart:
      return activity(s, start);
    case TYPE.assistantMessage:
      activity(s, start);
      s.model = str(d.model) ?? s.model;
      return emitAssistant(s, d, rec, base, emit);
    case TYPE.toolStart:
      return toolStart(s.calls, d, rec);
    case TYPE.toolComplete:
      return toolComplete(s.calls, d, rec, base, emit);
    default:
      return emitMessage(type, d, rec, base, emit);
  }
}

function sessionStart(s: CopilotState, d: Json, rec: Json, start: number, emit: Emit): void {
  newRun(s, rec);
  const id = str(d.sessionId);
  if (id !== undefined && !s.named) {
    s.sessionId = id;
    s.named = true;
  }
  s.model = str(d.selectedModel) ?? s.model;
  s.startTs ??= timestampOf(rec.timestamp);
  const startedAt = timestampOf(d.startTime) ?? timestampOf(rec.timestamp);
  const version = str(d.copilotVersion);
  sessionMeta(s, d, start, emit, { startedAt, version });
}

/** The session event of a start or resume: its context (cwd, branch) and selected model. */
function sessionMeta(s: CopilotState, d: Json, start: number, emit: Emit, extra: SessionFields): void {
  if (!s.wantSession) return;
  const ctx = asObject(d.context) ?? {};
  const cwd = str(ctx.cwd);
  const branch = str(ctx.branch);
  const model = str(d.selectedModel);
  emit(sessionEventOf(CODEC_ID, s.sessionId, start, { cwd, ...extra, title: s.title, gitBranch: branch, model }));
}

/** A shutdown's own time, else the session's start time it records, else the start event's time. */
function shutdownTime(s: CopilotState, d: Json, rec: Json): string {
  const own = timestampOf(rec.timestamp);
  if (own !== undefined) return own;
  const ms = d.sessionStartTime;
  if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 && ms < 8.64e15) return new Date(ms).toISOString();
  return s.startTs ?? '1970-01-01T00:00:00.000Z';
}

/**
 * A run's end. Its usage is the calls `session-store.db` recorded up to the shutdown's time when there are any
 * (runs before them without a shutdown included), else the shutdown's totals: each token counts once.
 */
function shutdown(s: CopilotState, d: Json, rec: Json, start: number, emit: Emit): void {
  s.open = -1;
  s.shutdownAt = start;
  const timestamp = shutdownTime(s, d, rec);
  const until = Date.parse(timestamp);
  let to = s.perCallAt;
  while (to < s.perCall.length && (s.perCall[to] as PerCall).ms <= until) to++;
  const from = s.perCallAt;
  s.perCallAt = to;
  if (!s.wantUsage) return;
  if (to > from) {
    for (let i = from; i < to; i++) emit(callUsage(s.sessionId, start, s.perCall[i] as PerCall));
    return;
  }
  for (const u of shutdownUsage(d, { sessionId: s.sessionId, offset: start, timestamp, key: str(rec.id) ?? `@${start}` })) emit(u);
}

/**
 * The calls no shutdown has taken yet are still open (a shutdown may come and take them), and so is the
 * `usageUnknown` mark of a run that called a model with neither a shutdown nor a recorded call.
 */
function end(s: CopilotState, emit: Emit): KindCounts {
  const out: KindCounts = {};
  const pending = s.perCall.length - s.perCallAt;
  if (s.wantUsage && pending > 0) {
    for (let i = s.perCallAt; i < s.perCall.length; i++) emit(callUsage(s.sessionId, s.shutdownAt, s.perCall[i] as PerCall));
    out.usage = pending;
  }
  if (!s.wantSession) return out;
  const last = s.perCall[s.perCall.length - 1];
  const openRecorded = pending > 0 && last !== undefined && last.ms >= s.runStartMs;
  const at = s.lost !== -1 ? s.lost : openRecorded ? -1 : s.open;
  if (at === -1) return out;
  emit(sessionEventOf(CODEC_ID, s.sessionId, at, { usageUnknown: true }));
  out.session = 1;
  return out;
}

/**
 * The core, with the title of the session's workspace.yaml and the calls `session-store.db` recorded for it,
 * when there are: read beside the file by `read()` and `lineCoreFor()` (index.ts), so this core stays free of I/O.
 */
export function createCopilotCore(ws?: Workspace, perCall?: readonly PerCall[]): LineCore<CopilotState> {
  return {
    init: (ctx) => init(ctx, ws, perCall),
    restore: (snap, ctx) => restore(snap, ctx, ws, perCall),
    snapshot,
    line,
    end,
    markers: (s) => s.markers,
  };
}

export const copilotCore: LineCore<CopilotState> = createCopilotCore();
