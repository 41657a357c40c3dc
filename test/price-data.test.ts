/**
 * The compact price table (src/cost/price-data.ts) against genai-prices itself: the table built from the
 * installed package resolves every model id and match string of the data, dated and undated, with no
 * provider, with the model's own, with LiteLLM's `vendor/model` spelling, and (a seeded sample) with every
 * provider, to the very model and provider `calcPrice` finds, priced into the same entry, or to none where
 * it finds none or throws. Its fallbacks to the package (a model marked bad, a file that cannot be read, a
 * table of another version or format) are tried over tables written here.
 * Through the built executable (`npx tsc -p . && node scripts/bundle-cli.mjs` first): a report over the demo
 * history (fixtures/demo) prints the same bytes with the table and without it (`SESSIONFOLD_PRICE_TABLE=0`),
 * and with it the process never loads the package.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPriceTable, writePriceTable } from '../src/cost/price-data-build.js';
import { loadPriceTable, lookupPrice, tableOf, TABLE_FORMAT, type Clause, type PriceTableFiles, type TableModel } from '../src/cost/price-data.js';
import { FIRST_PARTY_PROVIDERS, modelCandidates } from '../src/cost/models.js';
import { entryFromModelInfo, type PriceEntry } from '../src/cost/price-table.js';
import { priceDataVersion, resolveBundled, resolvePriceEntry } from '../src/cost/pricing.js';
import { unitRng } from './helpers/rng.js';

const require = createRequire(import.meta.url);
const pkg = require('@pydantic/genai-prices') as typeof import('@pydantic/genai-prices');
const AT = new Date('2025-01-01T00:00:00Z');

/** Built, and read back from its JSON as a report reads it (none built: an empty table, the first test fails). */
const built = buildPriceTable(pkg, priceDataVersion());
const files: PriceTableFiles = built === undefined ? { format: TABLE_FORMAT, version: '', providers: [], models: [] } : (JSON.parse(JSON.stringify(built)) as PriceTableFiles);
const table = tableOf(files);
const models = files.providers.map((p, i) => ({ id: p.id, models: JSON.parse(files.models[i] as string) as TableModel[] }));

