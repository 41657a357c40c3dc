/**
 * The price table: a recorded (provider, model) resolved ONCE into flat per-token rates, so that pricing an
 * event is a handful of multiplications instead of a `calcPrice` call (~57 µs each: 1M events would spend a
 * minute in it). The resolution reuses genai-prices' own matching (it calls `calcPrice` once per candidate
 * with zero usage and keeps the `ModelInfo` it found); the arithmetic then mirrors `calcPrice` exactly:
 *
 * - genai-prices bills usage as a tree of units: `input_tokens` (the WHOLE prompt) has descendants
 *   `cache_read_tokens` and `cache_write_tokens` (of which `cache_write_1h_tokens`); `output_tokens` has
 *   `output_reasoning_tokens`. A unit without its own price falls back to its nearest priced ancestor, so a
 *   model without `cache_read_mtok` bills cache reads as input. Flattened, that is one rate per token kind.
 * - Tiered prices (`{base, tiers:[{start, price}]}`) switch EVERY tiered unit of the request to the tier
 *   price when the whole prompt (input + cache read + cache write) is strictly greater than `start`.
 *   Distinct `start`s are flattened into levels, each a full rate set.
 * - Conditional prices (a list with `start_date` / `time_of_date` constraints) are kept as variants chosen
 *   per event by timestamp, scanning from the last to the first as genai-prices does.
 * - `requests_kcount` adds a per-request fee (calcPrice always counts one request).
 *
 * Where we deliberately differ from calcPrice (each one documented in docs/cost.md and tested):
 * - 1-hour cache writes on a model that has a `cache_write_mtok` price but no `cache_write_1h_mtok` price are
 *   billed at 2x the base input rate (Anthropic's published rule) instead of at the 5-minute write rate.
 * - Only `singleRequest` usage is tiered: a span of several requests is billed at base rates.
 */
import type { ModelInfo, ModelPrice, TieredPrices } from '@pydantic/genai-prices';
import type { TokenCounts } from '../../cursors/protocol/events.js';
import { withSupplements } from './price-supplements.js';

/** Per-token USD rates of one price level (already divided by 1e6; `request` is USD per request). */
export interface RateSet {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
  output: number;
  reasoning: number;
  request: number;
}

/** When a price variant applies. */
export type PriceConstraint =
  | { kind: 'always' }
  | { kind: 'since'; ms: number }
  /** Seconds of the UTC day, end exclusive; wraps past midnight when end < start. */
  | { kind: 'timeOfDay'; start: number; end: number };

/** One price variant of a model: base rates plus the long-context levels. */
export interface PriceVariant {
  constraint: PriceConstraint;
  base: RateSet;
  /** Ascending by `above`: applies when the prompt is strictly greater than `above`. */
  levels: { above: number; rates: RateSet }[];
}

/** A resolved price: what a (provider, model) is billed at. */
export interface PriceEntry {
  /** The price data's model id (`claude-sonnet-4-5`), or the override key. */
  modelId: string;
  /** The price data's provider id, or `override`. */
  providerId: string;
  source: 'genai-prices' | 'override';
  /** In data order; `selectVariant` scans from the last. */
  variants: PriceVariant[];
  /** The model's context window in tokens, when the price data states it (genai-prices' `context_window`). */
  contextWindow?: number;
}

const TOKEN_KEYS = ['input_mtok', 'cache_read_mtok', 'cache_write_mtok', 'cache_write_1h_mtok', 'output_mtok', 'output_reasoning_mtok'] as const;

function isTiered(v: unknown): v is TieredPrices {
  return typeof v === 'object' && v !== null && Array.isArray((v as TieredPrices).tiers);
}

/**
 * The flat price of one key for prompts in the level that begins above `level` (undefined: base). A prompt
 * P in (level, next level] passes exactly the tiers whose start is <= level (genai-prices: P > start).
 */
function priceAt(v: number | TieredPrices | undefined, level: number | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  let p = v.base;
  if (level !== undefined) for (const t of [...v.tiers].sort((a, b) => a.start - b.start)) if (t.start <= level) p = t.price;
  return p;
}

