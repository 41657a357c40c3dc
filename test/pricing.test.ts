import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calcPrice, type Provider } from '@pydantic/genai-prices';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPricer, priceDataVersion, resolvePriceEntry, type PriceableUsage } from '../src/cost/pricing.js';
import { parseOverrides, NO_OVERRIDES } from '../src/cost/overrides.js';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import { withSupplements } from '../src/cost/price-supplements.js';

function usage(over: Partial<PriceableUsage> & { model: string }): PriceableUsage {
  return {
    timestamp: '2025-10-01T12:00:00.000Z',
    singleRequest: true,
    inputTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    ...over,
  };
}

/** genai-prices' own answer for the same usage (its input_tokens is the whole prompt). */
function reference(u: PriceableUsage, providerId?: string, provider?: Provider): number | undefined {
  // the data's entry with what src/cost/price-supplements.ts adds to it, as a provider of its own
  if (provider === undefined) {
    const found = calcPrice({ input_tokens: 0, output_tokens: 0 }, u.model, providerId !== undefined ? { providerId } : {});
    const prices = found?.model.prices;
    if (found && prices !== undefined && !Array.isArray(prices)) {
      const patched = withSupplements(found.provider.id, found.model.id, prices);
      if (patched !== prices) provider = { ...found.provider, models: [{ ...found.model, match: { equals: u.model }, prices: patched }] };
    }
  }
  const r = calcPrice(
    {
      input_tokens: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens,
      cache_read_tokens: u.cacheReadTokens,
      cache_write_tokens: u.cacheWriteTokens,
      cache_write_1h_tokens: u.cacheWrite1hTokens,
      output_tokens: u.outputTokens,
      output_reasoning_tokens: u.reasoningTokens,
    },
    u.model,
    { timestamp: new Date(u.timestamp), ...(providerId !== undefined && { providerId }), ...(provider !== undefined && { provider }) },
  );
  return r?.total_price;
}

const pricer = createPricer({ mode: 'calculate', overrides: NO_OVERRIDES });

function dataPrices1hLikeUs(model: string): boolean {
  const providerId = pricer.resolve(model)?.providerId;
  const r = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, providerId === undefined ? {} : { providerId });
  if (!r) return false;
  const list = Array.isArray(r.model.prices) ? r.model.prices.map((c) => c.prices) : [r.model.prices];
  return list.every((p) => p.cache_write_1h_mtok !== undefined || p.cache_write_mtok === undefined);
}

function closeTo(a: number | undefined, b: number | undefined): void {
  expect(a).toBeTypeOf('number');
  expect(b).toBeTypeOf('number');
  expect(Math.abs((a as number) - (b as number))).toBeLessThanOrEqual(1e-12 + 1e-9 * Math.abs(b as number));
}

// Claude (flat, tiered, dated-conditional), GPT-5.x / codex (flat, tiered, dated-conditional), Gemini (flat,
// tiered), DeepSeek (time-of-day prices).
const SAMPLE_MODELS = [
  'claude-sonnet-4-20250514',
  'claude-sonnet-4-5-20250929',
  'claude-opus-4-6',
  'claude-haiku-4-5-20251001',
  'claude-3-5-haiku-20241022',
  'claude-opus-4-1-20250805',
  'gpt-5',
  'gpt-5-codex',
  'gpt-5.1-codex-max',
  'gpt-5.2-codex',
  'gpt-5.4',
  'gpt-5.5',
  'codex-mini-latest',
  'o3',
  'gemini-2.5-pro',
  'gemini-2.5-flash',
  'gemini-3-pro-preview',
  'deepseek-chat',
];

