/**
 * The pure engine of the pi family (pi, omp, OpenClaw: one format, README.md). Line 1, the header, opens
 * the session; every later line is an entry of the tree (tree.ts).
 *
 * - A read that wants conversation (`message`, `tool_call` or `tool_result`) keeps each entry's events in
 *   the tree and yields them when it ends: the branch that ends at the file's last entry, with the usage of
 *   every entry (tree.ts says how a cursor stays exact).
 * - A read that wants only `session` and `usage` keeps no tree: usage events leave as their lines are read,
 *   in the same order, and lines without a usage, header, model or title marker are never parsed.
 * - `raw: true` yields every entry, on the branch or not, each event carrying its entry as `raw`.
 */
import { basename } from 'node:path';
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { hasAnyMarker, isLeanRead, parseJsonObject, RESTART } from '../../cursors/core.js';
import { compileProjection, scanFields, type FieldProjection } from '../../cursors/scan-fields.js';
import type { KindCounts, SessionEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventsFromJson } from '../../cursors/protocol/events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { conversationEvents, usageEvent, type EntryContext } from './entries.js';
import { asHeader, asObject, asString, isoTimestamp, type PiEntry, type PiHeader } from './schema.js';
import { addNode, emitNode, emptyTree, flushTree, linkEntry, nodeId, OPEN_NODES, restoreTree, settleTree, snapshotTree, type PiNode, type PiTree } from './tree.js';
import { ATTRIBUTION, attributionCap, capUsage, headerRlmDepth, rlmPlace, type UsageCap } from './rlm.js';

/** What a session event says beyond the file: OpenClaw's `sessions.json` entry (codecs/openclaw). */
export interface PiSessionMeta {
  title?: string;
  /** OpenClaw's session key, e.g. `agent:main:main`. */
  sessionKey?: string;
  /** The channel the session talks on (telegram, discord, …). */
  channel?: string;
  /** A subagent's session, spawned by another. */
  subagent?: boolean;
  /** The session id of the session that spawned it. */
  parentId?: string;
}

export interface PiCoreOptions {
  /** Codec id put on every event (`pi`, `omp`, `openclaw`). */
  agent: string;
  meta?: PiSessionMeta;
  /** The session id the file name gives, preferred over the header's (OpenClaw names files by it). */
  preferFileId?: boolean;
  /** The session id, when the source is not a file named by it (OpenClaw's database rows); implies preferFileId. */
  sessionId?: string;
  /** Conversation reads of at least this many bytes take two passes (TWO_PASS_BYTES; tests set 0 or Infinity). */
  twoPassBytes?: number;
  /**
   * RLM sessions (Prime Agent, rlm.ts): a child's header and folder make it a subagent, a
   * `child_usage_attributed` entry takes its children's usage back out of the message it targets, and the
   * usage of compactions and branch summaries counts.
   */
  rlm?: boolean;
}

/**
 * A conversation read of this many bytes or more reads its lines twice (README.md, "Branches and resume"):
 * the first pass links the entries, the second yields each settled entry's events as its line comes. Below
 * it one pass holds the events, which costs less time than a second parse and at most a few times this in
 * memory.
 */
export const TWO_PASS_BYTES = 8 << 20;

interface HeaderInfo {
  cwd?: string;
  startedAt?: string;
  forkedFrom?: string;
  title?: string;
  model?: string;
  provider?: string;
  /** omp: a `session_init` entry opens a subagent's session. */
  subagent?: boolean;
  agentType?: string;
  spawnDepth?: number;
}

export interface PiState {
  agent: string;
  file: string;
  sessionId: string;
  headerSeen: boolean;
  header: HeaderInfo;
  /** Latest `session_info` name. */
  name: string | undefined;
  /** The model in effect, for a response that names none. */
  model: string | undefined;
  provider: string | undefined;
  /** Conversation is wanted: entries go through the tree. */
  held: boolean;
  raw: boolean;
  titles: boolean;
  tree: PiTree;
  markers: Buffer[] | undefined;
  /** Two-pass reads: 1 in the first pass (links only), 2 in the second (events stream); 0 in a one-pass read. */
  pass: 0 | 1 | 2;
  plan: PiPlan | undefined;
  /**
   * RLM, usage-only reads: usage events held until the read ends, so that an attribution later in the file can
   * still lower its target (rlm.ts); the last OPEN_NODES stay open in the cursor. Undefined otherwise.
   */
  pending: UsageEvent[] | undefined;
  /** The pending events by entry id. */
  pendingById: Map<string, UsageEvent> | undefined;
}

