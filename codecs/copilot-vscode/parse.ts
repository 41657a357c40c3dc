/**
 * The engine of VS Code's chat-session log (`<session id>.jsonl`, README.md "The log"): pure and synchronous.
 * Each line is one entry of VS Code's `ObjectMutationLog`: `{kind: 0, v}` the whole session, `{kind: 1, k, v}`
 * a value set at path `k`, `{kind: 2, k, v?, i?}` items pushed onto the array at `k` (cut to length `i`
 * first), `{kind: 3, k}` a value deleted. The engine applies them to a projection of the session that keeps
 * only what it reads (schema.ts `pruneRequest`), so the cursor's state stays small, and emits per request
 * the prompt when it appears, and the response, its tool calls and its tokens once the response is over and
 * settled. Over: a terminal `modelState`. Settled: a later line touches something else. VS Code writes the
 * changes of one save together, a request's primitive fields (`modelState`, `result`, tokens) before its
 * `response` array, so the line that ends a response is not its last one. `end()` hands out a response over
 * but not yet settled, and one still running, as open events: the next line may change them. Tokens changed
 * after a request settled are emitted again under the same dedup key (the folds keep one copy per key).
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { parseJsonObject } from '../../cursors/core.js';
import type { KindCounts, SessionFields } from '../../cursors/protocol/events.js';
import { sessionEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID, sessionIdOfPath } from './paths.js';
import { assistantEvent, isFinal, isoOfMs, isRec, pruneRequest, str, toolEvents, usageEvents, usageSignature, userEvent, type At, type Rec } from './schema.js';

/** What was emitted for one request id: its prompt, its final events, the tokens last emitted. */
interface Done {
  u?: 1;
  f?: 1;
  s?: string;
}

export interface VscodeChatState {
  file: string;
  /** The read wants the responses (messages, tool calls): else an entry into a `response` is not parsed. */
  responses: boolean;
  sessionId: string;
  cwd: string | undefined;
  /** The session's projection: `creationDate`, `customTitle`, `requests` (pruned). */
  doc: Rec | undefined;
  sessionSent: boolean;
  title: string | undefined;
  done: Record<string, Done>;
  /** Ids of requests over but not yet settled, in the order they ended. */
  pending: string[];
  /** Final requests without tokens recorded. */
  withoutUsage: number;
}

export interface VscodeChatCoreOptions {
  /** The workspace folder (from `workspace.json` beside the session folder), read by index.ts. */
  cwd?: string;
}

/** Past this, an array index in a path is taken as corrupt (the entry is skipped), not padded to. */
const MAX_INDEX = 100_000;

type Path = (string | number)[];

function pathOf(v: unknown): Path | undefined {
  if (!Array.isArray(v)) return undefined;
  for (const p of v) if (typeof p !== 'string' && !(typeof p === 'number' && Number.isInteger(p) && p >= 0 && p <= MAX_INDEX)) return undefined;
  return v as Path;
}

/** The container at `path` (all but its last key), made on the way as VS Code's own reader would find it. */
function parentAt(root: Rec, path: Path): Record<string | number, unknown> {
  let cur = root as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i] as string | number;
    let next = cur[k];
    if (next === null || typeof next !== 'object') {
      next = typeof path[i + 1] === 'number' ? [] : {};
      cur[k] = next;
    }
    cur = next as Record<string | number, unknown>;
  }
  return cur;
}

/** The request indices a path touches: `[]` for none, `'all'` for the whole array. */
function touched(path: Path): number[] | 'all' {
  if (path[0] !== 'requests') return [];
  if (path.length === 1) return 'all';
  return typeof path[1] === 'number' ? [path[1]] : [];
}

const indices = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

function requestsOf(doc: Rec): Rec[] {
  if (!Array.isArray(doc.requests)) doc.requests = [];
  return doc.requests as Rec[];
}

/** The request index an entry's path goes into (`["requests", i, …]`), else undefined. */
function requestIndexOf(e: Rec): number | undefined {
  const path = pathOf(e.k);
  return path !== undefined && path.length > 2 && path[0] === 'requests' && typeof path[1] === 'number' ? path[1] : undefined;
}

/** The session's keys the projection keeps; an entry at any other key (`inputState`, `pendingRequests`, …) changes nothing. */
const SESSION_KEYS = new Set(['sessionId', 'creationDate', 'customTitle', 'requests']);
/** A request's keys `pruneRequest` reads; an entry at any other key of a request changes none of its events. */
const REQUEST_KEYS = new Set(['requestId', 'responseId', 'modelId', 'timestamp', 'promptTokens', 'completionTokens', 'message', 'isCanceled', 'modelState', 'result', 'modelTotals', 'response']);

/**
 * The head of a `Set` / `Push` / `Delete` entry as VS Code writes it (`{"kind":1,"k":["requests",3,"usedContext"]`):
 * its session key, and its request index and key when it goes into a request.
 */