describe('pricing arithmetic', () => {
  it('every sample model resolves to a price', () => {
    for (const m of SAMPLE_MODELS) expect(pricer.resolve(m), m).toBeDefined();
  });

  it('equals calcPrice on sampled single-request usages across Claude, GPT-5.x/codex, Gemini (tiers included)', () => {
    const tokens = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 0, max: 400_000 }));
    fc.assert(
      fc.property(
        fc.constantFrom(...SAMPLE_MODELS),
        tokens,
        tokens,
        tokens,
        tokens,
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: Date.parse('2024-06-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z') }),
        (model, input, output, cacheRead, cacheWrite, pct1h, pctReasoning, ms) => {
          // Where the data has a 5-minute but no 1-hour write price we bill 2x input on purpose (tested
          // below), so 1h writes are compared only where the data prices them the library's way.
          const has1h = dataPrices1hLikeUs(model);
          const u = usage({
            model,
            timestamp: new Date(ms).toISOString(),
            inputTokens: input,
            outputTokens: output,
            reasoningTokens: Math.floor((output * pctReasoning) / 100),
            cacheReadTokens: cacheRead,
            cacheWriteTokens: cacheWrite,
            cacheWrite1hTokens: has1h ? Math.floor((cacheWrite * pct1h) / 100) : 0,
          });
          closeTo(pricer.calculate(u), reference(u, pricer.resolve(model)?.providerId));
        },
      ),
      { numRuns: 2000, seed: 20260101 },
    );
  });

  it('equals calcPrice for a per-request fee (perplexity sonar, requests_kcount)', () => {
    const u = usage({ model: 'sonar', provider: 'perplexity', inputTokens: 1200, outputTokens: 300 });
    closeTo(pricer.calculate(u), reference(u, 'perplexity'));
    expect(pricer.resolve('sonar', 'perplexity')?.variants[0]?.base.request).toBeGreaterThan(0);
  });

  it('bills a single request whose prompt passes the long-context threshold wholly at the higher tier', () => {
    // claude-sonnet-4-5: input 3 → 6, output 15 → 22.5, cache read 0.3 → 0.6, cache write 3.75 → 7.5 above 200k.
    const u = usage({ model: 'claude-sonnet-4-5', inputTokens: 1_000, cacheReadTokens: 150_000, cacheWriteTokens: 49_001, outputTokens: 2_000 });
    const expected = (1_000 * 6 + 150_000 * 0.6 + 49_001 * 7.5 + 2_000 * 22.5) / 1e6;
    closeTo(pricer.calculate(u), expected);
    closeTo(pricer.calculate(u), reference(u));
  });

  it('keeps base rates for a prompt exactly at the threshold', () => {
    const u = usage({ model: 'claude-sonnet-4-5', inputTokens: 1_000, cacheReadTokens: 150_000, cacheWriteTokens: 49_000, outputTokens: 2_000 });
    closeTo(pricer.calculate(u), (1_000 * 3 + 150_000 * 0.3 + 49_000 * 3.75 + 2_000 * 15) / 1e6);
  });

  it('never tiers usage that is not a single request', () => {
    const single = usage({ model: 'gemini-2.5-pro', inputTokens: 500_000, outputTokens: 10_000 });
    const span = { ...single, singleRequest: false };
    closeTo(pricer.calculate(span), (500_000 * 1.25 + 10_000 * 10) / 1e6);
    closeTo(pricer.calculate(single), (500_000 * 2.5 + 10_000 * 15) / 1e6);
  });

  it('bills Claude Sonnet 4 above 200k at its long-context rates, which the price data lacks (price-supplements.ts)', () => {
    // Anthropic: input 3 → 6, output 15 → 22.5, cache read 0.3 → 0.6, cache writes 3.75 → 7.5 and 6 → 12.
    const big = usage({ model: 'claude-sonnet-4-20250514', inputTokens: 250_000, outputTokens: 1_000 });
    closeTo(pricer.calculate(big), (250_000 * 6 + 1_000 * 22.5) / 1e6);
    closeTo(pricer.calculate(big), pricer.calculate(usage({ ...big, model: 'claude-sonnet-4-5-20250929' })));
    const cached = usage({ model: 'claude-sonnet-4-20250514', inputTokens: 10, cacheReadTokens: 150_000, cacheWriteTokens: 60_000, cacheWrite1hTokens: 20_000, outputTokens: 100 });
    closeTo(pricer.calculate(cached), (10 * 6 + 150_000 * 0.6 + 40_000 * 7.5 + 20_000 * 12 + 100 * 22.5) / 1e6);
    const small = usage({ model: 'claude-sonnet-4-20250514', inputTokens: 200_000, outputTokens: 1_000 });
    closeTo(pricer.calculate(small), (200_000 * 3 + 1_000 * 15) / 1e6);
    // an entry the data already tiers is left as it is
    const tiered = { input_mtok: { base: 3, tiers: [{ start: 200_000, price: 6 }] }, output_mtok: 15 };
    expect(withSupplements('anthropic', 'claude-sonnet-4-0', tiered)).toBe(tiered);
  });

  it('bills 1-hour cache writes at their own rate', () => {
    // claude-sonnet-4: cache write 3.75 (5 min), 6 (1 h); a prompt under its 200k long-context threshold.
    const u = usage({ model: 'claude-sonnet-4-20250514', cacheWriteTokens: 100_000, cacheWrite1hTokens: 40_000 });
    closeTo(pricer.calculate(u), 60_000 * 3.75e-6 + 40_000 * 6e-6);
    closeTo(pricer.calculate(u), reference(u));
  });

  it('bills 1-hour cache writes at 2x base input when the data has no 1-hour price', () => {
    const overrides = parseOverrides({ models: { 'cachy-1': { input_mtok: 2, cache_write_mtok: 2.5, cache_read_mtok: 0.2, output_mtok: 8 } } }, '<test>');
    const p = createPricer({ mode: 'calculate', overrides });
    const u = usage({ model: 'cachy-1', inputTokens: 10, cacheWriteTokens: 1_000, cacheWrite1hTokens: 600, outputTokens: 5 });
    closeTo(p.calculate(u), (10 * 2 + 400 * 2.5 + 600 * 4 + 5 * 8) / 1e6);
    // Same as genai-prices would give if the data carried Anthropic's 2x rate explicitly.
    const provider: Provider = {
      id: 'test',
      name: 'test',
      api_pattern: 'x',
      models: [{ id: 'cachy-1', match: { equals: 'cachy-1' }, prices: { input_mtok: 2, cache_write_mtok: 2.5, cache_write_1h_mtok: 4, cache_read_mtok: 0.2, output_mtok: 8 } }],
    };
    closeTo(p.calculate(u), reference(u, undefined, provider));
  });

  it('follows dated price changes by event timestamp (claude-opus-4-6 drops its long-context tier on 2026-03-13)', () => {
    const big = { model: 'claude-opus-4-6', inputTokens: 300_000, outputTokens: 1_000 };
    closeTo(pricer.calculate(usage({ ...big, timestamp: '2026-03-12T23:59:59Z' })), (300_000 * 10 + 1_000 * 37.5) / 1e6);
    closeTo(pricer.calculate(usage({ ...big, timestamp: '2026-03-13T00:00:00Z' })), (300_000 * 5 + 1_000 * 25) / 1e6);
  });

  it('follows time-of-day prices (deepseek-chat)', () => {
    for (const ts of ['2025-10-01T03:00:00Z', '2025-10-01T20:00:00Z']) {
      const u = usage({ model: 'deepseek-chat', timestamp: ts, inputTokens: 1_000_000, outputTokens: 1_000_000 });
      closeTo(pricer.calculate(u), reference(u));
    }
    const day = pricer.calculate(usage({ model: 'deepseek-chat', timestamp: '2025-10-01T03:00:00Z', inputTokens: 1e6 }));
    const night = pricer.calculate(usage({ model: 'deepseek-chat', timestamp: '2025-10-01T20:00:00Z', inputTokens: 1e6 }));
    expect(day).not.toBe(night);
  });
});

