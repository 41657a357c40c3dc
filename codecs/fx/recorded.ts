/**
 * fx's per-call `usage_recorded` lines (README.md "Per call"): one usage event per `generation_id`, the last
 * line of a generation winning, as fx's own reducer replaces a generation's first line with a late-settled one.
 *
 * The reader is incremental, so a generation's event stays open (held in the state, emitted by `end()` and
 * counted as open) while OPEN_GENERATIONS newer ones have not come yet: a replacing line within that window
 * corrects the event in place, also across a resume. An older generation's event is out for good; a line
 * replacing it after that is a second event under the same key (`fx:<generation id>`), which folds count once.
 */
import type { Emit } from '../../cursors/core.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import type { KindCounts, UsageEvent } from '../../cursors/protocol/events.js';
import { usageEventOf } from '../../cursors/protocol/events.js';
import { saneCost, saneCount } from '../../cursors/sane.js';
import { CODEC_ID } from './paths.js';

/** How many of the latest generations a later line may still replace in place. */
export const OPEN_GENERATIONS = 64;

/** A call's counts as fx records them: input holds the cache reads and writes. */
export interface RecordedCall {
  generationId: string;
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  web: number;
  cost: number | undefined;
}

type Rec = Record<string, unknown>;

function malformed(file: string, start: number, why: string): SessionfoldError {
  return new SessionfoldError('MALFORMED_LINE', `usage_recorded at byte ${start} of ${file}: ${why}`, { agent: CODEC_ID, file, byteOffset: start });
}

/** A `usage_recorded` payload, checked as fx's decoder checks it (`parsePayload`): a line it refuses is skipped. */
export function recordedCallOf(p: Rec, file: string, start: number): RecordedCall {
  const generationId = p.generation_id;
  const model = p.model;
  if (typeof generationId !== 'string' || generationId === '') throw malformed(file, start, 'no generation_id');
  if (typeof model !== 'string' || model === '') throw malformed(file, start, 'no model');
  const call: RecordedCall = {
    generationId,
    model,
    input: saneCount(p.input_tokens, 'input_tokens'),
    output: saneCount(p.output_tokens, 'output_tokens'),
    cacheRead: saneCount(p.cache_read_tokens, 'cache_read_tokens'),
    cacheWrite: saneCount(p.cache_write_tokens, 'cache_write_tokens'),
    reasoning: saneCount(p.reasoning_tokens, 'reasoning_tokens'),
    web: saneCount(p.billable_web_search_calls, 'billable_web_search_calls'),
    cost: saneCost(p.total_cost, 'total_cost'),
  };
  // fx refuses these too: its input includes the cache, its output the reasoning
  if (call.cacheRead > call.input || call.cacheWrite > call.input) throw malformed(file, start, 'cache above input');
  if (call.reasoning > call.output) throw malformed(file, start, 'reasoning above output');
  return call;
}

/** The usage event of one call: input without its cache (never below zero), reasoning inside output. */
export function recordedEvent(sessionId: string, offset: number, timestamp: string, c: RecordedCall): UsageEvent {
  return usageEventOf(CODEC_ID, sessionId, offset, {
    model: c.model,
    timestamp,
    inputTokens: Math.max(0, c.input - c.cacheRead - c.cacheWrite),
    outputTokens: c.output,
    reasoningTokens: c.reasoning,
    cacheReadTokens: c.cacheRead,
    cacheWriteTokens: c.cacheWrite,
    costUsd: c.cost !== undefined && c.cost > 0 ? c.cost : undefined,
    webSearchRequests: c.web > 0 ? c.web : undefined,
    singleRequest: true,
    // fx's generation id: a replacing line, a copied folder or a parent's copy of the call counts once
    dedupKey: `${CODEC_ID}:${c.generationId}`,
    messageId: c.generationId,
  });
}

/** The raw counts an event was built from, for a replacement's difference (input with its cache again). */
export function rawOf(e: UsageEvent): { input: number; output: number; cacheRead: number; cacheWrite: number; web: number; cost: number } {
  return { input: e.inputTokens + e.cacheReadTokens + e.cacheWriteTokens, output: e.outputTokens, cacheRead: e.cacheReadTokens, cacheWrite: e.cacheWriteTokens, web: e.webSearchRequests ?? 0, cost: e.costUsd ?? 0 };
}

/**
 * Books a call's event into the open window: in place of its generation's open event (returned, the event it
 * replaced), else appended, the oldest open event going out for good when the window is full.
 */
export function holdRecorded(open: UsageEvent[], event: UsageEvent, emit: Emit): UsageEvent | undefined {
  const at = open.findIndex((e) => e.messageId === event.messageId);
  if (at >= 0) {
    const was = open[at];
    open[at] = event;
    return was;
  }
  open.push(event);
  if (open.length > OPEN_GENERATIONS) emit(open.shift()!);
  return undefined;
}

/** The open events out at the end of the bytes read; they stay open for the next read. */
export function flushRecorded(open: UsageEvent[], emit: Emit): KindCounts {
  for (const e of open) emit(e);
  return open.length > 0 ? { usage: open.length } : {};
}

