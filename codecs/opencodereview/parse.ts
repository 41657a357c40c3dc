/**
 * The Open Code Review engine: a pure, synchronous LineCore (no I/O), one record per line (README "Records").
 *
 * - `session` from `session_start` (`cwd`, `gitBranch`, `model`, the review range as the title, `resumedFrom`).
 * - `message`: an `llm_request`'s closing user prompt (the requests repeat the whole conversation, so only the
 *   prompt that ends one is new), each `llm_response`'s text and reasoning with a `tool_call` per tool it asked
 *   for, and an `llm_error` as a system message; a `tool_call` record is the `tool_result` of the call it answers.
 * - `usage` from each `llm_response`'s `usage`, one request each (README "Tokens"): `prompt_tokens` holds the
 *   cache reads and writes, which are taken out. The session's last event says its usage is unknown when the
 *   run wrote no `session_end` (OCR buffers these records, so a killed run loses its last ones) or a response
 *   recorded no tokens.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { isLeanRead, parseJsonText, restoreFlags, restoreStrings, snapshotWithoutFile, usageGatedJsonLines } from '../../cursors/core.js';
import { inputLessCache, saneCount } from '../../cursors/sane.js';
import type { KindCounts, SessionFields, UsageEvent } from '../../cursors/protocol/events.js';
import { messageEventOf, sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { isoOf, isRec, recs, str } from '../../cursors/json-value.js';
import { CODEC_ID, openCodeReviewStem } from './paths.js';

type Rec = Record<string, unknown>;

/** A tool call an `llm_response` asked for and no `tool_call` record has answered yet. */
interface PendingCall {
  id: string;
  name: string;
  /** Its arguments as written (JSON text), which the `tool_call` record answering it repeats. */
  args?: string | undefined;
}

/** Arguments as the text they were written as: OCR writes the model's JSON text in both records (README "Records"). */
const argsText = (v: unknown): string | undefined => (typeof v === 'string' ? v : v === undefined || v === null ? undefined : JSON.stringify(v));

export interface OpenCodeReviewState {
  file: string;
  sessionId: string;
  sessionEmitted: boolean;
  cwd: string | undefined;
  startedAt: string | undefined;
  title: string | undefined;
  gitBranch: string | undefined;
  forkedFrom: string | undefined;
  /** The model `session_start` names: a response without its own is billed to it. */
  model: string | undefined;
  /** A response recorded no tokens (README "Tokens"). */
  unrecorded: boolean;
  /** The run wrote its `session_end`: every record it buffered reached the file. */
  ended: boolean;
  /**
   * Per file subtask and task type (`filePath`, `taskType`: subtasks run concurrently and interleave their
   * records), the calls of its last response not yet answered, for the `tool_call` records that carry no call id.
   */
  pending: Record<string, PendingCall[]>;
  /**
   * A read of the session and usage without the conversation (a cost scan): only lines holding a marker matter,
   * and of them only the session, the usage and the end state. The requests, which repeat the whole conversation
   * so far, are then never parsed.
   */
  lean: boolean;
}

/**
 * The records a lean read parses: the start (the session and its model), the responses (usage, or none
 * recorded) and the end (the run finished), all that the session event, the usage and `end()` depend on.
 */
const LEAN_MARKERS: readonly Buffer[] = ['"session_start"', '"llm_response"', '"session_end"'].map((m) => Buffer.from(m));

/** The review range `session_start` records, as a title (README "Records"). */
function titleOf(rec: Rec): string | undefined {
  const mode = str(rec.reviewMode);
  if (mode === 'commit' && str(rec.diffCommit) !== undefined) return `review commit ${str(rec.diffCommit)}`;
  if (mode === 'range' && (str(rec.diffFrom) ?? str(rec.diffTo)) !== undefined) return `review ${str(rec.diffFrom) ?? ''}..${str(rec.diffTo) ?? ''}`;
  if (mode === 'full_scan') return 'full scan';
  return mode === undefined ? undefined : `review ${mode}`;
}

function sessionEvent(s: OpenCodeReviewState, offset: number, extra?: SessionFields) {
  return sessionEventOf(CODEC_ID, s.sessionId, offset, { cwd: s.cwd, startedAt: s.startedAt, title: s.title, forkedFrom: s.forkedFrom, gitBranch: s.gitBranch, model: s.model, ...extra });
}

function sessionStart(s: OpenCodeReviewState, rec: Rec): void {
  s.cwd = str(rec.cwd) ?? s.cwd;
  s.startedAt = isoOf(rec.timestamp) ?? s.startedAt;
  s.title = titleOf(rec) ?? s.title;
  s.gitBranch = str(rec.gitBranch) ?? s.gitBranch;
  s.forkedFrom = str(rec.resumedFrom) ?? s.forkedFrom;
  s.model = str(rec.model) ?? s.model;
}

