/**
 * The Claude Code engine: a pure, synchronous LineCore (no I/O). One transcript line in, events out.
 *
 * - `session` once, from the first line that tells where the session ran: a line with `cwd` (1.x:
 *   `project`), or a `sessionId` line with a `message`. Queue, mode and permission lines carry a
 *   `sessionId` but no cwd, so they do not fire it.
 * - `message` per line with text or thinking (one API response spans several lines; they share `nativeId`
 *   = `message.id`). Summary lines, compaction summaries and system lines with content are `system`
 *   messages with a `subtype`; injected user lines are marked (`meta`, `command`, `command_output`).
 * - `tool_call` per `tool_use` block, `tool_result` per `tool_result` block (named after its open call).
 * - `usage` once per API response (usage.ts): responses being read are held open (up to
 *   MAX_OPEN_RESPONSES, oldest emitted first), and `end()` emits those still open and reports them in
 *   `replaced`, because a later line of the same response can still replace them.
 *
 * - Titles (`custom-title`, `ai-title` records; a subagent's meta description) go on the session event; a
 *   title record after it emits the session event again with the new title (consumers take the last).
 *   Precedence: the user's custom title, then the AI title, then the meta description.
 *
 * Usage-only reads (kinds ⊆ {usage, session}) parse every line until the session event is out (so the
 * session id is the same as in a full read), then only lines holding the bytes `"usage"` (a JSON key keeps
 * those bytes whatever the spacing around it, so no usage line is ever dropped), and, when sessions are
 * wanted and `titles` is not false (the cost scan's read), lines holding `-title"`. A usage line goes through the exact fast scanner (cursors/scan-fields.ts), which
 * parses only the fields usage reads (USAGE_LINE_FIELDS) and leaves to JSON.parse any line it cannot vouch
 * for; both give the same events (test/claude-usage-scan.test.ts).
 */
