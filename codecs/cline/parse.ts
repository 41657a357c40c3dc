/**
 * The document parser of a Cline-family task (cursors/read-document.ts `DocumentParser`): `ui_messages.json`,
 * the task's `ClineMessage[]`, walked one element at a time (walk.ts) into a session event, messages and tool
 * events as they come, and one usage event per `say: "api_req_started"` whose `text` (JSON) carries tokens,
 * emitted last (each request's model is known only once the next request's time is); the calls no request
 * records (a context condensation, Kilo Code's fast apply, a batch of Cline subagents) give their usage as they
 * are read. The task's sibling
 * files give the model, the work dir and (Roo Code) the title (history.ts). README.md has the format, the token
 * semantics and the sources.
 */
import type { NormalizedReadOptions } from '../../cursors/protocol/codec.js';
import type { MessageRole, SessionEvent, SessionfoldEvent, UsageEvent, UsageRecord } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { saneCost, saneCount } from '../../cursors/sane.js';
import { markBefore, readTaskSide, rec, str, tsOf, type Rec, type TaskSide } from './history.js';
import { taskIdOf } from './paths.js';
import { walkElements } from './walk.js';


/** What tells the three extensions' records apart. */
export interface ClineFlavor {
  id: string;
  /**
   * From this time (epoch ms, the release that changed it) `tokensIn` is the whole prompt, cache reads and
   * writes included, for every API protocol (Roo Code 3.29.5, Kilo Code 4.119.0). Undefined: `tokensIn` never
   * includes the cache (Cline).
   */
  inclusiveSince?: number;
  /** Whether `task_metadata.json` `model_usage` names models (Cline). */
  metadataModels: boolean;
  /** Whether an `ask: "tool"` may carry the usage of its fast apply call, `fastApplyResult` (Kilo Code). */
  fastApply?: boolean;
  /** Whether the task folder's `history_item.json` gives the work dir and the title (Roo Code). */
  historyItem?: boolean;
  /** Whether `api_conversation_history.json` may be a `{version: 2, messages}` envelope (Roo Code). */
  apiEnvelope?: boolean;
  /**
   * Whether the task folder may hold `sdk_writeback.json`, whose `baseUiMessageCount` ends the task's own
   * messages: the ones after it were written back from an SDK session, which counts their usage (Cline).
   */
  sdkWriteback?: boolean;
}

/** A parsed JSON text, or undefined when it is not JSON. */
function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

interface ModelName {
  model: string;
  provider?: string;
}

interface Acc {
  flavor: ClineFlavor;
  taskId: string;
  side: TaskSide;
  options: NormalizedReadOptions;
  started: string | undefined;
  /**
   * Every request (those without tokens too: their times bound the others'), waiting for the next one's time;
   * `open`: the text of an `api_req_started` that no `api_req_finished` has completed yet.
   */
  requests: { ts: number; index: number; event: UsageEvent | undefined; own?: ModelName; seen?: ModelName; open?: { info: Rec; protocol: string | undefined } }[];
  lastModel: ModelName | undefined;
  /** The call ids of the last command, MCP and browser tool calls, for the results that follow them. */
  open: Partial<Record<'command' | 'mcp' | 'browser', { id: string; name: string }>>;
}

/** One malformed record of `agent`'s: thrown when strict, else counted and reported (the SDK parser's too). */
export function skipRecord(agent: string, options: NormalizedReadOptions, message: string): void {
  const err = new SessionfoldError('MALFORMED_LINE', message, { agent });
  if (options.strict) throw err;
  options.info.skippedLines++;
  options.onSkip?.(err);
}

const skip = (acc: Acc, message: string): void => skipRecord(acc.flavor.id, acc.options, message);

/** `tokensIn` without the cache, as the flavor and the record's date and protocol say it was written. */
export function uncachedInput(flavor: ClineFlavor, ts: number, tokensIn: number, cache: number, protocol: string | undefined): number {
  if (flavor.inclusiveSince === undefined || tokensIn < cache) return tokensIn;
  if (ts < flavor.inclusiveSince && protocol !== 'openai') return tokensIn;
  return tokensIn - cache;
}

