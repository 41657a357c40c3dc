/**
 * src/cli/code-cache.cts: CommonJS chunks run through vm.Script with V8's code cache. A chunk's exports and its
 * relative requires work; the cache is written once after a run, read by the next, and a stale (the chunk
 * changed) or damaged one is ignored and rewritten; the folder keeps a bounded number of files. The module is
 * CommonJS (the executable requires it), taken from the build.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { heapTuneApplies } from '../src/cli/heap.js';
import { appliesTo } from '../src/cli/jit.js';
import { writeClaudeSession } from './claude-lines.js';
import { makeHome } from './sessions-helpers.js';

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

  it('writes its caches before V8\'s flags change, so the next run (started with the old flags) takes them all', () => {
    const { dir, cache } = makeBundle(3);
    writeFileSync(join(dir, 'run.cjs'), 'const c = require("./chunk-a.cjs"); exports.answer = () => c.value * 2; exports.later = () => require("./chunk-b.cjs").value;\n');
    writeFileSync(join(dir, 'chunk-b.cjs'), 'exports.value = 7;\n');
    const flags = '--interrupt-budget=270336';
    // [the late chunk's value, caches written before the change, caches written at the end]
    const run = (hook: boolean): [number, number, number] => {
      const before = hook ? `b.beforeFlagsChange(${JSON.stringify(flags)})` : '0';
      const script = `const { cjsBundle } = require(${JSON.stringify(BUILT)}); const b = cjsBundle(${JSON.stringify(dir)}, ${JSON.stringify(cache)}); const r = b.load('run.cjs'); r.answer(); const early = ${before}; require('node:v8').setFlagsFromString(${JSON.stringify(flags)}); const v = r.later(); process.stdout.write(JSON.stringify([v, early, b.save()]));`;
      return JSON.parse(spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' }).stdout) as [number, number, number];
    };
    // Without the hook: the caches written after the change carry its flags' hash, and the next run rejects
    // the two it loads before the change (and rewrites them).
    expect(run(false)).toEqual([7, 0, 3]);
    expect(run(false)).toEqual([7, 0, 2]);
    rmSync(cache, { recursive: true, force: true });
    // With it: the first run writes the pending two before the change, the late chunk's (under the flags' own
    // name) at the end; the next run takes every one of them.
    expect(run(true)).toEqual([7, 2, 1]);
    const names = readdirSync(cache).sort();
    expect(names.filter((f) => f.endsWith('-interruptbudget270336.cache'))).toEqual([expect.stringMatching(/^chunk-b\.cjs-/)]);
    expect(run(true)).toEqual([7, 0, 0]);
    expect(readdirSync(cache).sort()).toEqual(names);
  });

  it('keeps its cache in sessionfold\'s own cache folder', () => {
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/h' })).toBe('/x/cache/sessionfold/code-cache');
    expect(codeCacheDir({ HOME: '/h' })).toBe('/h/.cache/sessionfold/code-cache');
  });
});

describe('the built CLI\'s code cache across runs that read files', () => {
  const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;

  it('is taken whole by the next run: the scan\'s JIT tuning (src/cli/jit.ts) leaves no cache the next run rejects', async () => {
    const home = await makeHome();
    roots.push(home.dir);
    await writeClaudeSession(home.claude, '88888888-8888-4888-8888-888888888888', [{ id: 'c1', ms: Date.parse('2026-01-05T10:00:00Z'), inp: 10, out: 20, cr: 0, cw: 0, usd: 0.5 }]);
    // A preload that says on stderr when the CLI changes V8's flags (and still changes them).
    const spy = join(home.dir, 'flags-spy.cjs');
    writeFileSync(spy, "const v8 = require('node:v8'); const set = v8.setFlagsFromString; v8.setFlagsFromString = (s) => { process.stderr.write('flags: ' + s + '\\n'); return set.call(v8, s); };\n");
    const env = { ...home.env, SESSIONFOLD_SOCKET: 'off', NODE_OPTIONS: `--require ${spy}` };
    const dir = join(home.env.XDG_CACHE_HOME as string, 'sessionfold', 'code-cache');
    const run = (): { stderr: string; files: Record<string, number> } => {
      const r = spawnSync(process.execPath, [CLI, 'cost', 'report', '--json', '--no-cache'], { env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ totalUsd: 0.5 });
      return { stderr: r.stderr, files: Object.fromEntries(readdirSync(dir).map((f) => [f, statSync(join(dir, f)).mtimeMs])) };
    };
    const first = run();
    if (appliesTo(process.versions.v8, env.NODE_OPTIONS, env)) expect(first.stderr).toContain('flags: --interrupt-budget=');
    expect(Object.keys(first.files).length).toBeGreaterThan(5);
    const second = run();
    expect(second.files).toEqual(first.files); // nothing rejected, so nothing rewritten
  }, 60_000);

  it('is taken whole by the next show: the stream\'s heap tuning (src/cli/heap.ts) leaves no cache the next show rejects', async () => {
    const home = await makeHome();
    roots.push(home.dir);
    const id = '99999999-9999-4999-8999-999999999999';
    await writeClaudeSession(home.claude, id, [{ id: 'c1', ms: Date.parse('2026-01-05T10:00:00Z'), inp: 10, out: 20, cr: 0, cw: 0, usd: 0.5 }]);
    const spy = join(home.dir, 'flags-spy.cjs');
    writeFileSync(spy, "const v8 = require('node:v8'); const set = v8.setFlagsFromString; v8.setFlagsFromString = (s) => { process.stderr.write('flags: ' + s + '\\n'); return set.call(v8, s); };\n");
    const env = { ...home.env, SESSIONFOLD_SOCKET: 'off', NODE_OPTIONS: `--require ${spy}` };
    const dir = join(home.env.XDG_CACHE_HOME as string, 'sessionfold', 'code-cache');
    const run = (): { stderr: string; files: Record<string, number> } => {
      const r = spawnSync(process.execPath, [CLI, 'sessions', 'show', 'claude', id], { env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(id);
      return { stderr: r.stderr, files: Object.fromEntries(readdirSync(dir).map((f) => [f, statSync(join(dir, f)).mtimeMs])) };
    };
    const first = run();
    expect(heapTuneApplies(env.NODE_OPTIONS, env)).toBe(true);
    expect(first.stderr).toContain('flags: --heap-growing-percent=');
    expect(Object.keys(first.files).length).toBeGreaterThan(5);
    const second = run();
    expect(second.files).toEqual(first.files);
  }, 60_000);
});
