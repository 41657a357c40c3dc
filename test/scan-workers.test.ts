/**
 * The default pool size (src/scan/options.ts `resolveWorkers` over `workerMinBytes`), a pure rule of the
 * machine's available cores, the bytes and files to parse and the scan's environment: the main thread alone
 * below AUTO_WORKER_MIN_BYTES, for one file, or on fewer than MIN_WORKER_CORES cores at any size; else a
 * worker per spare core (at most MAX_DEFAULT_WORKERS); SESSIONFOLD_WORKER_MIN_BYTES the threshold on any
 * number of cores; an explicit count honoured up to the number of tasks. And a scan without the cache
 * starting its workers while it lists, with the override forcing them on this machine.
 */
import { rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { AUTO_WORKER_MIN_BYTES, MAX_DEFAULT_WORKERS, MIN_WORKER_CORES, normalizeScanOptions, resolveWorkers, workerMinBytes } from '../src/scan/options.js';
import { newScanStats } from '../src/scan/types.js';
import { collect, makeTree, opts, tempDir } from './scan-helpers.js';

const GiB = 2 ** 30;

/** The automatic pool size for `tasks` files of `bytes` in all, on `cores` cores, under `env`. */
const auto = (cores: number, bytes: number, env: NodeJS.ProcessEnv = {}, tasks = 2000): number => resolveWorkers(undefined, tasks, bytes, workerMinBytes(env, cores), cores);

describe('the default pool size, by cores, bytes and env', () => {
  it('starts no worker on fewer than three cores at any size, the measured 858 MB and 1.81 GB included', () => {
    expect(MIN_WORKER_CORES).toBe(3);
    for (const cores of [1, 2]) for (const bytes of [0, 858e6, GiB, 1.81e9, 64 * GiB]) expect(auto(cores, bytes), `${cores} cores, ${bytes} bytes`).toBe(0);
  });

  it('from three cores: none below 1 GiB, a worker per spare core from it, at most four, none for one file', () => {
    const cases: [cores: number, bytes: number, workers: number][] = [
      [3, 858e6, 0],
      [3, GiB - 1, 0],
      [3, GiB, 2],
      [4, 1.81e9, 3],
      [8, 1.81e9, 4],
      [64, 64 * GiB, MAX_DEFAULT_WORKERS],
    ];
    for (const [cores, bytes, workers] of cases) expect(auto(cores, bytes), `${cores} cores, ${bytes} bytes`).toBe(workers);
    expect(AUTO_WORKER_MIN_BYTES).toBe(GiB);
    expect(auto(8, 4 * GiB, {}, 2)).toBe(2);
    expect(auto(8, 4 * GiB, {}, 1)).toBe(0);
  });

  it('SESSIONFOLD_WORKER_MIN_BYTES is the threshold on any number of cores; a value that is not a byte count is ignored', () => {
    const env = (v: string): NodeJS.ProcessEnv => ({ SESSIONFOLD_WORKER_MIN_BYTES: v });
    expect(auto(2, 1000, env('1000'))).toBe(1);
    expect(auto(2, 999, env('1000'))).toBe(0);
    expect(auto(2, 0, env('0'))).toBe(1);
    expect(auto(4, 5e6, env('1000'))).toBe(3);
    // above the default: the override holds a larger machine back too
    expect(auto(8, 1.81e9, env(String(4 * GiB)))).toBe(0);
    // one core has no spare one, whatever the threshold
    expect(auto(1, GiB, env('1'))).toBe(0);
    for (const bad of ['', '-1', '1e9', '12 MB', '0x10']) {
      expect(workerMinBytes(env(bad), 4), bad).toBe(AUTO_WORKER_MIN_BYTES);
      expect(auto(2, 1.81e9, env(bad)), bad).toBe(0);
    }
  });

  it('honours an explicit count, capped at the tasks, on any number of cores', () => {
    expect(resolveWorkers(3, 10, 1, Infinity, 2)).toBe(3);
    expect(resolveWorkers(3, 2, 1, Infinity, 1)).toBe(2);
    expect(resolveWorkers(0, 10, 4 * GiB, 0, 8)).toBe(0);
  });

  it("a scan's options take the threshold from this machine's available cores", () => {
    const o = normalizeScanOptions({ cache: false, env: { HOME: '/nonexistent-sessionfold-home' } });
    expect(o.workerMinBytes).toBe(workerMinBytes({}, availableParallelism()));
    expect(normalizeScanOptions({ cache: false, env: { HOME: '/nonexistent-sessionfold-home', SESSIONFOLD_WORKER_MIN_BYTES: '7' } }).workerMinBytes).toBe(7);
  });
});

describe('SESSIONFOLD_WORKER_MIN_BYTES in a scan', () => {
  it('starts the workers of a scan without the cache while it lists, with the records of the main thread alone', async () => {
    const dir = await tempDir();
    try {
      // More files than discovery's first chunks: the pool is sized after the first, before discovery ends.
      const { root } = await makeTree(dir, 24, (i) => 3 + (i % 5) * 30);
      const alone = await collect(opts(dir, root, { cache: false, workers: 0 }));
      const stats = newScanStats();
      const pooled = await collect(opts(dir, root, { cache: false, stats, env: { HOME: dir, SESSIONFOLD_WORKER_MIN_BYTES: '1' } }));
      // forced on any machine with a spare core, two-core ones included, where the default starts none
      expect(stats.workers).toBe(Math.max(0, Math.min(availableParallelism() - 1, MAX_DEFAULT_WORKERS)));
      expect(pooled).toEqual(alone);
      expect(alone.length).toBe([...Array(24).keys()].reduce((n, i) => n + 3 + (i % 5) * 30, 0));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
