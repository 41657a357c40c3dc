/**
 * The LLM usage of a conversation, from its state's `stats` (README.md, "Tokens"): `ConversationStats
 * .usage_to_metrics` (`service_to_metrics` in the first SDK releases) maps each LLM's usage id (the agent's, the
 * condenser's, a sub-agent task's `task:<id>`…) to its `Metrics`: `token_usages[]`, one `TokenUsage` per call,
 * with `accumulated_token_usage` their running sum. Pure: the state object in, calls and totals out.
 *
 * - Every call of every usage id is one usage event; the accumulated sum is never added beside them. It is read
 *   only for what the calls do not hold: a `Metrics` saved as a snapshot (no `token_usages`, SDK PR #1308 until
 *   the fix that brought `model_dump_snapshot`) is one total, and a sum above its calls (a conversation resumed
 *   from such a snapshot) adds the difference once.
 * - A call is keyed by its response id where the id is its own (non-empty, once in its list): the same call
 *   copied into another list or another conversation (a Metrics object two LLMs share, a fork that kept its
 *   metrics) counts once. Elsewhere (an ACP turn's id is its session's) the key is the conversation's.
 */
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { saneCost, saneCount } from '../../cursors/sane.js';
import { CODEC_ID } from './paths.js';
import { modelName, rec, type Rec } from './schema.js';

