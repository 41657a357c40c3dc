/**
 * The pure parts of the cursor codec shared by its three stores, and the line engine of the plain
 * `agent-transcripts` JSONL files (`~/.cursor/projects/<workspace>/agent-transcripts/…/<id>.jsonl`).
 *
 * A transcript line is `{role, message: {content: string | block[]}}` (README.md, "agent-transcripts"):
 * blocks `text`, `thinking`, `tool_use` / `tool_call` (a call), `tool_result` / `tool-result` (its result).
 * Lines carry no timestamps, ids or usage. A call without an id gets one from its byte offset; a result
 * whose id names no call it can see pairs with the oldest call still open (the fixtures' ids do not match).
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { parseJsonObject } from '../../cursors/core.js';
import type { KindCounts, MessageRole, SessionEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './descriptor.js';

export { CODEC_ID };

const USER_QUERY = /<user_query>\s*([\s\S]*?)\s*<\/user_query>/;

/** The query inside Cursor's `<user_query>` wrapper (the rest is injected context), else the text. */
export function userQueryText(text: string): string {
  const m = USER_QUERY.exec(text);
  return m ? (m[1] as string) : text;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A millisecond time as ISO-8601, or undefined when it is not a sane one (after 2000, before 2200). */
export function msToIso(v: unknown): string | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 946_684_800_000 || v > 7_258_118_400_000) return undefined;
  return new Date(Math.trunc(v)).toISOString();
}

/** An ISO-8601 string kept as is when Date.parse reads it, else undefined. */
export function isoOrUndefined(v: unknown): string | undefined {
  return typeof v === 'string' && Number.isFinite(Date.parse(v)) ? v : undefined;
}

