/**
 * A Zed thread's `messages` as one shape, whichever writer saved them (README.md, "Thread versions"):
 * - `DbThread` 0.3.0 (`crates/agent/src/db.rs`, formerly `crates/agent2`): serde's externally tagged enums,
 *   `{"User": {id, content: [{"Text": s} | {"Mention": {uri, content}} | {"Image": …}]}}`,
 *   `{"Agent": {content: [{"Text": s} | {"Thinking": {text, signature}} | {"RedactedThinking": …} |
 *   {"ToolUse": {id, name, raw_input, input, …}}], tool_results: {<id>: {tool_use_id, tool_name, is_error,
 *   content, output}}}}`, and the unit variants `"Resume"` and `{"Compaction": …}`, which carry no text read here;
 * - the first agent's `SerializedThread` 0.1.0/0.2.0 (`crates/agent/src/thread_store.rs`, now
 *   `legacy_thread.rs`): `{id, role, segments: [{type: "text" | "thinking", text}], tool_uses, tool_results}`,
 *   and before it (no `version`) `{id, role, text, tool_uses, tool_results}`.
 * Pure: no SQLite, no decompression.
 */
import { rec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export interface ToolUse {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResult {
  id: string;
  name: string;
  isError: boolean;
  output: unknown;
}

/** One message, as the events need it. `id`: the user message's id (Zed keys per-turn usage by it). */
export interface ThreadMessage {
  role: 'user' | 'assistant' | 'system';
  id: string | undefined;
  text: string;
  thinking: string;
  toolUses: ToolUse[];
  toolResults: ToolResult[];
}

/** A tool result's content as text: `{"Text": s}`, a bare string, or (newer) a list of those. */
function resultText(v: unknown): unknown {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    const parts = v.map(resultText).filter((p): p is string => typeof p === 'string');
    return parts.length === v.length ? parts.join('\n') : v;
  }
  const r = rec(v);
  if (r !== undefined && typeof r.Text === 'string') return r.Text;
  return v ?? null;
}

/** A tool use's input: `input` (newer writers wrap it as `{"Json": …}`), else its `raw_input` text parsed. */
function toolInput(u: Rec): unknown {
  const input = u.input;
  const wrapped = rec(input);
  if (wrapped !== undefined && Object.keys(wrapped).length === 1 && 'Json' in wrapped) return wrapped.Json;
  if (input !== undefined && input !== null) return input;
  if (typeof u.raw_input === 'string') {
    try {
      return JSON.parse(u.raw_input) as unknown;
    } catch {
      return u.raw_input;
    }
  }
  return null;
}

function userOf(m: Rec): ThreadMessage {
  const text: string[] = [];
  for (const c of Array.isArray(m.content) ? m.content : []) {
    const part = rec(c);
    if (typeof part?.Text === 'string') text.push(part.Text);
    else if (part !== undefined && 'Image' in part) text.push('[image]');
  }
  return { role: 'user', id: str(m.id), text: text.join('\n\n'), thinking: '', toolUses: [], toolResults: [] };
}

function agentOf(m: Rec): ThreadMessage {
  const text: string[] = [];
  const thinking: string[] = [];
  const toolUses: ToolUse[] = [];
  for (const c of Array.isArray(m.content) ? m.content : []) {
    const part = rec(c);
    if (part === undefined) continue;
    if (typeof part.Text === 'string') text.push(part.Text);
    const think = rec(part.Thinking);
    if (typeof think?.text === 'string' && think.text !== '') thinking.push(think.text);
    const use = rec(part.ToolUse);
    if (use !== undefined) toolUses.push({ id: str(use.id) ?? '', name: str(use.name) ?? '', input: toolInput(use) });
  }
  const toolResults: ToolResult[] = [];
  for (const [key, v] of Object.entries(rec(m.tool_results) ?? {})) {
    const r = rec(v);
    if (r === undefined) continue;
    toolResults.push({ id: str(r.tool_use_id) ?? key, name: str(r.tool_name) ?? '', isError: r.is_error === true, output: resultText(r.content) });
  }
  return { role: 'assistant', id: undefined, text: text.join('\n\n'), thinking: thinking.join('\n\n'), toolUses, toolResults };
}

/** A first-agent message (`role`, `segments` or `text`); undefined for a role it does not know. */
function legacyOf(m: Rec): ThreadMessage | undefined {
  const role = m.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system') return undefined;
  const text: string[] = [];
  const thinking: string[] = [];
  if (typeof m.text === 'string') text.push(m.text);
  for (const s of Array.isArray(m.segments) ? m.segments : []) {
    const seg = rec(s);
    if (typeof seg?.text !== 'string') continue;
    if (seg.type === 'thinking') thinking.push(seg.text);
    else if (seg.type === 'text') text.push(seg.text);
  }
  const toolUses = (Array.isArray(m.tool_uses) ? m.tool_uses : []).map(rec).flatMap((u) => (u === undefined ? [] : [{ id: str(u.id) ?? '', name: str(u.name) ?? '', input: u.input ?? null }]));
  const names = new Map(toolUses.map((u) => [u.id, u.name]));
  const toolResults = (Array.isArray(m.tool_results) ? m.tool_results : []).map(rec).flatMap((r) => {
    if (r === undefined) return [];
    const id = str(r.tool_use_id) ?? '';
    return [{ id, name: names.get(id) ?? '', isError: r.is_error === true, output: resultText(r.content) }];
  });
  const id = typeof m.id === 'number' || typeof m.id === 'string' ? String(m.id) : undefined;
  return { role, id, text: text.join('\n\n'), thinking: thinking.join('\n\n'), toolUses, toolResults };
}

/** True for a thread saved by the first agent (its messages carry a `role`). */
export function isLegacyThread(thread: Rec): boolean {
  return thread.version !== '0.3.0' && Array.isArray(thread.messages) && thread.messages.some((m) => typeof rec(m)?.role === 'string');
}

/** The thread's messages, in order; an item of no known shape is left out (`Resume`, `Compaction`). */
export function threadMessages(thread: Rec): ThreadMessage[] {
  const list = Array.isArray(thread.messages) ? thread.messages : [];
  const legacy = isLegacyThread(thread);
  const out: ThreadMessage[] = [];
  for (const item of list) {
    const m = rec(item);
    if (m === undefined) continue;
    if (legacy) {
      const l = legacyOf(m);
      if (l !== undefined) out.push(l);
      continue;
    }
    const user = rec(m.User);
    const agent = rec(m.Agent);
    if (user !== undefined) out.push(userOf(user));
    else if (agent !== undefined) out.push(agentOf(agent));
  }
  return out;
}
