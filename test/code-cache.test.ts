/**
 * src/cli/code-cache.cts: CommonJS chunks run through vm.Script with V8's code cache. A chunk's exports and its
 * relative requires work; the cache is written once after a run, read by the next, and a stale (the chunk
 * changed) or damaged one is ignored and rewritten; the folder keeps a bounded number of files. The module is
 * CommonJS (the executable requires it), taken from the build.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const BUILT = new URL('../dist/src/cli/code-cache.cjs', import.meta.url).pathname;
const { cjsBundle, codeCacheDir, pruneCodeCache, MAX_ENTRIES } = createRequire(import.meta.url)(BUILT) as typeof import('../src/cli/code-cache.cjs');
const roots: string[] = [];
afterEach(() => {
  for (const d of roots.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A bundle folder of two chunks (the entry requires the other) and an empty cache folder. */
function makeBundle(value: number): { dir: string; cache: string } {
  const root = mkdtempSync(join(tmpdir(), 'sessionfold-code-cache-'));
  roots.push(root);
  const dir = join(root, 'bundle-cjs');
  mkdirSync(dir);
  writeChunks(dir, value);
  return { dir, cache: join(root, 'cache') };
}

function writeChunks(dir: string, value: number): void {
  writeFileSync(join(dir, 'run.cjs'), 'const c = require("./chunk-a.cjs"); exports.answer = () => c.value * 2; exports.sep = require("node:path").sep;\n');
  writeFileSync(join(dir, 'chunk-a.cjs'), `exports.value = ${value};\n`);
}

type Run = { answer(): number; sep: string };

/**
 * The entry's answer and the count of caches written, from another process: this one's V8 keeps the chunks
 * it compiled and would not look at a cache for them again.
 */
function inChild(dir: string, cache: string): [number, number] {
  const script = `const { cjsBundle } = require(${JSON.stringify(BUILT)}); const b = cjsBundle(${JSON.stringify(dir)}, ${JSON.stringify(cache)}); const a = b.load('run.cjs').answer(); process.stdout.write(JSON.stringify([a, b.save()]));`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  return JSON.parse(r.stdout) as [number, number];
}

describe('the CommonJS bundle with the code cache', () => {
  it('runs the entry and its chunks, writes a cache per chunk after the run, and the next run reads it', () => {
    const { dir, cache } = makeBundle(21);
    const first = cjsBundle(dir, cache);
    expect((first.load('run.cjs') as Run).answer()).toBe(42);
    expect((first.load('run.cjs') as Run).sep).toBe('/');
    expect(readdirSync(dir).length).toBe(2); // nothing written beside the chunks
    expect(first.save()).toBe(2);
    const files = readdirSync(cache).sort();
    expect(files).toHaveLength(2);
    expect(files.every((f) => f.endsWith(`-${process.version}-${process.arch}.cache`))).toBe(true);
    expect(files.some((f) => f.includes('.tmp'))).toBe(false);
    expect(inChild(dir, cache)).toEqual([42, 0]); // another process takes both caches: nothing to rewrite
  });

  it('ignores a damaged cache and rewrites it', () => {
    const { dir, cache } = makeBundle(5);
    const first = cjsBundle(dir, cache);
    first.load('run.cjs');
    first.save();
    for (const f of readdirSync(cache)) writeFileSync(join(cache, f), Buffer.from('not a code cache'));
    expect(inChild(dir, cache)).toEqual([10, 2]);
    for (const f of readdirSync(cache)) expect(readFileSync(join(cache, f)).toString()).not.toBe('not a code cache');
  });

  it('takes a changed chunk as new: its own cache name, its new code', () => {
    const { dir, cache } = makeBundle(1);
    const first = cjsBundle(dir, cache);
    expect((first.load('run.cjs') as Run).answer()).toBe(2);
    first.save();
    writeChunks(dir, 12345);
    const second = cjsBundle(dir, cache);
    expect((second.load('run.cjs') as Run).answer()).toBe(24690);
    expect(second.save()).toBeGreaterThanOrEqual(1); // chunk-a changed size: a new cache file
    expect(readdirSync(cache).filter((f) => f.startsWith('chunk-a.cjs-'))).toHaveLength(2);
  });

  it('runs without a cache folder and writes nothing', () => {
    const { dir } = makeBundle(3);
    const b = cjsBundle(dir, undefined);
    expect((b.load('run.cjs') as Run).answer()).toBe(6);
    expect(b.save()).toBe(0);
  });

  it('keeps at most MAX_ENTRIES files: a run that writes removes the oldest-written, never its own', () => {
    const { dir, cache } = makeBundle(7);
    mkdirSync(cache, { recursive: true });
    // caches of other builds and Node versions, written over the last days, oldest first
    const old = Array.from({ length: MAX_ENTRIES + 5 }, (_, i) => `registry-${i}.cjs-10-1-v18.0.0-x64.cache`);
    const day = Date.now() / 1000 - 86_400;
    old.forEach((name, i) => {
      writeFileSync(join(cache, name), 'old');
      utimesSync(join(cache, name), day + i, day + i);
    });
    const b = cjsBundle(dir, cache);
    expect((b.load('run.cjs') as Run).answer()).toBe(14);
    expect(b.save()).toBe(2);
    const left = readdirSync(cache);
    expect(left).toHaveLength(MAX_ENTRIES);
    expect(left.filter((f) => f.endsWith(`-${process.version}-${process.arch}.cache`))).toHaveLength(2); // this run's
    expect(left).not.toContain(old[0]); // the oldest went first
    expect(left).not.toContain(old[6]);
    expect(left).toContain(old[7]);
    expect(left).toContain(old[old.length - 1]);
    // under the bound, a write removes nothing; a run that finds its caches writes nothing and lists nothing
    expect(pruneCodeCache(cache, new Set())).toBe(0);
    expect(inChild(dir, cache)).toEqual([14, 0]);
    expect(readdirSync(cache)).toHaveLength(MAX_ENTRIES);
  });

  it('prunes a folder it cannot list, or a file gone meanwhile, without failing', () => {
    expect(pruneCodeCache(join(tmpdir(), 'sessionfold-no-such-code-cache'), new Set(), 0)).toBe(0);
    const { cache } = makeBundle(1);
    mkdirSync(cache, { recursive: true });
    for (const f of ['a', 'b', 'c']) writeFileSync(join(cache, f), f);
    expect(pruneCodeCache(cache, new Set(['c']), 1)).toBe(2);
    expect(readdirSync(cache)).toEqual(['c']);
  });

  it('keeps its cache in sessionfold\'s own cache folder', () => {
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/h' })).toBe('/x/cache/sessionfold/code-cache');
    expect(codeCacheDir({ HOME: '/h' })).toBe('/h/.cache/sessionfold/code-cache');
  });
});
