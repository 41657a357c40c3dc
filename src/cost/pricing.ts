/**
 * `createPricer()`: prices usage events. Each distinct (provider, model) is resolved once (overrides first,
 * then genai-prices' bundled data, offline: `updatePrices` is never called) into a PriceEntry of flat rates
 * (price-table.ts); pricing an event is then a memoized map lookup and a few multiplications.
 *
 * Cost modes:
 * - `auto`: the agent's own recorded `costUsd` when present, else the computed price.
 * - `calculate`: always the computed price.
 * - `display`: the recorded cost only; an event without one has no price (reported as unpriced).
 *
 * A model without a price is never $0: `price()` returns `usd: undefined, unpriced: true` and the folds
 * list it. The one exception is usage with no tokens at all, which costs $0 whatever its model.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packageFile } from '../../cursors/package-file.js';
import { packageRoot } from '../../cursors/versions.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';
import { checkCostMode, type CostMode } from './types.js';
import { modelCandidates, normalizeModelName } from './models.js';
import { findOverride, loadPriceOverrides, type PriceOverrides } from './overrides.js';
import { withSurcharges } from './surcharges.js';
import type { TokenCounts } from '../../cursors/protocol/events.js';
import { buildVariant, costAt, entryFromModelInfo, ratesFor, selectVariant, type PriceEntry } from './price-table.js';
import { loadPriceTable, lookupPrice, type PriceTable, type TableMatch } from './price-data.js';

/**
 * Goes up whenever our price arithmetic changes (tiers, surcharges, model-name candidates): it is part of
 * every pricer's fingerprint, so fold snapshots priced by older rules are not reused.
 */
export const PRICING_RULES_VERSION = 2;

const require = createRequire(import.meta.url);
type GenaiPrices = typeof import('@pydantic/genai-prices');
let genai: GenaiPrices | undefined;
/**
 * genai-prices, loaded on first use: its 480 KB module takes 94–99 ms of CPU to compile and run (bench/RESULTS.md,
 * "Start-up of a cold report"), which a report resolving through the build's table, or a warm report whose
 * models are all resolved already (a fold snapshot carries its pricer's resolutions), never pays.
 */
function genaiPrices(): GenaiPrices {
  genai ??= require('@pydantic/genai-prices') as GenaiPrices;
  return genai;
}

let table: PriceTable | null | undefined;
/**
 * The build's compact table of the price data (price-data.ts), when it was built from the installed
 * genai-prices by this code's builder; null without one (a build without it, another version installed, a table
 * of another format, `SESSIONFOLD_PRICE_TABLE=0`).
 */
function priceTable(): PriceTable | null {
  if (table !== undefined) return table;
  table = null;
  const root = packageRoot();
  if (root === undefined || process.env.SESSIONFOLD_PRICE_TABLE === '0') return table;
  table = loadPriceTable(join(root, 'dist', 'src', 'cost', 'price-data'), priceDataVersion());
  return table;
}

/** The table's answer for one candidate, or 'package' when the package must answer. */
function fromTable(t: PriceTable | null, model: string, providerId: string | undefined): TableMatch {
  if (t === null) return 'package';
  try {
    return lookupPrice(t, model, providerId);
  } catch {
    return 'package'; // a provider's file that cannot be read or parsed
  }
}

let dataVersion: string | undefined;
/**
 * The installed genai-prices version (its price data changes with it). Its package.json is found as `require`
 * finds the package (cursors/package-file.ts): resolving the package's entry instead went through its
 * `exports` map, which starts part of Node's ESM resolver, on every warm status line (its fingerprint
 * check); the package's entry is the fallback.
 */
export function priceDataVersion(): string {
  if (dataVersion === undefined) {
    try {
      const pkg = packageFile(require, '@pydantic/genai-prices', 'package.json') ?? join(dirname(require.resolve('@pydantic/genai-prices')), '..', 'package.json');
      dataVersion = String((JSON.parse(readFileSync(pkg, 'utf8')) as { version?: unknown }).version ?? 'unknown');
    } catch {
      dataVersion = 'unknown';
    }
  }
  return dataVersion;
}


/** Where a price came from: the agent's recorded cost, or our computation. */
export type PriceSource = 'agent' | 'calculated';

