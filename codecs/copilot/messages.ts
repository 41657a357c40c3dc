/**
 * Conversation records of a Copilot session log → `message`, `tool_call` and `tool_result` events. Field
 * names: github/copilot-sdk `nodejs/src/generated/session-events.ts` (UserMessageData, AssistantMessageData,
 * ToolExecutionStartData, ToolExecutionCompleteData, CompactionCompleteData).
 */
import { parseJsonText } from '../../cursors/core.js';
import type { Emit } from '../../cursors/protocol/codec.js';
import type { MessageRole } from '../../cursors/protocol/events.js';
import { asObject, str, timestampOf, TYPE, type Json } from './schema.js';

/** Tool calls waiting for their result that a state keeps (the oldest are forgotten first). */
export const MAX_OPEN_CALLS = 1000;

/** Remember an open call (the most recent last), forgetting the oldest beyond MAX_OPEN_CALLS. */
function remember(calls: Map<string, OpenCall>, callId: string, call: OpenCall): void {
  calls.delete(callId);
  calls.set(callId, call);
  if (calls.size > MAX_OPEN_CALLS) calls.delete(calls.keys().next().value as string);
}

/** What every event of a line shares. */
export interface Base {
  agent: string;
  sessionId: string;
  offset: number;
}

/** A tool call waiting for its result: its name and when it started (ms). */
export interface OpenCall {
  name: string | undefined;
  startMs: number | undefined;
}

/** What the envelope tells of a message: time, ids. */
function envelope(rec: Json): { timestamp?: string; parentId?: string } {
  const timestamp = timestampOf(rec.timestamp);
  const parentId = str(rec.parentId);
  return { ...(timestamp !== undefined && { timestamp }), ...(parentId !== undefined && { parentId }) };
}

/** `assistant.message`: the reply (its `reasoningText` as thinking), then one `tool_call` per `toolRequests` entry. */
export function emitAssistant(s: { model: string | undefined; calls: Map<string, OpenCall> }, d: Json, rec: Json, base: Base, emit: Emit): void {
  const text = textOf(d.content);
  const thinking = str(d.reasoningText);
  const nativeId = str(d.messageId) ?? str(rec.id);
  const at = envelope(rec);
  const requests = Array.isArray(d.toolRequests) ? d.toolRequests : [];
  if (text !== '' || thinking !== undefined || requests.length > 0) {
    emit({
      type: 'message',
      ...base,
      role: 'assistant',
      text,
      ...(thinking !== undefined && { thinking }),
      ...(at.timestamp !== undefined && { timestamp: at.timestamp }),
      ...(s.model !== undefined && { model: s.model }),
      ...(nativeId !== undefined && { nativeId }),
      ...(at.parentId !== undefined && { parentId: at.parentId }),
    });
  }
  for (const r of requests) {
    const q = asObject(r);
    const callId = str(q?.toolCallId);
    if (q === undefined || callId === undefined) continue;
    const name = str(q.name) ?? '';
    const open = s.calls.get(callId);
    if (open === undefined) remember(s.calls, callId, { name: str(q.name), startMs: undefined });
    else open.name ??= str(q.name);
    emit({
      type: 'tool_call',
      ...base,
      callId,
      name,
      input: parseJsonText(q.arguments),
      ...(at.timestamp !== undefined && { timestamp: at.timestamp }),
      ...(nativeId !== undefined && { messageId: nativeId }),
    });
  }
}

const textOf = (v: unknown): string => (typeof v === 'string' ? v : '');

interface Shape {
  role: MessageRole;
  text: string;
  thinking?: string | undefined;
  subtype?: string | undefined;
  nativeId: string | undefined;
}

/** What a message record says, by type; undefined for the types that are no message. */
function shapeOf(type: string, d: Json, rec: Json): Shape | undefined {
  const id = str(rec.id);
  // A user message's `source` marks one the CLI injected (a skill's, a schedule's), not one the user typed.
  if (type === TYPE.userMessage) return { role: 'user', text: textOf(d.content), subtype: str(d.source), nativeId: id };
  if (type === TYPE.systemMessage) return { role: 'system', text: textOf(d.content), subtype: 'system', nativeId: id };
  if (type === TYPE.assistantReasoning) return { role: 'assistant', text: '', thinking: str(d.content), nativeId: str(d.reasoningId) ?? id };
  if (type === TYPE.compactionComplete) return { role: 'system', text: textOf(d.summaryContent), subtype: 'compaction', nativeId: id };
  return undefined;
}

/** `user.message`, `system.message`, `assistant.reasoning`, `session.compaction_complete` → one `message`. */
export function emitMessage(type: string, d: Json, rec: Json, base: Base, emit: Emit): void {
  const m = shapeOf(type, d, rec);
  if (m === undefined) return;
  const { role, text, thinking, subtype, nativeId } = m;
  if (text === '' && thinking === undefined) return;
  const at = envelope(rec);
  emit({
    type: 'message',
    ...base,
    role,
    text,
    ...(thinking !== undefined && { thinking }),
    ...(at.timestamp !== undefined && { timestamp: at.timestamp }),
    ...(nativeId !== undefined && { nativeId }),
    ...(at.parentId !== undefined && { parentId: at.parentId }),
    ...(subtype !== undefined && { subtype }),
  });
}

/** `tool.execution_start`: remember the call's name and start time for its result. */
export function toolStart(calls: Map<string, OpenCall>, d: Json, rec: Json): void {
  const callId = str(d.toolCallId);
  if (callId === undefined) return;
  const ms = Date.parse(timestampOf(rec.timestamp) ?? '');
  remember(calls, callId, { name: str(d.toolName) ?? calls.get(callId)?.name, startMs: Number.isFinite(ms) ? ms : undefined });
}

/** A sane duration in ms (finite, not negative), else undefined. */
function duration(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/**
 * `tool.execution_complete` → `tool_result`: the output is `result.content` (else the whole `result`, else
 * `error`), an error when `success` is false; the duration the tool measured, else the time since its start.
 */
export function toolComplete(calls: Map<string, OpenCall>, d: Json, rec: Json, base: Base, emit: Emit): void {
  const callId = str(d.toolCallId);
  if (callId === undefined) return;
  const open = calls.get(callId);
  calls.delete(callId);
  const result = asObject(d.result);
  const output = typeof result?.content === 'string' ? result.content : (d.result ?? d.error ?? null);
  const timestamp = timestampOf(rec.timestamp);
  const endMs = Date.parse(timestamp ?? '');
  const measured = duration(asObject(asObject(d.toolTelemetry)?.metrics)?.durationMs);
  const elapsed = open?.startMs !== undefined && Number.isFinite(endMs) ? duration(endMs - open.startMs) : undefined;
  const durationMs = measured ?? elapsed;
  const toolName = open?.name ?? str(d.toolName);
  emit({
    type: 'tool_result',
    ...base,
    callId,
    ...(toolName !== undefined && { toolName }),
    output,
    isError: d.success === false,
    ...(timestamp !== undefined && { timestamp }),
    ...(durationMs !== undefined && { durationMs }),
  });
}