function ratesAt(mp: ModelPrice, level: number | undefined): RateSet {
  const get = (k: string) => priceAt(mp[k] as number | TieredPrices | undefined, level);
  const input = get('input_mtok') ?? 0;
  const cacheRead = get('cache_read_mtok') ?? input;
  const cw = get('cache_write_mtok');
  const cacheWrite = cw ?? input;
  // Anthropic: a 1-hour cache write costs 2x the base input price. Used only when the data has none.
  const cacheWrite1h = get('cache_write_1h_mtok') ?? (cw !== undefined ? 2 * input : cacheWrite);
  const output = get('output_mtok') ?? 0;
  const reasoning = get('output_reasoning_mtok') ?? output;
  const req = mp.requests_kcount;
  const request = typeof req === 'number' ? req / 1e3 : 0;
  return {
    input: input / 1e6,
    cacheRead: cacheRead / 1e6,
    cacheWrite: cacheWrite / 1e6,
    cacheWrite1h: cacheWrite1h / 1e6,
    output: output / 1e6,
    reasoning: reasoning / 1e6,
    request,
  };
}

/** Flatten a ModelPrice (numbers or tiered) into base rates and long-context levels. */
export function buildVariant(mp: ModelPrice, constraint: PriceConstraint): PriceVariant {
  const starts = new Set<number>();
  for (const k of TOKEN_KEYS) {
    const v = mp[k];
    if (isTiered(v)) for (const t of v.tiers) starts.add(t.start);
  }
  const levels = [...starts].sort((a, b) => a - b).map((above) => ({ above, rates: ratesAt(mp, above) }));
  return { constraint, base: ratesAt(mp, undefined), levels };
}

function secondsOfDay(time: string): number {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/.exec(time);
  if (!m) return 0;
  const s = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(`0.${m[4] ?? ''}`);
  const off = m[5] === 'Z' ? 0 : (m[6] === '+' ? 1 : -1) * (Number(m[7]) * 3600 + Number(m[8]) * 60);
  return (s - off + 86400) % 86400;
}

/** Build the entry of a genai-prices ModelInfo (all its conditional variants). */
export function entryFromModelInfo(model: ModelInfo, providerId: string): PriceEntry {
  const list = Array.isArray(model.prices) ? model.prices : [{ prices: model.prices }];
  const variants = list.map((c) => {
    const k = c.constraint;
    let constraint: PriceConstraint = { kind: 'always' };
    if (k && k.type === 'start_date') constraint = { kind: 'since', ms: Date.parse(`${k.start_date}T00:00:00Z`) };
    else if (k && k.type === 'time_of_date') constraint = { kind: 'timeOfDay', start: secondsOfDay(k.start_time), end: secondsOfDay(k.end_time) };
    return buildVariant(withSupplements(providerId, model.id, c.prices), constraint);
  });
  return { modelId: model.id, providerId, source: 'genai-prices', variants, ...(typeof model.context_window === 'number' && { contextWindow: model.context_window }) };
}

/** The variant in force at `ms` (genai-prices' rule: last matching constraint wins; else the first). */
export function selectVariant(entry: PriceEntry, ms: number): PriceVariant {
  const vs = entry.variants;
  if (vs.length === 1) return vs[0] as PriceVariant;
  for (let i = vs.length - 1; i >= 0; i--) {
    const v = vs[i] as PriceVariant;
    const c = v.constraint;
    if (c.kind === 'always') return v;
    if (Number.isNaN(ms)) continue;
    if (c.kind === 'since') {
      if (ms >= c.ms) return v;
    } else {
      const d = new Date(ms);
      const t = d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 + d.getUTCSeconds() + d.getUTCMilliseconds() / 1e3;
      if (c.end < c.start ? t >= c.start || t < c.end : t >= c.start && t < c.end) return v;
    }
  }
  return vs[0] as PriceVariant;
}

/** Rates for a usage: the long-context level when `tiered` and the prompt passes its threshold. */
export function ratesFor(variant: PriceVariant, u: TokenCounts, tiered: boolean): RateSet {
  let rates = variant.base;
  if (tiered && variant.levels.length > 0) {
    const prompt = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
    const levels = variant.levels;
    // Indexed: once per priced event (see fold-totals.ts `account`).
    for (let i = 0; i < levels.length; i++) {
      const l = levels[i] as PriceVariant['levels'][number];
      if (prompt > l.above) rates = l.rates;
    }
  }
  return rates;
}

/** USD of a usage at the given rates. Inconsistent counts (1h > all writes, reasoning > output) are clamped. */
export function costAt(r: RateSet, u: TokenCounts): number {
  const cw1h = Math.min(u.cacheWrite1hTokens, u.cacheWriteTokens);
  const reasoning = r.reasoning === r.output ? 0 : Math.min(u.reasoningTokens, u.outputTokens);
  return (
    u.inputTokens * r.input +
    u.cacheReadTokens * r.cacheRead +
    (u.cacheWriteTokens - cw1h) * r.cacheWrite +
    cw1h * r.cacheWrite1h +
    (u.outputTokens - reasoning) * r.output +
    reasoning * r.reasoning +
    r.request
  );
}
