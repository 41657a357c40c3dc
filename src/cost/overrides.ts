/**
 * Per-model price overrides: a user file that prices models the bundled data does not know (a local or
 * company-hosted model), or re-prices ones it does (a negotiated rate). Looked up at
 * `--prices <file>` / `pricesFile`, else `$SESSIONFOLD_PRICES`, else `$XDG_CONFIG_HOME/sessionfold/prices.json`
 * (default `~/.config/sessionfold/prices.json`; a missing default file means no overrides, a missing named
 * file is an error). Format (genai-prices price keys, USD per million tokens, plain or tiered):
 *
 *   { "models": {
 *       "my-local-model":  { "input_mtok": 0, "output_mtok": 0 },
 *       "claude-sonnet-4-5": { "input_mtok": { "base": 3, "tiers": [{ "start": 200000, "price": 6 }] }, "output_mtok": 15 },
 *       "acme-*":          { "input_mtok": 1, "output_mtok": 2, "cache_read_mtok": 0.1 } } }
 *
 * A key matches the recorded model id or its normalized name (case-insensitive); a key ending in `*` matches
 * by prefix (the longest prefix wins). Unknown price keys are rejected (PRICE_ERROR), so a typo never turns
 * into a silent $0.
 */
import { readRegularFileSync } from '../../cursors/read-file.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ModelPrice } from '@pydantic/genai-prices';
import { SessionfoldError } from '../../cursors/protocol/errors.js';

/** The price keys an override may set. */
export const OVERRIDE_PRICE_KEYS = [
  'input_mtok',
  'output_mtok',
  'cache_read_mtok',
  'cache_write_mtok',
  'cache_write_1h_mtok',
  'output_reasoning_mtok',
  'requests_kcount',
] as const;

/** The parsed overrides: exact keys and prefix keys, lowercased. */
export interface PriceOverrides {
  /** Where they were read from (undefined: none). */
  path: string | undefined;
  exact: Map<string, ModelPrice>;
  /** Longest prefix first. */
  prefixes: [string, ModelPrice][];
}

/** No overrides (tests, or callers that want the bundled data only). */
export const NO_OVERRIDES: PriceOverrides = { path: undefined, exact: new Map(), prefixes: [] };

/** The override file that applies: explicit path, `$SESSIONFOLD_PRICES`, or the XDG default (not required to exist). */
export function getPricesPath(env: NodeJS.ProcessEnv = process.env, explicit?: string): { path: string; required: boolean } {
  if (explicit) return { path: explicit, required: true };
  if (env.SESSIONFOLD_PRICES) return { path: env.SESSIONFOLD_PRICES, required: true };
  const config = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return { path: join(config, 'sessionfold', 'prices.json'), required: false };
}

function fail(path: string, message: string): never {
  throw new SessionfoldError('PRICE_ERROR', `Invalid prices file ${path}: ${message}`, { file: path });
}

function checkPrice(path: string, model: string, key: string, v: unknown): number | { base: number; tiers: { start: number; price: number }[] } {
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  if (ok(v)) return v;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const t = v as { base?: unknown; tiers?: unknown };
    if (ok(t.base) && Array.isArray(t.tiers)) {
      const tiers = t.tiers.map((x: unknown) => {
        const tier = x as { start?: unknown; price?: unknown } | null;
        if (tier === null || typeof tier !== 'object' || !ok(tier.start) || !Number.isInteger(tier.start) || !ok(tier.price)) {
          fail(path, `"${model}".${key}: each tier must be {"start": <integer tokens>, "price": <USD>}, got ${JSON.stringify(x)}`);
        }
        return { start: tier.start as number, price: tier.price as number };
      });
      return { base: t.base, tiers };
    }
  }
  return fail(path, `"${model}".${key}: expected a non-negative number or {"base", "tiers"}, got ${JSON.stringify(v)}`);
}

/** Parse and validate an overrides document (already JSON-parsed). */
export function parseOverrides(doc: unknown, path: string): PriceOverrides {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) fail(path, 'expected a JSON object {"models": {...}}');
  const models = (doc as { models?: unknown }).models;
  if (models === null || typeof models !== 'object' || Array.isArray(models)) fail(path, 'expected a "models" object mapping model ids to prices');
  const exact = new Map<string, ModelPrice>();
  const prefixes: [string, ModelPrice][] = [];
  for (const [model, prices] of Object.entries(models as Record<string, unknown>)) {
    if (prices === null || typeof prices !== 'object' || Array.isArray(prices)) fail(path, `"${model}": expected an object of prices`);
    const mp: ModelPrice = {};
    for (const [k, v] of Object.entries(prices as Record<string, unknown>)) {
      if (!(OVERRIDE_PRICE_KEYS as readonly string[]).includes(k)) fail(path, `"${model}": unknown price key "${k}" (known: ${OVERRIDE_PRICE_KEYS.join(', ')})`);
      mp[k] = checkPrice(path, model, k, v) as ModelPrice[string];
    }
    if (mp.input_mtok === undefined && mp.output_mtok === undefined) fail(path, `"${model}": needs at least input_mtok or output_mtok`);
    const key = model.trim().toLowerCase();
    if (key.endsWith('*')) prefixes.push([key.slice(0, -1), mp]);
    else exact.set(key, mp);
  }
  prefixes.sort((a, b) => b[0].length - a[0].length);
  return { path, exact, prefixes };
}

/** Load the overrides that apply (none when the default file does not exist). */
export function loadPriceOverrides(env: NodeJS.ProcessEnv = process.env, explicit?: string): PriceOverrides {
  const { path, required } = getPricesPath(env, explicit);
  let text: string;
  try {
    text = readRegularFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !required) return NO_OVERRIDES;
    throw new SessionfoldError('PRICE_ERROR', `Cannot read prices file ${path}: ${(e as Error).message}`, { file: path, cause: e });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    fail(path, (e as Error).message);
  }
  return parseOverrides(doc, path);
}

/** The override for any of the names (exact first, then the longest matching prefix). */
export function findOverride(o: PriceOverrides, names: readonly string[]): { key: string; prices: ModelPrice } | undefined {
  for (const n of names) {
    const p = o.exact.get(n);
    if (p) return { key: n, prices: p };
  }
  for (const [prefix, prices] of o.prefixes) for (const n of names) if (n.startsWith(prefix)) return { key: `${prefix}*`, prices };
  return undefined;
}
