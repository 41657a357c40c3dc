/**
 * Builds the compact price table (price-data.ts) from the installed genai-prices, at build time
 * (scripts/build-price-data.mjs) and in its test.
 *
 * The package exports no list of its providers: `findProvider` searches the bundled array with
 * `Array.prototype.find`, which is how the array is taken here (the first `find` call's receiver), then held
 * to be the package's own by asking `findProvider` for each provider by id. Any surprise (another shape, a
 * provider it does not return) builds no table, and reports resolve through the package as before.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelInfo } from '@pydantic/genai-prices';
import { TABLE_FORMAT, type Clause, type PriceTableFiles, type TableModel, type TableProvider } from './price-data.js';

type GenaiPrices = typeof import('@pydantic/genai-prices');

interface RawModel {
  id: string;
  match: Clause;
  prices: ModelInfo['prices'];
  context_window?: unknown;
}
interface RawProvider {
  id: string;
  provider_match?: Clause;
  model_match?: Clause;
  fallback_model_providers?: string[];
  models: RawModel[];
}

/** The instant every resolution prices at (src/cost/pricing.ts RESOLVE_TIME). */
const PROBE_TIME = new Date('2025-01-01T00:00:00Z');

function bundledProviders(pkg: GenaiPrices): RawProvider[] | undefined {
  const find = Array.prototype.find; // eslint-disable-line @typescript-eslint/unbound-method
  let seen: unknown;
  Array.prototype.find = function (this: unknown[], ...args: Parameters<typeof find>) {
    seen ??= this;
    return find.apply(this, args);
  } as typeof find;
  try {
    pkg.findProvider({ providerId: 'anthropic' });
  } finally {
    Array.prototype.find = find;
  }
  if (!Array.isArray(seen) || seen.length === 0) return undefined;
  for (const p of seen as RawProvider[]) {
    if (typeof p?.id !== 'string' || !Array.isArray(p.models) || pkg.findProvider({ providerId: p.id }) !== (p as unknown)) return undefined;
  }
  return seen as RawProvider[];
}

/**
 * Whether `calcPrice` prices the model at PROBE_TIME (no tokens) without throwing or warning, as a report's
 * resolution calls it. Priced through the package as the only model of a provider passed in: the package
 * normalizes such a provider's price constraints first, which changes nothing for a constraint that states
 * its type, so a model with an untyped one is marked as well.
 */
function pricesCleanly(pkg: GenaiPrices, m: RawModel): boolean {
  if (Array.isArray(m.prices) && m.prices.some((c) => c.constraint !== undefined && (c.constraint as { type?: unknown }).type === undefined)) return false;
  const warn = console.warn;
  let warned = false;
  console.warn = () => {
    warned = true;
  };
  try {
    const probe = { id: 'sessionfold-probe', name: 'probe', models: [{ ...m, match: { equals: 'sessionfold-probe' } }] };
    const r = pkg.calcPrice({ input_tokens: 0, output_tokens: 0 }, 'sessionfold-probe', { provider: probe as never, timestamp: PROBE_TIME });
    return r !== null && !warned;
  } catch {
    return false;
  } finally {
    console.warn = warn;
  }
}

function tableModel(pkg: GenaiPrices, m: RawModel): TableModel {
  return {
    id: m.id,
    match: m.match,
    prices: m.prices,
    ...(typeof m.context_window === 'number' && { context_window: m.context_window }),
    ...(!pricesCleanly(pkg, m) && { bad: true as const }),
  };
}

/** The table of the package's bundled data, or undefined when the data is not as expected. */
export function buildPriceTable(pkg: GenaiPrices, version: string): PriceTableFiles | undefined {
  const raw = bundledProviders(pkg);
  if (raw === undefined) return undefined;
  const providers: TableProvider[] = raw.map((p) => ({
    id: p.id,
    ...(p.provider_match !== undefined && { provider_match: p.provider_match }),
    ...(p.model_match !== undefined && { model_match: p.model_match }),
    ...(p.fallback_model_providers !== undefined && { fallback_model_providers: p.fallback_model_providers }),
  }));
  return { format: TABLE_FORMAT, version, providers, models: raw.map((p) => JSON.stringify(p.models.map((m) => tableModel(pkg, m)))) };
}

/** Writes the table into `dir` as `loadPriceTable` (price-data.ts) reads it: `index.json` and `<i>.json`. */
export function writePriceTable(dir: string, table: PriceTableFiles): void {
  mkdirSync(dir, { recursive: true });
  table.models.forEach((json, i) => writeFileSync(join(dir, `${i}.json`), json));
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ format: table.format, version: table.version, providers: table.providers }));
}