/** The price of one usage event. */
export interface PriceResult {
  /** USD; undefined when the event could not be priced. */
  usd: number | undefined;
  source: PriceSource;
  /** True when no price applies (unknown model, or `display` mode without a recorded cost). */
  unpriced: boolean;
}

/** Options of `createPricer`. */
export interface PricerOptions {
  /** Default mode of `price()` (default `auto`). */
  mode?: CostMode;
  /** Overrides already loaded; otherwise they are loaded from `pricesFile` / env. */
  overrides?: PriceOverrides;
  /** Path of a price-override file (else `$SESSIONFOLD_PRICES`, else the XDG default). */
  pricesFile?: string;
  env?: NodeJS.ProcessEnv;
}

/** One memoized resolution: the memo key (`model` or `provider\0model`) and its entry (null: no price). */
export type ResolvedPrice = [key: string, entry: PriceEntry | null];

/** The usage fields pricing reads (a UsageEvent has them all). */
export type PriceableUsage = TokenCounts &
  Pick<UsageEvent, 'model' | 'timestamp' | 'singleRequest'> &
  Partial<Pick<UsageEvent, 'provider' | 'costUsd' | 'speed' | 'webSearchRequests'>>;

/** Prices usage events (`createPricer`); resolves each (provider, model) once. */
export interface Pricer {
  readonly mode: CostMode;
  /** The override file in use, if any. */
  readonly overridesPath: string | undefined;
  /**
   * Price one usage event.
   * @example
   * const pricer = createPricer();
   * const { usd, source, unpriced } = pricer.price(usageEvent); // e.g. { usd: 0.0123, source: 'calculated', unpriced: false }
   */
  price(usage: PriceableUsage, mode?: CostMode): PriceResult;
  /**
   * `price()` without the result object, for folds over millions of events: the USD, or NaN when unpriced.
   * The source is `agent` exactly when the mode is not `calculate` and the usage has a recorded cost.
   */
  priceUsd(usage: PriceableUsage, mode?: CostMode): number;
  /** The computed USD of a usage (ignores any recorded cost), or undefined when its model has no price. */
  calculate(usage: PriceableUsage): number | undefined;
  /** The price entry a recorded (model, provider) resolves to (memoized), or undefined when it has none. */
  resolve(model: string, provider?: string): PriceEntry | undefined;
  /**
   * What prices depend on besides the usage: the price data's version, our rules' version and the overrides.
   * Two pricers with the same fingerprint price every usage alike (mode aside). Optional for pricers made
   * elsewhere; without one, results are not cached across runs.
   */
  readonly fingerprint?: string;
  /** The resolutions made so far, for `seed()` of a pricer with the same fingerprint. */
  exportResolved?(): ResolvedPrice[];
  /** Take resolutions `exportResolved()` of a pricer with the same fingerprint made (skips resolving them). */
  seed?(resolved: readonly ResolvedPrice[]): void;
}

const RESOLVE_TIME = new Date('2025-01-01T00:00:00Z');

/** Resolve a recorded (model, provider) to a price entry, trying overrides then the bundled data. */
export function resolvePriceEntry(model: string, provider: string | undefined, overrides: PriceOverrides | undefined): PriceEntry | undefined {
  if (overrides && (overrides.exact.size > 0 || overrides.prefixes.length > 0)) {
    const n = normalizeModelName(model);
    const names = [model.trim().toLowerCase(), n.name, ...(n.undated !== undefined ? [n.undated] : [])];
    const o = findOverride(overrides, names);
    if (o) return { modelId: o.key, providerId: 'override', source: 'override', variants: [buildVariant(o.prices, { kind: 'always' })] };
  }
  return resolveBundled(model, provider, priceTable());
}

/**
 * genai-prices' entry for a recorded (model, provider): through `table` where it answers, else the package
 * (null: the package alone). Exported for the tests, which hand it tables of their own.
 */
export function resolveBundled(model: string, provider: string | undefined, table: PriceTable | null): PriceEntry | undefined {
  for (const c of modelCandidates(model, provider)) {
    const hit = fromTable(table, c.model, c.providerId);
    if (hit === null) continue;
    if (hit !== 'package') return entryFromModelInfo(hit.model, hit.providerId);
    let r;
    try {
      r = genaiPrices().calcPrice({ input_tokens: 0, output_tokens: 0 }, c.model, { ...(c.providerId !== undefined && { providerId: c.providerId }), timestamp: RESOLVE_TIME });
    } catch {
      continue;
    }
    if (r) return entryFromModelInfo(r.model, r.provider.id);
  }
  return undefined;
}

