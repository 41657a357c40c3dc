/**
 * The community grok-cli's `grok.db` rows as events: pure, no SQLite here (index.ts reads the rows). README.md
 * has the schema with its sources.
 *
 * A `sessions` row is a session (`title`, `model`, `cwd_at_start`, `created_at`); its `messages` rows in `seq`
 * order hold AI SDK `ModelMessage`s as JSON (`role` user | assistant | system | tool, `content` a string or
 * parts: `text`, `reasoning`, `tool-call`, `tool-result`, …); its `usage_events` rows are the token counts.
 */
import type { Emit } from '../../cursors/core.js';
import type { MessageRole, SessionEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { countOrZero } from '../../cursors/sane.js';
import { rec } from '../../cursors/json-value.js';

export type Row = Record<string, unknown>;
type Rec = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** A token count that may reach a total (cursors/sane.ts); else 0. */
export const grokCliCount = countOrZero;

function iso(v: unknown): string | undefined {
  const s = str(v);
  return s !== undefined && !Number.isNaN(Date.parse(s)) ? new Date(Date.parse(s)).toISOString() : undefined;
}

export function sessionEvent(row: Row, usageless: boolean): SessionEvent | undefined {
  const id = str(row.id);
  if (id === undefined) return undefined;
  const cwd = str(row.cwd_at_start) ?? str(row.cwd_last);
  return sessionEventOf(CODEC_ID, id, 0, { cwd, startedAt: iso(row.created_at), title: str(row.title), model: str(row.model), provider: 'xai', usageUnknown: usageless || undefined });
}

/** One `messages` row (offset: its `seq`): a message, its tool calls, or its tool results. */
export function messageEvents(sessionId: string, row: Row, emit: Emit): boolean {
  let m: Rec | undefined;
  try {
    m = rec(JSON.parse(String(row.message_json)));
  } catch {
    m = undefined;
  }
  if (m === undefined) return false;
  const offset = grokCliCount(row.seq);
  const timestamp = iso(row.created_at);
  const base = { agent: CODEC_ID, sessionId, offset, ...(timestamp !== undefined && { timestamp }) };
  const role = m.role;
  const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content.map(rec).filter((p): p is Rec => p !== undefined) : [];
  const text = parts.filter((p) => p.type === 'text' && typeof p.text === 'string').map((p) => p.text as string).join('').trim();
  const thinking = parts.filter((p) => p.type === 'reasoning' && typeof p.text === 'string').map((p) => p.text as string).join('').trim();
  if ((role === 'user' || role === 'assistant' || role === 'system') && (text !== '' || thinking !== '')) {
    emit({ type: 'message', ...base, role: role as MessageRole, text, ...(thinking !== '' && { thinking }) });
  }
  for (const p of parts) {
    const callId = str(p.toolCallId) ?? '';
    if (role === 'assistant' && p.type === 'tool-call') emit({ type: 'tool_call', ...base, callId, name: str(p.toolName) ?? '', input: p.input ?? null });
    else if (role === 'tool' && p.type === 'tool-result') {
      const out = rec(p.output);
      emit({ type: 'tool_result', ...base, callId, toolName: str(p.toolName) ?? '', output: p.output ?? null, isError: typeof out?.type === 'string' && out.type.startsWith('error') });
    }
  }
  return true;
}

/**
 * One `usage_events` row. grok-cli stores the AI SDK's `inputTokens` (cached input included, the cached part
 * not kept) and `outputTokens` (reasoning included): the input is all booked as uncached, an upper bound.
 */
export function usageEvent(sessionId: string, row: Row): UsageEvent | undefined {
  const input = grokCliCount(row.input_tokens);
  const output = grokCliCount(row.output_tokens);
  if (input + output === 0) return undefined;
  const id = String(row.id);
  const model = str(row.model);
  const micros = grokCliCount(row.cost_micros);
  return usageEventOf(CODEC_ID, sessionId, grokCliCount(row.message_seq), {
    model,
    provider: 'xai',
    timestamp: iso(row.created_at),
    inputTokens: input,
    outputTokens: output,
    costUsd: micros > 0 ? micros / 1e6 : undefined,
    singleRequest: false,
    dedupKey: `${CODEC_ID}:${sessionId}:${id}`,
  });
}
