/**
 * The Auggie session parser (cursors/read-document.ts `DocumentParser`): a session document
 * `{sessionId, created, modified, agentState: {modelId}, customTitle?, chatHistory: [turn…]}`, rewritten whole
 * on every save (README "Format"). Top-level keys are assembled one by one and `chatHistory` one turn at a
 * time (cursors/object-walk.ts); a turn's offset is its index in `chatHistory`.
 *
 * - `session` when `chatHistory` begins (id, start, title, model of the keys read so far), and again at the end
 *   when what it says changed: keys after the turns, the working folder the turns named, a usage flag.
 * - Per turn: `tool_result` per `tool_result_node` of its request nodes (results of the previous turn's calls),
 *   `message` (user) for `request_message`, `message` (assistant) for `response_text`, `tool_call` per
 *   `tool_use` response node, `usage` for its `token_usage` (README "Tokens"). A read that wants none of
 *   messages, tool calls and results (a cost scan) builds none, nor parses a tool call's `input_json`.
 * - After the turns, the keys Auggie writes after them: `usage` per turn of each `subAgents[].chatHistory` and
 *   per `summarizations[]` record (history summary calls), offsets counting on from the last turn's.
 */
import type { NormalizedReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent, SessionFields, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { lineSkipper, parseJsonText } from '../../cursors/core.js';
import { newObjectWalk, walkObject } from '../../cursors/object-walk.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { saneCount } from '../../cursors/sane.js';
import { isoOf, rec, recs, str, type JsonRecord } from '../../cursors/json-value.js';
import { auggieSessionIdOf, CODEC_ID } from './paths.js';

type Rec = JsonRecord;

interface Session {
  sessionId: string;
  /** `agentState.modelId`: the session's model, for a turn that names none. */
  model: string | undefined;
  cwd: string | undefined;
  withUsage: number;
  withoutUsage: number;
  /** Whether the read wants messages, tool calls or results: a read of sessions and usage builds none of them. */
  conversation: boolean;
  /** Counts a turn whose usage was refused (an absurd count) as a skipped record. */
  skip: (err: SessionfoldError) => void;
  /**
   * Usage of turns that name no model, held while `agentState` (the session's model) is still to come: Auggie
   * writes it after the turns. Undefined once the model is known, or where `agentState` came first.
   */
  awaitingModel: UsageEvent[] | undefined;
}

/** The usage event of one `token_usage`-shaped object; undefined when it holds no token, MALFORMED_LINE for an absurd count. */
function usageOf(sessionId: string, u: Rec, index: number, timestamp: string | undefined, own: string | undefined, fallback: string | undefined, requestId: string | undefined): UsageEvent | undefined {
  const input = saneCount(u.input_tokens, 'input_tokens');
  const output = saneCount(u.output_tokens, 'output_tokens');
  const cacheRead = saneCount(u.cache_read_input_tokens, 'cache_read_input_tokens');
  const cacheWrite = saneCount(u.cache_creation_input_tokens, 'cache_creation_input_tokens');
  if (input + output + cacheRead + cacheWrite === 0) return undefined;
  return usageEventOf(CODEC_ID, sessionId, index, {
    model: own ?? fallback,
    modelFallback: own === undefined,
    timestamp,
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    singleRequest: true,
    // the request id is Augment's own for the model request; a turn without one is keyed by its place
    dedupKey: requestId !== undefined ? `${CODEC_ID}:req:${requestId}` : `${CODEC_ID}:${sessionId}:turn:${index}`,
    messageId: requestId,
  });
}

/**
 * The usage of one turn's exchange: the first response node whose `token_usage` holds a token (Auggie itself
 * reads the first usage node of a turn, README "Tokens"). Undefined without one; MALFORMED_LINE when a count is
 * not a sane one (the turn's usage is refused, not read as 0).
 */
export function exchangeUsage(sessionId: string, ex: Rec, index: number, timestamp: string | undefined, sessionModel: string | undefined): UsageEvent | undefined {
  for (const node of recs(ex.response_nodes)) {
    const u = rec(node.token_usage);
    const e = u === undefined ? undefined : usageOf(sessionId, u, index, timestamp, str(ex.model_id), sessionModel, str(ex.request_id));
    if (e !== undefined) return e;
  }
  return undefined;
}

/**
 * The working folder a request's IDE state node names: its terminal's, else its first workspace folder's
 * repository or folder root (where Auggie's own session listing looks), else those roots on the node itself
 * (aitracker's reading).
 */
function cwdOf(ex: Rec): string | undefined {
  let cwd: string | undefined;
  for (const node of recs(ex.request_nodes)) {
    const ide = rec(node.ide_state_node);
    if (ide === undefined) continue;
    const folder = recs(ide.workspace_folders)[0] ?? ide;
    cwd = str(rec(ide.current_terminal)?.current_working_directory) ?? str(folder.repository_root) ?? str(folder.folder_root) ?? cwd;
  }
  return cwd;
}

function* turnEvents(s: Session, turn: Rec, index: number): Generator<SessionfoldEvent> {
  const ex = rec(turn.exchange);
  if (ex === undefined) return;
  const timestamp = isoOf(turn.finishedAt);
  const base = { agent: CODEC_ID, sessionId: s.sessionId, offset: index, ...(timestamp !== undefined && { timestamp }) };
  s.cwd = cwdOf(ex) ?? s.cwd;
  if (s.conversation) yield* conversationEvents(s, ex, base);
  yield* turnUsage(s, ex, index, timestamp, s.model);
}

/**
 * A turn's usage event, when it has one. An absurd count refuses it: that turn is a skipped record (counted;
 * PARSE_ERROR when strict), its text and tool calls still read, and the session's usage a lower bound, as it is
 * when a turn that answered has no tokens.
 */
function* turnUsage(s: Session, ex: Rec, index: number, timestamp: string | undefined, model: string | undefined): Generator<UsageEvent> {
  const usage = counted(s, index, () => exchangeUsage(s.sessionId, ex, index, timestamp, model));
  if (usage === 'refused') s.withoutUsage++;
  else if (usage !== undefined) {
    s.withUsage++;
    if (model === undefined && usage.modelFallback === true && s.awaitingModel !== undefined) s.awaitingModel.push(usage);
    else yield usage;
  } else if (str(ex.response_text) !== undefined || recs(ex.response_nodes).length > 0) s.withoutUsage++;
}

/** `read()`, or 'refused' when a count in it is absurd (skipped through the session's skipper). */
function counted(s: Session, index: number, read: () => UsageEvent | undefined): UsageEvent | 'refused' | undefined {
  try {
    return read();
  } catch (e) {
    if (!(e instanceof SessionfoldError) || e.code !== 'MALFORMED_LINE') throw e;
    s.skip(new SessionfoldError('MALFORMED_LINE', `${s.sessionId}: turn ${index}: ${e.message}`, { agent: CODEC_ID }));
    return 'refused';
  }
}

/**
 * The usage Auggie keeps after the turns (written only where its `cliRecordSummarizationsAndSubagents` flag is
 * on): each sub-agent's turns (`subAgents[].chatHistory`, the sub-agent's `model` for a turn that names none) and
 * each history summary call (`summarizations[]`, one flat usage record with its `request_id`). Offsets count on
 * from `index`, the first after the session's turns.
 */
function* trailingUsage(s: Session, meta: Rec, index: number): Generator<UsageEvent> {
  for (const agent of recs(meta.subAgents)) {
    const model = str(agent.model) ?? s.model;
    for (const t of recs(agent.chatHistory)) {
      const ex = rec(t.exchange);
      if (ex !== undefined) yield* turnUsage(s, ex, index, isoOf(t.finishedAt), model);
      index++;
    }
  }
  for (const r of recs(meta.summarizations)) {
    const i = index++;
    const usage = counted(s, i, () => usageOf(s.sessionId, r, i, isoOf(r.finishedAt), str(r.model), s.model, str(r.request_id)));
    if (usage === 'refused') s.withoutUsage++;
    else if (usage !== undefined) yield usage;
  }
}

/** A turn's tool results (its request's), prompt, answer and tool calls. */
function* conversationEvents(s: Session, ex: Rec, base: { agent: string; sessionId: string; offset: number; timestamp?: string }): Generator<SessionfoldEvent> {
  for (const node of recs(ex.request_nodes)) {
    const r = rec(node.tool_result_node);
    const callId = str(r?.tool_use_id);
    if (r !== undefined && callId !== undefined) yield { type: 'tool_result', ...base, callId, output: r.content ?? null, isError: r.is_error === true };
  }
  const requestId = str(ex.request_id);
  const prompt = str(ex.request_message);
  if (prompt !== undefined) yield { type: 'message', ...base, role: 'user', text: prompt, ...(requestId !== undefined && { nativeId: requestId }) };
  const answer = str(ex.response_text);
  const model = str(ex.model_id) ?? s.model;
  if (answer !== undefined) yield { type: 'message', ...base, role: 'assistant', text: answer, ...(model !== undefined && { model }), ...(requestId !== undefined && { nativeId: requestId }) };
  for (const node of recs(ex.response_nodes)) {
    const call = rec(node.tool_use);
    const callId = str(call?.tool_use_id);
    if (call !== undefined && callId !== undefined) yield { type: 'tool_call', ...base, callId, name: str(call.tool_name) ?? '', input: parseJsonText(call.input_json), ...(requestId !== undefined && { messageId: requestId }) };
  }
}

function fields(meta: Rec, s: Session, extra: SessionFields = {}): SessionFields {
  // `customTitle` is the user's or the generated one; `title` the one a sync to a workspace gave
  return { cwd: s.cwd, startedAt: isoOf(meta.created), title: str(meta.customTitle) ?? str(meta.title), model: s.model, ...extra };
}

/** The document parser of an Auggie session file. */
export function* parseAuggieSession(file: string, chunks: () => Generator<Buffer>, options: NormalizedReadOptions): Generator<SessionfoldEvent> {
  const w = newObjectWalk('chatHistory');
  const s: Session = { sessionId: auggieSessionIdOf(file), model: undefined, cwd: undefined, withUsage: 0, withoutUsage: 0, conversation: options.conversation, skip: lineSkipper(options, file), awaitingModel: undefined };
  let first: string | undefined;
  let index = 0;
  try {
    for (const _ of walkObject(chunks(), w)) {
      if (first === undefined && (w.atArray !== undefined || w.done)) {
        const meta = w.atArray ?? w.meta;
        s.sessionId = str(meta.sessionId) ?? s.sessionId;
        s.model = str(rec(meta.agentState)?.modelId);
        if (meta.agentState === undefined) s.awaitingModel = [];
        const e = sessionEventOf(CODEC_ID, s.sessionId, 0, fields(meta, s));
        first = JSON.stringify(e);
        yield e;
      }
      for (const turn of w.items.splice(0)) {
        const t = rec(turn);
        if (t !== undefined) yield* turnEvents(s, t, index);
        index++;
      }
    }
  } catch (e) {
    // a document cut short never reaches its `agentState`: the turns read keep their usage, of no known model
    yield* s.awaitingModel?.splice(0) ?? [];
    throw e;
  }
  s.model ??= str(rec(w.meta.agentState)?.modelId);
  for (const e of s.awaitingModel?.splice(0) ?? []) yield s.model === undefined ? e : { ...e, model: s.model };
  s.awaitingModel = undefined;
  yield* trailingUsage(s, w.meta, index);
  // a turn that answered without its tokens leaves the session's usage a lower bound (none at all: unknown too)
  const flag = s.withoutUsage > 0 ? { usageUnknown: true } : {};
  const late = sessionEventOf(CODEC_ID, s.sessionId, 0, fields(w.meta, s, flag));
  if (JSON.stringify(late) !== first) yield late;
}
