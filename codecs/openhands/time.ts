/**
 * The times of an OpenHands conversation. Events carry `timestamp: datetime.now().isoformat()` (event/base.py):
 * the writer's local time, without a zone. Cost records carry `timestamp: time.time()` (llm/utils/metrics.py
 * `Cost`): epoch seconds. Where both describe one LLM call, their difference is the writer's UTC offset, which
 * then places every event time of the conversation; without one, a zone-less time is read as UTC, so a read
 * gives the same events whatever the reader's time zone (README.md, "Times").
 */

const NAIVE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;
const QUARTER_HOUR = 15 * 60_000;
/** How far an event may follow the cost record of its call and still be taken for the same moment. */
const SLACK = 5 * 60_000;
/** No zone is further from UTC (UTC+14). */
const MAX_OFFSET = 14 * 3_600_000;

/**
 * Epoch milliseconds of a time string: a zone-less one as UTC less `offsetMs` (the writer's offset east of
 * UTC), one with a zone as it says; undefined when it is no time.
 */
export function instantOf(v: unknown, offsetMs: number): number | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  const naive = NAIVE.test(s);
  const ms = Date.parse(naive ? `${s}Z` : s);
  if (Number.isNaN(ms)) return undefined;
  return naive ? ms - offsetMs : ms;
}

/** ISO-8601 of epoch milliseconds, undefined for none. */
export const isoOf = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

/**
 * The writer's UTC offset (ms east of UTC) from pairs of one call's event time read as UTC and its cost record's
 * epoch time: each pair's difference rounded to a quarter hour, when it is that close to one. 0 without such a
 * pair, and when two pairs disagree (a clock change during the conversation): the times are then read as UTC.
 */
export function writerOffsetMs(pairs: readonly (readonly [eventAsUtcMs: number, recordedMs: number])[]): number {
  let found: number | undefined;
  for (const [event, recorded] of pairs) {
    const d = event - recorded;
    const q = Math.round(d / QUARTER_HOUR) * QUARTER_HOUR;
    if (Math.abs(d - q) > SLACK || Math.abs(q) > MAX_OFFSET) continue;
    if (found === undefined) found = q;
    else if (found !== q) return 0;
  }
  return found ?? 0;
}