function hasNoTokens(u: TokenCounts): boolean {
  return u.inputTokens === 0 && u.outputTokens === 0 && u.cacheReadTokens === 0 && u.cacheWriteTokens === 0;
}

/**
 * Create a pricer. Price overrides are read once, here.
 * @example
 * const pricer = createPricer({ mode: 'calculate' });
 * pricer.price({ model: 'claude-sonnet-4-20250514', timestamp: '2025-06-01T00:00:00Z', singleRequest: true,
 *   inputTokens: 10, outputTokens: 200, reasoningTokens: 0, cacheReadTokens: 5000, cacheWriteTokens: 1000, cacheWrite1hTokens: 0 });
 * // → { usd: 0.00675, source: 'calculated', unpriced: false }
 */
export function createPricer(options: PricerOptions = {}): Pricer {
  const mode = checkCostMode(options.mode ?? 'auto');
  const overrides = options.overrides ?? loadPriceOverrides(options.env ?? process.env, options.pricesFile);
  const memo = new Map<string, PriceEntry | null>();
  // Made on first read: finding the price data's version resolves its package (~10 ms at start-up), which a
  // report that keeps no snapshot (no cache, or nothing to read) never needs.
  let fingerprint: string | undefined;
  const fingerprintOf = (): string =>
    (fingerprint ??= JSON.stringify({
      data: priceDataVersion(),
      rules: PRICING_RULES_VERSION,
      exact: [...overrides.exact].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
      prefixes: overrides.prefixes,
    }));

  // Folds price runs of events of one (model, provider): the last pair skips building the memo's key.
  let lastModel: string | undefined;
  let lastProvider: string | undefined;
  let lastEntry: PriceEntry | undefined;
  const resolve = (model: string, provider?: string): PriceEntry | undefined => {
    if (model === lastModel && provider === lastProvider) return lastEntry;
    const key = provider === undefined ? model : `${provider}\u0000${model}`;
    let e = memo.get(key);
    if (e === undefined) {
      e = resolvePriceEntry(model, provider, overrides) ?? null;
      memo.set(key, e);
    }
    lastModel = model;
    lastProvider = provider;
    lastEntry = e ?? undefined;
    return lastEntry;
  };

  const calculate = (u: PriceableUsage): number | undefined => {
    const entry = resolve(u.model, u.provider);
    if (!entry) return hasNoTokens(u) ? 0 : undefined;
    const variant = entry.variants.length === 1 ? (entry.variants[0] as PriceEntry['variants'][number]) : selectVariant(entry, Date.parse(u.timestamp));
    const usd = costAt(ratesFor(variant, u, u.singleRequest), u);
    return u.speed === undefined && u.webSearchRequests === undefined ? usd : withSurcharges(usd, u);
  };

  return {
    mode,
    overridesPath: overrides.path,
    get fingerprint() {
      return fingerprintOf();
    },
    exportResolved: () => [...memo],
    seed(resolved) {
      for (const [k, e] of resolved) if (!memo.has(k)) memo.set(k, e);
    },
    resolve,
    calculate,
    priceUsd(u: PriceableUsage, m: CostMode = mode): number {
      const c = u.costUsd;
      if (m !== 'calculate' && typeof c === 'number' && Number.isFinite(c)) return c;
      if (m === 'display') return hasNoTokens(u) ? 0 : NaN;
      return calculate(u) ?? NaN;
    },
    price(u: PriceableUsage, m: CostMode = mode): PriceResult {
      const recorded = typeof u.costUsd === 'number' && Number.isFinite(u.costUsd) ? u.costUsd : undefined;
      if (m === 'display') {
        if (recorded !== undefined) return { usd: recorded, source: 'agent', unpriced: false };
        return hasNoTokens(u) ? { usd: 0, source: 'calculated', unpriced: false } : { usd: undefined, source: 'agent', unpriced: true };
      }
      if (m === 'auto' && recorded !== undefined) return { usd: recorded, source: 'agent', unpriced: false };
      const usd = calculate(u);
      return { usd, source: 'calculated', unpriced: usd === undefined };
    },
  };
}