/** One call's counts as OpenHands records them (`TokenUsage`). */
export interface Tokens {
  prompt: number;
  completion: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

const FIELDS = { prompt: 'prompt_tokens', completion: 'completion_tokens', cacheRead: 'cache_read_tokens', cacheWrite: 'cache_write_tokens', reasoning: 'reasoning_tokens' } as const;
const KEYS = Object.keys(FIELDS) as (keyof Tokens)[];

/** One recorded call. */
export interface Call {
  usageId: string;
  /** Its place in its usage id's list. */
  index: number;
  responseId: string;
  dedupKey: string;
  model: string | undefined;
  tokens: Tokens;
  /** When its cost record says it was made (epoch ms), and the cost (USD): only where the usage id's costs line up with its calls. */
  recordedAt: number | undefined;
  costUsd: number | undefined;
}

/** Usage a usage id holds beyond its calls: its whole sum (`whole`: a snapshot without calls), or the part before them. */
export interface Total {
  usageId: string;
  dedupKey: string;
  model: string | undefined;
  tokens: Tokens;
  whole: boolean;
}

export interface Stats {
  calls: Call[];
  totals: Total[];
  /** Why records were refused (an absurd count, a call that is not an object): each a skipped record. */
  refused: string[];
  /** Every response id the lists name (`token_usages`, `response_latencies`). */
  recorded: Set<string>;
  /** Some usage id keeps calls (not only snapshots). */
  itemized: boolean;
}

/** A `TokenUsage` as counts; MALFORMED_LINE for an absurd one. */
export function tokensOf(t: Rec): Tokens {
  const out = {} as Tokens;
  for (const k of KEYS) out[k] = saneCount(t[FIELDS[k]], FIELDS[k]);
  return out;
}

export const isZero = (t: Tokens): boolean => KEYS.every((k) => t[k] === 0);

/** `a - b` field by field, when no field of `a` is below `b`'s; undefined otherwise. */
export function beyond(a: Tokens, b: Tokens): Tokens | undefined {
  const out = {} as Tokens;
  for (const k of KEYS) {
    if (a[k] < b[k]) return undefined;
    out[k] = a[k] - b[k];
  }
  return out;
}

/**
 * The call's counts in sessionfold's buckets. OpenHands keeps litellm's `prompt_tokens`, which holds the cache
 * reads (and, with current litellm, the cache writes: Anthropic's `calculate_usage` adds both); an ACP agent's
 * `input_tokens` holds neither (`MetricsSnapshot.cache_hit_rate`). So the caches are taken out of the prompt as
 * far as the prompt holds them: both when it holds both, the reads alone when only they fit, none when the reads
 * alone exceed it. Exact for litellm's conventions; for an ACP count that could hold its caches it is the lower
 * reading, never a token twice. Output includes reasoning (`completion_tokens`).
 */
export function bucketsOf(t: Tokens): { inputTokens: number; outputTokens: number; reasoningTokens: number; cacheReadTokens: number; cacheWriteTokens: number } {
  const { prompt, cacheRead, cacheWrite } = t;
  const input = cacheRead + cacheWrite <= prompt ? prompt - cacheRead - cacheWrite : cacheRead <= prompt ? prompt - cacheRead : prompt;
  return { inputTokens: input, outputTokens: t.completion, reasoningTokens: Math.min(t.reasoning, t.completion), cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite };
}

interface ListRead {
  usageId: string;
  model: string | undefined;
  conversationId: string;
  out: Stats;
  /** The calls' dedup keys, and the totals' contents, taken so far. */
  keys: Set<string>;
}

/**
 * The cost records of the calls, one each, where they line up: as many costs, latencies and calls, the latencies
 * naming the calls' ids in order. `Telemetry.on_response` appends a response's latency, then its cost when positive,
 * then its tokens when any: equal lengths mean every call has its own, in the same order.
 */
function alignedCosts(m: Rec, usages: readonly unknown[]): Rec[] | undefined {
  const { costs, response_latencies: lat } = m;
  if (!Array.isArray(costs) || !Array.isArray(lat) || costs.length !== usages.length || lat.length !== usages.length) return undefined;
  const out: Rec[] = [];
  for (let i = 0; i < usages.length; i++) {
    const c = rec(costs[i]);
    if (c === undefined || typeof c.timestamp !== 'number' || !Number.isFinite(c.timestamp) || rec(lat[i])?.response_id !== rec(usages[i])?.response_id) return undefined;
    out.push(c);
  }
  return out;
}

/** The calls of one usage id's `token_usages`; their summed counts, or undefined when one was refused. */
function readCalls(l: ListRead, m: Rec, usages: readonly unknown[]): Tokens | undefined {
  const recorded = alignedCosts(m, usages);
  const ids = usages.map((u) => rec(u)?.response_id).map((v) => (typeof v === 'string' ? v : ''));
  const seen = new Map<string, number>();
  for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
  const nth = new Map<string, number>();
  const sum: Tokens = { prompt: 0, completion: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  let whole = true;
  usages.forEach((u, index) => {
    const id = ids[index] as string;
    const n = nth.get(id) ?? 0;
    nth.set(id, n + 1);
    const t = rec(u);
    const cost = recorded?.[index];
    let tokens: Tokens;
    let costUsd: number | undefined;
    try {
      if (t === undefined) throw new SessionfoldError('MALFORMED_LINE', 'a token usage that is not an object');
      tokens = tokensOf(t);
      costUsd = saneCost(cost?.cost, 'cost');
    } catch (e) {
      if (!(e instanceof SessionfoldError)) throw e;
      l.out.refused.push(`${l.usageId} call ${index}: ${e.message}`);
      whole = false;
      return;
    }
    for (const k of KEYS) sum[k] += tokens[k];
    const dedupKey = id !== '' && seen.get(id) === 1 ? `${CODEC_ID}:${id}` : `${CODEC_ID}:${l.conversationId}:${id}#${n}`;
    if (isZero(tokens) || l.keys.has(dedupKey)) return;
    l.keys.add(dedupKey);
    const recordedAt = cost === undefined ? undefined : Math.round((cost.timestamp as number) * 1000);
    l.out.calls.push({ usageId: l.usageId, index, responseId: id, dedupKey, model: modelName(t?.model) ?? l.model, tokens, recordedAt, costUsd });
  });
  return whole ? sum : undefined;
}

/** One usage id's `Metrics`: its calls, and what its accumulated sum holds beyond them. */
function readMetrics(l: ListRead, m: Rec): void {
  for (const list of [m.token_usages, m.response_latencies]) {
    if (Array.isArray(list)) for (const x of list) if (typeof rec(x)?.response_id === 'string') l.out.recorded.add(rec(x)!.response_id as string);
  }
  const usages = Array.isArray(m.token_usages) ? m.token_usages : undefined;
  if (usages !== undefined) l.out.itemized = true;
  const sum = usages === undefined ? { prompt: 0, completion: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 } : readCalls(l, m, usages);
  const acc = rec(m.accumulated_token_usage);
  if (sum === undefined || acc === undefined) return;
  let total: Tokens;
  try {
    total = tokensOf(acc);
  } catch (e) {
    if (!(e instanceof SessionfoldError)) throw e;
    l.out.refused.push(`${l.usageId} accumulated_token_usage: ${e.message}`);
    return;
  }
  const rest = beyond(total, sum);
  if (rest === undefined || isZero(rest)) return;
  const whole = usages === undefined;
  // a Metrics object two usage ids share is saved under both: its total counts once
  const same = JSON.stringify([l.model, rest, whole]);
  if (l.keys.has(same)) return;
  l.keys.add(same);
  const dedupKey = `${CODEC_ID}:${l.conversationId}:${l.usageId}:${whole ? 'total' : 'before-calls'}`;
  l.out.totals.push({ usageId: l.usageId, dedupKey, model: l.model, tokens: rest, whole });
}

/** The usage a conversation's state records (`state` undefined: none read). */
export function readStats(state: Rec | undefined, conversationId: string): Stats {
  const out: Stats = { calls: [], totals: [], refused: [], recorded: new Set(), itemized: false };
  const stats = rec(state?.stats);
  const table = rec(stats?.usage_to_metrics) ?? rec(stats?.service_to_metrics);
  if (table === undefined) return out;
  const keys = new Set<string>();
  for (const [usageId, v] of Object.entries(table)) {
    const m = rec(v);
    if (m === undefined) {
      out.refused.push(`${usageId}: metrics that are not an object`);
      continue;
    }
    readMetrics({ usageId, model: modelName(m.model_name), conversationId, out, keys }, m);
  }
  return out;
}