/** An `llm_response`'s `usage` as sessionfold counts it (README "Tokens"); undefined when it holds no tokens. */
export function openCodeReviewUsage(s: OpenCodeReviewState, rec: Rec, offset: number): UsageEvent | undefined {
  const u = isRec(rec.usage) ? rec.usage : {};
  const prompt = saneCount(u.prompt_tokens, 'usage.prompt_tokens');
  const output = saneCount(u.completion_tokens, 'usage.completion_tokens');
  const read = saneCount(u.cache_read_tokens, 'usage.cache_read_tokens');
  const write = saneCount(u.cache_write_tokens, 'usage.cache_write_tokens');
  // the prompt holds the cache reads and writes (README "Tokens")
  const uncached = inputLessCache(prompt, read, write);
  if (uncached + read + write + output === 0) return undefined;
  const own = str(rec.model);
  const uuid = str(rec.uuid);
  return usageEventOf(CODEC_ID, s.sessionId, offset, {
    model: own ?? s.model,
    modelFallback: own === undefined,
    timestamp: isoOf(rec.timestamp) ?? s.startedAt,
    inputTokens: uncached,
    outputTokens: output,
    cacheReadTokens: read,
    cacheWriteTokens: write,
    singleRequest: true,
    // every record's uuid is a fresh random v4 (README "Records"); the offset stands in for a missing one
    dedupKey: `${CODEC_ID}:${s.sessionId}:${uuid ?? `@${offset}`}`,
    messageId: uuid,
  });
}

/** A message's `content`: a string, or content blocks whose text (nested in a tool result's) is joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return recs(content)
    .map((b) => (typeof b.text === 'string' && b.text !== '' ? b.text : textOf(b.content)))
    .filter((t) => t !== '')
    .join('\n');
}

/** An `llm_request`: its last message when that is a user prompt (a tool result's comes as a `tool_call` record). */
function request(s: OpenCodeReviewState, rec: Rec, offset: number, emit: Emit): void {
  const last = recs(rec.messages).at(-1);
  if (last?.role !== 'user') return;
  const text = textOf(last.content);
  if (text === '') return;
  emit(messageEventOf(CODEC_ID, s.sessionId, offset, 'user', text, { timestamp: isoOf(rec.timestamp), nativeId: str(rec.uuid), parentId: str(rec.parentUuid), subtype: str(rec.taskType) }));
}

/** The subtask a record belongs to: its file and task type (README "Records"). */
const subtaskOf = (rec: Rec): string => `${str(rec.filePath) ?? ''}\u0000${str(rec.taskType) ?? ''}`;

function response(s: OpenCodeReviewState, rec: Rec, offset: number, emit: Emit): void {
  const ts = isoOf(rec.timestamp);
  const uuid = str(rec.uuid);
  const text = typeof rec.content === 'string' ? rec.content : '';
  // newer writers add the model's reasoning, when the provider gave any (README "Records")
  const thinking = str(rec.reasoning_content);
  if (text !== '' || thinking !== undefined) emit(messageEventOf(CODEC_ID, s.sessionId, offset, 'assistant', text, { thinking, timestamp: ts, model: str(rec.model), nativeId: uuid, parentId: str(rec.parentUuid), subtype: str(rec.taskType) }));
  const calls: PendingCall[] = [];
  for (const [i, c] of recs(rec.tool_calls).entries()) {
    // a call without an id gets one from its place in the file, which its result then takes
    const call = { id: str(c.id) ?? `${s.sessionId}:${offset}:${i}`, name: str(c.name) ?? '', args: argsText(c.arguments) };
    calls.push(call);
    emit({ type: 'tool_call', agent: CODEC_ID, sessionId: s.sessionId, offset, callId: call.id, name: call.name, input: parseJsonText(c.arguments), ...(ts !== undefined && { timestamp: ts }), ...(uuid !== undefined && { messageId: uuid }) });
  }
  const key = subtaskOf(rec);
  if (calls.length > 0) s.pending[key] = calls;
  else delete s.pending[key];
  responseUsage(s, rec, offset, emit);
}

/**
 * A `tool_call` record names no call id: it answers the first open call of its subtask's last response with its
 * tool's name and the same arguments, else (arguments rewritten or missing) the first with its tool's name. A
 * result that answers none gets an id from its place in the file, so it is never taken for another's.
 */
