/**
 * The Codebuff chat parser (cursors/read-document.ts `DocumentParser`): `chat-messages.json` is the chat's
 * `ChatMessage[]`, rewritten whole on every save (README "Record"). Each element is assembled on its own
 * (walk.ts); its offset is its index in the array.
 *
 * - `session` first: the chat id and the time it names.
 * - `message` per element: `variant` user → user, ai | agent → assistant (text blocks, reasoning blocks as
 *   thinking), error → system (`subtype: "error"`); `tool_call` / `tool_result` per `tool` block, nested
 *   agent blocks included.
 * - `usage` per assistant element whose metadata carries token usage (the shapes README "Tokens" lists).
 *   Codebuff's own `ChatMessage` type declares none: a chat without any ends with a session event saying its
 *   usage is unknown.
 */
import type { NormalizedReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionEvent, SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf, type SessionFields } from '../../cursors/protocol/events.js';
import { tokenCount } from '../../cursors/glued-json.js';
import { chatIdTime, codebuffChatId, codebuffProject, CODEC_ID } from './paths.js';
import { newArrayWalk, walkArray } from './walk.js';
import { isoOf, msTime, rec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A time written as epoch milliseconds (from 2000 to 2200) or as a date string. */
const timeOf = (v: unknown): string | undefined => msTime(v, { plausible: true }) ?? isoOf(v);

interface Chat {
  sessionId: string;
  key: string;
  startedAt: string | undefined;
  usageIds: Set<string>;
}

interface Counts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  model: string | undefined;
}

const first = (u: Rec, keys: readonly string[]): number => {
  for (const k of keys) {
    const n = tokenCount(u[k]);
    if (n > 0) return n;
  }
  return 0;
};

/**
 * One usage object. Anthropic-style names (`inputTokens`, `cacheReadInputTokens`, `cacheCreationInputTokens`)
 * are apart; OpenAI-style ones (`prompt_tokens` with `prompt_tokens_details.cached_tokens`) include the cached
 * tokens in the prompt, which are then taken out.
 */
function usageCounts(v: unknown): Counts | undefined {
  const u = rec(v);
  if (u === undefined) return undefined;
  const apart = first(u, ['inputTokens', 'input_tokens']);
  const prompt = apart > 0 ? 0 : first(u, ['promptTokens', 'prompt_tokens']);
  const details = rec(u.promptTokensDetails) ?? rec(u.prompt_tokens_details) ?? {};
  const cachedInPrompt = prompt > 0 ? Math.min(first(details, ['cachedTokens', 'cached_tokens']), prompt) : 0;
  const cacheRead = first(u, ['cacheReadInputTokens', 'cache_read_input_tokens']) || cachedInPrompt;
  const c: Counts = {
    input: apart > 0 ? apart : prompt - cachedInPrompt,
    output: first(u, ['outputTokens', 'output_tokens', 'completionTokens', 'completion_tokens']),
    cacheRead,
    cacheWrite: first(u, ['cacheCreationInputTokens', 'cache_creation_input_tokens', 'cacheCreationTokens', 'cache_creation_tokens', 'cachedTokensCreated', 'cached_tokens_created']),
    model: str(u.model),
  };
  return c.input + c.output + c.cacheRead + c.cacheWrite > 0 ? c : undefined;
}

/** The usage of the last assistant entry of a stored run state's history that has any. */
function runStateCounts(meta: Rec): Counts | undefined {
  const history = rec(rec(rec(meta.runState)?.sessionState)?.mainAgentState)?.messageHistory;
  if (!Array.isArray(history)) return undefined;
  for (let i = history.length - 1; i >= 0; i--) {
    const e = rec(history[i]);
    if (e?.role !== 'assistant') continue;
    const po = rec(e.providerOptions);
    const cb = rec(po?.codebuff);
    const c = usageCounts(po?.usage) ?? usageCounts(cb?.usage);
    if (c !== undefined) return { ...c, model: str(cb?.model) ?? c.model };
  }
  return undefined;
}

