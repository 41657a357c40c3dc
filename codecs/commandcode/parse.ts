/**
 * The Command Code engine: a pure, synchronous LineCore (no I/O), one record per line (README "Records").
 *
 * - `session` from the version-3 header `{type:"session",version:3,id,timestamp,cwd,parentSession?}`, or from
 *   the first record of a legacy transcript (`{role,content,timestamp,sessionId}`, no `type`).
 * - `message` per `message` entry (legacy: per record): text and thinking blocks; `tool_call` per `tool_use`
 *   block, `tool_result` per `tool_result` block.
 * - `usage` from an entry's own `usage` block (README "Tokens"): one request each, `inputTokens` holding the
 *   cache reads. An assistant message without one (every legacy record), or a transcript ending in a prompt
 *   or tool result with no reply after it, gives no usage, and the session's last event then says its usage
 *   is unknown: tokens are never estimated from text.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { CONVERSATION_KINDS, isLeanRead, restoreStrings, snapshotWithoutFile, usageGatedJsonLines } from '../../cursors/core.js';
import { dateString } from '../../cursors/glued-json.js';
import { inputLessCache, saneCost, saneCount } from '../../cursors/sane.js';
import type { KindCounts, SessionFields, UsageEvent } from '../../cursors/protocol/events.js';
import { messageEventOf, sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID, commandCodeStem } from './paths.js';
import { isRec, msTime } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

export interface CommandCodeState {
  file: string;
  sessionId: string;
  sessionEmitted: boolean;
  cwd: string | undefined;
  startedAt: string | undefined;
  forkedFrom: string | undefined;
  /** The model the last usage block named (for one without). */
  model: string | undefined;
  /** An assistant message came without a usage block (README "Tokens"). */
  unrecorded: boolean;
  /** The last message is a prompt or a tool result: the request it started has no reply in the file yet. */
  awaiting: boolean;
  /**
   * A read of usage without the session or the conversation: only lines holding a marker matter, and only their
   * usage. A session read parses every line: a legacy session opens at its first record, whatever it is, and the
   * unknown usage at the end depends on whether the last message is a prompt, which no marker tells.
   */
  lean: boolean;
}

/** A usage block, and the header that names a stream's session: what a usage-only read needs. */
const USAGE_MARKERS: readonly Buffer[] = [Buffer.from('"usage"'), Buffer.from('"session"')];

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const blocks = (content: unknown): Rec[] => (Array.isArray(content) ? content.filter(isRec) : []);

/** `meta.createdAt` (epoch ms: when the message was made) before the entry's append time (README "Records"). */
function timeOf(rec: Rec, meta: Rec): string | undefined {
  return msTime(meta.createdAt, { plausible: true }) ?? dateString(rec.timestamp);
}

function sessionEvent(s: CommandCodeState, offset: number, extra?: SessionFields) {
  return sessionEventOf(CODEC_ID, s.sessionId, offset, { cwd: s.cwd, startedAt: s.startedAt, forkedFrom: s.forkedFrom, model: s.model, ...extra });
}

function openSession(s: CommandCodeState, rec: Rec, offset: number, emit: Emit): void {
  if (s.sessionEmitted) return;
  s.sessionEmitted = true;
  if (rec.type === 'session') {
    s.cwd = str(rec.cwd);
    // `parentSession` is the path of the transcript this one was forked from
    const parent = str(rec.parentSession);
    if (parent !== undefined) s.forkedFrom = commandCodeStem(parent);
  }
  s.startedAt = dateString(rec.timestamp);
  emit(sessionEvent(s, offset));
}

