/**
 * Pure extractors for the conversational records of a rollout: message text, reasoning, tool calls and
 * their outputs. No state here; parse.ts decides what to emit (dedup, inherited history, open calls).
 */
import { parseJsonText } from '../../cursors/core.js';
import type { MessageRole } from '../../cursors/protocol/events.js';
import { asObject, asString, INJECTED_USER_PREFIXES, ITEM, type Json } from './schema.js';

/** Role and subtype of a message after separating injected context from what the user typed. */
export interface Classified {
  role: MessageRole;
  subtype?: string;
}

/**
 * `developer`/`system` → system; `user` text that starts with an injected-context tag (environment_context,
 * AGENTS.md / user_instructions, …) → system with that subtype; an `event_msg` user_message whose `kind` is
 * not `plain` (older builds) → system with subtype = kind.
 */
export function classifyMessage(role: string, text: string, kind?: string): Classified {
  if (role === 'assistant') return { role: 'assistant' };
  if (role === 'developer' || role === 'system') return { role: 'system', subtype: role };
  if (role !== 'user') return { role: 'system', subtype: role };
  if (kind !== undefined && kind !== 'plain') return { role: 'system', subtype: kind };
  const head = text.trimStart();
  for (const [prefix, subtype] of INJECTED_USER_PREFIXES) if (head.startsWith(prefix)) return { role: 'system', subtype };
  return { role: 'user' };
}

/** Text of a `message` content array (`input_text` / `output_text` parts), joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const c of content) {
    const o = asObject(c);
    if (o !== undefined && typeof o.text === 'string' && (o.type === undefined || String(o.type).endsWith('text'))) parts.push(o.text);
  }
  return parts.join('\n');
}

/** Reasoning summary (and raw reasoning content, when recorded) of a `reasoning` item. */
export function reasoningText(p: Json): string {
  const parts: string[] = [];
  for (const list of [p.summary, p.content]) {
    if (!Array.isArray(list)) continue;
    for (const c of list) {
      const o = asObject(c);
      if (o !== undefined && typeof o.text === 'string' && o.text.length > 0) parts.push(o.text);
    }
  }
  return parts.join('\n');
}

/** A tool call extracted from a response item. */
export interface ExtractedCall {
  callId: string;
  name: string;
  input: unknown;
}

/** The tool call a response item describes, or undefined when it is not a call. */
export function extractCall(p: Json): ExtractedCall | undefined {
  const callId = asString(p.call_id) ?? asString(p.id) ?? '';
  switch (p.type) {
    case ITEM.functionCall:
      return { callId, name: asString(p.name) ?? 'function', input: parseJsonText(p.arguments) };
    case ITEM.customToolCall:
      return { callId, name: asString(p.name) ?? 'custom_tool', input: p.input ?? null };
    case ITEM.localShellCall:
      return { callId, name: 'local_shell', input: p.action ?? null };
    case ITEM.webSearchCall:
      return { callId, name: 'web_search', input: p.action ?? null };
    case ITEM.toolSearchCall:
      return { callId, name: 'tool_search', input: p.arguments ?? null };
    default:
      return undefined;
  }
}

/** A tool output extracted from a response item. */
export interface ExtractedOutput {
  callId: string;
  output: unknown;
  isError: boolean;
}

const EXIT_CODE = /^(?:Exit code: |Process exited with code )(-?\d+)/m;

/**
 * Shell outputs: older builds wrote `{"output": "...", "metadata": {"exit_code": n}}` as a JSON string, newer
 * ones plain text with an `Exit code: n` / `Process exited with code n` line. A non-zero exit is an error.
 */
function normalizeText(v: string): { output: unknown; isError: boolean } {
  if (v.startsWith('{"output":')) {
    try {
      const o = asObject(JSON.parse(v));
      const meta = asObject(o?.metadata);
      if (o !== undefined && typeof o.output === 'string') {
        return { output: o.output, isError: typeof meta?.exit_code === 'number' && meta.exit_code !== 0 };
      }
    } catch {
      // not the JSON shape after all: keep the text
    }
  }
  const m = EXIT_CODE.exec(v.slice(0, 512));
  return { output: v, isError: m !== null && m[1] !== '0' };
}

/**
 * Tool output as text where Codex wrote text: a plain string; `{content, success}` (older builds) → content;
 * an array of content parts or a single `{type:"input_text", text}` part → their text. Anything else is kept
 * as recorded. `success: false` marks an error.
 */
function normalizeOutput(v: unknown): { output: unknown; isError: boolean } {
  if (typeof v === 'string') return normalizeText(v);
  if (Array.isArray(v)) {
    const text = contentText(v);
    return { output: text.length > 0 || v.length === 0 ? text : v, isError: false };
  }
  const o = asObject(v);
  if (o === undefined) return { output: v ?? null, isError: false };
  const isError = o.success === false;
  if (typeof o.content === 'string') return { output: o.content, isError };
  if (Array.isArray(o.content)) return { output: contentText(o.content), isError };
  if (typeof o.text === 'string') return { output: o.text, isError };
  return { output: o, isError };
}

/** The tool output a response item carries, or undefined when it is not an output. */
export function extractOutput(p: Json): ExtractedOutput | undefined {
  const callId = asString(p.call_id) ?? '';
  switch (p.type) {
    case ITEM.functionCallOutput:
    case ITEM.customToolCallOutput:
      return { callId, ...normalizeOutput(p.output) };
    case ITEM.toolSearchOutput:
      return { callId, output: p.tools ?? null, isError: p.status === 'failed' };
    default:
      return undefined;
  }
}