import type { Emit, LineCore, LineResult } from '../../cursors/core.js';
import { parseJsonObject, RESTART, UNWALKED, type WalkedLine } from '../../cursors/core.js';
import { hashId32 } from '../../cursors/ids.js';
import type { KindCounts, MessageEvent, MessageRole, SessionEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { extractTimestamp, isContentBlock, isRecord, str, SYNTHETIC_MODEL, TITLE_MARKER, USAGE_MARKER, type SubagentMeta } from './schema.js';
import {
  currentSessionId,
  initClaudeState,
  isAnsweredCall,
  openCall,
  restoreClaudeState,
  snapshotClaudeState,
  takeCall,
  type ClaudeState,
} from './state.js';
import { extractUsage, isLargerUsage, REPEATED, USAGE_LINE_FIELDS, type UsageCandidate } from './usage.js';
import { USAGE_FIELDS, walkedSessionId, walkedUsage } from './walked.js';
import { compileProjection, scanFields } from '../../cursors/scan-fields.js';
import { indexOfIn } from '../../cursors/native.js';

type Rec = Record<string, unknown>;


/**
 * What `onLine` reads of a line of a usage/session-only read before the session event is out: the usage
 * fields, where the session ran and what it is (`emitSession`), and a title record's (`onTitle`). Such a
 * line (the first of most transcripts: often a long prompt or tool result) is walked for these instead of
 * parsed whole.
 */
const OPENING_FIELDS = compileProjection({
  ...USAGE_LINE_FIELDS,
  type: true,
  cwd: true,
  project: true,
  isSidechain: true,
  agentId: true,
  version: true,
  gitBranch: true,
  customTitle: true,
  aiTitle: true,
  forkedFrom: { sessionId: true },
});

/**
 * Claude Code writes `message.usage` near the end of an assistant line (after the content, before requestId,
 * type, uuid and timestamp), so the marker is looked for in the line's last bytes first: a usage line of a
 * megabyte tool input is not searched whole. A miss there searches the whole line, so the answer is the same.
 */
const USAGE_TAIL_BYTES = 2048;

function hasUsageMarker(line: Buffer): boolean {
  const tail = line.length - USAGE_TAIL_BYTES;
  if (tail > 0 && indexOfIn(line, USAGE_MARKER, tail, line.length) !== -1) return true;
  return indexOfIn(line, USAGE_MARKER, 0, line.length) !== -1;
}

function isTitleRecord(type: unknown): boolean {
  return type === 'custom-title' || type === 'ai-title';
}

/** The session's title: the user's, else the generated one, else a subagent's Task description. */
function effectiveTitle(s: ClaudeState): string | undefined {
  return s.titles.custom ?? s.titles.ai ?? s.meta?.description;
}

function emitSession(s: ClaudeState, rec: Rec, start: number, emit: Emit): void {
  const sessionId = currentSessionId(s);
  const recSession = str(rec.sessionId);
  const cwd = str(rec.cwd) ?? str(rec.project);
  const startedAt = extractTimestamp(rec.timestamp);
  const meta = s.meta;
  const subagent = s.path.subagent || meta !== undefined || (rec.isSidechain === true && str(rec.agentId) !== undefined);
  // A subagent's parent is the subagent that spawned it (meta, depth ≥ 2), else its folder's session; a
  // copied (resumed, forked) transcript names its origin in the lines; so does a legacy agent-<id>.jsonl.
  const parentAgent = meta?.parentAgentId === undefined ? undefined : meta.parentAgentId.startsWith('agent-') ? meta.parentAgentId : `agent-${meta.parentAgentId}`;
  // `/branch` and `--fork-session` rewrite every copied line's sessionId and stamp `forkedFrom {sessionId, messageUuid}`
  const branchedFrom = str((rec.forkedFrom as Rec | null | undefined)?.sessionId);
  const forkedFrom = parentAgent ?? s.path.parentSessionId ?? branchedFrom ?? (recSession !== undefined && recSession !== sessionId ? recSession : undefined);
  const title = effectiveTitle(s);
  const event = sessionEventOf(s.agent, sessionId, start, {
    cwd,
    startedAt,
    title,
    forkedFrom,
    version: str(rec.version),
    gitBranch: str(rec.gitBranch),
    subagent: subagent || undefined,
    agentType: meta?.agentType,
    spawnDepth: meta?.spawnDepth,
  });
  emit(event);
  s.session = event;
  s.sessionEmitted = true;
}

/**
 * A `custom-title` / `ai-title` record. It names the session it titles; one naming another session (a
 * `/rename` after `/resume` can write it into the wrong file, anthropics/claude-code#27202) is ignored. A
 * resumed or forked copy keeps its origin's titles (they name the origin, which the copy's lines carry).
 */
function onTitle(s: ClaudeState, rec: Rec, start: number, emit: Emit): void {
  const custom = rec.type === 'custom-title';
  const value = str(custom ? rec.customTitle : rec.aiTitle);
  if (value === undefined) return;
  const target = str(rec.sessionId);
  if (target !== undefined && target !== currentSessionId(s) && target !== s.lineSessionId && target !== s.session?.forkedFrom) return;
  if (custom) s.titles.custom = value;
  else s.titles.ai = value;
  const session = s.session;
  const title = effectiveTitle(s);
  if (session === undefined || title === session.title) return;
  const event: SessionEvent = { ...session, offset: start, ...(title !== undefined && { title }) };
  emit(event);
  s.session = event;
}

function opensSession(rec: Rec): boolean {
  if (str(rec.cwd) !== undefined || str(rec.project) !== undefined) return true;
  return str(rec.sessionId) !== undefined && isRecord(rec.message);
}

/** Text of a tool result's content: strings as they are, text blocks joined, images as `[image]`. */
export function extractToolOutput(content: unknown): unknown {
  if (typeof content === 'string' || content === undefined || content === null) return content ?? null;
  if (!Array.isArray(content)) return content;
  const parts: string[] = [];
  for (const b of content) {
    if (typeof b === 'string') parts.push(b);
    else if (isContentBlock(b)) {
      if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
      else if (b.type === 'image') parts.push('[image]');
    }
  }
  return parts.join('\n');
}

function userSubtype(rec: Rec, text: string): string | undefined {
  if (rec.isMeta === true) return 'meta';
  const t = text.trimStart();
  if (t.startsWith('<command-name>') || t.startsWith('<command-message>')) return 'command';
  if (t.startsWith('<local-command-stdout>') || t.startsWith('<local-command-stderr>')) return 'command_output';
  return undefined;
}

interface LineBase {
  agent: string;
  sessionId: string;
  offset: number;
}

function messageFields(rec: Rec): Pick<MessageEvent, 'timestamp' | 'parentId'> {
  const ts = extractTimestamp(rec.timestamp);
  const parent = str(rec.parentUuid) ?? str(rec.logicalParentUuid);
  return { ...(ts !== undefined && { timestamp: ts }), ...(parent !== undefined && { parentId: parent }) };
}

function onAssistant(s: ClaudeState, rec: Rec, base: LineBase, emit: Emit): void {
  const msg = isRecord(rec.message) ? rec.message : {};
  const model = str(msg.model);
  const messageId = str(msg.id);
  const uuid = str(rec.uuid);
  const ts = extractTimestamp(rec.timestamp);
  const texts: string[] = [];
  const thinking: string[] = [];
  const calls: { id: string; name: string; input: unknown }[] = [];
  const content = msg.content;
  if (typeof content === 'string') texts.push(content);
  else if (Array.isArray(content)) {
    content.forEach((b, i) => {
      if (!isContentBlock(b)) return;
      if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
      else if (b.type === 'thinking' && typeof b.thinking === 'string') thinking.push(b.thinking);
      else if (b.type === 'tool_use') {
        const id = str(b.id) ?? `${uuid ?? `@${base.offset}`}:${i}`;
        calls.push({ id, name: str(b.name) ?? 'unknown', input: b.input ?? null });
      }
    });
  }
  if (texts.length > 0 || thinking.length > 0) {
    const subtype = model === SYNTHETIC_MODEL ? 'synthetic' : rec.isApiErrorMessage === true ? 'api_error' : undefined;
    emit({
      type: 'message',
      ...base,
      role: 'assistant',
      text: texts.join('\n'),
      ...(thinking.length > 0 && { thinking: thinking.join('\n') }),
      ...messageFields(rec),
      ...(model !== undefined && { model }),
      ...((messageId ?? uuid) !== undefined && { nativeId: (messageId ?? uuid) as string }),
      ...(messageId !== undefined && uuid !== undefined && { lineId: uuid }),
      ...(subtype !== undefined && { subtype }),
    });
  }
  for (const c of calls) {
    openCall(s, c.id, { name: c.name, from: uuid });
    emit({
      type: 'tool_call',
      ...base,
      callId: c.id,
      name: c.name,
      input: c.input,
      ...(ts !== undefined && { timestamp: ts }),
      ...((messageId ?? uuid) !== undefined && { messageId: (messageId ?? uuid) as string }),
    });
  }
}

function emitToolResult(s: ClaudeState, rec: Rec, base: LineBase, emit: Emit, stated: string | undefined, fallbackId: string, output: unknown, isError: boolean, name?: string): void {
  // A resume can write the last result line again: the same call answered twice is one result.
  if (stated !== undefined && isAnsweredCall(s, stated)) return;
  const source = str(rec.sourceToolUseID);
  // With no id at all (stage0 fixtures), the oldest open call is the one answered.
  const match = takeCall(s, [stated, source], str(rec.sourceToolAssistantUUID), stated === undefined && source === undefined);
  const ts = extractTimestamp(rec.timestamp);
  const toolName = match?.[1].name ?? name;
  emit({
    type: 'tool_result',
    ...base,
    callId: stated ?? match?.[0] ?? source ?? fallbackId,
    ...(toolName !== undefined && { toolName }),
    output,
    isError,
    ...(ts !== undefined && { timestamp: ts }),
  });
}

function onUser(s: ClaudeState, rec: Rec, base: LineBase, emit: Emit): void {
  const msg = isRecord(rec.message) ? rec.message : {};
  const uuid = str(rec.uuid);
  const texts: string[] = [];
  const content = msg.content;
  const results: [number, Rec][] = [];
  if (typeof content === 'string') texts.push(content);
  else if (Array.isArray(content)) {
    content.forEach((b, i) => {
      if (!isContentBlock(b)) return;
      if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
      else if (b.type === 'tool_result') results.push([i, b as Rec]);
    });
  }
  if (texts.length > 0) {
    const text = texts.join('\n');
    const compact = rec.isCompactSummary === true;
    const role: MessageRole = compact ? 'system' : 'user';
    const subtype = compact ? 'compact_summary' : userSubtype(rec, text);
    emit({
      type: 'message',
      ...base,
      role,
      text,
      ...messageFields(rec),
      ...(uuid !== undefined && { nativeId: uuid }),
      ...(subtype !== undefined && { subtype }),
    });
  }
  for (const [i, b] of results) {
    emitToolResult(s, rec, base, emit, str(b.tool_use_id), `${uuid ?? `@${base.offset}`}:${i}`, extractToolOutput(b.content ?? b.text), b.is_error === true);
  }
}

function onSystem(rec: Rec, base: LineBase, emit: Emit): void {
  const subtype = str(rec.subtype) ?? 'system';
  const content = typeof rec.content === 'string' ? rec.content : '';
  if (content === '' && subtype !== 'compact_boundary') return;
  const uuid = str(rec.uuid);
  emit({ type: 'message', ...base, role: 'system', text: content, ...messageFields(rec), ...(uuid !== undefined && { nativeId: uuid }), subtype });
}

function onRecord(s: ClaudeState, rec: Rec, base: LineBase, emit: Emit): void {
  switch (rec.type) {
    case 'custom-title':
    case 'ai-title':
      return onTitle(s, rec, base.offset, emit);
    case 'assistant':
      return onAssistant(s, rec, base, emit);
    case 'user':
      return onUser(s, rec, base, emit);
    case 'system':
      return onSystem(rec, base, emit);
    case 'summary':
      if (typeof rec.summary === 'string') {
        const leaf = str(rec.leafUuid);
        emit({ type: 'message', ...base, role: 'system', text: rec.summary, ...(leaf !== undefined && { parentId: leaf }), subtype: 'summary' });
      }
      return;
    case 'tool_use': {
      // 1.x drift: a call as its own record.
      const uuid = str(rec.uuid);
      const id = str(rec.id) ?? uuid ?? `@${base.offset}`;
      const name = str(rec.name) ?? 'unknown';
      const ts = extractTimestamp(rec.timestamp);
      openCall(s, id, { name, from: uuid });
      emit({ type: 'tool_call', ...base, callId: id, name, input: rec.input ?? null, ...(ts !== undefined && { timestamp: ts }) });
      return;
    }
    case 'tool_result':
      emitToolResult(s, rec, base, emit, str(rec.tool_use_id), str(rec.uuid) ?? `@${base.offset}`, extractToolOutput(rec.output ?? rec.content), rec.is_error === true || rec.isError === true, str(rec.name));
      return;
    default:
      // A typeless line with an assistant message is a usage record in ccusage's minimal shape.
      if (rec.type === undefined && isRecord(rec.message) && rec.message.role === 'assistant') onAssistant(s, rec, base, emit);
  }
}

/**
 * Responses held open at once. One is enough for a linear transcript; Claude Code ≤ 2.0.27 wrote parallel
 * subagents' responses into the main file interleaved, so a response's final record can follow another
 * response's first line. The oldest open response is emitted when a ninth opens, so usage events keep the
 * order in which their responses first appeared.
 */
export const MAX_OPEN_RESPONSES = 8;

function onUsage(s: ClaudeState, u: UsageCandidate, emit: Emit): void {
  // usage.ts builds Claude's events (the native engine's decode too): the reader's name goes on here.
  u.event.agent = s.agent;
  const pending = s.pending;
  if (u.key !== undefined) {
    for (let i = 0; i < pending.length; i++) {
      const p = pending[i] as (typeof pending)[number];
      if (p.key === u.key) {
        if (isLargerUsage(u.event, p.event)) p.event = u.event;
        return;
      }
    }
    if (s.seen.has(u.key)) return; // a repeat of a response already counted
  }
  if (u.key === undefined) {
    // No key: nothing can replace it. Close every open response first, so the order stays first-seen.
    for (const p of pending.splice(0)) {
      emit(p.event);
      s.seen.add(p.key);
    }
    emit(u.event);
    return;
  }
  pending.push(u as (typeof pending)[number]); // the candidate itself: no copy per response
  while (pending.length > MAX_OPEN_RESPONSES) {
    const p = pending.shift() as (typeof pending)[number];
    emit(p.event);
    s.seen.add(p.key);
  }
}

/** Whether a usage's key was hashed into the cursor and is not known exactly: a repeat or a collision; only a full read can tell. */
function collides(s: ClaudeState, usage: UsageCandidate | undefined): boolean {
  const key = usage?.key;
  return key !== undefined && s.seenHashes !== undefined && !s.seen.has(key) && !s.pending.some((p) => p.key === key) && s.seenHashes.has(hashId32(key));
}

/** One parsed line (or the fields of one the fast scanner read) through the state. */
function onLine(s: ClaudeState, rec: Rec, start: number, emit: Emit): LineResult {
  // The first sessionId of the lines names the session when the path does not.
  const lock = s.path.sessionId === undefined && s.lineSessionId === undefined ? str(rec.sessionId) : undefined;
  const sessionId = lock ?? currentSessionId(s);
  const usage = extractUsage(rec, sessionId, start, s.ownSessionId);
  // Before any change to the state.
  if (collides(s, usage)) return RESTART;
  if (lock !== undefined) s.lineSessionId = lock;
  if (!s.sessionEmitted && opensSession(rec)) emitSession(s, rec, start, emit);
  if (s.filter === undefined) onRecord(s, rec, { agent: s.agent, sessionId, offset: start }, emit);
  else if (rec.type === 'custom-title' || rec.type === 'ai-title') onTitle(s, rec, start, emit);
  if (usage !== undefined) onUsage(s, usage, emit);
}

/**
 * A usage line the WebAssembly pass walked (the core's `walk` names USAGE_FIELDS only while the markers are
 * the usage marker alone): what `line()` does with `scanFields`'s answer for it, read from the walk's spans.
 * The session event is out, so `onLine` would only lock the session id, count the usage, and find a title
 * record's title absent (its fields are not projected).
 */
function onWalked(s: ClaudeState, w: WalkedLine, start: number, emit: Emit): LineResult {
  s.scanned.fast++;
  const lock = s.path.sessionId === undefined && s.lineSessionId === undefined ? walkedSessionId(w) : undefined;
  const usage = walkedUsage(w, lock ?? currentSessionId(s), start, s, s.ownSessionId);
  if (collides(s, usage)) return RESTART;
  if (lock !== undefined) s.lineSessionId = lock;
  if (usage !== undefined && usage !== REPEATED) onUsage(s, usage, emit);
}

/** Options of `createClaudeCore`. */
export interface ClaudeCoreOptions {
  /** The subagent sidecar of the file being read (the codec's read() finds it). */
  meta?: SubagentMeta | undefined;
  /** Read usage lines with the fast scanner (default true); false parses them whole, for comparison. */
  fastScan?: boolean | undefined;
  /**
   * The name the events carry (default `claude`): an agent that runs Claude Code reads its transcripts under
   * its own (read-as.ts). Dedup keys stay Claude's, so a response both agents' folders hold counts once.
   */
  agent?: string | undefined;
}

/** A Claude Code LineCore; `claudeCore` is the one without a sidecar. */
export function createClaudeCore(options: ClaudeCoreOptions = {}): LineCore<ClaudeState> {
  const meta = options.meta;
  const fast = options.fastScan ?? true;
  const agent = options.agent ?? CODEC_ID;
  /** Whether the WebAssembly pass walks this read's usage lines: for the usage marker alone, once the session is out. */
  const walking = (s: ClaudeState): boolean => fast && s.sessionEmitted && s.filter?.usage === true && !s.filter.titles;
  return {
    init: (ctx) => initClaudeState(ctx, meta, agent),
    restore: (snapshot, ctx) => restoreClaudeState(snapshot, ctx, meta, agent),
    snapshot: snapshotClaudeState,
    line(s, line, start, emit): LineResult {
      const f = s.filter;
      if (s.sessionEmitted && f !== undefined) {
        if (f.usage && hasUsageMarker(line)) {
          // A title record (rare: it has no usage) takes the full parse, which reads its title fields.
          if (fast) {
            const fields = scanFields(line, USAGE_FIELDS);
            if (fields === undefined) s.scanned.fallback++;
            else if (!(f.titles && isTitleRecord(fields.type))) {
              s.scanned.fast++;
              return onLine(s, fields, start, emit);
            }
          }
        } else if (!(f.titles && line.indexOf(TITLE_MARKER) !== -1)) {
          s.info.filteredLines++;
          return;
        }
      } else if (f !== undefined && fast) {
        const fields = scanFields(line, OPENING_FIELDS);
        if (fields !== undefined) return onLine(s, fields, start, emit);
      }
      return onLine(s, parseJsonObject(line, start, s.agent, s.file), start, emit);
    },
    // Usage lines walked by the WebAssembly pass: only for the usage marker alone (a title marker's line takes
    // the full parse), once the session is out, as `line()` would walk them.
    walk: (s) => (walking(s) ? USAGE_FIELDS : undefined),
    lineWalked: (s, w, start, emit) => (walking(s) ? onWalked(s, w, start, emit) : UNWALKED),
    end(s, emit): KindCounts {
      if (s.pending.length === 0) return {};
      for (const p of s.pending) emit(p.event);
      return { usage: s.pending.length };
    },
    // What `line()` above lets through once the session is out: lines with the usage or the title marker.
    markers(s) {
      const f = s.filter;
      if (!s.sessionEmitted || f === undefined) return undefined;
      return f.usage ? (f.titles ? USAGE_AND_TITLE : USAGE_ONLY) : f.titles ? TITLE_ONLY : NO_MARKERS;
    },
  };
}

const USAGE_AND_TITLE: readonly Buffer[] = [USAGE_MARKER, TITLE_MARKER];
const USAGE_ONLY: readonly Buffer[] = [USAGE_MARKER];
const TITLE_ONLY: readonly Buffer[] = [TITLE_MARKER];
const NO_MARKERS: readonly Buffer[] = [];

/** The Claude Code LineCore (no subagent sidecar). */
export const claudeCore: LineCore<ClaudeState> = createClaudeCore();
