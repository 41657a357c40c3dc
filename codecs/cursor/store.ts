/**
 * The cursor-agent CLI's chat store (`~/.cursor/chats/<md5(cwd)>/<chatId>/store.db`), decoded from rows
 * already read: pure, no SQLite here (index.ts reads the rows). README.md, "CLI chat store", has the format.
 *
 * `meta` key `0` holds hex-encoded JSON (`agentId`, `name`, `createdAt`, `lastUsedModel`,
 * `latestRootBlobId`). `blobs` is content-addressed: a message blob is JSON (`{role, content}`); a linking
 * blob is a run of `0x0A 0x20 <32-byte child id>` entries, possibly followed by one embedded JSON message.
 * The conversation is the tree walked depth-first from `latestRootBlobId`, children in order. When there is
 * no root, or it reaches no message, every JSON blob is taken in rowid order instead.
 */
import type { Emit } from '../../cursors/core.js';
import type { SessionEvent } from '../../cursors/protocol/events.js';
import { cursorSession, CODEC_ID, isObject, msToIso, roleOf, str, toolOutput, userQueryText } from './parse.js';

export interface ChatMeta {
  agentId?: string;
  name?: string;
  mode?: string;
  createdAt?: number;
  lastUsedModel?: string;
  latestRootBlobId?: string;
}

/** `meta` row `0`: hex-encoded JSON (plain JSON accepted too); undefined when it is neither. */
export function decodeMeta(value: unknown): ChatMeta | undefined {
  let text: string | undefined;
  if (typeof value === 'string') text = /^(?:[0-9a-fA-F]{2})+$/.test(value) ? Buffer.from(value, 'hex').toString('utf8') : value;
  else if (Buffer.isBuffer(value)) text = value.toString('utf8');
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return isObject(v) ? (v as ChatMeta) : undefined;
  } catch {
    return undefined;
  }
}

export interface Blob {
  id: string;
  data: Buffer;
}

const LINK_TAG_0 = 0x0a;
const LINK_TAG_1 = 0x20;
const LINK_BYTES = 34;
/** A tree deeper than this is not followed further (a cycle is also cut by the visited set). */
const MAX_DEPTH = 256;

function parseJsonBlob(data: Buffer): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(data.toString('utf8')) as unknown;
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export interface Walk {
  /** JSON messages in conversation order, each with the id of the blob it came from. */
  messages: { blobId: string; message: Record<string, unknown> }[];
  /** Blobs that were neither a message nor a linking blob (or named but missing). */
  skipped: number;
}

/** A walk that may reuse a previous one (`walkBlobs`). */
export interface TreeWalk extends Walk {
  /** Messages in conversation order counting the reused ones (this walk's `messages` are the new ones). */
  count: number;
  /** Where each new message sits in the conversation. */
  at: number[];
  /** Per blob visited, the conversation range [start, end) it gave. */
  spans: Record<string, [number, number]>;
  /** Ranges of the previous walk taken whole (a blob it had visited), in order, each with where it landed. */
  reused: { from: [number, number]; at: number }[];
}

/**
 * The messages reachable from `rootId`, depth-first, blobs fetched by `lookup`. A blob of `known` (a
 * previous walk's spans: content-addressed, so it gives what it gave then) is not fetched: its range is
 * taken whole, and the blobs inside it count as visited.
 */
export function walkBlobs(lookup: (id: string) => Buffer | undefined, rootId: string, known: Readonly<Record<string, [number, number]>> = {}): TreeWalk {
  const out: TreeWalk = { messages: [], skipped: 0, count: 0, at: [], spans: {}, reused: [] };
  const visited = new Set<string>();
  let byStart: [string, [number, number]][] | undefined;
  /** The known blobs inside `span` (its descendants then), found by binary search over their starts. */
  const inside = (span: [number, number]): string[] => {
    byStart ??= Object.entries(known).sort((a, b) => a[1][0] - b[1][0]);
    let lo = 0;
    let hi = byStart.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((byStart[mid] as [string, [number, number]])[1][0] < span[0]) lo = mid + 1;
      else hi = mid;
    }
    const ids: string[] = [];
    for (let i = lo; i < byStart.length; i++) {
      const [k, [s, e]] = byStart[i] as [string, [number, number]];
      if (s > span[1]) break;
      if (e <= span[1] && (e > s || (s > span[0] && s < span[1]))) ids.push(k);
    }
    return ids;
  };
  const push = (blobId: string, message: Record<string, unknown>): void => {
    out.messages.push({ blobId, message });
    out.at.push(out.count++);
  };
  const visit = (id: string, depth: number): void => {
    if (visited.has(id) || depth > MAX_DEPTH) return;
    visited.add(id);
    const start = out.count;
    const span = known[id];
    if (span !== undefined) {
      for (const k of inside(span)) visited.add(k);
      out.reused.push({ from: span, at: start });
      out.count += span[1] - span[0];
    } else visitData(id, lookup(id), depth);
    out.spans[id] = [start, out.count];
  };
  const visitData = (id: string, data: Buffer | undefined, depth: number): void => {
    if (data === undefined || data.length === 0) {
      out.skipped++;
      return;
    }
    if (data[0] === 0x7b) {
      const m = parseJsonBlob(data);
      if (m === undefined) out.skipped++;
      else push(id, m);
      return;
    }
    let at = 0;
    while (at + LINK_BYTES <= data.length && data[at] === LINK_TAG_0 && data[at + 1] === LINK_TAG_1) {
      visit(data.subarray(at + 2, at + LINK_BYTES).toString('hex'), depth + 1);
      at += LINK_BYTES;
    }
    const brace = data.indexOf(0x7b, at);
    const embedded = brace === -1 ? undefined : parseJsonBlob(data.subarray(brace));
    if (embedded !== undefined) push(id, embedded);
    else if (at === 0) out.skipped++;
  };
  visit(rootId.toLowerCase(), 0);
  return out;
}

