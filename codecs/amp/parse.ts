/**
 * The Amp thread parser (cursors/read-document.ts `DocumentParser`): a session event, each message's events
 * as its element of `messages` is assembled (walk.ts), then the usage.
 *
 * Usage: when the thread has a non-empty `usageLedger.events`, one usage event per ledger event (an id seen
 * before is counted once), its `tokens.input`/`tokens.output` (numbers or numeric strings) with the cache
 * tokens of the message it points at (`toMessageId`); otherwise the `usage` of each assistant message.
 * See README.md for the format and its sources.
 */
import type { NormalizedReadOptions } from '../../cursors/protocol/codec.js';
import type { MessageRole, SessionEvent, SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID, threadIdOf } from './paths.js';
import { newThreadWalk, walkThread } from './walk.js';
import { countOrZero } from '../../cursors/sane.js';
import { rec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** A token count from a number or a numeric string; 0 for anything that is not a sane count. */
export function ampCount(v: unknown): number {
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  return countOrZero(n);
}

/** An id Amp writes as a string or a number. */
function idText(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return str(v);
}

/** An ISO timestamp from an ISO string or epoch milliseconds. */
function isoOf(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 8.64e15) return new Date(v).toISOString();
  const s = str(v);
  return s !== undefined && !Number.isNaN(Date.parse(s)) ? new Date(s).toISOString() : undefined;
}

/** The work dir of a thread: the first tree of its initial environment (`file://` URI). */
function cwdOf(meta: Rec): string | undefined {
  const trees = rec(rec(meta.env)?.initial)?.trees;
  const uri = Array.isArray(trees) ? str(rec(trees[0])?.uri) : undefined;
  if (uri === undefined || !uri.startsWith('file://')) return undefined;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return undefined;
  }
}

function sessionOf(file: string, meta: Rec): SessionEvent {
  const sessionId = threadIdOf(file);
  const startedAt = isoOf(meta.created);
  const title = str(meta.title);
  const cwd = cwdOf(meta);
  return sessionEventOf(CODEC_ID, sessionId, 0, { cwd, startedAt, title });
}

interface Acc {
  sessionId: string;
  created: string | undefined;
  index: number;
  /** Cache tokens and timestamp of each message with usage, by id (for the ledger). */
  byId: Map<string, { cacheRead: number; cacheWrite: number; timestamp?: string }>;
  /** Usage of assistant messages (each id once), used when the thread has no ledger. */
  messageUsage: UsageEvent[];
  usageIds: Set<string>;
}

function usageEvent(acc: Acc, offset: number, model: string | undefined, timestamp: string | undefined, counts: Pick<UsageEvent, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>, key: string, messageId?: string): UsageEvent {
  return usageEventOf(CODEC_ID, acc.sessionId, offset, {
    model,
    timestamp: timestamp ?? acc.created,
    ...counts,
    singleRequest: true,
    dedupKey: `${CODEC_ID}:${acc.sessionId}:${key}`,
    messageId,
  });
}

