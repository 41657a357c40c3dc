/**
 * The engine of the copilot codec: pure and synchronous (a LineCore). One line is one session event
 * (schema.ts); this core turns them into sessionfold events:
 * - `session.start` / `session.resume` → `session` (cwd, branch, version, selected model), and
 *   `session.model_change` → `session` with the new model (not in a read with `titles: false`);
 * - `user.message`, `system.message`, `assistant.message` (its `reasoningText` as thinking),
 *   `assistant.reasoning`, `session.compaction_complete` (subtype `compaction`) → `message`;
 * - `assistant.message` `toolRequests` → `tool_call`; `tool.execution_complete` → `tool_result`, its duration
 *   the tool's own `toolTelemetry.metrics.durationMs`, else the time since its `tool.execution_start`;
 * - `session.shutdown` → `usage` (usage.ts).
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
import { shutdownUsage } from './usage.js';
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
}

/**
 * The lines a read without message kinds needs. At most four markers: the native line source
 * (cursors/native-lines.ts) searches for up to four at once. A read that wants session events takes every
 * `"session.` line (start, resume, model change, shutdown; `line()` skips the others from their head).
 */
const USAGE_MARKERS = ['"session.shutdown"', '"session.start"'];
const SESSION_MARKERS = ['"session.', '"assistant.turn_start"', '"assistant.message"'];

function init(ctx: CoreContext, ws?: Workspace): CopilotState {
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
  };
}

function invalidState(detail: string): SessionfoldError {
  return new SessionfoldError('CURSOR_INVALID', `Invalid copilot cursor state: ${detail}`, { agent: CODEC_ID });
}

function restore(snapshot: unknown, ctx: CoreContext, ws?: Workspace): CopilotState {
  const o = asObject(snapshot);
  if (o === undefined || o.v !== STATE_VERSION) throw invalidState(`expected {v:${STATE_VERSION}}`);
  if (typeof o.sessionId !== 'string' || !Number.isSafeInteger(o.open) || !Number.isSafeInteger(o.lost) || !Array.isArray(o.calls)) throw invalidState('missing fields');
  const s = init(ctx, ws);
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
  return { v: STATE_VERSION, sessionId: s.sessionId, named: s.named, model: s.model ?? null, startTs: s.startTs ?? null, open: s.open, lost: s.lost, calls };
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

/** A new run of the process: a previous run that called a model without a shutdown has lost its usage. */
function newRun(s: CopilotState): void {
  if (s.open !== -1 && s.lost === -1) s.lost = s.open;
  s.open = -1;
}

function record(s: CopilotState, type: string, rec: Json, start: number, emit: Emit): void {
  const d = asObject(rec.data) ?? {};
  const base = { agent: CODEC_ID, sessionId: s.sessionId, offset: start };
  switch (type) {
    case TYPE.start:
      return sessionStart(s, d, rec, start, emit);
    case TYPE.resume:
      newRun(s);
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
      s.open = -1;
      if (!s.wantUsage) return;
      for (const u of shutdownUsage(d, { sessionId: s.sessionId, offset: start, timestamp: shutdownTime(s, d, rec), key: str(rec.id) ?? `@${start}` })) emit(u);
      return;
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
  newRun(s);
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

function end(s: CopilotState, emit: Emit): KindCounts {
  if (!s.wantSession) return {};
  const at = s.lost !== -1 ? s.lost : s.open;
  if (at === -1) return {};
  emit(sessionEventOf(CODEC_ID, s.sessionId, at, { usageUnknown: true }));
  return { session: 1 };
}

/**
 * The core, with the title of the session's workspace.yaml when there is one: read beside the file by
 * `read()` and `lineCoreFor()` (index.ts), so this core stays free of I/O.
 */
export function createCopilotCore(ws?: Workspace): LineCore<CopilotState> {
  return {
    init: (ctx) => init(ctx, ws),
    restore: (snap, ctx) => restore(snap, ctx, ws),
    snapshot,
    line,
    end,
    markers: (s) => s.markers,
  };
}

export const copilotCore: LineCore<CopilotState> = createCopilotCore();