/** The messages reachable from `rootId`, depth-first. */
export function walkTree(blobs: ReadonlyMap<string, Buffer>, rootId: string): Walk {
  const w = walkBlobs((id) => blobs.get(id), rootId);
  return { messages: w.messages, skipped: w.skipped };
}

/** Every JSON message blob in the given (rowid) order: the fallback when the tree gives nothing. */
export function jsonBlobs(blobs: readonly Blob[]): Walk {
  const out: Walk = { messages: [], skipped: 0 };
  for (const b of blobs) {
    if (b.data[0] !== 0x7b) continue;
    const m = parseJsonBlob(b.data);
    if (m === undefined) out.skipped++;
    else out.messages.push({ blobId: b.id, message: m });
  }
  return out;
}

function textOf(content: unknown, role: string): { text: string; thinking: string[]; blocks: Record<string, unknown>[] } {
  if (typeof content === 'string') return { text: role === 'user' ? userQueryText(content) : content, thinking: [], blocks: [] };
  const texts: string[] = [];
  const thinking: string[] = [];
  const blocks: Record<string, unknown>[] = [];
  if (Array.isArray(content)) {
    for (const b of content) {
      if (!isObject(b)) continue;
      if (b.type === 'text' && typeof b.text === 'string') texts.push(role === 'user' ? userQueryText(b.text) : b.text);
      else if ((b.type === 'reasoning' || b.type === 'thinking') && typeof (b.text ?? b.thinking) === 'string') thinking.push((b.text ?? b.thinking) as string);
      else blocks.push(b);
    }
  }
  return { text: texts.join('\n\n'), thinking, blocks };
}

/** The model a reasoning block names (`providerOptions.cursor.modelName`), if any. */
function blockModel(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  for (const b of content) {
    const cursor = isObject(b) && isObject(b.providerOptions) ? b.providerOptions.cursor : undefined;
    if (isObject(cursor) && typeof cursor.modelName === 'string') return cursor.modelName;
  }
  return undefined;
}

/** The session event of a chat store (offset 0); `dirId` is the chat folder's name, the id when `meta` gives none. */
export function chatSessionEvent(meta: ChatMeta | undefined, dirId: string, cwd?: string): SessionEvent {
  const sessionId = str(meta?.agentId) ?? dirId;
  const startedAt = msToIso(meta?.createdAt);
  const title = str(meta?.name);
  const model = str(meta?.lastUsedModel);
  return cursorSession(sessionId, 0, { ...(cwd !== undefined && { cwd }), ...(startedAt !== undefined && { startedAt }), ...(title !== undefined && { title }), ...(model !== undefined && { model }) });
}

/**
 * The events of messages of a chat store, the `i`th at record index `at[i] + 1` (its place in the
 * conversation). `names` (tool call id to name) carries over from earlier messages and is updated.
 */
export function chatMessageEvents(sessionId: string, messages: Walk['messages'], at: readonly number[], names: Map<string, string>, emit: Emit): void {
  messages.forEach(({ blobId, message }, i) => {
    const offset = (at[i] ?? i) + 1;
    const base = { agent: CODEC_ID, sessionId, offset };
    const role = roleOf(message.role);
    const { text, thinking, blocks } = textOf(message.content, role);
    const m = blockModel(message.content);
    if (text !== '' || thinking.length > 0) {
      emit({
        type: 'message',
        ...base,
        role,
        text,
        ...(thinking.length > 0 && { thinking: thinking.join('\n\n') }),
        ...(m !== undefined && { model: m }),
        nativeId: blobId, // every assistant message says `"id": "1"`: the blob id is the unique one
        ...(role === 'system' && { subtype: 'system-prompt' }),
      });
    }
    for (const b of blocks) {
      if (b.type === 'tool-call' || b.type === 'tool_call') {
        const callId = str(b.toolCallId) ?? `${blobId}:${blocks.indexOf(b)}`;
        const name = str(b.toolName) ?? '';
        names.set(callId, name);
        emit({ type: 'tool_call', ...base, callId, name, input: b.args ?? null, messageId: blobId });
      } else if (b.type === 'tool-result' || b.type === 'tool_result') {
        const callId = str(b.toolCallId) ?? str(message.id) ?? blobId;
        const toolName = str(b.toolName) ?? names.get(callId);
        emit({ type: 'tool_result', ...base, callId, ...(toolName !== undefined && { toolName }), output: toolOutput(b.result), isError: b.isError === true });
      }
    }
  });
}

/**
 * The events of one chat store. `dirId` is the chat folder's name (the session id when `meta` gives none);
 * `cwd` the workspace folder when the caller could tell it (paths.ts `chatStoreCwd`).
 * Offsets are record indexes: 0 for the session, then one per message in conversation order.
 */
export function chatStoreEvents(meta: ChatMeta | undefined, walk: Walk, dirId: string, emit: Emit, cwd?: string): void {
  const session = chatSessionEvent(meta, dirId, cwd);
  emit(session);
  chatMessageEvents(session.sessionId, walk.messages, [], new Map(), emit);
}