/** Text, thinking, tool calls and tool results of a message's content blocks. */
function* messageEvents(acc: Acc, m: Rec, offset: number): Generator<SessionfoldEvent> {
  const base = { agent: CODEC_ID, sessionId: acc.sessionId, offset };
  const id = idText(m.messageId) ?? idText(m.id);
  const usage = rec(m.usage);
  const timestamp = isoOf(m.timestamp) ?? isoOf(usage?.timestamp);
  const at = timestamp !== undefined ? { timestamp } : {};
  const blocks = Array.isArray(m.content) ? m.content.map(rec) : [];
  const text = typeof m.content === 'string' ? m.content : blocks.filter((b) => b?.type === 'text' && typeof b.text === 'string').map((b) => b!.text as string).join('\n');
  const thinking = blocks.filter((b) => b?.type === 'thinking' && typeof b.thinking === 'string').map((b) => b!.thinking as string).join('\n');
  const role: MessageRole = m.role === 'user' || m.role === 'assistant' ? m.role : 'system';
  const model = str(usage?.model);
  yield { type: 'message', ...base, role, text, ...(thinking !== '' && { thinking }), ...at, ...(model !== undefined && { model }), ...(id !== undefined && { nativeId: id }) };
  for (const b of blocks) {
    if (b?.type === 'tool_use' && str(b.id) !== undefined) yield { type: 'tool_call', ...base, callId: b.id as string, name: str(b.name) ?? '', input: b.input ?? null, ...at, ...(id !== undefined && { messageId: id }) };
    const callId = str(b?.toolUseID) ?? str(b?.tool_use_id);
    if (b?.type === 'tool_result' && callId !== undefined) {
      const run = rec(b.run);
      yield { type: 'tool_result', ...base, callId, output: run?.result ?? b.content ?? null, isError: run?.status === 'error' || b.is_error === true, ...at };
    }
  }
  if (usage === undefined) return;
  const counts = { inputTokens: ampCount(usage.inputTokens), outputTokens: ampCount(usage.outputTokens), cacheReadTokens: ampCount(usage.cacheReadInputTokens), cacheWriteTokens: ampCount(usage.cacheCreationInputTokens) };
  if (id !== undefined && !acc.byId.has(id)) acc.byId.set(id, { cacheRead: counts.cacheReadTokens, cacheWrite: counts.cacheWriteTokens, ...at });
  if (m.role === 'assistant' && (id === undefined || !acc.usageIds.has(id))) {
    if (id !== undefined) acc.usageIds.add(id);
    acc.messageUsage.push(usageEvent(acc, offset, model, timestamp, counts, `message:${id ?? offset}`, id));
  }
}

/**
 * One usage event per distinct ledger event id. The first event naming a message is keyed as that message's
 * usage was (`message:<id>`): a thread read before its ledger was written counted the message, and the
 * cache keeps a rewritten file's vanished keys, so the ledger's copy must replace that count, not add to it.
 * A further event naming the same message keeps its ledger key.
 */
function* ledgerUsage(acc: Acc, events: readonly unknown[]): Generator<UsageEvent> {
  const seen = new Set<string>();
  const named = new Set<string>();
  for (const [i, raw] of events.entries()) {
    const e = rec(raw);
    if (e === undefined) continue;
    const id = idText(e.id);
    if (id !== undefined) {
      if (seen.has(id)) continue;
      seen.add(id);
    }
    const tokens = rec(e.tokens);
    const to = idText(e.toMessageId);
    const cache = to === undefined ? undefined : acc.byId.get(to);
    const counts = { inputTokens: ampCount(tokens?.input), outputTokens: ampCount(tokens?.output), cacheReadTokens: cache?.cacheRead ?? 0, cacheWriteTokens: cache?.cacheWrite ?? 0 };
    const asMessage = to !== undefined && !named.has(to);
    if (asMessage) named.add(to);
    yield usageEvent(acc, i, str(e.model), isoOf(e.timestamp) ?? cache?.timestamp, counts, asMessage ? `message:${to}` : `ledger:${id ?? i}`, to);
  }
}

/** The document parser of an Amp thread file. */
export function* parseAmpThread(file: string, chunks: () => Generator<Buffer>, _options: NormalizedReadOptions): Generator<SessionfoldEvent> {
  const w = newThreadWalk();
  let session: SessionEvent | undefined;
  const acc: Acc = { sessionId: threadIdOf(file), created: undefined, index: 0, byId: new Map(), messageUsage: [], usageIds: new Set() };
  const ledger: unknown[] = [];
  for (const _ of walkThread(chunks(), w)) {
    if (session === undefined && w.atMessages !== undefined) {
      session = sessionOf(file, w.atMessages);
      acc.created = session.startedAt;
      yield session;
    }
    for (const m of w.messages.splice(0)) {
      const r = rec(m);
      if (r !== undefined) yield* messageEvents(acc, r, acc.index);
      acc.index++;
    }
    ledger.push(...w.ledger.splice(0));
  }
  const late = sessionOf(file, w.meta);
  if (session === undefined) {
    acc.created = late.startedAt;
    yield late;
  } else if (JSON.stringify(late) !== JSON.stringify(session)) yield late; // keys after the messages (the title)
  if (ledger.length > 0) yield* ledgerUsage(acc, ledger);
  else yield* acc.messageUsage;
}