function assistantUsage(chat: Chat, m: Rec, index: number, timestamp: string | undefined): UsageEvent | undefined {
  const meta = rec(m.metadata);
  if (meta === undefined) return undefined;
  const c = usageCounts(meta.usage) ?? usageCounts(rec(meta.codebuff)?.usage) ?? runStateCounts(meta);
  if (c === undefined) return undefined;
  const id = str(m.id) ?? `#${index}`;
  if (chat.usageIds.has(id)) return undefined; // a message saved twice under its id counts once
  chat.usageIds.add(id);
  const model = str(meta.model) ?? c.model;
  return usageEventOf(CODEC_ID, chat.sessionId, index, {
    model,
    timestamp: timestamp ?? chat.startedAt,
    inputTokens: c.input,
    outputTokens: c.output,
    cacheReadTokens: c.cacheRead,
    cacheWriteTokens: c.cacheWrite,
    singleRequest: false,
    dedupKey: `${CODEC_ID}:${chat.key}:${id}`,
    messageId: str(m.id),
  });
}

/** Text and reasoning of a message's blocks (nested agent blocks included), and its tool blocks. */
function walkBlocks(blocks: unknown, text: string[], thinking: string[], tools: Rec[]): void {
  if (!Array.isArray(blocks)) return;
  for (const b of blocks.map(rec)) {
    if (b === undefined) continue;
    if (b.type === 'text' && typeof b.content === 'string' && b.content !== '') (b.textType === 'reasoning' ? thinking : text).push(b.content);
    else if (b.type === 'tool') tools.push(b);
    else if (b.type === 'agent') walkBlocks(b.blocks, text, thinking, tools);
  }
}

function* messageEvents(chat: Chat, m: Rec, index: number): Generator<SessionfoldEvent> {
  const variant = m.variant ?? m.role;
  const role = variant === 'user' ? 'user' : variant === 'ai' || variant === 'agent' || variant === 'assistant' ? 'assistant' : variant === 'error' ? 'system' : undefined;
  if (role === undefined) return;
  const text: string[] = [];
  const thinking: string[] = [];
  const tools: Rec[] = [];
  walkBlocks(m.blocks, text, thinking, tools);
  const content = str(m.content) ?? text.join('\n');
  const timestamp = timeOf(m.timestamp);
  const base = { agent: CODEC_ID, sessionId: chat.sessionId, offset: index };
  const id = str(m.id);
  if (content !== '' || thinking.length > 0) {
    yield {
      type: 'message',
      ...base,
      role,
      text: content,
      ...(thinking.length > 0 && { thinking: thinking.join('\n') }),
      ...(timestamp !== undefined && { timestamp }),
      ...(id !== undefined && { nativeId: id }),
      ...(str(m.parentId) !== undefined && { parentId: m.parentId as string }),
      ...(role === 'system' && { subtype: 'error' }),
    };
  }
  for (const t of tools) {
    const callId = str(t.toolCallId) ?? '';
    yield { type: 'tool_call', ...base, callId, name: str(t.toolName) ?? '', input: t.input ?? null, ...(timestamp !== undefined && { timestamp }), ...(id !== undefined && { messageId: id }) };
    if (t.output !== undefined) yield { type: 'tool_result', ...base, callId, toolName: str(t.toolName) ?? '', output: t.output, isError: false, ...(timestamp !== undefined && { timestamp }) };
  }
  if (role === 'assistant') {
    const u = assistantUsage(chat, m, index, timestamp);
    if (u !== undefined) yield u;
  }
}

function sessionOf(chat: Chat, extra?: SessionFields): SessionEvent {
  return sessionEventOf(CODEC_ID, chat.sessionId, 0, { startedAt: chat.startedAt, ...extra });
}

/** The document parser of a Codebuff `chat-messages.json`. */
export function* parseCodebuffChat(file: string, chunks: () => Generator<Buffer>, _options: NormalizedReadOptions): Generator<SessionfoldEvent> {
  const chatId = codebuffChatId(file);
  const chat: Chat = { sessionId: chatId, key: `${codebuffProject(file)}/${chatId}`, startedAt: chatIdTime(chatId), usageIds: new Set() };
  yield sessionOf(chat);
  const w = newArrayWalk();
  let index = 0;
  for (const _ of walkArray(chunks(), w)) {
    for (const item of w.items.splice(0)) {
      const m = rec(item);
      if (m !== undefined) yield* messageEvents(chat, m, index);
      index++;
    }
  }
  if (chat.usageIds.size === 0) yield sessionOf(chat, { usageUnknown: true });
}
