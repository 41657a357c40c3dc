#!/usr/bin/env node
/**
 * The compact price table (src/cost/price-data.ts): genai-prices' bundled data, the fields a resolution
 * reads, as `dist/src/cost/price-data/` (index.json with the table's format, and each provider's models as
 * `<i>.json`), so a report resolves its models without loading the package's 480 KB module (about 100 ms of
 * CPU); a table of another format is not read (TABLE_FORMAT). Built from the
 * installed package after tsc (it runs the built dist/src/cost/price-data-build.js); scripts/bundle-cli.mjs
 * runs it too. A table that cannot be built is removed, and reports resolve through the package.
 */
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'src', 'cost', 'price-data');

export async function buildPriceData() {
  const require = createRequire(join(root, 'package.json'));
  rmSync(out, { recursive: true, force: true });
  let table;
  let writePriceTable;
  try {
    let buildPriceTable;
    ({ buildPriceTable, writePriceTable } = await import(pathToFileURL(join(root, 'dist', 'src', 'cost', 'price-data-build.js')).href));
    const pkg = require('@pydantic/genai-prices');
    const version = String(JSON.parse(readFileSync(join(dirname(require.resolve('@pydantic/genai-prices')), '..', 'package.json'), 'utf8')).version);
    table = buildPriceTable(pkg, version);
  } catch (e) {
    console.warn(`sessionfold: no price table (${e instanceof Error ? e.message : String(e)}); reports load genai-prices`);
    return;
  }
  if (table === undefined) {
    console.warn('sessionfold: genai-prices\' data is not as expected; no price table (reports load the package)');
    return;
  }
  writePriceTable(out, table);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await buildPriceData();
