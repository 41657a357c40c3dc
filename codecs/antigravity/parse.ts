/**
 * The Antigravity CLI step-log engine: pure and synchronous. Each line is one step `{step_index, source, type,
 * status, created_at, content?, thinking?, tool_calls?}`:
 *   USER_INPUT → a user message (the text inside `<USER_REQUEST>`);
 *   PLANNER_RESPONSE → an assistant message (content, thinking) and a tool call per `tool_calls` entry;
 *   any other MODEL step (RUN_COMMAND, VIEW_FILE, LIST_DIRECTORY, CODE_ACTION, SEARCH_WEB, …) → a tool result,
 *   paired with the oldest call still open (else standing alone, named by its type);
 *   SYSTEM steps (SYSTEM_MESSAGE, CHECKPOINT, CONVERSATION_HISTORY) → system messages.
 * The log records no tokens: no usage events here. Its session event says `usageRecorded: true` when the
 * conversation's database holds tokens (db.ts reads them after the log); without, its usage is unknown
 * (`usageUnknown`), so a cost report counts it apart rather than as $0. Never `usageRecorded: false`: that
 * says the agent records no tokens at all (Cursor), and Antigravity records them, in the database.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { parseJsonObject, parseJsonText } from '../../cursors/core.js';
import type { KindCounts } from '../../cursors/protocol/events.js';
import { sessionEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';

type Rec = Record<string, unknown>;

export interface AntigravityState {
  file: string;
  sessionSeen: boolean;
  /** Tool calls not yet paired with a result step, oldest first. */
  open: { callId: string; name: string }[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const MAX_OPEN = 64;

function isoOf(v: unknown): string | undefined {
  const s = str(v);
  return s !== undefined && /^\d{4}-\d\d-\d\dT/.test(s) && !Number.isNaN(Date.parse(s)) ? new Date(s).toISOString() : undefined;
}

/** The user's words: the text inside `<USER_REQUEST>` when the step wraps it, else the whole content. */
function userText(content: string): string {
  const m = /<USER_REQUEST>\s*([\s\S]*?)\s*<\/USER_REQUEST>/.exec(content);
  return m !== null ? (m[1] as string) : content;
}

/** Tool arguments: Antigravity writes each value as JSON text (`"\"/tmp/repo\""`). */
function argsOf(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v ?? null;
  return Object.fromEntries(Object.entries(v as Rec).map(([k, x]) => [k, parseJsonText(x)]));
}

/**
 * `usageRecorded`: the conversation's database holds tokens (db.ts), which its session event then says; `cwd`:
 * the workspace folder the database names (the step log names none).
 */
export function createAntigravityCore(sessionId: string, usageRecorded = false, cwd?: string): LineCore<AntigravityState> {
  const base = (offset: number) => ({ agent: CODEC_ID, sessionId, offset });
  return {
    init(ctx: CoreContext): AntigravityState {
      return { file: ctx.file, sessionSeen: false, open: [] };
    },
    restore(snapshot, ctx) {
      const s = this.init(ctx);
      const o = (snapshot ?? {}) as Partial<AntigravityState>;
      s.sessionSeen = o.sessionSeen === true;
      if (Array.isArray(o.open)) s.open = o.open.filter((c) => typeof c?.callId === 'string' && typeof c.name === 'string').slice(-MAX_OPEN);
      return s;
    },
    snapshot(s) {
      return { sessionSeen: s.sessionSeen, open: s.open };
    },
    line(s, line, start, emit: Emit) {
      const r = parseJsonObject(line, start, CODEC_ID, s.file);
      const ts = isoOf(r.created_at);
      const at = ts !== undefined ? { timestamp: ts } : {};
      if (!s.sessionSeen) {
        s.sessionSeen = true;
        emit(sessionEventOf(CODEC_ID, sessionId, start, { startedAt: ts, cwd, usageRecorded: usageRecorded || undefined, usageUnknown: !usageRecorded || undefined }));
      }
      const type = str(r.type) ?? 'UNKNOWN';
      const content = typeof r.content === 'string' ? r.content : '';
      const id = `${sessionId}:${start}`;
      if (type === 'USER_INPUT') {
        emit({ type: 'message', ...base(start), role: 'user', text: userText(content), ...at, nativeId: id });
      } else if (type === 'PLANNER_RESPONSE') {
        const thinking = str(r.thinking);
        emit({ type: 'message', ...base(start), role: 'assistant', text: content, ...(thinking !== undefined && { thinking }), ...at, nativeId: id });
        const calls = Array.isArray(r.tool_calls) ? r.tool_calls : [];
        calls.forEach((c: unknown, i: number) => {
          const call = c !== null && typeof c === 'object' ? (c as Rec) : {};
          const callId = `${id}:${i}`;
          const name = str(call.name) ?? '';
          s.open.push({ callId, name });
          if (s.open.length > MAX_OPEN) s.open.shift();
          emit({ type: 'tool_call', ...base(start), callId, name, input: argsOf(call.args), ...at, messageId: id });
        });
      } else if (r.source === 'SYSTEM') {
        emit({ type: 'message', ...base(start), role: 'system', text: content, ...at, nativeId: id, subtype: type.toLowerCase() });
      } else {
        const call = s.open.shift();
        const status = str(r.status) ?? '';
        emit({ type: 'tool_result', ...base(start), callId: call?.callId ?? id, toolName: call?.name || type.toLowerCase(), output: content, isError: /ERROR|FAIL|CANCEL/.test(status), ...at });
      }
    },
    end(): KindCounts {
      return {};
    },
  };
}
