/**
 * Token arithmetic for Codex `TokenUsage` objects. Codex counts cached (and cache-write) input INSIDE
 * `input_tokens` and reasoning INSIDE `output_tokens` (`codex-rs/protocol/src/protocol.rs`: non-cached input =
 * input − cached, blended total = non-cached input + output). Our events never overlap, so the split happens
 * once, here, in `toUsageFields`.
 */
import type { TokenCounts } from '../../cursors/protocol/events.js';
import { asObject } from './schema.js';
import { saneCount } from '../../cursors/sane.js';

/** A `TokenUsage` with every field present (missing fields are 0; a missing total is input + output). */
export interface Tok {
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
  total: number;
}

/** A count (cursors/sane.ts): 0 when absent, MALFORMED_LINE (the line is refused) when absurd. */
function n(v: unknown, field: string): number {
  return saneCount(v, field);
}

/**
 * Read a raw `TokenUsage` object; undefined when the value is not an object with at least one count. A count
 * that is not sane (negative, fractional, non-finite, above cursors/sane.ts's ceiling) refuses the line.
 */
export function readTok(v: unknown): Tok | undefined {
  const o = asObject(v);
  if (o === undefined) return undefined;
  return tokOf(o.input_tokens, o.output_tokens, o.total_tokens, o.cached_input_tokens ?? o.cache_read_input_tokens, o.cache_write_input_tokens, o.reasoning_output_tokens);
}

/**
 * `readTok` of an object's field values, as JSON.parse gives them (`cached` already the cached-input count or,
 * without one, the cache-read count): a parsed object's, or a walked line's read from its slots (parse.ts), so
 * the rules are written once.
 */
export function tokOf(inputV: unknown, outputV: unknown, totalV: unknown, cachedV: unknown, cacheWriteV: unknown, reasoningV: unknown): Tok | undefined {
  if (inputV === undefined && outputV === undefined && totalV === undefined) return undefined;
  const input = n(inputV, 'input_tokens');
  const output = n(outputV, 'output_tokens');
  const total = n(totalV, 'total_tokens');
  return {
    input,
    cached: n(cachedV, 'cached_input_tokens'),
    cacheWrite: n(cacheWriteV, 'cache_write_input_tokens'),
    output,
    reasoning: n(reasoningV, 'reasoning_output_tokens'),
    total: total > 0 ? total : input + output,
  };
}

/** a − b, field by field (callers check `anyDecrease` first). */
export function subTok(a: Tok, b: Tok): Tok {
  return {
    input: a.input - b.input,
    cached: a.cached - b.cached,
    cacheWrite: a.cacheWrite - b.cacheWrite,
    output: a.output - b.output,
    reasoning: a.reasoning - b.reasoning,
    total: a.total - b.total,
  };
}

// The four tests below run on every token_count line of a history: each of Tok's fields spelled out, not
// looped over by name (a keyed load per field, and an array iterator, in the interpreter and baseline code
// that run a cold report's first thousands of lines).

/** True when any counter of `cur` is below `prev`: the cumulative counter was reset. */
export function anyDecrease(cur: Tok, prev: Tok): boolean {
  return cur.input < prev.input || cur.cached < prev.cached || cur.cacheWrite < prev.cacheWrite || cur.output < prev.output || cur.reasoning < prev.reasoning || cur.total < prev.total;
}

/** True when no counter of `a` exceeds `b`. */
export function fitsWithin(a: Tok, b: Tok): boolean {
  return !(a.input > b.input || a.cached > b.cached || a.cacheWrite > b.cacheWrite || a.output > b.output || a.reasoning > b.reasoning || a.total > b.total);
}

/**
 * True when `t` counts no token. `total` is left out: Codex's `fill_to_context_window` (older builds, after a
 * context-window error) writes a row whose counters are all 0 but `total_tokens`, the window's size, which is
 * no response's usage (codecs/codex/README.md).
 */
export function isZeroTok(t: Tok): boolean {
  return t.input === 0 && t.cached === 0 && t.cacheWrite === 0 && t.output === 0 && t.reasoning === 0;
}

export function eqTok(a: Tok, b: Tok): boolean {
  return a.input === b.input && a.cached === b.cached && a.cacheWrite === b.cacheWrite && a.output === b.output && a.reasoning === b.reasoning && a.total === b.total;
}

/** `input/cached/cacheWrite/output/reasoning/total`, used in dedup keys. */
export function tokKey(t: Tok): string {
  return `${t.input}/${t.cached}/${t.cacheWrite}/${t.output}/${t.reasoning}/${t.total}`;
}

/** The non-overlapping token fields of a usage event. */
export type UsageFields = TokenCounts;

/**
 * Split a Codex `TokenUsage` into our fields: inputTokens = input − cached − cacheWrite (cached and cache
 * writes are clamped to the input they are part of, so a malformed row can never go negative);
 * outputTokens = output (reasoning included, never added again); reasoningTokens = reasoning.
 */
export function toUsageFields<T extends UsageFields = UsageFields>(t: Tok, out: T = {} as T): T {
  // Into `out` (a usage event: buildCodexUsage writes the split straight into it, no object per event).
  const cached = Math.min(t.cached, t.input);
  const cacheWrite = Math.min(t.cacheWrite, t.input - cached);
  out.inputTokens = t.input - cached - cacheWrite;
  out.outputTokens = t.output;
  out.reasoningTokens = t.reasoning;
  out.cacheReadTokens = cached;
  out.cacheWriteTokens = cacheWrite;
  out.cacheWrite1hTokens = 0;
  return out;
}

/** True when two usage-field sets count the same tokens. */
export function sameUsage(a: UsageFields, b: UsageFields): boolean {
  return (
    a.inputTokens === b.inputTokens &&
    a.outputTokens === b.outputTokens &&
    a.reasoningTokens === b.reasoningTokens &&
    a.cacheReadTokens === b.cacheReadTokens &&
    a.cacheWriteTokens === b.cacheWriteTokens
  );
}