/** A tool result's content as text when it is text blocks (or a string), else as given. */
export function toolOutput(content: unknown): unknown {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.length > 0 && content.every((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string')) {
    return content.map((b) => (b as { text: string }).text).join('\n');
  }
  return content ?? null;
}

/** Cursor records no token usage: every cursor session event says so (`usageRecorded: false`). */
export function cursorSession(sessionId: string, offset: number, fields: Partial<SessionEvent> = {}): SessionEvent {
  return sessionEventOf(CODEC_ID, sessionId, offset, { ...fields, usageRecorded: false });
}

const ROLES = new Set<MessageRole>(['user', 'assistant', 'system', 'tool']);

export function roleOf(v: unknown): MessageRole {
  return typeof v === 'string' && ROLES.has(v as MessageRole) ? (v as MessageRole) : 'system';
}

/* The agent-transcripts line engine. */

interface OpenCall {
  callId: string;
  name: string;
  /** The id was made up here (the line gave none). */
  synthetic: boolean;
}

export interface TranscriptState {
  file: string;
  sessionId: string;
  subagent: boolean;
  parentId: string | undefined;
  cwd: string | undefined;
  sessionSent: boolean;
  open: OpenCall[];
}

/** The session id and subagent parent a transcript's path tells: `<id>.jsonl`, `<parent>/subagents/<id>.jsonl`. */
export function transcriptIds(file: string): { sessionId: string; subagent: boolean; parentId?: string } {
  const parts = file.split(/[\\/]/);
  const name = (parts[parts.length - 1] ?? '').replace(/\.jsonl$/, '');
  if (parts[parts.length - 2] === 'subagents') {
    const parent = parts[parts.length - 3];
    return { sessionId: name, subagent: true, ...(parent !== undefined && parent !== '' && { parentId: parent }) };
  }
  return { sessionId: name, subagent: false };
}

function blocksOf(message: unknown): unknown[] {
  if (!isObject(message)) return [];
  const c = message.content;
  if (typeof c === 'string') return [{ type: 'text', text: c }];
  return Array.isArray(c) ? c : [];
}

function takeCall(s: TranscriptState, id: string | undefined, name: string | undefined): OpenCall | undefined {
  let i = id === undefined ? -1 : s.open.findIndex((c) => c.callId === id);
  if (i === -1 && name !== undefined) i = s.open.findIndex((c) => c.synthetic && c.name === name);
  if (i === -1) i = s.open.findIndex((c) => c.synthetic);
  if (i === -1) return undefined;
  return s.open.splice(i, 1)[0];
}

/** Open calls kept in a state: a transcript whose results never come must not grow it without bound. */
const MAX_OPEN_CALLS = 256;

function transcriptLine(s: TranscriptState, line: Buffer, start: number, emit: Emit): void {
  const rec = parseJsonObject(line, start, CODEC_ID, s.file);
  const base = { agent: CODEC_ID, sessionId: s.sessionId, offset: start };
  if (!s.sessionSent) {
    s.sessionSent = true;
    emit(cursorSession(s.sessionId, start, { ...(s.cwd !== undefined && { cwd: s.cwd }), ...(s.subagent && { subagent: true }), ...(s.parentId !== undefined && { forkedFrom: s.parentId }) }));
  }
  const role = roleOf(rec.role);
  const model = str(rec.model);
  const texts: string[] = [];
  const thinking: string[] = [];
  const nativeId = `${s.sessionId}@${start}`;
  const blocks = blocksOf(rec.message);
  const after: (() => void)[] = [];
  blocks.forEach((b, i) => {
    if (!isObject(b)) return;
    const type = str(b.type);
    if (type === 'text') {
      const t = str(b.text) ?? '';
      texts.push(role === 'user' ? userQueryText(t) : t);
    } else if (type === 'thinking' || type === 'reasoning') {
      const t = str(b.thinking) ?? str(b.text);
      if (t !== undefined) thinking.push(t);
    } else if (type === 'tool_use' || type === 'tool_call' || type === 'tool-call') {
      const given = str(b.id) ?? str(b.toolCallId);
      const call: OpenCall = { callId: given ?? `${s.sessionId}:${start}:${i}`, name: str(b.name) ?? str(b.toolName) ?? '', synthetic: given === undefined };
      if (s.open.length >= MAX_OPEN_CALLS) s.open.shift();
      s.open.push(call);
      after.push(() => emit({ type: 'tool_call', ...base, callId: call.callId, name: call.name, input: b.input ?? b.args ?? null, messageId: nativeId }));
    } else if (type === 'tool_result' || type === 'tool-result') {
      const id = str(b.tool_use_id) ?? str(b.toolCallId);
      const name = str(b.name) ?? str(b.toolName);
      const call = takeCall(s, id, name);
      const callId = call?.callId ?? id ?? `${s.sessionId}:${start}:${i}`;
      const toolName = call?.name ?? name;
      after.push(() =>
        emit({ type: 'tool_result', ...base, callId, ...(toolName !== undefined && { toolName }), output: toolOutput(b.content ?? b.result), isError: b.is_error === true || b.isError === true }),
      );
    } else if (typeof b.text === 'string') {
      texts.push(b.text); // a block kind this reader does not know, with visible text
    }
  });
  if (texts.length > 0 || thinking.length > 0) {
    emit({
      type: 'message',
      ...base,
      role,
      text: texts.join('\n\n'),
      ...(thinking.length > 0 && { thinking: thinking.join('\n\n') }),
      ...(model !== undefined && { model }),
      nativeId,
    });
  }
  for (const f of after) f();
}

/** The transcript engine; `cwd`, when the caller knows the workspace folder, goes on the session event. */
export function createTranscriptCore(cwd?: string): LineCore<TranscriptState> {
  return {
    init(ctx: CoreContext): TranscriptState {
      const ids = transcriptIds(ctx.file);
      return { file: ctx.file, sessionId: ids.sessionId, subagent: ids.subagent, parentId: ids.parentId, cwd, sessionSent: false, open: [] };
    },
    restore(snapshot, ctx) {
      const s = this.init(ctx);
      const o = isObject(snapshot) ? snapshot : {};
      s.sessionSent = o.sessionSent === true;
      if (Array.isArray(o.open)) {
        for (const c of o.open) {
          if (isObject(c) && typeof c.callId === 'string' && typeof c.name === 'string') s.open.push({ callId: c.callId, name: c.name, synthetic: c.synthetic === true });
        }
      }
      return s;
    },
    snapshot(s) {
      return { sessionSent: s.sessionSent, open: s.open };
    },
    line: transcriptLine,
    end(): KindCounts {
      return {};
    },
  };
}

export const transcriptCore = createTranscriptCore();
