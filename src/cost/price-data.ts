/**
 * genai-prices' bundled price data as a compact JSON table, written by the build (scripts/build-price-data.mjs)
 * next to this module's build (the directory `dist/src/cost/price-data/`: `index.json` and `<i>.json`), and
 * the package's model lookup over it.
 *
 * Why: requiring `@pydantic/genai-prices` compiles and runs its 480 KB module (the data as one object literal,
 * with names, descriptions, URLs and extractors a report never reads): about 100 ms of CPU on the main thread
 * of every cold report, more than parsing a 34 MB history takes (bench/RESULTS.md, "Start-up of a cold
 * report"). The table keeps what a resolution reads (ids, match clauses, prices, context windows): the
 * providers in `price-data/index.json` (4 KB), each provider's models in a file of their own (`<i>.json`),
 * read when that provider is first searched (a Claude and Codex history reads two, about 30 KB).
 *
 * The lookup restates what `calcPrice` (the package's dist/index.cjs) does before it prices: the provider by
 * id or `provider_match` (LiteLLM's `vendor/model` names split first), else the first whose `model_match`
 * holds; then the provider's first model whose `match` holds, its `fallback_model_providers`' models next,
 * and again with a `-YYYYMMDD` date spelled `-YYYY-MM-DD`. A model for which `calcPrice` would throw or warn
 * (checked here at build time, by pricing it through the package) is marked, and its resolution goes to
 * the package, as does every resolution when the table was built from another version of it or in another
 * format (TABLE_FORMAT), or a file of it cannot be read.
 * test/price-data.test.ts holds the two lookups equal over every model id and match string of the data.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelInfo } from '@pydantic/genai-prices';

/**
 * The table's format, written into its `index.json`: goes up whenever what the builder writes or what the
 * lookup expects of it changes, so a table an older build left behind is not read by newer code (it resolves
 * through the package instead).
 */
export const TABLE_FORMAT = 1;

/** A match clause of the price data (`or`, `and`, `equals`, `starts_with`, `ends_with`, `contains`, `regex`). */
export type Clause = Record<string, unknown>;

/** A model as the table keeps it; `bad` when `calcPrice` throws or warns on it (resolved by the package). */
export interface TableModel {
  id: string;
  match: Clause;
  prices: ModelInfo['prices'];
  context_window?: number;
  bad?: true;
}

export interface TableProvider {
  id: string;
  provider_match?: Clause;
  model_match?: Clause;
  fallback_model_providers?: string[];
}

/** The table as the build writes it: `index.json` holds the format, version and providers, `<i>.json` models[i]. */
export interface PriceTableFiles {
  /** TABLE_FORMAT of the builder. */
  format: number;
  /** The genai-prices version the table was built from. */
  version: string;
  providers: TableProvider[];
  /** JSON of each provider's TableModel[]. */
  models: string[];
}

/** The table as a lookup reads it: provider i's models (JSON) asked for when it is first searched. */
export interface PriceTable {
  version: string;
  providers: TableProvider[];
  modelsJson(i: number): string;
}

/** A table held in memory. */
export function tableOf(files: PriceTableFiles): PriceTable {
  return { version: files.version, providers: files.providers, modelsJson: (i) => files.models[i] ?? '[]' };
}

/**
 * The table a build wrote in `dir` (`index.json`, `<i>.json`), when its format is TABLE_FORMAT and it was built
 * from genai-prices `version`; null otherwise (no table, another format or version, an index that cannot be
 * read). A provider's file is read when the lookup first searches it (a failure then throws from the lookup).
 */
export function loadPriceTable(dir: string, version: string): PriceTable | null {
  let t: Partial<PriceTableFiles>;
  try {
    t = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as Partial<PriceTableFiles>;
  } catch {
    return null;
  }
  if (t === null || typeof t !== 'object' || t.format !== TABLE_FORMAT || t.version !== version || !Array.isArray(t.providers)) return null;
  return { version, providers: t.providers, modelsJson: (i) => readFileSync(join(dir, `${i}.json`), 'utf8') };
}

