/**
 * The pool's native lane makes its batches by one rule (src/scan/pool.ts `#pumpNative`): the largest task
 * queued (the first added among equals), then the next tasks of its codec, largest first, while the batch is
 * under NATIVE_BATCH_BYTES and NATIVE_BATCH_FILES. Checked against that rule written plainly here, over one
 * list of every queued task, with tasks of two codecs added in two rounds; every task is read once. The
 * codecs' engines are fakes, so the test runs with or without the native kernel.
 */
import { describe, expect, it } from 'vitest';
import { newReadInfo, type Codec, type UsageScanResult } from '../cursors/protocol/codec.js';
import type { ParseTask, TaskMessage } from '../src/scan/parse-file.js';
import { NATIVE_BATCH_BYTES, NATIVE_BATCH_FILES, ParsePool } from '../src/scan/pool.js';

/** The batches the rule makes of `queue` (mutated: what is left), one at a time. */
function nextBatch(queue: ParseTask[]): ParseTask[] {
  queue.sort((a, b) => b.weight - a.weight || a.id - b.id);
  const first = queue.shift() as ParseTask;
  const batch = [first];
  let bytes = first.weight;
  for (let i = 0; i < queue.length; ) {
    const t = queue[i] as ParseTask;
    if (bytes < NATIVE_BATCH_BYTES && batch.length < NATIVE_BATCH_FILES && t.agent === first.agent) {
      batch.push(t);
      bytes += t.weight;
      queue.splice(i, 1);
    } else i++;
  }
  return batch;
}

const task = (id: number, agent: string, weight: number): ParseTask => ({ id, agent, path: `/h/${agent}/${id}.jsonl`, weight, resume: false, native: true });

describe('ParsePool: the native lane\'s batches', () => {
  it('takes the largest task, then its codec\'s next ones up to the limits, as one list would', async () => {
    // Sizes from a few bytes to past the batch limit, with ties; two codecs.
    const size = (i: number): number => [120, 5_000, 120, 300_000, 2_000_000, 5_000_000, 64, 900_000][i % 8] as number;
    const first = Array.from({ length: 300 }, (_, i) => task(i, i % 3 === 0 ? 'b' : 'a', size(i)));
    const second = Array.from({ length: 150 }, (_, i) => task(300 + i, i % 2 === 0 ? 'a' : 'b', size(i * 3)));
    const calls: string[][] = [];
    const pending: (() => void)[] = [];
    const codecs = new Map(
      ['a', 'b'].map((id) => [
        id,
        {
          id,
          scanUsage: (files: readonly string[]) => {
            calls.push([...files]);
            // answered later, so batches queue up behind the lane's limit and the second round joins them
            return new Promise<UsageScanResult[]>((resolve) => pending.push(() => resolve(files.map(() => ({ events: [], cwd: undefined, info: newReadInfo() })))));
          },
        } as unknown as Codec,
      ]),
    );
    const done = new Set<number>();
    const pool = new ParsePool({
      size: 0,
      codecOf: (t) => ({ codec: codecs.get(t.agent) as Codec, onWorker: false }),
      onMessage: (m: TaskMessage) => void (m.type === 'done' && done.add(m.id)),
      onFatal: (e) => {
        throw e;
      },
      canDispatch: () => true,
      // The engines are fakes: the lane needs no kernel (runs also under SESSIONFOLD_NATIVE=0).
      takesNative: (codec, t) => t.native === true && codec.scanUsage !== undefined,
    });
    // The rule over one list, fed as the pool is: the batches started at the first round, then the rest.
    const queue = [...first];
    const want: string[][] = [];
    try {
      pool.add(first);
      const started = calls.length;
      for (let k = 0; k < started; k++) want.push(nextBatch(queue).map((t) => t.path));
      pool.add(second);
      queue.push(...second);
      while (pending.length > 0) {
        (pending.shift() as () => void)();
        await new Promise((r) => setImmediate(r));
      }
      while (queue.length > 0) want.push(nextBatch(queue).map((t) => t.path));
    } finally {
      await pool.close();
    }
    expect(calls.length).toBeGreaterThan(10);
    expect(calls).toEqual(want);
    expect(done.size).toBe(450);
    expect(calls.some((b) => b.length === NATIVE_BATCH_FILES)).toBe(true);
  });
});
