/**
 * The token counts of one CodeBuddy Code record, in sessionfold's semantics (README.md "Tokens").
 *
 * A record holds its response's usage up to three times: `message.usage` (Anthropic field names, OpenAI
 * meaning: `input_tokens` holds the cache reads and writes, `total_tokens` = input + output), written from
 * `providerData.usage` (a camelCase copy with `inputTokensDetails[].cached_tokens`), and
 * `providerData.rawUsage` (the provider's own OpenAI-style object: `prompt_tokens`, `prompt_cache_hit_tokens`,
 * `prompt_cache_write_tokens`, `prompt_cache_miss_tokens`, …). One object is read, the first present in that
 * order (tokscale's order): reading two would count the response twice. Only the cache counts it lacks are taken
 * from the others, as CodeBuddy's own cost takes them from `rawUsage` first.
 */
import { tokenCount } from '../../cursors/glued-json.js';
import { isRec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;


/** What one record's usage object gives. */
export interface CodeBuddyTokens {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** The first of `keys` that `u` holds as a number, as a sane count (tokenCount); undefined when none is a number. */
function first(u: Rec, keys: readonly string[]): number | undefined {
  for (const k of keys) if (typeof u[k] === 'number') return tokenCount(u[k]);
  return undefined;
}

/** The first of `keys` above 0, else the first present (tokscale's `first_positive`): a 0 beside a real count is no answer. */
function firstPositive(values: readonly (number | undefined)[]): number {
  let present: number | undefined;
  for (const v of values) {
    if (v === undefined) continue;
    if (v > 0) return v;
    present ??= v;
  }
  return present ?? 0;
}

/** `field` of the first object of a details list (`[{cached_tokens}]`) or of a details object. */
function detail(v: unknown, field: string): number | undefined {
  const d = Array.isArray(v) ? v.find(isRec) : v;
  return isRec(d) && typeof d[field] === 'number' ? tokenCount(d[field]) : undefined;
}

const INPUT = ['input_tokens', 'inputTokens', 'prompt_tokens'] as const;
const OUTPUT = ['output_tokens', 'outputTokens', 'completion_tokens'] as const;
/** The uncached input where an object names it apart (CodeBuddy's `cachedMissTokens`: the prompt less the cache read and written). */
const MISS = ['cachedMissTokens', 'cacheMissTokens'] as const;
const TOTAL = ['total_tokens', 'totalTokens'] as const;
const READ = ['cache_read_input_tokens', 'cacheReadInputTokens', 'cacheTokens', 'prompt_cache_hit_tokens', 'cached_tokens'] as const;
/** CodeBuddy's own order (`UsageUtils.getCacheCreationTokens`): a `prompt_cache_miss_tokens` is a write where no write count is above 0. */
const WRITE = ['cache_creation_input_tokens', 'cacheCreationInputTokens', 'cachedWriteTokens', 'prompt_cache_write_tokens', 'prompt_cache_miss_tokens'] as const;
const REASONING = ['completion_thinking_tokens', 'completionThinkingTokens', 'reasoningTokens'] as const;

/** The usage objects a record carries, in the order read: `message.usage`, `providerData.usage`, `providerData.rawUsage`. */
export function usageObjects(rec: Rec): Rec[] {
  const provider = isRec(rec.providerData) ? rec.providerData : undefined;
  return [isRec(rec.message) ? rec.message.usage : undefined, provider?.usage, provider?.rawUsage].filter(isRec);
}

/** The reasoning count a usage object names, undefined when it names none. */
function reasoningOf(u: Rec): number | undefined {
  return first(u, REASONING) ?? detail(u.outputTokensDetails, 'reasoning_tokens') ?? detail(u.completion_tokens_details, 'reasoning_tokens');
}

const cacheReadOf = (u: Rec): number => firstPositive([...READ.map((k) => first(u, [k])), detail(u.prompt_tokens_details, 'cached_tokens'), detail(u.inputTokensDetails, 'cached_tokens')]);
const cacheWriteOf = (u: Rec): number => firstPositive(WRITE.map((k) => first(u, [k])));

/** `count(u)`, else the first count above 0 among `copies` taken last first (`rawUsage` before `providerData.usage`). */
function withCopies(u: Rec, copies: readonly Rec[], count: (u: Rec) => number): number {
  let n = count(u);
  for (let i = copies.length - 1; n === 0 && i >= 0; i--) n = count(copies[i] as Rec);
  return n;
}

/**
 * The counts of a usage object; undefined when it holds no tokens. Input: the uncached count when the object
 * names it; else the input less the cache reads and writes, CodeBuddy's input holding both (its own cost books
 * `input - cacheRead - cacheWrite`), except where the object's own total shows the input without them
 * (input + output + cache = total, an Anthropic-shaped count). The cache counts the object lacks come from
 * `copies` (the record's other usage objects: the writer leaves the writes out of `message.usage`). Reasoning is
 * part of the output (`completion_tokens` holds it), taken from `copies` when `u` names none.
 */
export function codeBuddyTokens(u: Rec, copies: readonly Rec[] = []): CodeBuddyTokens | undefined {
  const cacheRead = withCopies(u, copies, cacheReadOf);
  const cacheWrite = withCopies(u, copies, cacheWriteOf);
  const output = first(u, OUTPUT) ?? 0;
  const raw = first(u, INPUT) ?? 0;
  const miss = first(u, MISS);
  const total = first(u, TOTAL);
  const exclusive = total !== undefined && cacheRead > 0 && total === raw + output + cacheRead + cacheWrite;
  const input = miss ?? (exclusive ? raw : Math.max(0, raw - cacheRead - cacheWrite));
  // `message.usage` names no reasoning; its copies may, and reasoning is only a part of the output, never added
  let reasoning = reasoningOf(u);
  for (const c of copies) reasoning ??= reasoningOf(c);
  if (input + output + cacheRead + cacheWrite === 0) return undefined;
  return { inputTokens: input, outputTokens: output, reasoningTokens: Math.min(reasoning ?? 0, output), cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite };
}
