/**
 * The pool's main thread helps its workers with the smallest queued files, up to MAIN_THREAD_SHARE of the
 * queued bytes (src/scan/pool.ts `#steal`): it also lists, decodes the workers' segments and folds. A file the
 * main thread parsed posts its usage as `events`, a worker's as `batch` segments, which tells them apart.
 */
import { rmSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getCodec, loadCodec } from '../src/registry.js';
import { MAIN_THREAD_SHARE, ParsePool } from '../src/scan/pool.js';
import type { ParseTask, TaskMessage } from '../src/scan/parse-file.js';
import { AGENT, makeTree, tempDir } from './scan-helpers.js';

describe('ParsePool: the main thread\'s share', () => {
  it('takes only the smallest files, and at most its share of the bytes', async () => {
    const dir = await tempDir();
    // 40 sessions of 20 to 180 usage lines: the smallest is under a tenth of the total, the largest too.
    const { paths } = await makeTree(dir, 40, (i) => 20 + (i % 9) * 20);
    const tasks: ParseTask[] = paths.map((path, id) => ({ id, agent: AGENT, path, weight: statSync(path).size, resume: false }));
    const total = tasks.reduce((n, t) => n + t.weight, 0);
    const codec = await loadCodec(getCodec(AGENT));
    const kind = new Map<number, 'events' | 'batch'>();
    const done = new Set<number>();
    // a file whose messages came both ways (asserted after the pool, not inside its message callback)
    const mixed: number[] = [];
    let fatal: Error | undefined;
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    const pool = new ParsePool({
      size: 1,
      codecOf: () => ({ codec, onWorker: true }),
      onMessage: (m: TaskMessage) => {
        if (m.type === 'events' || m.type === 'batch') {
          if ((kind.get(m.id) ?? m.type) !== m.type) mixed.push(m.id);
          kind.set(m.id, m.type);
        } else if (m.type === 'done') done.add(m.id);
        else if (m.type === 'error') fatal = new Error(m.error.message);
        if (done.size === tasks.length || fatal !== undefined) finish();
      },
      onFatal: (e) => {
        fatal = e;
        finish();
      },
      canDispatch: () => true,
    });
    try {
      pool.add([...tasks].sort((a, b) => b.weight - a.weight));
      await finished;
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(fatal).toBeUndefined();
    expect(mixed).toEqual([]);
    expect(done.size).toBe(tasks.length);
    expect(kind.size).toBe(tasks.length); // every file has usage: each was parsed by one side
    const weight = (id: number): number => (tasks[id] as ParseTask).weight;
    const inline = [...kind].filter(([, k]) => k === 'events').map(([id]) => weight(id));
    const onWorker = [...kind].filter(([, k]) => k === 'batch').map(([id]) => weight(id));
    const inlineBytes = inline.reduce((n, w) => n + w, 0);
    // The main thread had nothing else to do, so it took files, but no more than its share.
    expect(inline.length).toBeGreaterThan(0);
    expect(inlineBytes).toBeLessThanOrEqual(MAIN_THREAD_SHARE * total);
    expect(onWorker.length).toBeGreaterThan(0);
    // From the small end: no file it took is larger than one the worker took.
    expect(Math.max(...inline)).toBeLessThanOrEqual(Math.min(...onWorker));
  });
});