/** What the first pass of a two-pass read leaves the second. */
interface PiPlan {
  /** The state the second pass starts from again. */
  start: Pick<PiState, 'headerSeen' | 'sessionId' | 'header' | 'name' | 'model' | 'provider'>;
  /** Nodes the tree held when the read began (a resumed cursor's open nodes). */
  restored: number;
  /** Per node, in file order: on the final branch. */
  onBranch: Uint8Array;
  /** Nodes before this index settle in this read; the rest stay open. */
  open: number;
  /** Index of the next node the second pass makes. */
  next: number;
  /** Restored nodes that settle in this read, yielded before the second pass's first line. */
  pending: PiNode[];
  /** RLM: per target entry id, the caps of the attributions the first pass saw. */
  caps: Map<string, UsageCap[]>;
}

const quiet: Emit = () => undefined;

/**
 * Lines a usage-only read parses: responses, the header (and `session_info`, `session_init`), model changes,
 * titles (`title_change`, omp's title slot). Four at most: the native line source takes no more.
 */
const USAGE_MARKERS = ['"usage"', '"session', 'model_change', '"title'].map((m) => Buffer.from(m));
/** An RLM read's: its attributions instead of omp's titles (Prime names sessions with `session_info`). */
const RLM_USAGE_MARKERS = ['"usage"', '"session', 'model_change', ATTRIBUTION].map((m) => Buffer.from(m));
/** Kimchi's subagent entry (`src/session-visibility.ts` `SUBAGENT_SESSION_ENTRY`, README of codecs/kimchi). */
const KIMCHI_SUBAGENT = 'kimchi:subagent-session';

/**
 * Every field the first pass of a two-pass read takes from a line (`takeRecord` in pass 1): the header's
 * fields, an entry's type, id and parentId, and what model changes, subagent entries and titles carry. That
 * pass links the entries and needs nothing of their messages, which are most of a file's bytes, so its lines
 * go through the exact field scanner (cursors/scan-fields.ts) instead of JSON.parse; a line the scanner
 * cannot answer for is parsed whole (a malformed one is then skipped as before). A field that pass reads
 * and this does not list would read as absent there alone: test/pi-link-projection.test.ts holds the two in
 * step.
 */
export const PI_LINK_PROJECTION = {
  type: true,
  id: true,
  parentId: true,
  timestamp: true,
  cwd: true,
  parentSession: true,
  title: true,
  modelId: true,
  provider: true,
  model: true,
  agent: true,
  name: true,
  customType: true,
  data: { type: true },
  rlmDepth: true,
  targetId: true,
  childUsage: true,
  aggregateUsage: true,
} as const satisfies FieldProjection;

const PI_LINK_FIELDS = compileProjection(PI_LINK_PROJECTION);

/** The session id in a pi file name (`<ISO time>_<id>.jsonl`), else the name without `.jsonl`. */
export function piFileSessionId(file: string): string {
  const name = basename(file).replace(/\.jsonl(\..*)?$/, '');
  const cut = name.indexOf('_');
  return cut > 0 && /^\d{4}-\d{2}-\d{2}T/.test(name) ? name.slice(cut + 1) : name;
}

function headerInfo(h: PiHeader, meta: PiSessionMeta | undefined): HeaderInfo {
  const info: HeaderInfo = {};
  const cwd = asString(h.cwd);
  const started = isoTimestamp(h.timestamp);
  const parent = asString(h.parentSession);
  const title = asString(h.title) ?? meta?.title;
  if (cwd !== undefined) info.cwd = cwd;
  if (started !== undefined) info.startedAt = started;
  if (parent !== undefined) info.forkedFrom = piFileSessionId(parent);
  if (title !== undefined) info.title = title;
  const model = asString(h.modelId);
  if (model !== undefined) info.model = model;
  const provider = asString(h.provider);
  if (provider !== undefined) info.provider = provider;
  return info;
}

function sessionEvent(s: PiState, offset: number, meta: PiSessionMeta | undefined): SessionEvent {
  const title = s.name ?? s.header.title;
  const e = sessionEventOf(s.agent, s.sessionId, offset, { ...s.header, title });
  if (meta?.sessionKey !== undefined) (e as SessionEvent & { sessionKey?: string }).sessionKey = meta.sessionKey;
  if (meta?.channel !== undefined) (e as SessionEvent & { channel?: string }).channel = meta.channel;
  if (meta?.subagent === true) e.subagent = true;
  if (meta?.parentId !== undefined && e.forkedFrom === undefined) e.forkedFrom = meta.parentId;
  return e;
}