describe('the price data version', () => {
  it('is the installed genai-prices package\'s version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../node_modules/@pydantic/genai-prices/package.json', import.meta.url), 'utf8')) as { version: string };
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(priceDataVersion()).toBe(pkg.version);
  });
});

describe('unpriced usage', () => {
  it('reports a model without a price as unpriced, never as $0', () => {
    const r = pricer.price(usage({ model: 'totally-unknown-model-9', inputTokens: 100, outputTokens: 10 }));
    expect(r).toEqual({ usd: undefined, source: 'calculated', unpriced: true });
  });

  it('prices usage with no tokens at $0 whatever the model', () => {
    expect(pricer.price(usage({ model: '<synthetic>' }))).toEqual({ usd: 0, source: 'calculated', unpriced: false });
  });
});

describe('cost modes', () => {
  const recorded = usage({ model: 'claude-sonnet-4-20250514', inputTokens: 1_000, outputTokens: 1_000, costUsd: 0.5 });
  const bare = usage({ model: 'claude-sonnet-4-20250514', inputTokens: 1_000, outputTokens: 1_000 });
  const computed = (1_000 * 3 + 1_000 * 15) / 1e6;

  it('auto uses the recorded cost when present, else computes', () => {
    expect(pricer.price(recorded, 'auto')).toEqual({ usd: 0.5, source: 'agent', unpriced: false });
    const r = pricer.price(bare, 'auto');
    expect(r.source).toBe('calculated');
    closeTo(r.usd, computed);
  });

  it('calculate ignores the recorded cost', () => {
    const r = pricer.price(recorded, 'calculate');
    expect(r.source).toBe('calculated');
    closeTo(r.usd, computed);
  });

  it('display uses only the recorded cost and reports the rest as unpriced', () => {
    expect(pricer.price(recorded, 'display')).toEqual({ usd: 0.5, source: 'agent', unpriced: false });
    expect(pricer.price(bare, 'display')).toEqual({ usd: undefined, source: 'agent', unpriced: true });
  });

  it('the pricer default mode applies when none is passed', () => {
    expect(createPricer({ mode: 'display', overrides: NO_OVERRIDES }).price(bare).unpriced).toBe(true);
  });

  it('rejects an unknown mode', () => {
    expect(() => createPricer({ mode: 'cheap' as never, overrides: NO_OVERRIDES })).toThrow(/Invalid option mode/);
  });
});

