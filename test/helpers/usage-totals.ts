/**
 * A codec's usage events summed once per dedup key, in the shape a test's deliberately simple second reader
 * sums the raw file: billed input (uncached + cache reads + cache writes), cache reads, output (reasoning
 * included), reasoning, and the number of responses.
 */
import type { SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';

export interface UsageTotals {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  responses: number;
}

export function emptyTotals(): UsageTotals {
  return { input: 0, cached: 0, output: 0, reasoning: 0, responses: 0 };
}

export function codecUsageTotals(events: readonly SessionfoldEvent[]): UsageTotals {
  const sum = emptyTotals();
  const seen = new Set<string>();
  for (const u of events.filter((e): e is UsageEvent => e.type === 'usage')) {
    if (seen.has(u.dedupKey)) continue;
    seen.add(u.dedupKey);
    sum.input += u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
    sum.cached += u.cacheReadTokens;
    sum.output += u.outputTokens;
    sum.reasoning += u.reasoningTokens;
    sum.responses++;
  }
  return sum;
}

/** Usage summed with its input kept apart (uncached input, cache reads, cache writes), and the calls counted. */
export interface SplitTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  calls: number;
}

/** A codec's usage events summed as `SplitTotals`: every event, or with `oncePerKey` each dedup key once (the first), as the folds count them. */
export function codecSplitTotals(events: readonly SessionfoldEvent[], oncePerKey = false): SplitTotals {
  const t: SplitTotals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, calls: 0 };
  const seen = new Set<string>();
  for (const u of events.filter((e): e is UsageEvent => e.type === 'usage')) {
    if (oncePerKey) {
      if (seen.has(u.dedupKey)) continue;
      seen.add(u.dedupKey);
    }
    t.input += u.inputTokens;
    t.output += u.outputTokens;
    t.cacheRead += u.cacheReadTokens;
    t.cacheWrite += u.cacheWriteTokens;
    t.calls++;
  }
  return t;
}
