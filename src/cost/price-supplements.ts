/**
 * Prices the bundled genai-prices data lacks and a provider publishes, filled in where the data's entry has no
 * tier of its own (so a later version of the data that carries them wins): Anthropic's long-context rates for
 * Claude Sonnet 4, which bill a request whose prompt passes 200k tokens at $6 input and $22.50 output per
 * million, cache reads and writes at the same 2x (the 1M-context launch's pricing, as Sonnet 4.5's entry
 * in the data already states).
 */
import type { ModelPrice, TieredPrices } from '@pydantic/genai-prices';

type Tiered = TieredPrices;

/** The long-context multiple of each rate above `start`, per `<provider>/<model id>` of the data. */
const LONG_CONTEXT: Record<string, { start: number; factor: Partial<Record<string, number>> }> = {
  'anthropic/claude-sonnet-4-0': {
    start: 200_000,
    factor: { input_mtok: 2, cache_write_mtok: 2, cache_write_1h_mtok: 2, cache_read_mtok: 2, output_mtok: 1.5 },
  },
};

const isTiered = (v: unknown): boolean => typeof v === 'object' && v !== null && Array.isArray((v as Tiered).tiers);

/** `prices` of `<providerId>/<modelId>` with its missing long-context tier, or `prices` itself. */
export function withSupplements(providerId: string, modelId: string, prices: ModelPrice): ModelPrice {
  const s = LONG_CONTEXT[`${providerId}/${modelId}`];
  if (s === undefined || Object.values(prices).some(isTiered)) return prices;
  const out: Record<string, unknown> = { ...prices };
  for (const [key, factor] of Object.entries(s.factor)) {
    const base = prices[key as keyof ModelPrice];
    if (typeof base === 'number' && factor !== undefined) out[key] = { base, tiers: [{ start: s.start, price: base * factor }] } satisfies Tiered;
  }
  return out as ModelPrice;
}