function toolResult(s: OpenCodeReviewState, rec: Rec, offset: number, emit: Emit): void {
  const name = str(rec.tool_name) ?? '';
  const args = argsText(rec.arguments);
  const key = subtaskOf(rec);
  const open = s.pending[key] ?? [];
  let at = args === undefined ? -1 : open.findIndex((c) => c.name === name && c.args === args);
  if (at === -1) at = open.findIndex((c) => c.name === name);
  const callId = at === -1 ? `${s.sessionId}:${offset}` : open.splice(at, 1)[0]!.id;
  if (open.length === 0) delete s.pending[key];
  const ts = isoOf(rec.timestamp);
  const ms = typeof rec.duration_ms === 'number' && rec.duration_ms > 0 ? rec.duration_ms : undefined;
  emit({ type: 'tool_result', agent: CODEC_ID, sessionId: s.sessionId, offset, callId, toolName: name, output: rec.result ?? null, isError: rec.ok === false, ...(ts !== undefined && { timestamp: ts }), ...(ms !== undefined && { durationMs: ms }) });
}

/** What every record does first: name a stream's session, take the start's fields, open the session. */
function opening(s: OpenCodeReviewState, rec: Rec, offset: number, emit: Emit): void {
  // the file is named after the session; a stream (`-`) has no name, so its records tell
  if (s.sessionId === '') s.sessionId = str(rec.sessionId) ?? '';
  if (rec.type === 'session_start') sessionStart(s, rec);
  if (!s.sessionEmitted) {
    s.sessionEmitted = true;
    emit(sessionEvent(s, offset));
  }
}

/** A response's usage, or the note that it recorded none. */
function responseUsage(s: OpenCodeReviewState, rec: Rec, offset: number, emit: Emit): void {
  const usage = openCodeReviewUsage(s, rec, offset);
  if (usage === undefined) s.unrecorded = true;
  else emit(usage);
}

function record(s: OpenCodeReviewState, rec: Rec, offset: number, emit: Emit): void {
  opening(s, rec, offset, emit);
  switch (rec.type) {
    case 'llm_request':
      return request(s, rec, offset, emit);
    case 'llm_response':
      return response(s, rec, offset, emit);
    case 'tool_call':
      return toolResult(s, rec, offset, emit);
    case 'llm_error': {
      const text = str(rec.error);
      if (text !== undefined) emit(messageEventOf(CODEC_ID, s.sessionId, offset, 'system', text, { timestamp: isoOf(rec.timestamp), nativeId: str(rec.uuid), subtype: 'error' }));
      return;
    }
    case 'session_end':
      s.ended = true;
  }
}

/**
 * A lean read's line (one holding a marker): what `record` does for the session, the usage and the end, and
 * nothing of the conversation. OCR writes `session_start` first (`persist.go` `open`), so the session opens at
 * the same line as in a full read.
 */
function leanLine(s: OpenCodeReviewState, rec: Rec, offset: number, emit: Emit): void {
  opening(s, rec, offset, emit);
  if (rec.type === 'llm_response') responseUsage(s, rec, offset, emit);
  else if (rec.type === 'session_end') s.ended = true;
}

/** The Open Code Review line core. */
export const openCodeReviewCore: LineCore<OpenCodeReviewState> = {
  init(ctx: CoreContext): OpenCodeReviewState {
    const lean = isLeanRead(ctx.options);
    return { file: ctx.file, sessionId: ctx.file === '-' ? '' : openCodeReviewStem(ctx.file), sessionEmitted: false, cwd: undefined, startedAt: undefined, title: undefined, gitBranch: undefined, forkedFrom: undefined, model: undefined, unrecorded: false, ended: false, pending: {}, lean };
  },
  restore(snapshot, ctx) {
    const s = this.init(ctx);
    const o = (isRec(snapshot) ? snapshot : {}) as Partial<OpenCodeReviewState>;
    restoreStrings(s, o, ['sessionId', 'cwd', 'startedAt', 'title', 'gitBranch', 'forkedFrom', 'model']);
    restoreFlags(s, o, ['sessionEmitted', 'unrecorded', 'ended']);
    if (isRec(o.pending)) for (const [k, v] of Object.entries(o.pending)) s.pending[k] = recs(v).map((c) => ({ id: str(c.id) ?? '', name: str(c.name) ?? '', args: typeof c.args === 'string' ? c.args : undefined }));
    return s;
  },
  snapshot: snapshotWithoutFile,
  ...usageGatedJsonLines(CODEC_ID, LEAN_MARKERS, leanLine, record),
  end(s, emit): KindCounts {
    // provisional: a resumed read replaces it, so a session_end written since clears it; a read that wants no
    // session events drops it and its count
    if (!s.sessionEmitted || (s.ended && !s.unrecorded)) return {};
    emit(sessionEvent(s, 0, { usageUnknown: true }));
    return { session: 1 };
  },
};
