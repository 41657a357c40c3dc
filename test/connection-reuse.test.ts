/**
 * Connection reuse (what `sessionfold serve` switches on): one open connection per cache file, the file rows
 * loaded once and patched by the connection's own writes, and report folds kept in memory between runs.
 * Reports stay equal to a fold from scratch after appends, rewrites, deletions, and writes by another
 * process to the same cache (which also stores the report's snapshot, so the kept fold must give way).
 */
import { spawn } from 'node:child_process';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPooled, openCacheDb, releaseCacheDb, setConnectionReuse } from '../src/cache/db.js';
import { EventCache } from '../src/cache/store.js';
import { totalCost } from '../src/cost/total.js';
import type { CostSummary } from '../src/cost/types.js';
import type { FoldRunInfo } from '../src/cost/incremental.js';
import { AGENT, makeTree, tempDir, usageLine } from './scan-helpers.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));

/** A report from another process on the same cache (it writes the cache as it reads). */
function otherProcess(root: string, cachePath: string): Promise<CostSummary> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', './src/scan/dev-register.mjs', 'test/fold-child.ts', root, cachePath, 'day'], {
      cwd: REPO,
      env: { PATH: process.env.PATH, HOME: join(root, '..'), TZ: 'UTC' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => (code === 0 ? resolve((JSON.parse(out) as { summary: CostSummary }).summary) : reject(new Error(err))));
  });
}

describe('cache connection reuse', () => {
  beforeAll(() => setConnectionReuse(true));
  afterAll(() => setConnectionReuse(false));

  it('hands out one open connection per cache file, and a new one when the file is replaced', async () => {
    const dir = await tempDir();
    const path = join(dir, 'c', 'events.db');
    const a = openCacheDb(path, () => {}).db;
    releaseCacheDb(a);
    expect(a.open).toBe(true);
    expect(isPooled(a)).toBe(true);
    expect(openCacheDb(path, () => {}).db).toBe(a);
    await rm(path);
    await rm(`${path}-wal`, { force: true });
    await rm(`${path}-shm`, { force: true });
    const b = openCacheDb(path, () => {}).db;
    expect(b).not.toBe(a);
    expect(a.open).toBe(false);
  });

  it('reports equal a fresh fold across appends, rewrites, deletions and another process writing the cache', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 12, (i) => 20 + ((i * 37) % 90));
    const cachePath = join(dir, 'shared', 'events.db');
    const kept: boolean[] = [];
    const report = async (cache: boolean, snapshots = true) => {
      const info = {} as FoldRunInfo;
      const out = await totalCost({ agents: [AGENT], roots: { [AGENT]: [root] }, cachePath, groupBy: 'day', timeZone: 'UTC', cache, snapshots, env: { HOME: dir } }, { workers: 0, onWarning: (w) => expect.fail(w) }, info);
      if (cache && snapshots) kept.push(info.kept === true);
      return out;
    };
    const steps: (() => Promise<unknown>)[] = [
      async () => {},
      () => appendFile(paths[0] as string, `${usageLine('x', 'a1', 5)}\n`),
      async () => {
        await appendFile(paths[1] as string, `${usageLine('x', 'a2', 6)}\n`);
        await otherProcess(root, cachePath); // another process reads the append first and writes the cache
      },
      () => appendFile(paths[1] as string, `${usageLine('x', 'a3', 7)}\n`),
      async () => {
        const p = paths[4] as string;
        const lines = (await readFile(p, 'utf8')).trimEnd().split('\n');
        await writeFile(p, `${lines.filter((_, i) => i !== 3).join('\n')}\n`); // a rewrite that drops a line
      },
      () => rm(paths[6] as string),
      async () => {
        await appendFile(paths[2] as string, `${usageLine('x', 'a4', 8)}\n`);
        await otherProcess(root, cachePath);
        await appendFile(paths[2] as string, `${usageLine('x', 'a5', 9)}\n`);
      },
    ];
    for (const step of steps) {
      await step();
      // Through the fold kept in memory (or restored), against a fold from scratch over the same warm cache
      // (whose ledger keeps the usage a rewrite or deletion dropped), and another process's report.
      const warm = await report(true);
      expect(warm).toEqual(await report(true, false));
      expect(await otherProcess(root, cachePath)).toEqual(warm);
    }
    expect(kept.filter(Boolean).length).toBeGreaterThan(0); // some appends were folded into the fold kept in memory
    // The rows this process loaded and patched equal what a fresh connection reads, also right after another
    // process wrote a row this process had loaded.
    await appendFile(paths[3] as string, `${usageLine('x', 'a6', 10)}\n`);
    await otherProcess(root, cachePath);
    const pooled = EventCache.open(cachePath, () => {});
    const rows = pooled.loadFiles([AGENT]);
    setConnectionReuse(false);
    const fresh = EventCache.open(cachePath, () => {});
    try {
      expect(rows).toEqual(fresh.loadFiles([AGENT]));
    } finally {
      fresh.close();
      setConnectionReuse(true);
    }
    // And a fold with no cache at all agrees on what is on disk now plus the dropped usage it never saw.
    expect((await report(false)).requestCount).toBeLessThanOrEqual((await report(true)).requestCount);
  }, 60_000);
});