/**
 * The usage event of the UI message at `index`, or none for a message written back from an SDK session (from
 * `sdk_writeback.json`'s `baseUiMessageCount` on): it is shown, but its usage is that session's (README.md).
 */
function usageAt(acc: Acc, index: number, fields: UsageRecord): UsageEvent | undefined {
  const base = acc.side.writebackBase;
  return base !== undefined && index >= base ? undefined : usageEventOf(acc.flavor.id, acc.taskId, index, fields);
}

/** The JSON object of a request message's text: `{}` without text; undefined (one skipped record) when broken. */
function requestInfo(acc: Acc, m: Rec, ts: number): Rec | undefined {
  if (typeof m.text !== 'string' || m.text.trim() === '') return {};
  const info = rec(parseJson(m.text));
  if (info === undefined) skip(acc, `${acc.taskId}: ${String(m.say)} at ${ts} has no JSON object in its text`);
  return info;
}

/**
 * The usage of one `api_req_started` message, or of the summary a checkpoint restore leaves of the requests it
 * deleted (Cline's `deleted_api_reqs`, Roo Code's and Kilo Code's `api_req_deleted`); undefined when it carries none.
 */
function requestUsage(acc: Acc, info: Rec, protocol: string | undefined, ts: number, index: number, single: boolean): UsageEvent | undefined {
  let counts: { tokensIn: number; out: number; read: number; write: number; cost: number | undefined };
  try {
    counts = { tokensIn: saneCount(info.tokensIn, 'tokensIn'), out: saneCount(info.tokensOut, 'tokensOut'), read: saneCount(info.cacheReads, 'cacheReads'), write: saneCount(info.cacheWrites, 'cacheWrites'), cost: saneCost(info.cost, 'cost') };
  } catch (e) {
    skip(acc, `${acc.taskId}: ${(e as Error).message}`);
    return undefined;
  }
  // A request is written first as a placeholder without counts and filled in when its stream ends.
  if (counts.tokensIn + counts.out + counts.read + counts.write === 0 && !(counts.cost! > 0)) return undefined;
  // The model is known only once the task is read (`finish`): 'unknown' stands in, not as a fallback.
  return usageAt(acc, index, {
    model: 'unknown',
    timestamp: new Date(ts).toISOString(),
    inputTokens: uncachedInput(acc.flavor, ts, counts.tokensIn, counts.read + counts.write, protocol),
    outputTokens: counts.out,
    cacheReadTokens: counts.read,
    cacheWriteTokens: counts.write,
    costUsd: counts.cost !== undefined && counts.cost > 0 ? counts.cost : undefined,
    singleRequest: single,
    dedupKey: `${acc.flavor.id}:${acc.taskId}:${ts}`,
  });
}

/**
 * A usage event of a call that is no `api_req_started` request, under a dedup key of its own (`<agent>:<task>:
 * <ts>:<what>`): no request's model stands for its own (undefined: `unknown`), so it is emitted as it is read,
 * not held for `finish`.
 */
function sideUsage(acc: Acc, ts: number, index: number, what: string, counts: { input: number; output: number; cost: number | undefined }, model?: string): UsageEvent | undefined {
  return usageAt(acc, index, {
    model,
    timestamp: new Date(ts).toISOString(),
    inputTokens: counts.input,
    outputTokens: counts.output,
    costUsd: counts.cost !== undefined && counts.cost > 0 ? counts.cost : undefined,
    singleRequest: true,
    dedupKey: `${acc.flavor.id}:${acc.taskId}:${ts}:${what}`,
  });
}

/** The cost of a context condensation (`contextCondense.cost`, the summarising call), as a usage without tokens. */
function condenseUsage(acc: Acc, m: Rec, ts: number, index: number): UsageEvent | undefined {
  let cost: number | undefined;
  try {
    cost = saneCost(rec(m.contextCondense)?.cost, 'contextCondense.cost');
  } catch (e) {
    skip(acc, `${acc.taskId}: ${(e as Error).message}`);
    return undefined;
  }
  return cost !== undefined && cost > 0 ? sideUsage(acc, ts, index, 'condense', { input: 0, output: 0, cost }) : undefined;
}