const tmp = mkdtempSync(join(tmpdir(), 'sf-price-data-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

/** The strings a clause compares with. */
function clauseStrings(c: Clause, out: string[]): void {
  for (const k of ['equals', 'starts_with', 'ends_with', 'contains'] as const) if (typeof c[k] === 'string') out.push(c[k]);
  for (const k of ['or', 'and'] as const) if (Array.isArray(c[k])) for (const x of c[k] as Clause[]) clauseStrings(x, out);
}

/** A resolution: `provider/model` and the entry priced from the model (price-table.ts), or null. */
type Found = { id: string; entry: PriceEntry } | null;

/** `calcPrice`'s answer, or null where it finds none or throws. */
function viaPackage(name: string, providerId: string | undefined): Found {
  try {
    const r = pkg.calcPrice({ input_tokens: 0, output_tokens: 0 }, name, { ...(providerId !== undefined && { providerId }), timestamp: AT });
    return r === null ? null : { id: `${r.provider.id}/${r.model.id}`, entry: entryFromModelInfo(r.model, r.provider.id) };
  } catch {
    return null;
  }
}
function viaTable(name: string, providerId: string | undefined): Found {
  const r = lookupPrice(table, name, providerId);
  expect(r).not.toBe('package'); // the bundled data has no model calcPrice throws or warns on
  return r === null || r === 'package' ? null : { id: `${r.providerId}/${r.model.id}`, entry: entryFromModelInfo(r.model, r.providerId) };
}

/** The sample's seeded generator. */
const rng = unitRng;

describe('the compact price table', () => {
  it('is built from the installed package, every provider and model in it', () => {
    expect(built).toBeDefined();
    expect(table.version).toBe(priceDataVersion());
    expect(models.length).toBeGreaterThan(20);
    for (const p of models) expect(pkg.findProvider({ providerId: p.id })?.models.map((m) => m.id)).toEqual(p.models.map((m) => m.id));
  });

  const names = new Set<string>();
  const own = new Map<string, string>();
  for (const p of models) {
    for (const m of p.models) {
      const strings = [m.id];
      clauseStrings(m.match, strings);
      for (const s of strings) {
        for (const n of [s, `${s}-20250514`, `${s}-2025-05-14`, `${s}-20251340`, ` ${s.toUpperCase()} `, `x${s}`]) {
          names.add(n);
          if (!own.has(n)) own.set(n, p.id);
        }
      }
    }
  }

  it('finds what calcPrice finds, with no provider and with the model\'s own', () => {
    expect(names.size).toBeGreaterThan(5000);
    let found = 0;
    for (const n of names) {
      for (const pid of [undefined, own.get(n)]) {
        const want = viaPackage(n, pid);
        if (want !== null) found++;
        expect([n, pid, viaTable(n, pid)]).toEqual([n, pid, want]);
      }
    }
    expect(found).toBeGreaterThan(names.size / 4); // many resolve: the comparison is not of nulls alone
  });

  it('finds what calcPrice finds through LiteLLM names and, for a sample, under every provider', () => {
    const rand = rng(16);
    const all = [...names];
    const ids = [...models.map((p) => p.id), 'litellm', 'LiteLLM', ' Anthropic ', 'no-such-provider', ...FIRST_PARTY_PROVIDERS];
    for (let i = 0; i < 1500; i++) {
      const n = all[Math.floor(rand() * all.length)] as string;
      const pid = ids[Math.floor(rand() * ids.length)] as string;
      expect([n, pid, viaTable(n, pid)]).toEqual([n, pid, viaPackage(n, pid)]);
      const lite = `${own.get(n) ?? 'x'}/${n}`;
      expect([lite, viaTable(lite, 'litellm')]).toEqual([lite, viaPackage(lite, 'litellm')]);
    }
  });

  it('gives the entry the package gives for recorded names, through a table as the build writes it', () => {
    const dir = join(tmp, 'recorded');
    writePriceTable(dir, files);
    const written = loadPriceTable(dir, priceDataVersion());
    expect(written).not.toBeNull();
    const recorded = ['claude-sonnet-4-20250514', 'claude-opus-4-5-20251101', 'us.anthropic.claude-3-7-sonnet-20250219-v1:0', 'claude-sonnet-4-5[1m]', 'gpt-5-codex', 'openai/gpt-5', 'models/gemini-2.5-pro', 'gpt-5.1-codex'];
    for (const r of recorded) {
      const viaPkg = resolveBundled(r, undefined, null);
      expect([r, viaPkg?.source]).toEqual([r, 'genai-prices']);
      // the table answers (no candidate sent to the package) and gives the same entry
      const candidates = modelCandidates(r, undefined).map((c) => lookupPrice(written!, c.model, c.providerId));
      expect([r, candidates.find((c) => c !== null)]).toEqual([r, expect.objectContaining({ providerId: viaPkg?.providerId })]);
      expect([r, resolveBundled(r, undefined, written)]).toEqual([r, viaPkg]);
      expect([r, resolvePriceEntry(r, undefined, undefined)]).toEqual([r, viaPkg]);
    }
    for (const t of [written, null]) expect(resolveBundled('no-such-model', undefined, t)).toBeUndefined();
    expect(resolvePriceEntry('no-such-model', undefined, undefined)).toBeUndefined();
  });
});

describe('a table as the build writes it', () => {
  it('is read back with its format, and not at all with another', () => {
    const dir = join(tmp, 'format');
    writePriceTable(dir, files);
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { format: unknown };
    expect(index.format).toBe(TABLE_FORMAT);
    expect(loadPriceTable(dir, priceDataVersion())?.providers).toEqual(files.providers);
    for (const format of [TABLE_FORMAT - 1, TABLE_FORMAT + 1, undefined]) {
      writeFileSync(join(dir, 'index.json'), JSON.stringify({ ...index, format }));
      expect([format, loadPriceTable(dir, priceDataVersion())]).toEqual([format, null]);
    }
  });

  it('is not read when built from another version, or its index is missing or not JSON', () => {
    const dir = join(tmp, 'index');
    writePriceTable(dir, files);
    expect(loadPriceTable(dir, priceDataVersion())).not.toBeNull();
    expect(loadPriceTable(dir, `${priceDataVersion()}-other`)).toBeNull();
    writeFileSync(join(dir, 'index.json'), '{"format":');
    expect(loadPriceTable(dir, priceDataVersion())).toBeNull();
    rmSync(join(dir, 'index.json'));
    expect(loadPriceTable(dir, priceDataVersion())).toBeNull();
  });

  // A recorded name and the provider file its model is in; the model's prices changed in a copy, so an
  // entry shows whether the copy or the package answered.
  const NAME = 'claude-sonnet-4-20250514';
  const hit = lookupPrice(table, NAME, undefined);
  const at = hit !== null && hit !== 'package' ? files.providers.findIndex((p) => p.id === hit.providerId) : -1;
  const altered = (bad: boolean): PriceTableFiles => {
    const ms = JSON.parse(files.models[at] as string) as TableModel[];
    const changed = ms.map((m) => (hit !== null && hit !== 'package' && m.id === hit.model.id ? { ...m, prices: { input_mtok: 12345, output_mtok: 54321 }, ...(bad && { bad: true as const }) } : m));
    // providers copied: a table keeps the models it parsed per provider object
    return { ...files, providers: files.providers.map((p) => ({ ...p })), models: files.models.map((json, i) => (i === at ? JSON.stringify(changed) : json)) };
  };

  it('answers from the table where it holds the model, with its prices', () => {
    expect(at).toBeGreaterThanOrEqual(0);
    const entry = resolveBundled(NAME, undefined, tableOf(altered(false)));
    expect(entry?.modelId).toBe((hit as { model: { id: string } }).model.id);
    expect(entry?.variants).toHaveLength(1);
    expect(entry?.variants[0]?.base.input).toBeCloseTo(12345 / 1e6, 12);
    expect(resolveBundled(NAME, undefined, null)?.variants[0]?.base.input).not.toBeCloseTo(12345 / 1e6, 12);
  });

  it('sends a model marked bad to the package', () => {
    const t = tableOf(altered(true));
    expect(lookupPrice(t, NAME, undefined)).toBe('package');
    const viaPkg = resolveBundled(NAME, undefined, null);
    expect(viaPkg?.providerId).toBe('anthropic');
    expect(resolveBundled(NAME, undefined, t)).toEqual(viaPkg);
  });

  it('sends a lookup to the package when a provider\'s file is missing or not JSON', () => {
    const dir = join(tmp, 'models');
    writePriceTable(dir, altered(false));
    const viaPkg = resolveBundled(NAME, undefined, null);
    for (const spoil of [() => writeFileSync(join(dir, `${at}.json`), '[{"id":'), () => rmSync(join(dir, `${at}.json`))]) {
      spoil();
      const t = loadPriceTable(dir, priceDataVersion());
      expect(t).not.toBeNull();
      expect(() => lookupPrice(t!, NAME, undefined)).toThrow();
      expect(resolveBundled(NAME, undefined, t)).toEqual(viaPkg);
    }
  });
});

const exec = promisify(execFile);
const MAIN = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const DEMO = fileURLToPath(new URL('../fixtures/demo/', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'sf-price-table-'));
afterAll(() => rm(home, { recursive: true, force: true }));

describe('a report through the table', () => {
  const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: home,
    TZ: 'UTC',
    NO_COLOR: '1',
    SESSIONFOLD_SOCKET: 'off',
    CLAUDE_CONFIG_DIR: join(DEMO, 'claude'),
    CODEX_HOME: join(DEMO, 'codex'),
    ...extra,
  });
  const hook = join(home, 'hook.cjs');
  writeFileSync(hook, `process.on('exit',()=>{if(Object.keys(require.cache).some((k)=>k.includes('genai-prices')))process.stderr.write('LOADED genai-prices\\n')})`);
  const report = (extra: Record<string, string>) =>
    exec(process.execPath, ['-r', hook, MAIN, 'cost', 'report', '--json', '--no-cache', '--agent', 'claude,codex'], { env: env(extra), maxBuffer: 64 << 20 });

  it('prints what the package prints, without loading it', async () => {
    const withTable = await report({});
    const without = await report({ SESSIONFOLD_PRICE_TABLE: '0' });
    expect((JSON.parse(withTable.stdout) as { totalUsd: number }).totalUsd).toBeGreaterThan(0);
    expect(withTable.stdout).toBe(without.stdout);
    expect(withTable.stderr).not.toContain('LOADED genai-prices');
    expect(without.stderr).toContain('LOADED genai-prices');
  }, 60_000);
});
