/**
 * The default pool size (src/scan/options.ts `resolveWorkers`): the main thread alone below
 * AUTO_WORKER_MIN_BYTES or for one file, a worker per spare core (at most MAX_DEFAULT_WORKERS) above it, and
 * an explicit count honoured up to the number of tasks; the threshold from the scan's environment, and a scan
 * without the cache starting its workers while it lists.
 */
import { rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { AUTO_WORKER_MIN_BYTES, MAX_DEFAULT_WORKERS, resolveWorkers, workerMinBytes } from '../src/scan/options.js';
import { newScanStats } from '../src/scan/types.js';
import { collect, makeTree, opts, tempDir } from './scan-helpers.js';

describe('resolveWorkers', () => {
  const spare = Math.min(availableParallelism() - 1, MAX_DEFAULT_WORKERS);

  it('parses on the main thread below the threshold, an 858 MB history included', () => {
    expect(AUTO_WORKER_MIN_BYTES).toBeGreaterThan(858e6);
    expect(resolveWorkers(undefined, 2000, AUTO_WORKER_MIN_BYTES - 1)).toBe(0);
    expect(resolveWorkers(undefined, 2000, 858e6)).toBe(0);
  });

  it('starts a worker per spare core from the threshold, none for a single file', () => {
    expect(resolveWorkers(undefined, 2000, AUTO_WORKER_MIN_BYTES)).toBe(Math.max(0, spare));
    expect(resolveWorkers(undefined, 2, 2 * AUTO_WORKER_MIN_BYTES)).toBe(Math.max(0, Math.min(spare, 2)));
    expect(resolveWorkers(undefined, 1, 4 * AUTO_WORKER_MIN_BYTES)).toBe(0);
  });

  it('honours an explicit count, capped at the tasks', () => {
    expect(resolveWorkers(3, 10, 1)).toBe(3);
    expect(resolveWorkers(3, 2, 1)).toBe(2);
    expect(resolveWorkers(0, 10, 4 * AUTO_WORKER_MIN_BYTES)).toBe(0);
  });
});

describe('SESSIONFOLD_WORKER_MIN_BYTES', () => {
  it('is the threshold where set to a byte count, the default otherwise', () => {
    expect(workerMinBytes({})).toBe(AUTO_WORKER_MIN_BYTES);
    expect(workerMinBytes({ SESSIONFOLD_WORKER_MIN_BYTES: '1000' })).toBe(1000);
    expect(workerMinBytes({ SESSIONFOLD_WORKER_MIN_BYTES: '0' })).toBe(0);
    for (const bad of ['', '-1', '1e9', '12 MB', '0x10']) expect(workerMinBytes({ SESSIONFOLD_WORKER_MIN_BYTES: bad })).toBe(AUTO_WORKER_MIN_BYTES);
    expect(resolveWorkers(undefined, 2000, 1000, 1000)).toBe(Math.max(0, Math.min(availableParallelism() - 1, MAX_DEFAULT_WORKERS)));
    expect(resolveWorkers(undefined, 2000, 999, 1000)).toBe(0);
  });

  it('starts the workers of a scan without the cache while it lists, with the records of the main thread alone', async () => {
    const dir = await tempDir();
    try {
      // More files than discovery's first chunks: the pool is sized after the first, before discovery ends.
      const { root } = await makeTree(dir, 24, (i) => 3 + (i % 5) * 30);
      const alone = await collect(opts(dir, root, { cache: false, workers: 0 }));
      const stats = newScanStats();
      const pooled = await collect(opts(dir, root, { cache: false, stats, env: { HOME: dir, SESSIONFOLD_WORKER_MIN_BYTES: '1' } }));
      expect(stats.workers).toBe(Math.max(0, Math.min(availableParallelism() - 1, MAX_DEFAULT_WORKERS)));
      expect(pooled).toEqual(alone);
      expect(alone.length).toBe([...Array(24).keys()].reduce((n, i) => n + 3 + (i % 5) * 30, 0));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