describe('model-name normalization', () => {
  it.each([
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['claude-sonnet-4-5-20250929[1m]', 'claude-sonnet-4-5'],
    ['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5'],
    ['us.anthropic.claude-3-7-sonnet-20250219-v1:0', 'claude-3-7-sonnet-latest'],
    ['claude-opus-4-1@20250805', 'claude-opus-4-1'],
    ['openai/gpt-5', 'gpt-5'],
    ['OpenAI/GPT-5.2-Codex', 'gpt-5.2'],
    ['models/gemini-2.5-flash', 'gemini-2.5-flash'],
    ['google/gemini-2.5-pro', 'gemini-2.5-pro'],
  ])('%s prices as %s', (raw, id) => {
    expect(resolvePriceEntry(raw, undefined, NO_OVERRIDES)?.modelId).toBe(id);
  });

  it('resolves each (provider, model) once', () => {
    const p = createPricer({ overrides: NO_OVERRIDES });
    const a = p.resolve('claude-sonnet-4-20250514', 'anthropic');
    expect(a).toBeDefined();
    expect(p.resolve('claude-sonnet-4-20250514', 'anthropic')).toBe(a);
  });

  it('uses the event provider when it knows the model', () => {
    expect(resolvePriceEntry('claude-sonnet-4-5', 'google', NO_OVERRIDES)?.providerId).toBe('google');
    expect(resolvePriceEntry('claude-sonnet-4-5', 'nonexistent', NO_OVERRIDES)?.providerId).toBe('anthropic');
  });
});