const ENTRY_HEAD = /^\{"kind":[123],"k":\["([^"\\]*)"(?:,(\d{1,9}),"([^"\\]*)")?/;

/**
 * An entry the projection drops, told from its head without parsing it (a save writes the input box, its
 * attachments and each request's references and context beside the fields read): the request index it goes
 * into (which stays pending, as for any entry into it), null for none; undefined for an entry to parse. A
 * read without messages or tool calls drops the `response` pushes too, most of a log's bytes (each save
 * during a stream writes the parts from the first that changed).
 */
function droppedEntry(s: VscodeChatState, buf: Buffer): number | null | undefined {
  const m = ENTRY_HEAD.exec(buf.toString('latin1', 0, Math.min(buf.length, 96)));
  if (m === null) return undefined;
  if (!SESSION_KEYS.has(m[1] as string)) return null;
  if (m[1] !== 'requests' || m[3] === undefined || (REQUEST_KEYS.has(m[3]) && (s.responses || m[3] !== 'response'))) return undefined;
  const i = Number(m[2]);
  return i <= MAX_INDEX ? i : null;
}

/** Apply one entry to the projection; the request indices whose events may have changed. */
function apply(s: VscodeChatState, e: Rec): number[] | 'all' {
  if (e.kind === 0) {
    const v = isRec(e.v) ? e.v : {};
    s.doc = { sessionId: v.sessionId, creationDate: v.creationDate, customTitle: v.customTitle, requests: Array.isArray(v.requests) ? v.requests.map((r) => pruneRequest(r)) : [] };
    return 'all';
  }
  const path = pathOf(e.k);
  if (path === undefined || path.length === 0 || s.doc === undefined || !SESSION_KEYS.has(path[0] as string)) return [];
  const doc = s.doc;
  const last = path[path.length - 1] as string | number;
  const parent = parentAt(doc, path);
  if (e.kind === 1) parent[last] = e.v;
  else if (e.kind === 3) delete parent[last];
  else if (e.kind === 2) {
    const arr = Array.isArray(parent[last]) ? (parent[last] as unknown[]) : [];
    if (typeof e.i === 'number' && Number.isInteger(e.i) && e.i >= 0) arr.length = Math.min(arr.length, e.i);
    if (Array.isArray(e.v)) arr.push(...e.v);
    parent[last] = arr;
  } else return [];
  const reqs = requestsOf(doc);
  const hit = touched(path);
  for (const i of hit === 'all' ? indices(reqs.length) : hit) {
    const r = reqs[i];
    reqs[i] = pruneRequest(r, !(isRec(r) && s.done[String(r.requestId)]?.f === 1));
  }
  return hit;
}

function sessionFields(s: VscodeChatState, extra: SessionFields = {}): SessionFields {
  return { cwd: s.cwd, startedAt: isoOfMs(s.doc?.creationDate), title: s.title, ...extra };
}

function emitSession(s: VscodeChatState, start: number, emit: Emit): void {
  const title = str(s.doc?.customTitle);
  if (s.sessionSent && title === s.title) return;
  s.title = title;
  s.sessionSent = true;
  emit(sessionEventOf(CODEC_ID, s.sessionId, start, sessionFields(s)));
}

function atOf(s: VscodeChatState, offset: number): At {
  return { sessionId: s.sessionId, offset, fallbackTime: isoOfMs(s.doc?.creationDate) };
}

/** The final events of a request: its response, tool calls and tokens. */
function finalEvents(r: Rec, at: At, emit: Emit): number {
  const a = assistantEvent(r, at);
  if (a !== undefined) emit(a);
  for (const t of toolEvents(r, at)) emit(t);
  const usage = usageEvents(r, at);
  for (const u of usage) emit(u);
  return usage.length;
}

/** Settle a request that is over: its final events, once; its response text is dropped from the state. */
function settle(s: VscodeChatState, r: Rec, start: number, emit: Emit): void {
  const id = str(r.requestId) as string;
  const done = (s.done[id] ??= {});
  done.f = 1;
  const at = atOf(s, start);
  done.s = usageSignature(usageEvents(r, at));
  if (finalEvents(r, at, emit) === 0) s.withoutUsage++;
  delete r.response;
}

function findRequest(s: VscodeChatState, id: string): Rec | undefined {
  return requestsOf(s.doc ?? {}).find((r) => isRec(r) && r.requestId === id);
}

/** Settle every pending request but the one at `keep` (the index the coming entry changes). */
function settlePending(s: VscodeChatState, keep: number | undefined, start: number, emit: Emit): void {
  if (s.pending.length === 0) return;
  const reqs = s.doc === undefined ? [] : requestsOf(s.doc);
  const kept: string[] = [];
  for (const id of s.pending) {
    const r = findRequest(s, id);
    if (r !== undefined && keep !== undefined && reqs[keep] === r) kept.push(id);
    else if (r !== undefined) settle(s, r, start, emit);
  }
  s.pending = kept;
}

/** What a request owes after an entry changed it: its prompt once; pending once over; its tokens again once settled. */
function requestEvents(s: VscodeChatState, r: Rec, start: number, emit: Emit): void {
  const id = str(r.requestId);
  if (id === undefined) return;
  const done = (s.done[id] ??= {});
  const at = atOf(s, start);
  if (done.u === undefined) {
    const u = userEvent(r, at);
    if (u !== undefined) {
      done.u = 1;
      emit(u);
    }
  }
  // the prompt is emitted once: its text, however long, leaves the state (and the cursor)
  if (done.u === 1) delete r.message;
  if (!isFinal(r)) return;
  if (done.f === undefined) {
    if (!s.pending.includes(id)) s.pending.push(id);
    return;
  }
  const usage = usageEvents(r, at);
  const sig = usageSignature(usage);
  if (sig === done.s || usage.length === 0) return;
  if (done.s === '') s.withoutUsage--;
  done.s = sig;
  for (const u of usage) emit(u);
}

function line(s: VscodeChatState, buf: Buffer, start: number, emit: Emit): void {
  const dropped = droppedEntry(s, buf);
  if (dropped !== undefined) return settlePending(s, dropped ?? undefined, start, emit);
  const e = parseJsonObject(buf, start, CODEC_ID, s.file);
  settlePending(s, e.kind === 0 ? undefined : requestIndexOf(e), start, emit);
  const hit = apply(s, e);
  if (s.doc === undefined) return;
  if (e.kind === 0) s.sessionId = str(s.doc.sessionId) ?? s.sessionId;
  emitSession(s, start, emit);
  const reqs = requestsOf(s.doc);
  for (const i of hit === 'all' ? indices(reqs.length) : hit) {
    const r = reqs[i];
    if (isRec(r)) requestEvents(s, r, start, emit);
  }
}

/** Responses over but not settled, and those still running, as open events; how much usage is recorded. */
function end(s: VscodeChatState, emit: Emit): KindCounts {
  const open: KindCounts = {};
  if (s.doc === undefined) return open;
  const counting: Emit = (e) => {
    open[e.type] = (open[e.type] ?? 0) + 1;
    emit(e);
  };
  let withoutUsage = s.withoutUsage;
  for (const r of requestsOf(s.doc)) {
    const id = isRec(r) ? str(r.requestId) : undefined;
    if (id === undefined || s.done[id]?.f === 1) continue;
    const at = atOf(s, 0);
    if (s.pending.includes(id)) {
      if (finalEvents(r, at, counting) === 0) withoutUsage++;
      continue;
    }
    const a = assistantEvent(r, at);
    if (a !== undefined) counting(a);
    for (const u of usageEvents(r, at)) counting(u);
  }
  // VS Code records tokens (README "Tokens"): a session without them is unknown, not an agent that records none
  const flag = withoutUsage === 0 ? undefined : { usageUnknown: true as const };
  if (flag !== undefined) counting(sessionEventOf(CODEC_ID, s.sessionId, 0, sessionFields(s, flag)));
  return open;
}

function restoreDone(v: unknown): Record<string, Done> {
  const out: Record<string, Done> = {};
  if (!isRec(v)) return out;
  for (const [k, d] of Object.entries(v)) {
    if (!isRec(d)) continue;
    out[k] = { ...(d.u === 1 && { u: 1 as const }), ...(d.f === 1 && { f: 1 as const }), ...(typeof d.s === 'string' && { s: d.s }) };
  }
  return out;
}

/** The core, with the session's workspace folder when index.ts found one. */
export function createVscodeChatCore(options: VscodeChatCoreOptions = {}): LineCore<VscodeChatState> {
  const init = (ctx: CoreContext): VscodeChatState => ({
    file: ctx.file,
    responses: ctx.options.conversation,
    sessionId: sessionIdOfPath(ctx.file),
    cwd: options.cwd,
    doc: undefined,
    sessionSent: false,
    title: undefined,
    done: {},
    pending: [],
    withoutUsage: 0,
  });
  return {
    init,
    restore(snapshot, ctx) {
      const s = init(ctx);
      if (!isRec(snapshot)) return s;
      if (typeof snapshot.sessionId === 'string') s.sessionId = snapshot.sessionId;
      if (isRec(snapshot.doc)) s.doc = snapshot.doc;
      s.sessionSent = snapshot.sessionSent === true;
      if (typeof snapshot.title === 'string') s.title = snapshot.title;
      s.done = restoreDone(snapshot.done);
      if (Array.isArray(snapshot.pending)) s.pending = snapshot.pending.filter((x): x is string => typeof x === 'string');
      s.withoutUsage = typeof snapshot.withoutUsage === 'number' ? snapshot.withoutUsage : 0;
      return s;
    },
    snapshot(s) {
      return { sessionId: s.sessionId, doc: s.doc, sessionSent: s.sessionSent, title: s.title, done: s.done, pending: s.pending, withoutUsage: s.withoutUsage };
    },
    line,
    end,
  };
}

export const vscodeChatCore: LineCore<VscodeChatState> = createVscodeChatCore();