/** `model_change`: pi writes `{provider, modelId}`, omp `{model: "provider/modelId", role?}`. */
function takeModelChange(s: PiState, entry: PiEntry): void {
  const id = asString(entry.modelId);
  if (id !== undefined) {
    s.model = id;
    s.provider = asString(entry.provider);
    return;
  }
  const both = asString(entry.model);
  if (both === undefined) return;
  const cut = both.indexOf('/');
  s.model = cut > 0 ? both.slice(cut + 1) : both;
  s.provider = cut > 0 ? both.slice(0, cut) : asString(entry.provider);
}

/** A new title: pi's `session_info{name}`, omp's `title_change{title}` and its first-line title slot. */
function takeTitle(s: PiState, entry: PiEntry, start: number, meta: PiSessionMeta | undefined, emit: Emit): void {
  const raw = entry.type === 'session_info' ? entry.name : entry.title;
  const name = asString(raw)?.trim();
  if (name === undefined || name === '' || name === s.name) return;
  s.name = name;
  // Also without a header (a session list's tail window): the latest name is the title wherever it is. The
  // title slot comes before omp's header, which then carries it.
  if (s.titles && (entry.type !== 'title' || s.headerSeen)) emit(sessionEvent(s, start, meta));
}

const TITLE_TYPES = new Set(['session_info', 'title_change', 'title']);

function initState(ctx: CoreContext, opts: PiCoreOptions): PiState {
  const held = !isLeanRead(ctx.options);
  return {
    agent: opts.agent,
    file: ctx.file,
    sessionId: opts.sessionId ?? piFileSessionId(ctx.file),
    headerSeen: false,
    header: {},
    name: undefined,
    model: undefined,
    provider: undefined,
    held,
    raw: ctx.options.raw,
    titles: ctx.options.titles,
    tree: emptyTree(),
    markers: held ? undefined : opts.rlm === true ? RLM_USAGE_MARKERS : USAGE_MARKERS,
    pass: 0,
    plan: undefined,
    pending: opts.rlm === true && !held ? [] : undefined,
    pendingById: opts.rlm === true && !held ? new Map() : undefined,
  };
}

/**
 * An RLM child: one in a child's folder of its parent's artifacts (its depth from the path, relative to its root
 * session), or one whose header says it was spawned (`rlmDepth` above 0 with a `parentSession`).
 */
function rlmHeader(info: HeaderInfo, h: PiHeader, file: string): void {
  const place = rlmPlace(file);
  const depth = headerRlmDepth(h.rlmDepth);
  if (place === undefined && !(depth !== undefined && depth > 0 && info.forkedFrom !== undefined)) return;
  info.subagent = true;
  if (place !== undefined) info.spawnDepth = place.depth;
  if (info.forkedFrom === undefined && place?.parentId !== undefined) info.forkedFrom = place.parentId;
}

function readHeader(s: PiState, h: PiHeader, start: number, opts: PiCoreOptions, emit: Emit): void {
  s.headerSeen = true;
  if (!opts.preferFileId && opts.sessionId === undefined) s.sessionId = h.id;
  s.header = headerInfo(h, opts.meta);
  if (opts.rlm === true) rlmHeader(s.header, h, s.file);
  s.model = s.header.model;
  s.provider = s.header.provider;
  emit(sessionEvent(s, start, opts.meta));
}

/**
 * An entry that says its session is a subagent's: omp's `session_init`, or the `custom` entry Kimchi's agents
 * extension writes after the header (`customType: "kimchi:subagent-session"`, `data.type` the agent type).
 */
function opensSubagent(entry: PiEntry): boolean {
  if (entry.type === 'session_init') return true;
  return entry.type === 'custom' && entry.customType === KIMCHI_SUBAGENT && entry.data !== null && typeof entry.data === 'object';
}