/** An entry's `usage` block as sessionfold counts it (README "Tokens"); undefined when it holds no tokens. */
export function commandCodeUsage(s: CommandCodeState, rec: Rec, offset: number): UsageEvent | undefined {
  const u = rec.usage;
  if (!isRec(u)) return undefined;
  const input = saneCount(u.inputTokens, 'usage.inputTokens');
  const output = saneCount(u.outputTokens, 'usage.outputTokens');
  const read = saneCount(u.cacheReadTokens, 'usage.cacheReadTokens');
  const write = saneCount(u.cacheWriteTokens, 'usage.cacheWriteTokens');
  const cost = saneCost(u.costUsd, 'usage.costUsd');
  // the input holds the cache (README "Tokens"); a cache larger than it cannot be inside it, so is apart
  const uncached = inputLessCache(input, read, write);
  if (uncached + read + write + output === 0) return undefined;
  const own = str(rec.model);
  if (own !== undefined) s.model = own;
  const message = isRec(rec.message) ? rec.message : {};
  const meta = isRec(message.meta) ? message.meta : {};
  const messageId = str(meta.messageId);
  const entryId = str(rec.id);
  return usageEventOf(CODEC_ID, s.sessionId, offset, {
    model: own ?? s.model,
    modelFallback: own === undefined,
    timestamp: timeOf(rec, meta) ?? s.startedAt,
    inputTokens: uncached,
    outputTokens: output,
    cacheReadTokens: read,
    cacheWriteTokens: write,
    costUsd: cost,
    singleRequest: true,
    // the message's uuid where there is one: the short entry id is unique only within its file
    dedupKey: messageId !== undefined ? `${CODEC_ID}:${messageId}` : `${CODEC_ID}:${s.sessionId}:${entryId ?? `@${offset}`}`,
    messageId: messageId ?? entryId,
  });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return blocks(content)
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

function toolEvents(s: CommandCodeState, content: unknown, offset: number, ts: string | undefined, messageId: string | undefined, emit: Emit): void {
  for (const b of blocks(content)) {
    if (b.type === 'tool_use') {
      emit({ type: 'tool_call', agent: CODEC_ID, sessionId: s.sessionId, offset, callId: str(b.id) ?? '', name: str(b.name) ?? '', input: b.input ?? null, ...(ts !== undefined && { timestamp: ts }), ...(messageId !== undefined && { messageId }) });
    } else if (b.type === 'tool_result') {
      emit({ type: 'tool_result', agent: CODEC_ID, sessionId: s.sessionId, offset, callId: str(b.tool_use_id) ?? '', output: textOf(b.content), isError: false, ...(ts !== undefined && { timestamp: ts }) });
    }
  }
}

/** One message: a v3 entry's `message`, or a legacy record itself. */
function message(s: CommandCodeState, rec: Rec, msg: Rec, offset: number, emit: Emit): void {
  const role = msg.role;
  const meta = isRec(msg.meta) ? msg.meta : {};
  const ts = timeOf(rec, meta);
  const entryId = str(rec.id);
  const text = textOf(msg.content);
  const thinking = blocks(msg.content)
    .filter((b) => b.type === 'thinking' && typeof b.thinking === 'string')
    .map((b) => b.thinking as string)
    .join('\n');
  const source = str(meta.source);
  if ((role === 'user' || role === 'assistant') && (text !== '' || thinking !== '')) {
    const model = role === 'assistant' ? str(rec.model) : undefined;
    const parent = str(rec.parentId);
    // steering and follow-up prompts are queued input, not typed at the prompt (README "Records")
    const queued = role === 'user' && source !== undefined && source !== 'user' && source !== 'tool';
    emit(messageEventOf(CODEC_ID, s.sessionId, offset, role, text, { thinking: thinking || undefined, timestamp: ts, model, nativeId: entryId, parentId: parent, subtype: queued ? source : undefined }));
  }
  toolEvents(s, msg.content, offset, ts, entryId, emit);
  // a prompt or tool result asks for a reply; one the writer never flushed leaves it last (README "No usage")
  if (role === 'user' && meta.isMeta !== true && meta.isSummary !== true && (text !== '' || blocks(msg.content).some((b) => b.type === 'tool_result'))) s.awaiting = true;
  if (role !== 'assistant') return;
  s.awaiting = false;
  const usage = commandCodeUsage(s, rec, offset);
  if (usage === undefined) s.unrecorded = true;
  else emit(usage);
}

function record(s: CommandCodeState, rec: Rec, offset: number, emit: Emit): void {
  // the file is named after the session; a stream (`-`) has no name, so its header or records tell
  if (s.sessionId === '') s.sessionId = (rec.type === 'session' ? str(rec.id) : str(rec.sessionId)) ?? '';
  openSession(s, rec, offset, emit);
  if (rec.type === 'message' && isRec(rec.message)) message(s, rec, rec.message, offset, emit);
  else if (rec.type === undefined && typeof rec.role === 'string') message(s, rec, rec, offset, emit);
}

/** A lean read's line: the session id a stream's header gives, and the line's own usage. */
function usageLine(s: CommandCodeState, rec: Rec, offset: number, emit: Emit): void {
  if (s.sessionId === '' && rec.type === 'session') s.sessionId = str(rec.id) ?? '';
  const msg = rec.type === 'message' && isRec(rec.message) ? rec.message : undefined;
  if (msg?.role !== 'assistant') return;
  const usage = commandCodeUsage(s, rec, offset);
  if (usage !== undefined) emit(usage);
}

/** The Command Code line core. */
export const commandCodeCore: LineCore<CommandCodeState> = {
  init(ctx: CoreContext): CommandCodeState {
    const lean = isLeanRead(ctx.options, [...CONVERSATION_KINDS, 'session']);
    return { file: ctx.file, sessionId: ctx.file === '-' ? '' : commandCodeStem(ctx.file), sessionEmitted: false, cwd: undefined, startedAt: undefined, forkedFrom: undefined, model: undefined, unrecorded: false, awaiting: false, lean };
  },
  restore(snapshot, ctx) {
    const s = this.init(ctx);
    const o = (isRec(snapshot) ? snapshot : {}) as Partial<CommandCodeState>;
    restoreStrings(s, o, ['sessionId', 'cwd', 'startedAt', 'forkedFrom', 'model']);
    s.sessionEmitted = o.sessionEmitted === true;
    s.unrecorded = o.unrecorded === true;
    s.awaiting = o.awaiting === true;
    return s;
  },
  snapshot: snapshotWithoutFile,
  ...usageGatedJsonLines(CODEC_ID, USAGE_MARKERS, usageLine, record),
  end(s, emit): KindCounts {
    // provisional: a resumed read replaces it, so a reply written since clears an `awaiting` one
    if (!s.sessionEmitted || !(s.unrecorded || s.awaiting) || s.lean) return {};
    emit(sessionEvent(s, 0, { usageUnknown: true }));
    return { session: 1 };
  },
};
