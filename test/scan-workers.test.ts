/**
 * The default pool size (src/scan/options.ts `resolveWorkers`): the main thread alone below
 * AUTO_WORKER_MIN_BYTES or for one file, a worker per spare core (at most MAX_DEFAULT_WORKERS) above it, and
 * an explicit count honoured up to the number of tasks.
 */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { AUTO_WORKER_MIN_BYTES, MAX_DEFAULT_WORKERS, resolveWorkers } from '../src/scan/options.js';

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