/**
 * The usage of a batch of Cline subagents (`say: "subagent_usage"`, `ClineSubagentUsageInfo`): the sums of their
 * own requests, which run in their own conversation and leave no `api_req_started` in the task, so they count
 * here once, as one span. It names no model (a subagent's config may set its own), so it is `unknown`.
 */
function subagentUsage(acc: Acc, m: Rec, ts: number, index: number): UsageEvent | undefined {
  const info = requestInfo(acc, m, ts);
  const event = info === undefined ? undefined : requestUsage(acc, info, undefined, ts, index, false);
  return event === undefined ? undefined : { ...event, modelFallback: true, dedupKey: `${event.dedupKey}:subagents` };
}

/** The model a fast apply's `description` names on its first line, `Fast Apply Edit (<model>)`. */
const FAST_APPLY_MODEL = /^Fast Apply Edit \(([^()\n]+)\)/;

/** The usage of a Kilo Code fast apply call (`fastApplyResult` in an `ask: "tool"` text); undefined when none. */
function fastApplyUsage(acc: Acc, body: unknown, ts: number, index: number): UsageEvent | undefined {
  const fa = rec(rec(body)?.fastApplyResult);
  if (fa === undefined) return undefined;
  let counts: { input: number; output: number; cost: number | undefined };
  try {
    counts = { input: saneCount(fa.tokensIn, 'fastApplyResult.tokensIn'), output: saneCount(fa.tokensOut, 'fastApplyResult.tokensOut'), cost: saneCost(fa.cost, 'fastApplyResult.cost') };
  } catch (e) {
    skip(acc, `${acc.taskId}: ${(e as Error).message}`);
    return undefined;
  }
  if (counts.input + counts.output === 0 && !(counts.cost! > 0)) return undefined;
  const model = FAST_APPLY_MODEL.exec(str(fa.description) ?? '')?.[1];
  return sideUsage(acc, ts, index, 'fastApply', counts, model);
}

/**
 * Claude Dev (Cline 1.x) wrote a request's counts in a separate `say: "api_req_finished"` after its
 * `api_req_started`; Cline's `combineApiRequests` merges the finished text over the started one. So does this,
 * into the last request when it is a started one not yet finished; a finished message with no such request is
 * dropped, as Cline drops it.
 */
function finishRequest(acc: Acc, m: Rec, ts: number): void {
  const r = acc.requests[acc.requests.length - 1];
  const open = r?.open;
  if (r === undefined || open === undefined) return;
  const done = requestInfo(acc, m, ts);
  if (done === undefined) return;
  const info = { ...open.info, ...done };
  r.open = undefined;
  r.event = requestUsage(acc, info, str(info.apiProtocol) ?? open.protocol, r.ts, r.index, true) ?? r.event;
}

/** The tool call a message stands for, if any: [kind, name, input]. */
function toolOf(kind: string, m: Rec): [('command' | 'mcp' | 'browser') | undefined, string, unknown] | undefined {
  switch (kind) {
    case 'tool': {
      const body = parseJson(m.text);
      return [undefined, str(rec(body)?.tool) ?? 'tool', body ?? m.text ?? null];
    }
    case 'command':
      return ['command', 'execute_command', { command: m.text ?? '' }];
    case 'use_mcp_server': {
      const body = parseJson(m.text);
      const b = rec(body);
      return ['mcp', `mcp__${str(b?.serverName) ?? 'unknown'}__${str(b?.toolName) ?? str(b?.uri) ?? 'unknown'}`, body ?? null];
    }
    case 'browser_action_launch':
      return ['browser', 'browser_action', { action: 'launch', url: m.text ?? '' }];
    case 'browser_action':
      return ['browser', 'browser_action', parseJson(m.text) ?? m.text ?? null];
    default:
      return undefined;
  }
}

