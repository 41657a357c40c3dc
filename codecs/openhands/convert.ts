/**
 * One event file of a conversation as sessionfold events (README.md, "Events"): pure, the record in, events
 * out. Only the conversation: a read that wants no messages, tool calls or results never calls it.
 *
 * - `MessageEvent`: a `message`, `user` for `source: "user"`, `assistant` for `"agent"` (its reasoning as
 *   `thinking`), `system` otherwise; its text is `llm_message.content`'s text parts.
 * - `ActionEvent`: the agent's `thought` (and reasoning) as an assistant `message`, and a `tool_call`
 *   (`tool_call_id`, `tool_name`, the call's JSON `arguments`).
 * - `ObservationEvent`, `UserRejectObservation`, `AgentErrorEvent`: a `tool_result` (the latter two errors).
 * - `ACPToolCallEvent` (a tool an ACP server ran, agent/acp_agent.py): a `tool_call` once per call id, and a
 *   `tool_result` once it reached `completed` or `failed`.
 * - `Condensation` with a summary, `CondensationSummaryEvent`: a `system` message, subtype `compaction`;
 *   `ConversationErrorEvent`: a `system` message, subtype `error`.
 * - Anything else (the system prompt, state updates, pauses) gives nothing.
 */
import { parseJsonText } from '../../cursors/core.js';
import type { MessageRole, SessionfoldEvent } from '../../cursors/protocol/events.js';
import { messageEventOf, type MessageFields } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { kindOf, rec, str, textOf, thinkingOf, type Rec } from './schema.js';

/** What an event's conversion needs beside its record. */
export interface EventPlace {
  sessionId: string;
  idx: number;
  /** The event's time as ISO-8601 (README.md, "Times"). */
  timestamp: string | undefined;
  /** The model of the call a response id names, where the stats name one. */
  modelOf: (responseId: string | undefined) => string | undefined;
  /** ACP tool calls given a `tool_call` and a `tool_result` so far in this read (an ACP call may be logged at each status). */
  acpCalls: Set<string>;
  acpResults: Set<string>;
}

function message(p: EventPlace, role: MessageRole, text: string, fields: MessageFields): SessionfoldEvent {
  return messageEventOf(CODEC_ID, p.sessionId, p.idx, role, text, { ...fields, timestamp: p.timestamp });
}

function fromMessage(r: Rec, p: EventPlace): SessionfoldEvent[] {
  const llm = rec(r.llm_message) ?? {};
  const role: MessageRole = r.source === 'user' ? 'user' : r.source === 'agent' ? 'assistant' : 'system';
  const text = textOf(llm.content);
  const thinking = role === 'assistant' ? thinkingOf(llm) : undefined;
  if (text === '' && thinking === undefined) return [];
  const model = role === 'assistant' ? p.modelOf(str(r.llm_response_id)) : undefined;
  return [message(p, role, text, { thinking, model, nativeId: str(r.id), subtype: role === 'system' ? 'environment' : undefined })];
}

function fromAction(r: Rec, p: EventPlace): SessionfoldEvent[] {
  const out: SessionfoldEvent[] = [];
  const responseId = str(r.llm_response_id);
  const text = textOf(r.thought);
  const thinking = thinkingOf(r);
  if (text !== '' || thinking !== undefined) out.push(message(p, 'assistant', text, { thinking, model: p.modelOf(responseId), nativeId: str(r.id) }));
  // MessageToolCall {id, name, arguments}; the first releases kept litellm's {id, function: {name, arguments}}
  const call = rec(r.tool_call) ?? {};
  const fn = rec(call.function) ?? {};
  const args = call.arguments ?? fn.arguments;
  out.push({
    type: 'tool_call',
    agent: CODEC_ID,
    sessionId: p.sessionId,
    offset: p.idx,
    callId: str(r.tool_call_id) ?? str(call.id) ?? '',
    name: str(r.tool_name) ?? str(call.name) ?? str(fn.name) ?? '',
    input: args === undefined ? (r.action ?? null) : parseJsonText(args),
    ...(p.timestamp !== undefined && { timestamp: p.timestamp }),
    ...(responseId !== undefined && { messageId: responseId }),
  });
  return out;
}

/** What a tool answered: its observation's text content, else its `output` text, else the observation. */
function observationOutput(o: Rec | undefined): unknown {
  if (o === undefined) return null;
  const text = textOf(o.content);
  if (text !== '') return text;
  return typeof o.output === 'string' ? o.output : o;
}

function result(r: Rec, p: EventPlace, output: unknown, isError: boolean): SessionfoldEvent[] {
  return [
    {
      type: 'tool_result',
      agent: CODEC_ID,
      sessionId: p.sessionId,
      offset: p.idx,
      callId: str(r.tool_call_id) ?? '',
      ...(str(r.tool_name) !== undefined && { toolName: r.tool_name as string }),
      output,
      isError,
      ...(p.timestamp !== undefined && { timestamp: p.timestamp }),
    },
  ];
}

/** An ACP server's tool call: its start once, its end once (`status` `completed` or `failed`). */
function fromAcpToolCall(r: Rec, p: EventPlace): SessionfoldEvent[] {
  const callId = str(r.tool_call_id);
  if (callId === undefined) return [];
  const out: SessionfoldEvent[] = [];
  const at = p.timestamp !== undefined ? { timestamp: p.timestamp } : {};
  if (!p.acpCalls.has(callId)) {
    p.acpCalls.add(callId);
    out.push({ type: 'tool_call', agent: CODEC_ID, sessionId: p.sessionId, offset: p.idx, callId, name: str(r.title) ?? str(r.tool_kind) ?? '', input: r.raw_input ?? null, ...at });
  }
  const done = r.status === 'completed' || r.status === 'failed';
  if (done && !p.acpResults.has(callId)) {
    p.acpResults.add(callId);
    const text = textOf(r.content);
    const output = r.raw_output ?? (text !== '' ? text : (r.content ?? null));
    out.push({ type: 'tool_result', agent: CODEC_ID, sessionId: p.sessionId, offset: p.idx, callId, output, isError: r.is_error === true || r.status === 'failed', ...at });
  }
  return out;
}

function summary(r: Rec, p: EventPlace, subtype: 'compaction' | 'error', text: string | undefined): SessionfoldEvent[] {
  return text === undefined ? [] : [message(p, 'system', text, { nativeId: str(r.id), subtype })];
}

/** The sessionfold events of one event record. */
export function eventEvents(r: Rec, p: EventPlace): SessionfoldEvent[] {
  switch (kindOf(r)) {
    case 'MessageEvent':
      return fromMessage(r, p);
    case 'ActionEvent':
      return fromAction(r, p);
    case 'ObservationEvent': {
      const o = rec(r.observation);
      return result(r, p, observationOutput(o), o?.is_error === true);
    }
    case 'UserRejectObservation':
      return result(r, p, `Action rejected: ${str(r.rejection_reason) ?? 'User rejected the action'}`, true);
    case 'AgentErrorEvent':
      return result(r, p, str(r.error) ?? '', true);
    case 'ACPToolCallEvent':
      return fromAcpToolCall(r, p);
    case 'Condensation':
    case 'CondensationSummaryEvent':
      return summary(r, p, 'compaction', str(r.summary));
    case 'ConversationErrorEvent':
      return summary(r, p, 'error', str(r.detail) ?? str(r.code));
    default:
      return [];
  }
}
