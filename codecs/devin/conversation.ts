/**
 * A Devin session's conversation from its `message_nodes`: pure, as parse.ts. The nodes form a tree (retries,
 * `/revert`, and the twin row Devin writes for each reply); the conversation is the session's main chain, from
 * `sessions.main_chain_id` (its leaf) up to the root, when the row names a node the session has, else every
 * node in row order. Either way a message (`message_id`, a reply's `request_id` without one) is given once. README "Messages" has the shapes.
 */
import type { Emit } from '../../cursors/core.js';
import { parseJsonText } from '../../cursors/core.js';
import { messageEventOf, type MessageRole } from '../../cursors/protocol/events.js';
import { isoOf, rec, recs, str, type JsonRecord } from '../../cursors/json-value.js';
import type { DevinNode } from './schema.js';
import { CODEC_ID } from './paths.js';

/** The main chain ending at `leaf`, root first; all nodes when there is no leaf, it is not there, or the walk loops. */
export function conversationNodes(nodes: readonly DevinNode[], leaf: number | undefined): DevinNode[] {
  const chain = leaf === undefined ? undefined : chainTo(nodes, leaf);
  const out: DevinNode[] = [];
  const ids = new Set<string>();
  for (const n of chain ?? nodes) {
    // a reply's twin row may lack a message id but never its request id
    const id = str(n.msg.message_id) ?? (n.msg.role === 'assistant' ? str(rec(n.msg.metadata)?.request_id) : undefined);
    if (id !== undefined && ids.has(id)) continue;
    if (id !== undefined) ids.add(id);
    out.push(n);
  }
  return out;
}

function chainTo(nodes: readonly DevinNode[], leaf: number): DevinNode[] | undefined {
  const byId = new Map<number, DevinNode>();
  for (const n of nodes) if (n.nodeId !== undefined && !byId.has(n.nodeId)) byId.set(n.nodeId, n);
  const out: DevinNode[] = [];
  for (let n = byId.get(leaf); n !== undefined; n = n.parentNodeId === undefined ? undefined : byId.get(n.parentNodeId)) {
    if (out.length > nodes.length) return undefined;
    out.push(n);
  }
  return out.length === 0 ? undefined : out.reverse();
}

/** Text of a content: itself when text; the text blocks of a list joined by blank lines. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return recs(content)
    .filter((b) => b.type === 'text' || (b.type === undefined && typeof b.text === 'string'))
    .map((b) => (typeof b.text === 'string' ? b.text : ''))
    .filter((t) => t !== '')
    .join('\n\n');
}

/** The thinking of a reply: its `thinking` text, else its thinking blocks. */
function thinkingOf(msg: JsonRecord): string | undefined {
  if (typeof msg.thinking === 'string' && msg.thinking.trim() !== '') return msg.thinking;
  const t = recs(msg.content)
    .filter((b) => b.type === 'thinking' && typeof b.thinking === 'string')
    .map((b) => b.thinking as string)
    .join('\n\n');
  return t === '' ? undefined : t;
}

/** A reply's tool calls: OpenAI-shaped `tool_calls` (`function.name`, `function.arguments`) or `tool_use` blocks. */
function toolCallsOf(msg: JsonRecord): { id: string; name: string; input: unknown }[] {
  const out: { id: string; name: string; input: unknown }[] = [];
  for (const c of recs(msg.tool_calls)) {
    const fn = rec(c.function);
    const name = str(fn?.name) ?? str(c.name);
    if (name !== undefined) out.push({ id: str(c.id) ?? '', name, input: parseJsonText(fn?.arguments ?? c.arguments ?? c.input) });
  }
  for (const b of recs(msg.content)) if (b.type === 'tool_use' && typeof b.name === 'string') out.push({ id: str(b.id) ?? '', name: b.name, input: b.input ?? null });
  return out;
}

/** One node's events: its message (when it has text or thinking), its tool calls, or its tool result. */
function nodeEvents(sessionId: string, n: DevinNode, emit: Emit): void {
  const { msg } = n;
  const meta = rec(msg.metadata);
  const timestamp = n.createdAt ?? isoOf(meta?.created_at);
  const nativeId = str(msg.message_id);
  if (msg.role === 'tool') {
    const callId = str(msg.tool_call_id);
    if (callId !== undefined) {
      emit({ type: 'tool_result', agent: CODEC_ID, sessionId, offset: n.row, callId, output: textOf(msg.content), isError: msg.is_error === true, ...(timestamp !== undefined && { timestamp }) });
      return;
    }
  }
  const text = textOf(msg.content);
  const thinking = msg.role === 'assistant' ? thinkingOf(msg) : undefined;
  // A user message Devin wrote itself (`is_user_input` false: a cache keep-alive prompt) is not the user's.
  const subtype = msg.role === 'user' && meta?.is_user_input === false ? 'injected' : undefined;
  const model = msg.role === 'assistant' ? str(meta?.generation_model) : undefined;
  if (text.trim() !== '' || thinking !== undefined) {
    emit(messageEventOf(CODEC_ID, sessionId, n.row, msg.role as MessageRole, text, { thinking, timestamp, model, nativeId, subtype }));
  }
  if (msg.role !== 'assistant') return;
  for (const c of toolCallsOf(msg)) {
    emit({ type: 'tool_call', agent: CODEC_ID, sessionId, offset: n.row, callId: c.id, name: c.name, input: c.input, ...(timestamp !== undefined && { timestamp }), ...(nativeId !== undefined && { messageId: nativeId }) });
  }
}

/** The conversation events of a chain of nodes. */
export function conversationEvents(sessionId: string, chain: readonly DevinNode[], emit: Emit): void {
  for (const n of chain) nodeEvents(sessionId, n, emit);
}