/** What a lookup found: a model and its provider's id, none (null), or 'package' (ask genai-prices). */
export type TableMatch = { model: ModelInfo; providerId: string } | null | 'package';

/** genai-prices' clause test (its `f`): lower-cased comparisons, a regex tested as given. */
export function clauseHolds(c: Clause, text: string): boolean {
  if ('or' in c) return (c.or as Clause[]).some((x) => clauseHolds(x, text));
  if ('and' in c) return (c.and as Clause[]).every((x) => clauseHolds(x, text));
  if ('equals' in c) return text.toLowerCase() === String(c.equals).toLowerCase();
  if ('starts_with' in c) return text.toLowerCase().startsWith(String(c.starts_with).toLowerCase());
  if ('ends_with' in c) return text.toLowerCase().endsWith(String(c.ends_with).toLowerCase());
  if ('contains' in c) return text.toLowerCase().includes(String(c.contains).toLowerCase());
  if ('regex' in c) return new RegExp(String(c.regex)).test(text);
  return false;
}

const parsed = new WeakMap<TableProvider, TableModel[]>();
function modelsOf(t: PriceTable, p: TableProvider): TableModel[] {
  let m = parsed.get(p);
  if (m === undefined) parsed.set(p, (m = JSON.parse(t.modelsJson(t.providers.indexOf(p))) as TableModel[]));
  return m;
}

function providerById(ps: readonly TableProvider[], id: string): TableProvider | undefined {
  const a = id.toLowerCase().trim();
  return ps.find((p) => p.id === a) ?? ps.find((p) => p.provider_match !== undefined && clauseHolds(p.provider_match, a));
}

function findProvider(ps: readonly TableProvider[], modelId: string, providerId: string | undefined): TableProvider | undefined {
  if (providerId) {
    const p = providerById(ps, providerId);
    if (p !== undefined || providerId.toLowerCase() !== 'litellm') return p;
  }
  if (modelId) return ps.find((p) => p.model_match !== undefined && clauseHolds(p.model_match, modelId));
  return undefined;
}

/** The provider's model for `name`, then its fallback providers' (their own fallbacks not followed). */
function findModel(t: PriceTable, p: TableProvider, name: string, fallbacks: boolean): TableModel | undefined {
  const m = modelsOf(t, p).find((x) => clauseHolds(x.match, name));
  if (m !== undefined) return m;
  if (p.fallback_model_providers === undefined || !fallbacks) return undefined;
  for (const id of p.fallback_model_providers) {
    const f = t.providers.find((x) => x.id === id);
    const fm = f !== undefined ? findModel(t, f, name, false) : undefined;
    if (fm !== undefined) return fm;
  }
  return undefined;
}

const DATED = /(-)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g;
/** `-YYYYMMDD` spelled `-YYYY-MM-DD` where it is a real date. */
function dashedDates(name: string): string {
  return name.replace(DATED, (all: string, dash: string, y: string, m: string, d: string) => {
    const t = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
    return t.getUTCFullYear() !== Number(y) || t.getUTCMonth() !== Number(m) - 1 || t.getUTCDate() !== Number(d) ? all : `${dash}${y}-${m}-${d}`;
  });
}

/** `calcPrice`'s model and provider for `model` (and `providerId`), from the table (a file it cannot read throws). */
export function lookupPrice(table: PriceTable, model: string, providerId: string | undefined): TableMatch {
  const ps = table.providers;
  let name = model.toLowerCase().trim();
  let pid = providerId;
  if (pid && pid.toLowerCase() === 'litellm' && name.includes('/')) {
    const i = name.indexOf('/');
    const vendor = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (vendor && rest && findProvider(ps, '', vendor) !== undefined) [pid, name] = [vendor, rest];
  }
  const p = findProvider(ps, name, pid);
  if (p === undefined) return null;
  let m = findModel(table, p, name, true);
  if (m === undefined) {
    const dashed = dashedDates(name);
    if (dashed !== name) m = findModel(table, p, dashed, true);
  }
  if (m === undefined) return null;
  if (m.bad) return 'package';
  return { model: m as unknown as ModelInfo, providerId: p.id };
}