describe('price overrides', () => {
  function tempFile(doc: unknown): string {
    const dir = mkdtempSync(join(tmpdir(), 'sf-prices-'));
    const f = join(dir, 'prices.json');
    writeFileSync(f, typeof doc === 'string' ? doc : JSON.stringify(doc));
    return f;
  }

  it('prices a model the data does not know', () => {
    const f = tempFile({ models: { 'acme-coder': { input_mtok: 1, output_mtok: 2 } } });
    const p = createPricer({ mode: 'calculate', pricesFile: f, env: {} });
    closeTo(p.calculate(usage({ model: 'acme-coder', inputTokens: 1e6, outputTokens: 1e6 })), 3);
    expect(p.overridesPath).toBe(f);
  });

  it('beats the bundled data, matching dated names and prefixes', () => {
    const f = tempFile({ models: { 'claude-sonnet-4': { input_mtok: 1, output_mtok: 1 }, 'local-*': { input_mtok: 0, output_mtok: 0 } } });
    const p = createPricer({ mode: 'calculate', env: { SESSIONFOLD_PRICES: f } });
    closeTo(p.calculate(usage({ model: 'claude-sonnet-4-20250514', inputTokens: 1e6 })), 1);
    expect(p.price(usage({ model: 'local-llama', inputTokens: 5 }))).toEqual({ usd: 0, source: 'calculated', unpriced: false });
  });

  it('reads $XDG_CONFIG_HOME/sessionfold/prices.json, and a missing default file means no overrides', () => {
    const cfg = mkdtempSync(join(tmpdir(), 'sf-xdg-'));
    expect(createPricer({ env: { XDG_CONFIG_HOME: cfg } }).overridesPath).toBeUndefined();
    mkdirSync(join(cfg, 'sessionfold'));
    writeFileSync(join(cfg, 'sessionfold', 'prices.json'), JSON.stringify({ models: { 'x-1': { input_mtok: 5 } } }));
    const p = createPricer({ mode: 'calculate', env: { XDG_CONFIG_HOME: cfg } });
    closeTo(p.calculate(usage({ model: 'x-1', inputTokens: 1e6 })), 5);
  });

  it('supports tiered override prices', () => {
    const f = tempFile({ models: { 'big-1': { input_mtok: { base: 1, tiers: [{ start: 1000, price: 2 }] }, output_mtok: 4 } } });
    const p = createPricer({ mode: 'calculate', pricesFile: f, env: {} });
    closeTo(p.calculate(usage({ model: 'big-1', inputTokens: 1000 })), 1000 / 1e6);
    closeTo(p.calculate(usage({ model: 'big-1', inputTokens: 1001 })), 2002 / 1e6);
  });

  it.each([
    [{ models: { m: { input_mtk: 1 } } }, /unknown price key "input_mtk"/],
    [{ models: { m: { input_mtok: -1 } } }, /expected a non-negative number/],
    [{ models: { m: { cache_read_mtok: 1 } } }, /needs at least input_mtok or output_mtok/],
    [{ m: { input_mtok: 1 } }, /"models" object/],
    ['{ not json', /Invalid prices file/],
  ])('rejects a bad file with PRICE_ERROR (%#)', (doc, message) => {
    const f = tempFile(doc);
    let err: unknown;
    try {
      createPricer({ pricesFile: f, env: {} });
    } catch (e) {
      err = e;
    }
    expect(isSessionfoldError(err, 'PRICE_ERROR')).toBe(true);
    expect((err as Error).message).toMatch(message);
  });

  it('a named file that does not exist is an error', () => {
    expect(() => createPricer({ pricesFile: join(tmpdir(), 'no-such-dir-sf', 'p.json'), env: {} })).toThrow(/Cannot read prices file/);
  });
});
