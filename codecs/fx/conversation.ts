/**
 * fx's conversation (README.md "Conversation"): message, tool call and tool result events from an older fx's
 * `history_turn_committed` (the whole turn in its `turn`) and from a later fx's per-item lines (`turn_started`,
 * `assistant_message_completed`, `reasoning_completed`). Pure: the engine (parse.ts) calls these only when a
 * read wants the conversation, so a usage-only read never parses a conversation line.
 */
import type { Emit } from '../../cursors/core.js';
import { messageEventOf, type MessageFields } from '../../cursors/protocol/events.js';
import { rec, recs, type JsonRecord as Rec } from '../../cursors/json-value.js';
import { CODEC_ID } from './paths.js';

/** Where the events of one line go: the session, the line's offset, its time and the session's model. */
export interface TurnContext {
  sessionId: string;
  offset: number;
  timestamp: string | undefined;
  model: string | undefined;
  emit: Emit;
}

/**
 * fx's durable bytes (`session_codec.zig` `writeDurableBytes`): a JSON string when the bytes are UTF-8, else
 * `{"encoding":"base64","data":…}`.
 */
export function durableText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  const o = rec(v);
  if (o?.encoding === 'base64' && typeof o.data === 'string') return Buffer.from(o.data, 'base64').toString('utf8');
  return undefined;
}

/** A tool call's `arguments_json` as the JSON it holds, or its text when it is not JSON. */
function argumentsOf(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function message(c: TurnContext, role: 'user' | 'assistant' | 'system', text: string, fields: MessageFields = {}): void {
  c.emit(messageEventOf(CODEC_ID, c.sessionId, c.offset, role, text, { timestamp: c.timestamp, ...(role === 'assistant' && { model: c.model }), ...fields }));
}

/** An assistant text with its thinking, when either holds anything. */
function assistant(c: TurnContext, text: string | undefined, thinking: string | undefined, fields: MessageFields = {}): void {
  if ((text ?? '') === '' && (thinking ?? '') === '') return;
  message(c, 'assistant', text ?? '', { ...(thinking && { thinking }), ...fields });
}

function user(c: TurnContext, u: unknown, fields: MessageFields = {}): void {
  const text = durableText(rec(u)?.text);
  if (text !== undefined && text !== '') message(c, 'user', text, fields);
}

function toolCall(c: TurnContext, call: Rec): void {
  const callId = durableText(call.id);
  const name = durableText(call.name);
  if (callId === undefined || name === undefined) return;
  c.emit({ type: 'tool_call', agent: CODEC_ID, sessionId: c.sessionId, offset: c.offset, callId, name, input: argumentsOf(durableText(call.arguments_json)), ...(c.timestamp !== undefined && { timestamp: c.timestamp }) });
}

function toolResult(c: TurnContext, r: Rec): void {
  const callId = durableText(r.tool_call_id);
  if (callId === undefined) return;
  const toolName = durableText(r.tool_name);
  c.emit({
    type: 'tool_result',
    agent: CODEC_ID,
    sessionId: c.sessionId,
    offset: c.offset,
    callId,
    ...(toolName !== undefined && { toolName }),
    // the inline output (a large one is cut, its whole text behind `output_handle`, which is not read)
    output: durableText(r.output) ?? durableText(r.preview) ?? '',
    isError: r.status === 'failure',
    ...(c.timestamp !== undefined && { timestamp: c.timestamp }),
  });
}

/**
 * A turn's execution memory (`writeExecutionMemory`): each tool step's text and thinking, then its calls and
 * their results; the user inputs fx took in during the turn come after the steps (their place among them is
 * not recorded).
 */
function execution(c: TurnContext, v: unknown): void {
  const ex = rec(v);
  if (ex === undefined) return;
  for (const step of recs(ex.tool_steps)) {
    assistant(c, durableText(step.assistant), durableText(step.reasoning));
    for (const call of recs(step.tool_calls)) toolCall(c, call);
    for (const r of recs(step.tool_results)) toolResult(c, r);
  }
  for (const u of recs(ex.user_inputs)) user(c, u, { subtype: 'steer' });
}

/** `history_turn_committed.turn` (`writeHistoryTurn`), by its `kind`. */
export function historyTurn(c: TurnContext, turn: Rec): void {
  switch (turn.kind) {
    case 'assistant':
      user(c, turn.user);
      execution(c, turn.execution);
      assistant(c, durableText(turn.assistant), durableText(turn.reasoning));
      return;
    case 'interrupted': {
      user(c, turn.user);
      execution(c, turn.execution);
      assistant(c, durableText(turn.assistant), undefined);
      // the call in flight when the turn stopped: no result came
      const inFlight = rec(turn.tool_call);
      if (inFlight !== undefined) toolCall(c, inFlight);
      return;
    }
    case 'background_command':
      user(c, turn.user);
      execution(c, turn.execution);
      assistant(c, durableText(turn.assistant), undefined);
      return;
    case 'compacted_summary': {
      const summary = durableText(turn.summary);
      if (summary !== undefined && summary !== '') message(c, 'system', summary, { subtype: 'compaction' });
      return;
    }
    default:
  }
}

/** A later fx's `turn_started`: the user's input (`input.user`, a `UserTurn`), keyed by the turn id. */
export function turnStarted(c: TurnContext, p: Rec, turnId: string | undefined): void {
  user(c, rec(p.input)?.user, { nativeId: turnId });
}

/** A later fx's `assistant_message_completed`: one model message; a failed call's text is marked `error`. */
export function messageCompleted(c: TurnContext, p: Rec, itemId: string | undefined): void {
  assistant(c, durableText(p.text), undefined, { nativeId: itemId, ...(p.outcome === 'failed' && { subtype: 'error' }) });
}

/** A later fx's `reasoning_completed`: a thinking block of its own, keyed by its item id. */
export function reasoningCompleted(c: TurnContext, p: Rec, itemId: string | undefined): void {
  assistant(c, undefined, durableText(p.text), { nativeId: itemId });
}
