#!/usr/bin/env node
/**
 * The CLI bundled: dist/src/cli/run.js and every module of ours it imports, bundled into dist/src/cli/bundle/
 * (run.js, and a chunk per group of modules behind a dynamic import: each command, each codec), which the
 * executable (dist/src/cli/main.cjs) loads instead of about seventy modules. Node 20's ESM loader resolves,
 * reads, compiles and links them one after another along the import chain: ~60 ms of a cold `cost report`
 * before any file is read (a `--cpu-prof` profile), most of it gone with the bundle. Packages
 * (node_modules) and Node's builtins stay imports, made by the chunk that needs them (but for the few the
 * CommonJS bundle holds, below: stream-json, stream-chain, better-sqlite3's JavaScript): one file for everything
 * imported better-sqlite3 and the rest at every start, 25 ms more for `--version`. The client path of main.cjs
 * (a served command) is bundled on its own: `bundle/front.js` and `bundle-cjs/front.cjs`, which main.cjs
 * requires (dist/src/cli/front.js: the status-line input and the served client, with the render steps as
 * chunks `front-*`), sharing no chunk with run.js, so a
 * served status line loads one file of ours before it connects instead of seven. The parse worker
 * (dist/src/scan/worker.js) is bundled on its own too, `bundle/scan-worker.js` (src/scan/pool.ts starts it
 * when it is not older than worker.js): each worker thread loads its modules itself, and it needs the
 * registry, the codecs and the parse, not the CLI.
 *
 * Modules that name files the package ships do it from the package folder (cursors/versions.ts `packageRoot`),
 * never from their own URL, which in the bundle is the bundle's. Without rolldown (an install without the dev
 * dependencies) there is no bundle and main.cjs loads run.js, as it does when the bundle is older than run.js.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPriceData } from './build-price-data.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const input = join(root, 'dist', 'src', 'cli', 'run.js');
const outDir = join(root, 'dist', 'src', 'cli', 'bundle');
const output = join(outDir, 'run.js');
const cjsDir = join(root, 'dist', 'src', 'cli', 'bundle-cjs');

async function main() {
  if (!existsSync(input)) throw new Error(`bundle-cli: ${input} is missing (run tsc first)`);
  await buildPriceData();
  let rolldown;
  try {
    ({ rolldown } = await import('rolldown'));
  } catch {
    rmSync(outDir, { recursive: true, force: true });
    rmSync(cjsDir, { recursive: true, force: true });
    console.warn('sessionfold: rolldown is not installed; the CLI loads its modules one by one');
    return;
  }
  rmSync(outDir, { recursive: true, force: true });
  rmSync(cjsDir, { recursive: true, force: true });
  // The CommonJS chunks are what every start reads (main.cjs, through code-cache.cjs): ASCII only (a file
  // with one other character is decoded into a two-byte string, twice the bytes to hash and scan) and
  // without doc comments (a fifth of their bytes). Module markers (`// dist/…`) and annotations stay.
  const cjsOutput = { dir: cjsDir, format: 'cjs', charset: 'ascii', comments: { jsdoc: false, annotation: true, legal: true } };
  // the codecs' descriptors in one chunk of their own, in both bundles of the CLI (descriptorChunk, below)
  const descriptorsApart = { groups: [{ name: descriptorChunk, debugName: 'descriptors', includeDependenciesRecursively: false }] };
  await bundleTo(rolldown, { run: input }, '[name]-[hash].js', descriptorsApart);
  const front = join(root, 'dist', 'src', 'cli', 'front.js');
  await bundleTo(rolldown, { front }, 'front-[name]-[hash].js');
  // The front again as CommonJS (`bundle-cjs/front.cjs`, its render steps as `front-*.cjs` chunks), which
  // main.cjs takes by require(): a served status line then never starts Node's ESM loader.
  // With it, `socket-path.cjs`: main.cjs asks it whether a server may listen before it loads the front.
  const socketPath = join(root, 'dist', 'src', 'serve', 'socket-path.js');
  await bundleTo(rolldown, { front, 'socket-path': socketPath }, 'front-[name]-[hash].cjs', true, { ...cjsOutput, entryFileNames: '[name].cjs' });
  // The same CLI as CommonJS chunks (`bundle-cjs/`), which main.cjs runs through vm.Script with V8's code
  // cache (src/cli/code-cache.cts); Node 20 keeps no compile cache for ES modules. `native.cjs` is the kernel's
  // module (cursors/native.ts), shared with the CLI's chunks: main.cjs caps the malloc arenas with it before
  // run.cjs compiles.
  const native = join(root, 'dist', 'cursors', 'native.js');
  await bundleTo(rolldown, { run: input, native, ...betterSqlite3Entry() }, '[name]-[hash].cjs', descriptorsApart, { ...cjsOutput, entryFileNames: '[name].cjs' });
  await bundleTo(rolldown, { 'scan-worker': join(root, 'dist', 'src', 'scan', 'worker.js') }, 'scan-worker-[name]-[hash].js');
  if (statSync(output).mtimeMs < statSync(input).mtimeMs) throw new Error('bundle-cli: the bundle is older than run.js');
  if (statSync(join(cjsDir, 'front.cjs')).mtimeMs < statSync(front).mtimeMs) throw new Error('bundle-cli: the front\'s CommonJS bundle is older than front.js');
}

/**
 * better-sqlite3's JavaScript as an entry of the CommonJS bundle, `better-sqlite3-<version>.cjs`: run by the
 * bundle's loader with V8's code cache, where Node's loader resolved and compiled its thirteen modules on every
 * run that opens the event cache (cursors/sqlite.ts `bundledBetterSqlite3`, which takes it only for the
 * version installed). Its addon stays the package's, named to it at run time; `bindings` stays a package.
 * None when the package is not installed.
 */
