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
 * - `usage` once per API response (usage.ts): the response being read is held as ONE pending usage, emitted
 *   when a different response starts, or by `end()`, which reports it in `replaced` because a later line
 *   of the same response can still replace it.
 *
 * Usage-only reads (kinds ⊆ {usage, session}) parse every line until the session event is out (so the
 * session id is the same as in a full read), then only lines holding the bytes `"usage"`: a JSON key keeps
 * those bytes whatever the spacing around it, so no usage line is ever dropped.
 */
import type { Emit, LineCore, LineResult } from '../../cursors/core.js';
import { hasAnyMarker, parseJsonObject, RESTART } from '../../cursors/core.js';
import { hashId32 } from '../../cursors/ids.js';
import type { KindCounts, MessageEvent, MessageRole } from '../../src/events.js';
import { CODEC_ID } from './paths.js';
import { extractTimestamp, isContentBlock, isRecord, str, SYNTHETIC_MODEL } from './schema.js';
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
import { extractUsage, isLargerUsage, type UsageCandidate } from './usage.js';

type Rec = Record<string, unknown>;

function emitSession(s: ClaudeState, rec: Rec, start: number, emit: Emit): void {
  const sessionId = currentSessionId(s);
  const recSession = str(rec.sessionId);
  const cwd = str(rec.cwd) ?? str(rec.project);
  const startedAt = extractTimestamp(rec.timestamp);
  const subagent = s.path.subagent || (rec.isSidechain === true && str(rec.agentId) !== undefined);
  // A subagent's parent comes from its folder; a copied (resumed, forked) transcript names its origin in
  // the lines; a legacy agent-<id>.jsonl names its parent session there too.
  const forkedFrom = s.path.parentSessionId ?? (recSession !== undefined && recSession !== sessionId ? recSession : undefined);
  emit({
    type: 'session',
    agent: CODEC_ID,
    sessionId,
    offset: start,
    nativeId: sessionId,
    ...(cwd !== undefined && { cwd }),
    ...(startedAt !== undefined && { startedAt }),
    ...(forkedFrom !== undefined && { forkedFrom }),
    ...(str(rec.version) !== undefined && { version: rec.version as string }),
    ...(str(rec.gitBranch) !== undefined && { gitBranch: rec.gitBranch as string }),
    ...(subagent && { subagent: true }),
  });
  s.sessionEmitted = true;
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

function onUsage(s: ClaudeState, u: UsageCandidate, emit: Emit): void {
  const pending = s.pending;
  if (u.key !== undefined && pending !== undefined && pending.key === u.key) {
    if (isLargerUsage(u.event, pending.event)) pending.event = u.event;
    return;
  }
  if (u.key !== undefined && s.seen.has(u.key)) return; // a repeat of a response already counted
  if (pending !== undefined) {
    emit(pending.event);
    s.seen.add(pending.key);
  }
  if (u.key === undefined) {
    s.pending = undefined;
    emit(u.event);
  } else s.pending = { key: u.key, event: u.event };
}

/** The Claude Code LineCore. */
export const claudeCore: LineCore<ClaudeState> = {
  init: initClaudeState,
  restore: restoreClaudeState,
  snapshot: snapshotClaudeState,
  line(s, line, start, emit): LineResult {
    if (s.sessionEmitted && s.markers !== undefined && !hasAnyMarker(line, s.markers)) {
      s.info.filteredLines++;
      return;
    }
    const rec = parseJsonObject(line, start, CODEC_ID, s.file);
    // The first sessionId of the lines names the session when the path does not.
    const lock = s.path.sessionId === undefined && s.lineSessionId === undefined ? str(rec.sessionId) : undefined;
    const sessionId = lock ?? currentSessionId(s);
    const usage = extractUsage(rec, sessionId, start);
    // Before any change to the state: a key hashed in the cursor is a repeat or a collision; only a full
    // read can tell.
    if (usage?.key !== undefined && s.seenHashes !== undefined && usage.key !== s.pending?.key && !s.seen.has(usage.key) && s.seenHashes.has(hashId32(usage.key))) {
      return RESTART;
    }
    if (lock !== undefined) s.lineSessionId = lock;
    if (!s.sessionEmitted && opensSession(rec)) emitSession(s, rec, start, emit);
    if (s.markers === undefined) onRecord(s, rec, { agent: CODEC_ID, sessionId, offset: start }, emit);
    if (usage !== undefined) onUsage(s, usage, emit);
  },
  end(s, emit): KindCounts {
    if (s.pending === undefined) return {};
    emit(s.pending.event);
    return { usage: 1 };
  },
};