const RESULTS: Record<string, 'command' | 'mcp' | 'browser'> = { command_output: 'command', mcp_server_response: 'mcp', browser_action_result: 'browser' };

/** A message event's role and text for a `say`/`ask` kind, or undefined when the kind is no message. */
function messageOf(kind: string, m: Rec): { role: MessageRole; text: string; thinking?: string; subtype?: string } | undefined {
  const text = typeof m.text === 'string' ? m.text : '';
  switch (kind) {
    case 'task':
    case 'user_feedback':
      return { role: 'user', text };
    case 'text':
    case 'completion_result':
      return text === '' ? undefined : { role: 'assistant', text };
    case 'reasoning':
      return { role: 'assistant', text: '', thinking: text };
    case 'followup':
      return { role: 'assistant', text: str(rec(parseJson(text))?.question) ?? text };
    case 'plan_mode_respond':
      return { role: 'assistant', text: str(rec(parseJson(text))?.response) ?? text };
    case 'error':
    case 'api_req_failed':
    case 'mistake_limit_reached':
      return { role: 'system', text, subtype: 'error' };
    default:
      return undefined;
  }
}

/** The events of one UI message (the usage of a request is held back, see `finish`). */
function* elementEvents(acc: Acc, m: Rec, index: number): Generator<SessionfoldEvent> {
  const ts = tsOf(m.ts);
  if (ts === undefined) return;
  const said = m.type === 'say' ? str(m.say) : m.type === 'ask' ? str(m.ask) : undefined;
  if (said === undefined) return;
  // Roo Code, Kilo Code and early Cline say the task as `text`; only the first message can be it.
  const kind = index === 0 && said === 'text' ? 'task' : said;
  const info = rec(m.modelInfo);
  const modelId = str(info?.modelId);
  const providerId = str(info?.providerId);
  const own: ModelName | undefined = modelId === undefined ? undefined : { model: modelId, ...(providerId !== undefined && { provider: providerId }) };
  if (own !== undefined) acc.lastModel = own;
  const base = { agent: acc.flavor.id, sessionId: acc.taskId, offset: index };
  const timestamp = new Date(ts).toISOString();
  if (m.type === 'say' && (kind === 'api_req_started' || kind === 'deleted_api_reqs' || kind === 'api_req_deleted')) {
    const single = kind === 'api_req_started';
    const info = requestInfo(acc, m, ts);
    const protocol = str(info?.apiProtocol) ?? str(m.apiProtocol);
    const event = info === undefined ? undefined : requestUsage(acc, info, protocol, ts, index, single);
    const open = single && info !== undefined ? { open: { info, protocol } } : undefined;
    acc.requests.push({ ts, index, event, ...(own !== undefined && { own }), ...(acc.lastModel !== undefined && { seen: acc.lastModel }), ...open });
    return;
  }
  if (m.type === 'say' && kind === 'api_req_finished') {
    finishRequest(acc, m, ts);
    return;
  }
  if (m.type === 'say' && kind === 'subagent_usage') {
    const usage = subagentUsage(acc, m, ts, index);
    if (usage !== undefined) yield usage;
    return;
  }
  if (m.type === 'say' && kind === 'condense_context') {
    const usage = condenseUsage(acc, m, ts, index);
    if (usage !== undefined) yield usage;
    return;
  }
  const msg = messageOf(kind, m);
  if (msg !== undefined) yield { type: 'message', ...base, ...msg, timestamp, nativeId: String(ts) };
  const tool = toolOf(kind, m);
  if (tool !== undefined) {
    const [slot, name, input] = tool;
    const callId = `${acc.taskId}:${ts}`;
    if (slot !== undefined) acc.open[slot] = { id: callId, name };
    yield { type: 'tool_call', ...base, callId, name, input, timestamp };
    if (acc.flavor.fastApply && m.type === 'ask' && kind === 'tool') {
      const usage = fastApplyUsage(acc, input, ts, index);
      if (usage !== undefined) yield usage;
    }
  }
  const resultOf = RESULTS[kind];
  const call = resultOf === undefined ? undefined : acc.open[resultOf];
  if (call !== undefined) yield { type: 'tool_result', ...base, callId: call.id, toolName: call.name, output: m.text ?? null, isError: false, timestamp };
}