/** `emit` takes session events (quiet in a second pass: the first yielded them), `nodeEmit` an entry's events. */
function readEntry(s: PiState, entry: PiEntry, start: number, length: number, opts: PiCoreOptions, emit: Emit, nodeEmit: Emit): typeof RESTART | void {
  if (entry.type === 'model_change') takeModelChange(s, entry);
  else if (opensSubagent(entry) && s.header.subagent !== true) {
    s.header.subagent = true;
    const agentType = asString(entry.type === 'custom' ? (entry.data as PiEntry | undefined)?.type : entry.agent);
    if (agentType !== undefined) s.header.agentType = agentType;
    emit(sessionEvent(s, start, opts.meta));
  } else if (TITLE_TYPES.has(entry.type)) {
    takeTitle(s, entry, start, opts.meta, emit);
    if (entry.type === 'title') return;
  }
  const id = typeof entry.id === 'string' && entry.id !== '' ? entry.id : undefined;
  if (opts.rlm === true && entry.type === ATTRIBUTION) noteAttribution(s, entry);
  if (s.pass === 1) return linkNode(s, id, entry, start, length, []);
  const ctx: EntryContext = { agent: s.agent, sessionId: s.sessionId, offset: start, id, raw: s.raw, summaries: opts.rlm };
  const usage = usageEvent(ctx, entry, s);
  if (usage !== undefined && id !== undefined && s.plan !== undefined) for (const cap of s.plan.caps.get(id) ?? []) capUsage(usage, cap);
  if (!s.held) {
    if (usage !== undefined) holdOrEmit(s, usage, id, emit);
    return;
  }
  const events = conversationEvents(ctx, entry, s.raw);
  if (usage !== undefined) events.push(usage);
  if (s.plan === undefined) return linkNode(s, id, entry, start, length, events);
  // Second pass: the first linked this node; it settles now (its events go out) or stays open in the tree.
  const k = s.plan.next++;
  if (k < s.plan.open) emitNode(events, s.raw || s.plan.onBranch[k] === 1, nodeEmit);
  else (s.tree.nodes[k - s.plan.open] as PiNode).events = events;
}

/**
 * A `child_usage_attributed` entry: its cap on the target's usage, which a first pass keeps for the second and
 * any other read applies to the target's event while it is still held (in the tree, or pending).
 */
function noteAttribution(s: PiState, entry: PiEntry): void {
  const a = attributionCap(entry);
  if (a === undefined) return;
  if (s.pass === 1) {
    const caps = (s.plan as PiPlan).caps;
    caps.set(a.target, [...(caps.get(a.target) ?? []), a.cap]);
    return;
  }
  const target = s.held ? s.tree.byId.get(a.target)?.events.find((e): e is UsageEvent => e.type === 'usage') : s.pendingById?.get(a.target);
  if (target !== undefined) capUsage(target, a.cap);
}

/**
 * A usage-only read's usage event: out now, or (RLM) held while it is one of the last OPEN_NODES, the window a
 * cursor carries, so a later attribution lowers it alike in a whole read and in one resumed at any line.
 */
function holdOrEmit(s: PiState, usage: UsageEvent, id: string | undefined, emit: Emit): void {
  if (s.pending === undefined) return emit(usage);
  s.pending.push(usage);
  if (id !== undefined) s.pendingById?.set(id, usage);
  if (s.pending.length <= OPEN_NODES) return;
  const out = s.pending.shift() as UsageEvent;
  if (out.messageId !== undefined && s.pendingById?.get(out.messageId) === out) s.pendingById.delete(out.messageId);
  emit(out);
}

/** The held usage events out, in file order; the last OPEN_NODES stay held (and open) for the next read. */
function flushHeldUsage(s: PiState, emit: Emit): KindCounts {
  const pending = s.pending as UsageEvent[];
  pending.forEach((e) => emit(e));
  const open = pending.slice(Math.max(0, pending.length - OPEN_NODES));
  s.pending = open;
  s.pendingById = new Map(open.flatMap((e) => (e.messageId === undefined ? [] : [[e.messageId, e] as const])));
  return open.length > 0 ? { usage: open.length } : {};
}

function linkNode(s: PiState, id: string | undefined, entry: PiEntry, start: number, length: number, events: PiNode['events']): typeof RESTART | void {
  const link = linkEntry(s.tree, entry.parentId);
  const nid = nodeId(s.tree, id, start);
  if ('restart' in link || typeof nid !== 'string') return RESTART;
  addNode(s.tree, { id: nid, parent: link.parent, events, bytes: length });
}

/** Begin the first pass of a two-pass read. */
function beginTwoPass(s: PiState): void {
  const { headerSeen, sessionId, header, name, model, provider } = s;
  s.pass = 1;
  s.plan = { start: { headerSeen, sessionId, header: structuredClone(header), name, model, provider }, restored: s.tree.nodes.length, onBranch: new Uint8Array(0), open: 0, next: 0, pending: [], caps: new Map() };
}