function betterSqlite3Entry() {
  const req = createRequire(join(root, 'package.json'));
  let main;
  try {
    main = req.resolve('better-sqlite3');
  } catch {
    return {};
  }
  const { version } = JSON.parse(readFileSync(join(dirname(dirname(main)), 'package.json'), 'utf8'));
  return typeof version === 'string' ? { [`better-sqlite3-${version}`]: main } : {};
}

/**
 * The codecs' descriptors (`codecs/<agent>/descriptor.js`) and the roots modules they import, in one chunk
 * the registry loads at once: left to itself, rolldown gives each its own (each codec's chunk imports it
 * too), two dozen small files for every start to resolve and link. The codecs' parsers stay in a chunk per
 * codec, which the registry imports when a codec's files are read (src/lazy-codec.ts).
 */
function descriptorChunk(id, ctx) {
  const codecFile = /[\\/]codecs[\\/][^\\/]+[\\/](descriptor|paths)\.js$/.exec(id);
  if (codecFile === null) return null;
  if (codecFile[1] === 'descriptor') return 'descriptors';
  const importers = ctx.getModuleInfo(id)?.importers ?? [];
  return importers.some((i) => /[\\/]descriptor\.js$/.test(i)) ? 'descriptors' : null;
}

/** `entries` and the modules of ours they import into outDir; chunks named by `chunkFileNames`. */
async function bundleTo(rolldown, entries, chunkFileNames, codeSplitting = true, out = {}) {
  const bundle = await rolldown({
    input: entries,
    platform: 'node',
    // ours (relative and absolute paths) in, packages and builtins out; the CommonJS bundle also takes in the
    // ES-module-only packages it would import() (stream-json, stream-chain: the opencode export reader), since
    // a vm.Script compiled from a code cache cannot answer import() and require() of them wraps their default
    external: (id) => !id.startsWith('.') && !id.startsWith('/') && !(out.format === 'cjs' && /^stream-(json|chain)(\/|$)/.test(id)),
    logLevel: 'warn',
    preserveEntrySignatures: 'allow-extension',
  });
  try {
    await bundle.write({ dir: outDir, format: 'esm', entryFileNames: '[name].js', chunkFileNames, codeSplitting, ...out });
  } finally {
    await bundle.close();
  }
}

await main();
