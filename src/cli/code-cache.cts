/**
 * The CLI from its CommonJS bundle (`bundle-cjs/`, scripts/bundle-cli.mjs) through `vm.Script` with V8's code
 * cache. Node 20 has no compile cache for ES modules: every start resolved, compiled and linked the ESM
 * bundle's chunks afresh. Each chunk here is compiled with the cached data kept for it in
 * `$XDG_CACHE_HOME/sessionfold/code-cache/` (sessionfold's own folder, never an agent's), named by the chunk,
 * its size and mtime, Node's version and the CPU architecture. A missing, stale or rejected cache is ignored
 * and rewritten (to a temporary file, then renamed) once the command is done. V8 stamps a cache with a hash
 * of its flags and rejects one made under other flags, so a run that changes them (src/cli/jit.ts) calls
 * `beforeFlagsChange` first: the caches pending then are written with the flags the process started with, and
 * the chunks compiled after it are cached under names of their own (the flags' tag). `SESSIONFOLD_CODE_CACHE=0`
 * runs the chunks without it. Where this path cannot run (no CommonJS bundle, one older than run.js, a Node
 * without `require()` of ES modules), main.cjs loads the ESM bundle as before. The bundle holds the
 * ES-module-only packages it uses (scripts/bundle-cli.mjs): a script compiled from a code cache cannot answer
 * `import()`.
 *
 * A CommonJS module itself (main.cjs, the executable, requires it): an ES module would start Node's ESM
 * loader for one file.
 */
import fs = require('node:fs');
import os = require('node:os');
import path = require('node:path');
import vm = require('node:vm');
import nodeModule = require('node:module');

interface Chunk {
  exports: unknown;
}

/**
 * How many files the folder keeps: each build names its chunks anew (a content hash) and each Node version
 * has its own caches, so without a bound the folder grows with every upgrade. A run that writes prunes the
 * oldest-written beyond this (a bundle's run writes one per chunk it ran, ten to twenty for most commands):
 * room for several builds and Node versions used side by side, which then do not evict each other's caches.
 */
const MAX_ENTRIES = 256;

/** The code cache folder: beside the event cache's default, in sessionfold's own cache folder. */
function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache'), 'sessionfold', 'code-cache');
}

/** A loader of one CommonJS bundle folder; `load(entry)` runs the entry, its chunks on `require('./…')`. */
function cjsBundle(bundleDir: string, cacheFolder: string | undefined): { load(name: string): unknown; save(): number; beforeFlagsChange(flags: string): number } {
  // Made normal once, so that each chunk's file names are joined by hand (below).
  const dir = path.resolve(bundleDir);
  const cacheDir = cacheFolder === undefined ? undefined : path.resolve(cacheFolder);
  const loaded = new Map<string, Chunk>();
  const toWrite: [vm.Script, string][] = [];
  /** '' while V8 runs with the flags it started with; then the changed flags' tag, in each cache's name. */
  let flagTag = '';
  const nodeRequire = nodeModule.createRequire(path.join(dir, 'run.cjs'));
  const req = (id: string): unknown => (id.startsWith('./') ? load(id.slice(2)) : nodeRequire(id));
  function load(name: string): unknown {
    const had = loaded.get(name);
    if (had !== undefined) return had.exports;
    // Names joined by hand, here and below: every start loads ten to twenty chunks, and Node's path
    // normalization, a loop over each character, was the hottest function of an empty report's start (V8
    // then compiled it with TurboFan: CPU time for nothing).
    const file = `${dir}${path.sep}${name}`;
    const source = fs.readFileSync(file, 'utf8');
    let cacheFile: string | undefined;
    let cachedData: Buffer | undefined;
    if (cacheDir !== undefined) {
      const st = fs.statSync(file);
      cacheFile = `${cacheDir}${path.sep}${name}-${st.size}-${Math.trunc(st.mtimeMs)}-${process.version}-${process.arch}${flagTag}.cache`;
      try {
        cachedData = fs.readFileSync(cacheFile);
      } catch {
        // none yet: written after the command
      }
    }
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
    if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) toWrite.push([script, cacheFile]);
    const chunk: Chunk = { exports: {} };
    loaded.set(name, chunk);
    (script.runInThisContext() as (e: unknown, r: unknown, m: Chunk, f: string, d: string) => void)(chunk.exports, req, chunk, file, dir);
    return chunk.exports;
  }
  /** Write the caches that were missing or rejected (after the run: they then hold the functions it compiled). */
  function save(): number {
    if (cacheDir === undefined || toWrite.length === 0) return 0;
    const written: string[] = [];
    try {
      fs.mkdirSync(cacheDir, { recursive: true });
      for (const [script, file] of toWrite.splice(0)) {
        const tmp = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, file);
        written.push(path.basename(file));
      }
    } catch {
      // a read-only or full cache folder: the next run compiles without a cache, as this one did
    }
    if (written.length > 0) pruneCodeCache(cacheDir, new Set(written));
    return written.length;
  }
  /**
   * Called just before this process changes V8's flags (`flags`, as given to `v8.setFlagsFromString`): the
   * caches pending are written now, stamped with the flags they were compiled under (written after the change
   * they would carry the new flags' hash, and every later run, started with the old flags, would reject them);
   * the chunks loaded from then on read and write caches named for the new flags.
   */
  function beforeFlagsChange(flags: string): number {
    const written = save();
    flagTag = `${flagTag}-${flags.replace(/[^A-Za-z0-9]+/g, '')}`;
    return written;
  }
  return { load, save, beforeFlagsChange };
}

/**
 * Remove the oldest-written files of the folder beyond `max`, never those in `keep` (this run's). Run only
 * after a write, so a start that finds its caches lists nothing. Best effort: a file another process removed
 * first, or a folder that cannot be read, is left as it is.
 */
function pruneCodeCache(cacheDir: string, keep: ReadonlySet<string>, max = MAX_ENTRIES): number {
  let names: string[];
  try {
    names = fs.readdirSync(cacheDir);
  } catch {
    return 0;
  }
  if (names.length <= max) return 0;
  const aged: [number, string][] = [];
  for (const name of names) {
    if (keep.has(name)) continue;
    try {
      aged.push([fs.statSync(path.join(cacheDir, name)).mtimeMs, name]);
    } catch {
      // gone already
    }
  }
  aged.sort((a, b) => a[0] - b[0]);
  let removed = 0;
  for (const [, name] of aged.slice(0, Math.max(0, names.length - max))) {
    try {
      fs.rmSync(path.join(cacheDir, name), { force: true });
      removed++;
    } catch {
      // a folder we cannot write: left as it is
    }
  }
  return removed;
}

export = { cjsBundle, codeCacheDir, pruneCodeCache, MAX_ENTRIES };