/** Between the passes: keep the branch and the open nodes, settle the rest, start the state over. */
function rewind(s: PiState): void {
  const plan = s.plan as PiPlan;
  const { onBranch, open, tree } = settleTree(s.tree);
  plan.pending = s.tree.nodes.slice(0, Math.min(open, plan.restored));
  for (const n of s.tree.nodes.slice(0, plan.restored)) {
    const usage = n.events.find((e): e is UsageEvent => e.type === 'usage');
    if (usage !== undefined) for (const cap of plan.caps.get(n.id) ?? []) capUsage(usage, cap);
  }
  plan.onBranch = onBranch;
  plan.open = open;
  plan.next = plan.restored;
  Object.assign(s, plan.start);
  s.tree = tree;
  s.pass = 2;
}

/** Yield the restored nodes that settled (they come first in file order). */
function flushPending(s: PiState, emit: Emit): void {
  const plan = s.plan;
  if (plan === undefined || plan.pending.length === 0) return;
  plan.pending.forEach((n, i) => emitNode(n.events, s.raw || plan.onBranch[i] === 1, emit));
  plan.pending = [];
}

/**
 * One line's record: the header, or an entry. In the first pass of a two-pass read `rec` holds only the
 * fields PI_LINK_PROJECTION lists.
 */
export function takeRecord(s: PiState, rec: Record<string, unknown>, start: number, length: number, opts: PiCoreOptions, emit: Emit): typeof RESTART | void {
  const sessions = s.pass === 2 ? quiet : emit;
  const header = asHeader(rec);
  if (header !== undefined) {
    if (!s.headerSeen) readHeader(s, header, start, opts, sessions);
    return;
  }
  if (typeof rec.type !== 'string') return;
  return readEntry(s, rec as PiEntry, start, length, opts, sessions, emit);
}

/** An RLM usage-only read's held events back from a cursor (none for a conversation read). */
function restorePending(s: PiState, v: unknown): void {
  if (s.held) {
    s.pending = undefined;
    s.pendingById = undefined;
    return;
  }
  const events = usageEventsFromJson(v);
  s.pending = events;
  s.pendingById = new Map(events.flatMap((e) => (e.messageId === undefined ? [] : [[e.messageId, e] as const])));
}

/** The pi-family line core for one agent (and, for OpenClaw, one session's `sessions.json` entry). */
export function createPiCore(opts: PiCoreOptions): LineCore<PiState> {
  return {
    init: (ctx) => initState(ctx, opts),
    restore(snapshot, ctx) {
      const s = initState(ctx, opts);
      const o = asObject(snapshot);
      const tree = restoreTree(o?.tree);
      if (o === undefined || tree === undefined || typeof o.sessionId !== 'string' || o.raw !== s.raw) {
        throw new SessionfoldError('CURSOR_INVALID', `Not a ${opts.agent} cursor state (or one from a read with another raw option)`, { agent: opts.agent, file: ctx.file });
      }
      s.sessionId = o.sessionId;
      s.headerSeen = o.headerSeen === true;
      s.header = (asObject(o.header) ?? {}) as HeaderInfo;
      s.name = asString(o.name);
      s.model = asString(o.model);
      s.provider = asString(o.provider);
      s.held = o.held === true;
      s.markers = s.held ? undefined : opts.rlm === true ? RLM_USAGE_MARKERS : USAGE_MARKERS;
      s.tree = tree;
      if (opts.rlm === true) restorePending(s, o.pending);
      return s;
    },
    snapshot(s) {
      const { sessionId, headerSeen, header, name, model, provider, held, raw, pending } = s;
      return { sessionId, headerSeen, header, name, model, provider, held, raw, tree: snapshotTree(s.tree), ...(pending !== undefined && { pending }) };
    },
    markers: (s) => s.markers,
    twoPass(s, bytes) {
      if (!s.held || bytes < (opts.twoPassBytes ?? TWO_PASS_BYTES)) return false;
      beginTwoPass(s);
      return true;
    },
    rewind,
    line(s, line, start, emit) {
      if (s.markers !== undefined && !hasAnyMarker(line, s.markers)) return;
      if (s.pass === 2) flushPending(s, emit);
      const rec = (s.pass === 1 ? scanFields(line, PI_LINK_FIELDS) : undefined) ?? parseJsonObject(line, start, s.agent, s.file);
      return takeRecord(s, rec, start, line.length, opts, emit);
    },
    end(s, emit): KindCounts {
      if (!s.held) return s.pending === undefined ? {} : flushHeldUsage(s, emit);
      flushPending(s, emit);
      s.pass = 0;
      s.plan = undefined;
      return flushTree(s.tree, s.raw, emit);
    },
  };
}
