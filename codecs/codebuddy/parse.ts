/**
 * The CodeBuddy Code engine: a pure, synchronous LineCore (no I/O), one record per line (README.md has the
 * format and its sources). Records carry `type`, `role`, `id`, `sessionId`, `cwd`, `timestamp` (epoch ms),
 * `status`, `content` (Responses-API items: `input_text`, `output_text`) and `providerData`.
 *
 * - `session` from the first record (file stem as id, cwd, start), again when the cwd is first learned or an
 *   `ai-title` / `topic` record names a title.
 * - `message` for `message` records (user and assistant) and `reasoning` records (thinking);
 *   `tool_call` for `function_call`, `tool_result` for `function_call_result`.
 * - `usage` for the usage of a completed assistant `message`, `function_call` or `reasoning` (usage.ts): one
 *   model response is one `providerData.messageId`, and its usage rides on the last record it wrote (a
 *   `reasoning` one when it answered with nothing else); a copy of it under the same id has the same dedupKey,
 *   so folds count it once.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { hasAnyMarker, parseJsonObject, parseJsonText, restoreStrings } from '../../cursors/core.js';
import { dateString } from '../../cursors/glued-json.js';
import type { KindCounts, UsageEvent } from '../../cursors/protocol/events.js';
import { messageEventOf, sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID, codeBuddyStem } from './paths.js';
import { codeBuddyTokens, usageObjects } from './usage.js';
import { usageFilter } from './filter.js';
import { isRec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

export interface CodeBuddyState {
  /** The codec reading the file (`codebuddy`, or a product of the same CLI such as `workbuddy`): its events' agent. */
  agent: string;
  file: string;
  sessionId: string;
  sessionEmitted: boolean;
  cwd: string | undefined;
  startedAt: string | undefined;
  title: string | undefined;
  /** The last model a record named (for a record without one). */
  model: string | undefined;
  /** A usage-only read's byte markers (filter.ts), in force once the session has opened with its cwd; undefined otherwise. */
  filter: readonly Buffer[] | undefined;
  /** Title records are read (not in a read with `titles: false`). */
  titles: boolean;
}

/**
 * The prefix of every dedup key, whichever product's codec reads the file: a response is the CLI's, so a
 * transcript two codecs can reach (a `CODEBUDDY_CONFIG_DIR` pointed at WorkBuddy's folder) counts once.
 */
const DEDUP_PREFIX = CODEC_ID;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const providerOf = (rec: Rec): Rec => (isRec(rec.providerData) ? rec.providerData : {});

/** Flags CodeBuddy sets on user records that are no prompt (slash commands, their echo, compaction). */
const NOT_A_PROMPT = ['skipRun', 'isMeta', 'isCompactInternal', 'isSummary', 'isCompacted', 'isSubAgent'] as const;

/** A record's time: epoch milliseconds as CodeBuddy writes them, or an ISO string; undefined otherwise. */
export function codeBuddyTime(v: unknown): string | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 && v < 8.64e15 ? new Date(v).toISOString() : undefined;
  return dateString(v);
}

/** The text of a `content` field: a string, or the text of its `input_text` / `output_text` / `text` items. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const out: string[] = [];
  for (const p of content) {
    if (typeof p === 'string') out.push(p);
    else if (isRec(p) && typeof p.text === 'string' && (p.type === 'input_text' || p.type === 'output_text' || p.type === 'text')) out.push(p.text);
  }
  return out.join('\n');
}

function sessionEvent(s: CodeBuddyState, offset: number) {
  return sessionEventOf(s.agent, s.sessionId, offset, { cwd: s.cwd, startedAt: s.startedAt, title: s.title, model: s.model });
}

function learnSession(s: CodeBuddyState, rec: Rec, offset: number, emit: Emit): void {
  const cwd = str(rec.cwd);
  if (!s.sessionEmitted) {
    s.sessionEmitted = true;
    s.cwd = cwd;
    s.startedAt = codeBuddyTime(rec.timestamp);
    emit(sessionEvent(s, offset));
  } else if (s.cwd === undefined && cwd !== undefined) {
    s.cwd = cwd;
    emit(sessionEvent(s, offset));
  }
}

/** The usage event of a completed assistant message or tool call; undefined when it carries no tokens. */
export function codeBuddyUsage(s: CodeBuddyState, rec: Rec, offset: number): UsageEvent | undefined {
  // an `incomplete` response was dropped or superseded; its completed copy carries the usage (tokscale skips it too)
  if (rec.status !== undefined && rec.status !== 'completed') return undefined;
  const [u, ...copies] = usageObjects(rec);
  const t = u === undefined ? undefined : codeBuddyTokens(u, copies);
  if (t === undefined) return undefined;
  const p = providerOf(rec);
  const own = str(p.model) ?? str(p.requestModelId) ?? (isRec(rec.message) ? str(rec.message.model) : undefined);
  const responseId = str(p.messageId) ?? str(p.traceId) ?? str(rec.id);
  const session = str(rec.sessionId) ?? s.sessionId;
  return usageEventOf(s.agent, s.sessionId, offset, {
    model: own ?? s.model,
    modelFallback: own === undefined,
    timestamp: codeBuddyTime(rec.timestamp) ?? s.startedAt,
    ...t,
    singleRequest: true,
    dedupKey: `${DEDUP_PREFIX}:${session}:${responseId ?? `@${offset}`}`,
    messageId: responseId,
  });
}

