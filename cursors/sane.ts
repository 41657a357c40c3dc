/**
 * The one check of the usage numbers every codec reads (token counts, a recorded cost): a value that is not
 * a sane count never reaches an event, so no total, cached or not, can hold it. A record carrying one is
 * refused whole: the codec's line throws MALFORMED_LINE, which the reader skips and counts (`skippedLines`,
 * `onSkip`) as it does any malformed line, and a report warns about.
 *
 * Sane: a token count is an integer in [0, MAX_RECORD_TOKENS]; a recorded cost is a finite number in
 * [0, MAX_RECORD_USD]. The ceilings are far above anything one API response (or one agent's running total of
 * a session) carries, and low enough that 2^53 / ceiling records are needed before a sum leaves the integers
 * a double holds exactly (the fold checks that bound as well). An absent or non-numeric field is no count (0,
 * or no cost), as before.
 */
import { SessionfoldError } from './protocol/errors.js';

/** The largest token count one record may carry: 10^10 (priced at any list price, under 2^53 nano-dollars). */
export const MAX_RECORD_TOKENS = 1e10;
/** The largest cost (USD) one record may carry: 10^6. */
export const MAX_RECORD_USD = 1e6;

function absurd(field: string, v: number): SessionfoldError {
  return new SessionfoldError('MALFORMED_LINE', `absurd usage value ${field}: ${String(v)} (a count is an integer from 0 to ${MAX_RECORD_TOKENS}; a cost a number from 0 to ${MAX_RECORD_USD})`);
}

/** Whether `v` is a sane token count. */
export function isSaneCount(v: number): boolean {
  return Number.isInteger(v) && v >= 0 && v <= MAX_RECORD_TOKENS;
}

/**
 * A token count where a bad value costs only itself, not its record: `v` (a number or a bigint, as SQLite
 * drivers return) when it is a sane count, else 0. For formats whose records mix counts with other data a
 * reader still wants (a session's title, its messages), where refusing the record whole would lose them.
 */
export function countOrZero(v: unknown): number {
  const n = typeof v === 'bigint' ? Number(v) : v;
  return typeof n === 'number' && isSaneCount(n) ? n : 0;
}

/**
 * The uncached input count a record gives, as the provider meant it. Kimi's and Moonshot's Anthropic-compatible
 * APIs answer a prompt served wholly from their cache with `input_tokens: -1` and the prompt in the cache reads
 * (kolega-ai/kolega-code #473 measured it on live calls, always -1), and the agents store it as given: -1
 * beside a positive sane cache-read count is no uncached input, 0. Any other value, another negative
 * included, is returned as it is, for the codec's own check to refuse.
 */
export function uncachedInput(input: unknown, cacheRead: unknown): unknown {
  const fullHit = input === -1 && typeof cacheRead === 'number' && cacheRead > 0 && isSaneCount(cacheRead);
  return fullHit ? 0 : input;
}

/**
 * The uncached part of an input count that holds its cache reads and writes (the agent's own record says so).
 * A cache larger than the input cannot be inside it, so the input is then taken as uncached already: the
 * cache is never taken out twice, nor the input made negative.
 */
export function inputLessCache(input: number, read: number, write: number): number {
  return read + write <= input ? input - read - write : input;
}

/** A token count: 0 when `v` is not a number; `v` when sane; MALFORMED_LINE (the record is refused) when absurd. */
export function saneCount(v: unknown, field: string): number {
  if (typeof v !== 'number') return 0;
  if (isSaneCount(v)) return v;
  throw absurd(field, v);
}

/** A recorded cost: undefined when `v` is not a number; `v` when sane; MALFORMED_LINE when absurd. */
export function saneCost(v: unknown, field: string): number | undefined {
  if (typeof v !== 'number') return undefined;
  if (Number.isFinite(v) && v >= 0 && v <= MAX_RECORD_USD) return v;
  throw absurd(field, v);
}
