/**
 * The TaskRunner: a ParsePool plus the queue its messages land in, with progress accounting. The scan
 * loops on `next()`; a task's messages arrive in order (start, batch…, done | error), tasks interleave.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { isBuiltinCodec } from '../registry.js';
import type { NormalizedScanOptions } from './options.js';
import type { ParseTask, TaskMessage } from './parse-file.js';
import { AsyncQueue, filesOf, ParsePool } from './pool.js';

/** Messages the consumer may lag behind before the pool stops dispatching new files. */
const HIGH_WATER = 256;

type Item = TaskMessage | { type: 'fatal'; error: Error };

export class TaskRunner {
  readonly #queue = new AsyncQueue<Item>();
  readonly #pool: ParsePool;
  readonly #opts: NormalizedScanOptions;
  readonly #codecs: Map<string, Codec>;
  #remaining = 0;
  #expecting = false;
  #total = 0;
  #finished = 0;
  readonly #partial = new Map<number, number>();
  #partialSum = 0;

  /** `size`: worker threads, or undefined to set them later with `setWorkers`. */
  constructor(opts: NormalizedScanOptions, size: number | undefined) {
    this.#opts = opts;
    this.#codecs = new Map(opts.sources.map((s) => [s.codec.id, s.codec]));
    this.#pool = new ParsePool({
      size,
      codecOf: (task) => {
        const codec = this.#codecs.get(task.agent) as Codec;
        return { codec, onWorker: isBuiltinCodec(codec) };
      },
      onMessage: (m) => this.#queue.push(m),
      onFatal: (error) => this.#queue.push({ type: 'fatal', error }),
      canDispatch: () => this.#queue.size < HIGH_WATER,
    });
  }

  /** Worker threads running. */
  get workers(): number {
    return this.#pool.workers;
  }

  add(tasks: readonly ParseTask[]): void {
    if (tasks.length === 0) return;
    for (const t of tasks) this.#remaining += filesOf(t);
    for (const t of tasks) this.#total += t.weight;
    this.#pool.add(tasks);
    this.#progress();
  }

  /** More tasks will be added (`add`) until `noMore()`: until then `next()` waits instead of ending. */
  expectMore(): void {
    this.#expecting = true;
  }

  noMore(): void {
    this.#expecting = false;
    this.#queue.wake();
  }

  /** Set the worker count of a runner made without one (see ParsePool.setSize). */
  setWorkers(n: number): void {
    this.#pool.setSize(n);
  }

  /** Tasks held until `setWorkers`, and their bytes (ParsePool.deferred). */
  get deferred(): { count: number; bytes: number } {
    return this.#pool.deferred;
  }

  /** The next message, or undefined once every task has finished. Throws when a worker died. */
  async next(): Promise<TaskMessage | undefined> {
    let m: Item | undefined;
    while (m === undefined) {
      if (this.#remaining === 0 && this.#queue.size === 0 && !this.#expecting) return undefined;
      m = await this.#queue.next(); // undefined: woken by noMore()
    }
    this.#pool.pump();
    if (m.type === 'fatal') throw m.error;
    if (m.type === 'batch' || m.type === 'events' || m.type === 'block') this.#setPartial(m.id, m.bytes);
    else if (m.type === 'done' || m.type === 'error') {
      this.#remaining--;
      this.#setPartial(m.id, 0);
      if (m.type === 'done') this.#finished += m.info.bytes;
      this.#progress();
    }
    return m;
  }

  #setPartial(id: number, bytes: number): void {
    this.#partialSum += bytes - (this.#partial.get(id) ?? 0);
    if (bytes === 0) this.#partial.delete(id);
    else this.#partial.set(id, bytes);
  }

  #progress(): void {
    const cb = this.#opts.onProgress;
    if (cb === undefined) return;
    const done = this.#finished + this.#partialSum;
    cb(done, Math.max(done, this.#total));
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}