/**
 * The usage events, each with its model: the request's own `modelInfo`; else the last `model_usage` mark at
 * or before its start (Cline stamps it as the request begins); else the last model a prompt names before the
 * next request began (Roo Code and Kilo Code add the prompt after the request's message); else the last
 * `modelInfo` of a message before it.
 */
function* finish(acc: Acc): Generator<UsageEvent> {
  const reqs = acc.requests;
  for (let i = 0; i < reqs.length; i++) {
    const r = reqs[i]!;
    if (r.event === undefined) continue;
    const next = i + 1 < reqs.length ? reqs[i + 1]!.ts : Infinity;
    const mark = r.own ?? markBefore(acc.side.metadataModels, r.ts, true) ?? markBefore(acc.side.promptModels, next) ?? r.seen;
    const model = mark?.model;
    // Every field set in place of the copy's own (the event's one shape: blankUsageEvent's).
    yield { ...r.event, model: model ?? 'unknown', modelFallback: model === undefined || undefined, provider: mark?.provider };
  }
}

/**
 * The session event; a title `history_item.json` gives comes before the task's text. A subtask (Roo Code's
 * `new_task`, whose `history_item.json` names its parent) is a subagent of its parent, one level down when its
 * parent is the root of the chain; its requests are its own, in its own `ui_messages.json`, so its usage is too.
 */
function sessionOf(acc: Acc, title: string | undefined): SessionEvent {
  const parent = acc.side.parentTaskId !== acc.taskId ? acc.side.parentTaskId : undefined;
  return sessionEventOf(acc.flavor.id, acc.taskId, 0, {
    cwd: acc.side.cwd,
    startedAt: acc.started,
    title: titleLine(acc.side.title) ?? title,
    forkedFrom: parent,
    subagent: parent !== undefined || undefined,
    spawnDepth: parent !== undefined && acc.side.rootTaskId === parent ? 1 : undefined,
  });
}

/** The first line of a text, at most 200 characters, as a title. */
export function titleLine(text: string | undefined): string | undefined {
  const line = text?.trim().split('\n')[0]?.trim() ?? '';
  return line === '' ? undefined : line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** The first line of a task's text as its title. */
function titleOf(m: Rec): string | undefined {
  if (m.type !== 'say' || (m.say !== 'task' && m.say !== 'text') || typeof m.text !== 'string') return undefined;
  return titleLine(m.text);
}

/** The document parser of one flavor's `ui_messages.json`. */
export function createClineParser(flavor: ClineFlavor) {
  return function* parseClineTask(file: string, chunks: () => Generator<Buffer>, options: NormalizedReadOptions): Generator<SessionfoldEvent> {
    const acc: Acc = { flavor, taskId: taskIdOf(file), side: readTaskSide(file, options.bufferSize, { metadata: flavor.metadataModels, historyItem: flavor.historyItem === true, apiEnvelope: flavor.apiEnvelope === true, writeback: flavor.sdkWriteback === true }), options, started: undefined, requests: [], lastModel: undefined, open: {} };
    const out: unknown[] = [];
    let index = 0;
    let opened = false;
    try {
      for (const _ of walkElements(chunks(), undefined, out)) {
        for (const raw of out.splice(0)) {
          const m = rec(raw);
          if (!opened && m !== undefined) {
            const ts = tsOf(m.ts);
            acc.started = ts === undefined ? undefined : new Date(ts).toISOString();
            opened = true;
            yield sessionOf(acc, index === 0 ? titleOf(m) : undefined);
          }
          if (m !== undefined) yield* elementEvents(acc, m, index);
          index++;
        }
      }
    } catch (err) {
      // A document cut short (the extension died mid-write) keeps its messages; the usage of the requests read
      // before the break comes out too, before the error (cursors/read-document.ts).
      yield* finish(acc);
      throw err;
    }
    if (!opened) yield sessionOf(acc, undefined);
    yield* finish(acc);
  };
}