function message(s: CodeBuddyState, rec: Rec, offset: number, emit: Emit): void {
  const role = rec.role === 'user' || rec.role === 'assistant' || rec.role === 'system' ? rec.role : undefined;
  const text = contentText(rec.content);
  if (role === undefined || text === '') return;
  const ts = codeBuddyTime(rec.timestamp);
  const p = providerOf(rec);
  const model = role === 'assistant' ? (str(p.model) ?? s.model) : undefined;
  const meta = role === 'user' && NOT_A_PROMPT.some((f) => p[f] === true);
  emit(messageEventOf(s.agent, s.sessionId, offset, role, text, { timestamp: ts, model, nativeId: str(rec.id), parentId: str(rec.parentId), subtype: meta ? 'meta' : undefined }));
}

function reasoning(s: CodeBuddyState, rec: Rec, offset: number, emit: Emit): void {
  const parts = Array.isArray(rec.rawContent) ? rec.rawContent : Array.isArray(rec.content) ? rec.content : [];
  const thinking = parts.filter(isRec).map((x) => (typeof x.text === 'string' ? x.text : '')).filter((x) => x !== '').join('\n');
  if (thinking === '') return;
  const ts = codeBuddyTime(rec.timestamp);
  emit({ type: 'message', agent: s.agent, sessionId: s.sessionId, offset, role: 'assistant', text: '', thinking, ...(ts !== undefined && { timestamp: ts }), ...(str(rec.id) !== undefined && { nativeId: str(rec.id) }) });
}

function toolCall(s: CodeBuddyState, rec: Rec, offset: number, emit: Emit): void {
  const ts = codeBuddyTime(rec.timestamp);
  const messageId = str(providerOf(rec).messageId);
  const input = typeof rec.arguments === 'string' ? parseJsonText(rec.arguments) : (rec.arguments ?? null);
  emit({ type: 'tool_call', agent: s.agent, sessionId: s.sessionId, offset, callId: str(rec.callId) ?? str(rec.id) ?? '', name: str(rec.name) ?? '', input, ...(ts !== undefined && { timestamp: ts }), ...(messageId !== undefined && { messageId }) });
}

function toolResult(s: CodeBuddyState, rec: Rec, offset: number, emit: Emit): void {
  const ts = codeBuddyTime(rec.timestamp);
  const out = rec.output;
  const output = isRec(out) && typeof out.text === 'string' ? out.text : (out ?? null);
  const isError = typeof rec.status === 'string' && rec.status !== 'completed';
  emit({ type: 'tool_result', agent: s.agent, sessionId: s.sessionId, offset, callId: str(rec.callId) ?? '', toolName: str(rec.name) ?? '', output, isError, ...(ts !== undefined && { timestamp: ts }) });
}

function retitle(s: CodeBuddyState, title: string | undefined, offset: number, emit: Emit): void {
  if (title === undefined || title === s.title) return;
  s.title = title;
  emit(sessionEvent(s, offset));
}

function record(s: CodeBuddyState, rec: Rec, offset: number, emit: Emit): void {
  learnSession(s, rec, offset, emit);
  const type = rec.type;
  if (type === 'message') message(s, rec, offset, emit);
  else if (type === 'function_call') toolCall(s, rec, offset, emit);
  else if (type === 'function_call_result') toolResult(s, rec, offset, emit);
  else if (type === 'reasoning') reasoning(s, rec, offset, emit);
  else if (type === 'ai-title' && s.titles) retitle(s, str(rec.aiTitle), offset, emit);
  else if (type === 'topic' && s.titles) retitle(s, str(rec.topic), offset, emit);
  if (type === 'function_call' || type === 'reasoning' || (type === 'message' && rec.role === 'assistant')) {
    const usage = codeBuddyUsage(s, rec, offset);
    const p = providerOf(rec);
    const model = str(p.model) ?? str(p.requestModelId);
    if (model !== undefined) s.model = model;
    if (usage !== undefined) emit(usage);
  }
}

/**
 * The CodeBuddy Code line core for `agent`: the codec whose events they are. WorkBuddy runs the same CLI, so its
 * codec reads its transcripts with this core under its own id (codecs/workbuddy/README.md).
 */
export function createCodeBuddyCore(agent: string): LineCore<CodeBuddyState> {
  return {
    init(ctx: CoreContext): CodeBuddyState {
      const titles = ctx.options.titles;
      return { agent, file: ctx.file, sessionId: codeBuddyStem(ctx.file), sessionEmitted: false, cwd: undefined, startedAt: undefined, title: undefined, model: undefined, filter: usageFilter(ctx.options.kinds, titles), titles };
    },
    restore(snapshot, ctx) {
      const s = this.init(ctx);
      const o = (isRec(snapshot) ? snapshot : {}) as Partial<CodeBuddyState>;
      restoreStrings(s, o, ['sessionId', 'cwd', 'startedAt', 'title', 'model']);
      s.sessionEmitted = o.sessionEmitted === true;
      return s;
    },
    snapshot({ agent: _a, file: _f, filter: _m, titles: _t, ...rest }) {
      return rest;
    },
    // The markers hold once the session has opened with its cwd: until then every line may be the one that opens it.
    markers: (s) => (s.sessionEmitted && s.cwd !== undefined ? s.filter : undefined),
    line(s, line, start, emit) {
      if (s.filter !== undefined && s.sessionEmitted && s.cwd !== undefined && !hasAnyMarker(line, s.filter)) return;
      record(s, parseJsonObject(line, start, s.agent, s.file), start, emit);
    },
    end(): KindCounts {
      return {};
    },
  };
}

/** The CodeBuddy Code line core. */
export const codebuddyCore: LineCore<CodeBuddyState> = createCodeBuddyCore(CODEC_ID);
