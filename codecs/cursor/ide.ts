/**
 * The Cursor IDE's composer conversations in `User/globalStorage/state.vscdb` (table `cursorDiskKV`),
 * decoded from values already read: pure, no SQLite here (index.ts reads the rows). README.md, "IDE".
 *
 * `composerData:<composerId>` is a conversation: `createdAt` / `lastUpdatedAt` (ms), `name`, `modelConfig.
 * modelName`, and its bubbles in order in `fullConversationHeadersOnly[].bubbleId` (older builds: the bubbles
 * inline in `conversation[]`). `bubbleId:<composerId>:<bubbleId>` is one bubble: `type` 1 user, 2 assistant,
 * `text`, `thinking.text`, `createdAt` (ISO, often absent), and at most one tool call in `toolFormerData`
 * (`toolCallId`, `name`, `rawArgs` / `params` as JSON text, `result` as JSON text, `status`).
 */
import { parseJsonText, type Emit } from '../../cursors/core.js';
import type { SessionEvent } from '../../cursors/protocol/events.js';
import { cursorSession, CODEC_ID, isObject, isoOrUndefined, msToIso, str, toolOutput } from './parse.js';

export const COMPOSER_PREFIX = 'composerData:';
export const BUBBLE_PREFIX = 'bubbleId:';

/** A value of `cursorDiskKV` (JSON text in a BLOB or TEXT column) as an object, else undefined. */
export function parseKvValue(value: unknown): Record<string, unknown> | undefined {
  const text = typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The bubble ids of a composer in conversation order. */
export function bubbleOrder(composer: Record<string, unknown>): string[] {
  const headers = composer.fullConversationHeadersOnly;
  if (!Array.isArray(headers)) return [];
  const out: string[] = [];
  for (const h of headers) if (isObject(h) && typeof h.bubbleId === 'string') out.push(h.bubbleId);
  return out;
}

export interface ComposerCounts {
  /** Bubbles the headers name that the database does not hold (or that are not JSON objects). */
  missing: number;
}

/** A composer's session event at `offset`, and the model its assistant bubbles default to; undefined without an id. */
export function composerHead(composer: Record<string, unknown>, offset: number): { session: SessionEvent; model: string | undefined } | undefined {
  const sessionId = str(composer.composerId);
  if (sessionId === undefined) return undefined;
  const startedAt = msToIso(composer.createdAt);
  const title = str(composer.name);
  const modelName = isObject(composer.modelConfig) ? str(composer.modelConfig.modelName) : undefined;
  const model = modelName !== undefined && modelName !== 'default' ? modelName : undefined;
  return { session: cursorSession(sessionId, offset, { ...(startedAt !== undefined && { startedAt }), ...(title !== undefined && { title }), ...(model !== undefined && { model }) }), model };
}

/** The bubbles a composer holds inline (older builds), or undefined when it names them in headers. */
export function inlineBubbles(composer: Record<string, unknown>): Record<string, unknown>[] | undefined {
  const inline = Array.isArray(composer.conversation) ? composer.conversation.filter(isObject) : undefined;
  return inline !== undefined && inline.length > 0 ? inline : undefined;
}

/**
 * The events of one composer. `lookup(bubbleId)` gives a bubble's object (undefined when absent); `offset`
 * is the record index the composer starts at (the file holds many); returns the next free index.
 */
export function composerEvents(
  composer: Record<string, unknown>,
  lookup: (bubbleId: string) => Record<string, unknown> | undefined,
  offset: number,
  emit: Emit,
  counts: ComposerCounts,
): number {
  const head = composerHead(composer, offset);
  if (head === undefined) return offset;
  emit(head.session);
  offset++;
  const inline = inlineBubbles(composer);
  const bubbles: Record<string, unknown>[] = [];
  if (inline !== undefined) bubbles.push(...inline);
  else {
    for (const id of bubbleOrder(composer)) {
      const b = lookup(id);
      if (b === undefined) counts.missing++;
      else bubbles.push({ bubbleId: id, ...b });
    }
  }
  for (const b of bubbles) bubbleEvents(head.session.sessionId, b, offset++, head.model, emit);
  return offset;
}

/** The events of one bubble at record index `offset`; `model` is the composer's. */
export function bubbleEvents(sessionId: string, b: Record<string, unknown>, offset: number, model: string | undefined, emit: Emit): void {
  const base = { agent: CODEC_ID, sessionId, offset };
  const id = str(b.bubbleId) ?? `${sessionId}#${offset}`;
  const role = b.type === 1 ? 'user' : 'assistant';
  const timestamp = isoOrUndefined(b.createdAt);
  const text = str(b.text) ?? '';
  const thinking = isObject(b.thinking) ? str(b.thinking.text) : undefined;
  const bubbleModel = isObject(b.modelInfo) ? str(b.modelInfo.modelName) : undefined;
  const m = bubbleModel !== undefined && bubbleModel !== 'default' ? bubbleModel : role === 'assistant' ? model : undefined;
  if (text !== '' || (thinking !== undefined && thinking !== '')) {
    emit({
      type: 'message',
      ...base,
      role,
      text,
      ...(thinking !== undefined && thinking !== '' && { thinking }),
      ...(timestamp !== undefined && { timestamp }),
      ...(m !== undefined && { model: m }),
      nativeId: id,
    });
  }
  const tool = b.toolFormerData;
  if (!isObject(tool)) return;
  const callId = str(tool.toolCallId) ?? id;
  const name = str(tool.name) ?? (typeof tool.tool === 'string' || typeof tool.tool === 'number' ? String(tool.tool) : '');
  const ts = timestamp !== undefined ? { timestamp } : {};
  emit({ type: 'tool_call', ...base, callId, name, input: parseJsonText(tool.rawArgs ?? tool.params), ...ts, messageId: id });
  const status = str(tool.status);
  const additional = isObject(tool.additionalData) ? str(tool.additionalData.status) : undefined;
  if (tool.result !== undefined || status === 'error') {
    const isError = status === 'error' || additional === 'error';
    emit({ type: 'tool_result', ...base, callId, toolName: name, output: toolOutput(parseJsonText(tool.result)), isError, ...ts });
  }
}
