/**
 * The Junie engine: a pure, synchronous LineCore (no I/O) over a session's `events.jsonl`, one event per line,
 * each with a top-level `kind` and `timestampMs` (README.md has the format and its sources).
 *
 * - `session` at the first record (id: the session folder's name; start: its `timestampMs`), again when a
 *   `CurrentDirectoryUpdatedEvent` names a new working directory.
 * - `message` (user) per `UserPromptEvent`; `message` (assistant) per task result: the
 *   `ResultBlockUpdatedEvent` that carries the task's `completion`, once per `stepId`.
 * - `usage` per `modelUsage` entry of a `LlmResponseMetadataEvent`: one LLM call each, its buckets apart
 *   (README "Tokens"), with Junie's own `cost` as `costUsd` when above 0.
 *
 * Everything else (tool and thought blocks, context-window reports, task state) yields nothing.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { hasAnyMarker, parseJsonObject, restoreFlags, restoreStrings } from '../../cursors/core.js';
import type { KindCounts, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { saneCost, saneCount } from '../../cursors/sane.js';
import { CODEC_ID, junieSessionIdOf } from './paths.js';
import { msTime, rec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

export interface JunieState {
  file: string;
  sessionId: string;
  sessionEmitted: boolean;
  startedAt: string | undefined;
  cwd: string | undefined;
  /** `stepId`s of the task results already emitted, the latest last (at most RESULTS_KEPT). */
  results: string[];
  /** A usage-only read's byte markers (only usage lines matter to it); undefined otherwise. */
  markers: readonly Buffer[] | undefined;
}

/** How many result `stepId`s the state keeps: a replayed result is one of the task's last few. */
const RESULTS_KEPT = 32;
const USAGE_KIND = 'LlmResponseMetadataEvent';
const USAGE_MARKERS: readonly Buffer[] = [Buffer.from(`"${USAGE_KIND}"`)];

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

function emitSession(s: JunieState, offset: number, emit: Emit): void {
  emit(sessionEventOf(CODEC_ID, s.sessionId, offset, { cwd: s.cwd, startedAt: s.startedAt }));
}

/**
 * The usage events of one `LlmResponseMetadataEvent` (`agentEvent`), in `modelUsage` order. An entry with
 * no tokens and no cost is none; a count or cost that is not sane refuses the whole line (MALFORMED_LINE).
 */
export function junieUsage(sessionId: string, agentEvent: Rec, timestampMs: unknown, offset: number): UsageEvent[] {
  const entries = Array.isArray(agentEvent.modelUsage) ? agentEvent.modelUsage : [];
  const timestamp = msTime(timestampMs);
  const out: UsageEvent[] = [];
  for (let i = 0; i < entries.length; i++) {
    const u = rec(entries[i]);
    if (u === undefined) continue;
    const input = saneCount(u.inputTokens, 'inputTokens');
    const cacheRead = saneCount(u.cacheInputTokens, 'cacheInputTokens');
    const cacheWrite = saneCount(u.cacheCreateTokens, 'cacheCreateTokens');
    const output = saneCount(u.outputTokens, 'outputTokens');
    const cost = saneCost(u.cost, 'cost');
    if (input + cacheRead + cacheWrite + output === 0 && !(cost !== undefined && cost > 0)) continue;
    const model = str(u.model);
    // the call's time and position name it: a verbatim re-write of the event keeps the key (README "Tokens")
    const at = timestamp === undefined ? `@${offset}` : String(timestampMs);
    out.push(
      usageEventOf(CODEC_ID, sessionId, offset, {
        model,
        timestamp,
        inputTokens: input,
        outputTokens: output,
        cacheReadTokens: cacheRead,
        cacheWriteTokens: cacheWrite,
        costUsd: cost !== undefined && cost > 0 ? cost : undefined,
        singleRequest: true,
        dedupKey: `${CODEC_ID}:${sessionId}:${at}:${i}:${model ?? ''}:${output}`,
      }),
    );
  }
  return out;
}

