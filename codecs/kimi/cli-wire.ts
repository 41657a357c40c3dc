/**
 * The Python kimi-cli's wire records, `{timestamp, message: {type, payload}}` (schema.ts), read into events.
 * Pure and synchronous: parse.ts's core hands it every line that has no `type` of its own and a `message`
 * object, so one core reads both CLIs' files, a line at a time, with no state of its own.
 *
 *   TurnBegin / SteerInput → a user message; ContentPart → an assistant message (text or thinking);
 *   ToolCall / ToolResult → tool events; StatusUpdate with `token_usage` → usage, one model call;
 *   SubagentEvent → the usage of the subagent's StatusUpdate, in the subagent's session (README "The kimi-cli wire").
 */
import type { Emit } from '../../cursors/core.js';
import { usageEventOf } from '../../cursors/protocol/events.js';
import { saneCount, uncachedInput } from '../../cursors/sane.js';
import { CODEC_ID } from './descriptor.js';
import { isoSeconds, rec, str, textOf, type Rec } from './values.js';

export interface CliWireOptions {
  /** The session id of the file's own events (`<session>/<agent>` for a subagent's wire). */
  sessionId: string;
  /** The session the file belongs to: its own id for a main agent's wire, the parent's for a subagent's. */
  rootSessionId: string;
  /** The file is a copy of a session made elsewhere (`imported_sessions/`): its usage is marked `copied`. */
  copied: boolean;
  /**
   * The model of every call, which the wire never names: the share folder's config.toml default, marked
   * `modelFallback` (README "kimi-cli's share folder"); undefined gives `unknown`.
   */
  fallbackModel?: string | undefined;
}

/** One record of a kimi-cli wire at byte `offset`: its message's `type` and `payload`, and its `timestamp`. */
export type CliRecordReader = (type: unknown, p: Rec, timestamp: unknown, offset: number, emit: Emit) => void;

/** SubagentEvents inside SubagentEvents deeper than this are not followed. */
const MAX_NESTING = 8;

/** A subagent id that can be a folder name and a session id's part: kimi-cli's are `a` and 8 hex digits. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The key of one model call: its response id, the same in every copy (the parent's SubagentEvent, the subagent's
 * own wire, an imported session), so folds count it once; the line's place for a call without one.
 */
function dedupKey(messageId: string | undefined, sessionId: string, offset: number): string {
  return messageId !== undefined ? `${CODEC_ID}:msg:${messageId}` : `${CODEC_ID}:${sessionId}:${offset}`;
}

export function cliRecordReader(o: CliWireOptions): CliRecordReader {
  const base = (offset: number) => ({ agent: CODEC_ID, sessionId: o.sessionId, offset });

  /** The usage of a StatusUpdate's payload, in `sessionId`; nothing for an update without `token_usage`. */
  function usage(p: Rec, sessionId: string, ts: string | undefined, offset: number, emit: Emit): void {
    const tu = rec(p.token_usage);
    if (tu === undefined) return;
    const messageId = str(p.message_id);
    emit(
      usageEventOf(CODEC_ID, sessionId, offset, {
        model: o.fallbackModel, // the wire names no model (README "The kimi-cli wire")
        modelFallback: true,
        timestamp: ts,
        inputTokens: saneCount(uncachedInput(tu.input_other, tu.input_cache_read), 'input_other'),
        outputTokens: saneCount(tu.output, 'output'),
        cacheReadTokens: saneCount(tu.input_cache_read, 'input_cache_read'),
        cacheWriteTokens: saneCount(tu.input_cache_creation, 'input_cache_creation'),
        singleRequest: true,
        dedupKey: dedupKey(messageId, sessionId, offset),
        messageId,
        copied: o.copied,
      }),
    );
  }

  /**
   * A SubagentEvent: only a StatusUpdate in it yields an event (the subagent's messages are in its own wire, or,
   * for a Task-tool subagent, nowhere else and not this session's conversation). Its session is the innermost
   * `agent_id`'s, `<root>/<agent>`, where the subagent's own wire puts the same call under the same key; one
   * without a response id is left to that wire. Without an `agent_id` (the Task tool's, which wrote no wire of
   * its own) the call is this file's session's.
   */
  function subagent(p: Rec, ts: string | undefined, offset: number, emit: Emit): void {
    let agentId: string | undefined;
    let payload: Rec | undefined = p;
    for (let depth = 0; payload !== undefined && depth < MAX_NESTING; depth++) {
      const id = str(payload.agent_id);
      if (id !== undefined && AGENT_ID.test(id)) agentId = id;
      const inner = rec(payload.event);
      const type = inner?.type;
      payload = rec(inner?.payload);
      if (type === 'StatusUpdate' && payload !== undefined) {
        if (agentId === undefined) usage(payload, o.sessionId, ts, offset, emit);
        else if (str(payload.message_id) !== undefined) usage(payload, `${o.rootSessionId}/${agentId}`, ts, offset, emit);
        return;
      }
      if (type !== 'SubagentEvent') return;
    }
  }

  return (type, p, timestamp, offset, emit) => {
    const ts = isoSeconds(timestamp);
    const at = ts !== undefined ? { timestamp: ts } : {};
    switch (type) {
      case 'StatusUpdate':
        usage(p, o.sessionId, ts, offset, emit);
        return;
      case 'SubagentEvent':
        subagent(p, ts, offset, emit);
        return;
      case 'TurnBegin':
        emit({ type: 'message', ...base(offset), role: 'user', text: textOf(p.user_input), ...at });
        return;
      case 'SteerInput':
        emit({ type: 'message', ...base(offset), role: 'user', text: textOf(p.user_input), ...at, subtype: 'steer' });
        return;
      case 'ContentPart':
        if (p.type === 'text' && typeof p.text === 'string') emit({ type: 'message', ...base(offset), role: 'assistant', text: p.text, ...at });
        else if (p.type === 'think' && typeof p.think === 'string') emit({ type: 'message', ...base(offset), role: 'assistant', text: '', thinking: p.think, ...at });
        return;
      case 'ToolCall': {
        const callId = str(p.id);
        const fn = rec(p.function);
        if (callId !== undefined) emit({ type: 'tool_call', ...base(offset), callId, name: str(fn?.name) ?? '', input: argumentsOf(fn?.arguments), ...at });
        return;
      }
      case 'ToolResult': {
        const callId = str(p.tool_call_id);
        const rv = rec(p.return_value) ?? rec(p.result);
        if (callId !== undefined) emit({ type: 'tool_result', ...base(offset), callId, output: rv?.output ?? null, isError: rv?.is_error === true, ...at });
        return;
      }
      default:
        return; // steps, turns' ends, compaction marks, approvals, hooks, notifications: no event
    }
  };
}

/** A tool call's `arguments`, the JSON text the model wrote: its value, or the text when it is not JSON. */
function argumentsOf(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}
