/**
 * The OpenHands conversation parser (cursors/read-document.ts `DocumentParser`) over a conversation's
 * `base_state.json`, the document read in chunks, and its `events/` folder beside it (README.md has the format).
 *
 * 1. The state: the document read whole (JSON.parse); the usage from its `stats`
 *    (stats.ts). A state that does not parse (rewritten while read) is one skipped record: the conversation is
 *    still read, its usage unknown.
 * 2. A pass over the event files for what the usage needs: the events that carry an `llm_response_id` (the call
 *    whose response made them, and its time) and the first event's time. Files without that marker are not
 *    parsed.
 * 3. `session` (offset 0), then, when the read wants the conversation, each event file's events (convert.ts; an
 *    event's offset is its index in the log), each call's `usage` right after the first event its response made,
 *    and the usage that no event names last.
 */
import type { NormalizedReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { lineSkipper } from '../../cursors/core.js';
import { documentText } from '../../cursors/read-document.js';
import { eventEvents } from './convert.js';
import { listEventFiles, mtimeOf, parseEventText, readEventText, type EventFile } from './events.js';
import { CODEC_ID, conversationIdOf, eventsDirOf } from './paths.js';
import { kindOf, modelName, rec, str, type Rec } from './schema.js';
import { bucketsOf, readStats, type Call, type Stats, type Total } from './stats.js';
import { instantOf, isoOf, writerOffsetMs } from './time.js';

const RESPONSE_MARKER = '"llm_response_id"';

/** What the pass over the event files found. */
interface EventIndex {
  /** The first event's time, as written. */
  firstTime: unknown;
  /** Per response id, the first event it made: its index and time as written. */
  made: Map<string, { idx: number; time: unknown }>;
  /** The response ids of the agent's own events (actions and messages), which its LLM's stats should name. */
  agentResponses: Set<string>;
  /** Files that could not be read or parsed. */
  unreadable: string[];
}

/**
 * The state object; undefined (one skipped record) when the document does not parse or is not an object. Read
 * whole with JSON.parse (cursors/read-document.ts `documentText`): every top-level key of it is needed, so a
 * walk of it key by key held as much, at several times the CPU. A leading BOM is dropped, as the walk did.
 */
function readState(chunks: () => Generator<Buffer>, skip: (e: SessionfoldError) => void, file: string): Rec | undefined {
  try {
    const text = documentText(chunks());
    const state = rec(JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
    if (state === undefined) throw new Error('the document is not a JSON object');
    return state;
  } catch (e) {
    skip(new SessionfoldError('MALFORMED_LINE', `${file}: ${(e as Error).message}`, { agent: CODEC_ID, file }));
    return undefined;
  }
}

function indexEvents(files: readonly EventFile[]): EventIndex {
  const out: EventIndex = { firstTime: undefined, made: new Map(), agentResponses: new Set(), unreadable: [] };
  for (const f of files) {
    const text = readEventText(f);
    const wanted = out.firstTime === undefined || (typeof text === 'string' && text.includes(RESPONSE_MARKER));
    if (!wanted) continue;
    const r = parseEventText(text);
    if (r instanceof Error) {
      out.unreadable.push(`${f.path}: ${r.message}`);
      continue;
    }
    out.firstTime ??= r.timestamp;
    const id = str(r.llm_response_id);
    if (id === undefined) continue;
    if (!out.made.has(id)) out.made.set(id, { idx: f.idx, time: r.timestamp });
    const kind = kindOf(r);
    if (kind === 'ActionEvent' || (kind === 'MessageEvent' && r.source === 'agent')) out.agentResponses.add(id);
  }
  return out;
}

/** The writer's zone offset, from the calls whose cost record and event both tell their time (time.ts). */
function offsetOf(stats: Stats, index: EventIndex): number {
  const pairs: [number, number][] = [];
  for (const c of stats.calls) {
    const made = index.made.get(c.responseId);
    const asUtc = made === undefined ? undefined : instantOf(made.time, 0);
    if (c.recordedAt !== undefined && asUtc !== undefined) pairs.push([asUtc, c.recordedAt]);
  }
  return writerOffsetMs(pairs);
}

interface Conversation {
  sessionId: string;
  agentModel: string | undefined;
  offsetMs: number;
  /** The time of the conversation's first event, else of its state file: the date of usage no call dates. */
  fallbackMs: number | undefined;
  /** Where usage no event names goes: past the last event. */
  tail: number;
}

/** Each call's time: its cost record's, else its first event's, else the nearest call's of its list that has one. */
function callTimes(calls: readonly Call[], index: EventIndex, offsetMs: number): (number | undefined)[] {
  const own = calls.map((c) => c.recordedAt ?? instantOf(index.made.get(c.responseId)?.time, offsetMs));
  return own.map((t, i) => {
    if (t !== undefined) return t;
    const same = (j: number) => calls[j]?.usageId === calls[i]?.usageId && own[j] !== undefined;
    for (let j = i - 1; j >= 0; j--) if (same(j)) return own[j];
    for (let j = i + 1; j < calls.length; j++) if (same(j)) return own[j];
    return undefined;
  });
}

/** What a usage event says beyond its place: a call's or a total's. */
interface Spent {
  model: string | undefined;
  tokens: Call['tokens'];
  dedupKey: string;
  costUsd?: number | undefined;
  responseId?: string;
}

function usageOf(c: Conversation, offset: number, time: number | undefined, s: Spent, single: boolean): UsageEvent {
  return usageEventOf(CODEC_ID, c.sessionId, offset, {
    model: s.model ?? c.agentModel,
    modelFallback: s.model === undefined && c.agentModel !== undefined ? true : undefined,
    timestamp: isoOf(time ?? c.fallbackMs),
    ...bucketsOf(s.tokens),
    costUsd: s.costUsd,
    singleRequest: single,
    dedupKey: s.dedupKey,
    messageId: s.responseId === '' ? undefined : s.responseId,
  });
}

/** The usage events, by offset: each call at its first event's index, the rest past the last event. */
function usageEvents(c: Conversation, stats: Stats, index: EventIndex): UsageEvent[] {
  const times = callTimes(stats.calls, index, c.offsetMs);
  const out = stats.calls.map((call, i) => usageOf(c, index.made.get(call.responseId)?.idx ?? c.tail, times[i], call, true));
  for (const t of stats.totals as Total[]) out.push(usageOf(c, c.tail, undefined, t, false));
  return out.map((e, i) => [e, i] as const).sort((a, b) => a[0].offset - b[0].offset || a[1] - b[1]).map(([e]) => e);
}

/**
 * Whether the state leaves some of the conversation's usage out: a record refused, a state not read while the
 * agent answered, or an answer of the agent's LLM whose response id no list of the stats names (the state is
 * saved less often than events are written). Not looked for when some usage id holds a total beyond its calls
 * (the calls it lost had ids of their own) nor for an ACP agent (its events name no call of its stats).
 */
function usageUnknown(state: Rec | undefined, stats: Stats, index: EventIndex): boolean {
  if (stats.refused.length > 0) return true;
  if (index.agentResponses.size === 0) return false;
  if (state === undefined || (stats.calls.length === 0 && stats.totals.length === 0)) return true;
  // a total beyond the calls is the usage of calls the lists lost; their ids cannot be looked for
  if (!stats.itemized || stats.totals.length > 0 || kindOf(rec(state.agent) ?? {}) === 'ACPAgent') return false;
  for (const id of index.agentResponses) if (!stats.recorded.has(id)) return true;
  return false;
}

/** The document parser of an OpenHands conversation's `base_state.json`. */
export function* parseOpenHandsConversation(file: string, chunks: () => Generator<Buffer>, options: NormalizedReadOptions): Generator<SessionfoldEvent> {
  const skip = lineSkipper(options, file);
  const sessionId = conversationIdOf(file);
  const state = readState(chunks, skip, file);
  const files = listEventFiles(eventsDirOf(file));
  const index = indexEvents(files);
  const stats = readStats(state, sessionId);
  for (const why of stats.refused) skip(new SessionfoldError('MALFORMED_LINE', `${file}: ${why}`, { agent: CODEC_ID, file }));
  // with the conversation, the second pass counts the files it cannot read; without it, this one does
  if (!options.conversation) for (const why of index.unreadable) skip(new SessionfoldError('MALFORMED_LINE', why, { agent: CODEC_ID, file }));
  const offsetMs = offsetOf(stats, index);
  const agent = rec(state?.agent);
  const startMs = instantOf(index.firstTime, offsetMs);
  const c: Conversation = {
    sessionId,
    agentModel: modelName(rec(agent?.llm)?.model),
    offsetMs,
    fallbackMs: startMs ?? mtimeOf(file),
    tail: files.length === 0 ? 0 : (files[files.length - 1] as EventFile).idx + 1,
  };
  yield sessionEventOf(CODEC_ID, sessionId, 0, {
    cwd: str(rec(state?.workspace)?.working_dir),
    startedAt: isoOf(startMs),
    title: str(rec(state?.tags)?.title),
    model: c.agentModel,
    usageUnknown: usageUnknown(state, stats, index) || undefined,
  });
  const usage = usageEvents(c, stats, index);
  let u = 0;
  if (options.conversation) {
    const models = new Map(stats.calls.map((call) => [call.responseId, call.model]));
    const modelOf = (id: string | undefined) => (id === undefined ? undefined : models.get(id));
    const acpCalls = new Set<string>();
    const acpResults = new Set<string>();
    for (const f of files) {
      const r = parseEventText(readEventText(f));
      if (r instanceof Error) skip(new SessionfoldError('MALFORMED_LINE', `${f.path}: ${r.message}`, { agent: CODEC_ID, file }));
      else yield* eventEvents(r, { sessionId, idx: f.idx, timestamp: isoOf(instantOf(r.timestamp, offsetMs)), modelOf, acpCalls, acpResults });
      while (u < usage.length && (usage[u] as UsageEvent).offset <= f.idx) yield usage[u++] as UsageEvent;
    }
  }
  while (u < usage.length) yield usage[u++] as UsageEvent;
}