function userPrompt(s: JunieState, r: Rec, offset: number, emit: Emit): void {
  const text = str(r.presentablePrompt) ?? str(r.prompt);
  if (text === undefined) return;
  const ts = msTime(r.timestampMs);
  const id = str(r.requestId);
  emit({ type: 'message', agent: CODEC_ID, sessionId: s.sessionId, offset, role: 'user', text, ...(ts !== undefined && { timestamp: ts }), ...(id !== undefined && { nativeId: id }) });
}

function taskResult(s: JunieState, r: Rec, agentEvent: Rec, offset: number, emit: Emit): void {
  const step = str(agentEvent.stepId);
  const text = str(agentEvent.result);
  if (rec(r.completion) === undefined || step === undefined || text === undefined || s.results.includes(step)) return;
  s.results.push(step);
  if (s.results.length > RESULTS_KEPT) s.results.shift();
  const ts = msTime(r.timestampMs);
  emit({ type: 'message', agent: CODEC_ID, sessionId: s.sessionId, offset, role: 'assistant', text, ...(ts !== undefined && { timestamp: ts }), nativeId: step });
}

function agentEventOf(s: JunieState, r: Rec, offset: number, emit: Emit): void {
  const agentEvent = rec(rec(r.event)?.agentEvent);
  if (agentEvent === undefined) return;
  switch (agentEvent.kind) {
    case USAGE_KIND:
      for (const u of junieUsage(s.sessionId, agentEvent, r.timestampMs, offset)) emit(u);
      return;
    case 'ResultBlockUpdatedEvent':
      taskResult(s, r, agentEvent, offset, emit);
      return;
    case 'CurrentDirectoryUpdatedEvent': {
      // a task's first one routinely names no folder: it leaves the one known
      const cwd = str(agentEvent.currentDirectory);
      if (cwd === undefined || cwd === s.cwd) return;
      s.cwd = cwd;
      if (s.sessionEmitted) emitSession(s, offset, emit);
      return;
    }
    default:
      return;
  }
}

function record(s: JunieState, r: Rec, offset: number, emit: Emit): void {
  if (!s.sessionEmitted) {
    s.startedAt = msTime(r.timestampMs);
    s.sessionEmitted = true;
    emitSession(s, offset, emit);
  }
  if (r.kind === 'UserPromptEvent') userPrompt(s, r, offset, emit);
  else if (r.kind === 'SessionA2uxEvent') agentEventOf(s, r, offset, emit);
}

/** The Junie line core. */
export const junieCore: LineCore<JunieState> = {
  init(ctx: CoreContext): JunieState {
    const onlyUsage = ctx.options.kinds.size === 1 && ctx.options.kinds.has('usage');
    return { file: ctx.file, sessionId: junieSessionIdOf(ctx.file), sessionEmitted: false, startedAt: undefined, cwd: undefined, results: [], markers: onlyUsage ? USAGE_MARKERS : undefined };
  },
  restore(snapshot, ctx) {
    const s = this.init(ctx);
    const o = rec(snapshot) ?? {};
    restoreStrings(s, o as Partial<JunieState>, ['startedAt', 'cwd']);
    restoreFlags(s, o as Partial<JunieState>, ['sessionEmitted']);
    s.results = Array.isArray(o.results) ? o.results.filter((x): x is string => typeof x === 'string').slice(-RESULTS_KEPT) : [];
    return s;
  },
  snapshot(s) {
    return { sessionEmitted: s.sessionEmitted, startedAt: s.startedAt, cwd: s.cwd, results: s.results };
  },
  markers(s) {
    return s.markers;
  },
  line(s, line, start, emit) {
    if (s.markers !== undefined && !hasAnyMarker(line, s.markers)) return;
    const r = parseJsonObject(line, start, CODEC_ID, s.file);
    if (s.markers !== undefined) {
      // a usage-only read: the usage of the line alone, whatever came before it
      const agentEvent = r.kind === 'SessionA2uxEvent' ? rec(rec(r.event)?.agentEvent) : undefined;
      if (agentEvent?.kind === USAGE_KIND) for (const u of junieUsage(s.sessionId, agentEvent, r.timestampMs, start)) emit(u);
      return;
    }
    record(s, r, start, emit);
  },
  end(): KindCounts {
    return {};
  },
};
