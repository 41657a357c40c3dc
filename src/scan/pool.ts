/**
 * The parse pool: ParseTasks run on worker threads, largest first, each worker holding at most
 * PREFETCH tasks so that none idles while the main thread is busy folding (and the longest file starts
 * first, which bounds the makespan: greedy LPT scheduling). Tasks of codecs a worker cannot load (plugins
 * registered at run time) and every task of a 0-size pool run on the main thread through the same
 * `parseFile`, so both paths post identical messages.
 *
 * Back-pressure: a task is dispatched only while `canDispatch()` holds (the consumer's queue is short); the
 * consumer calls `pump()` as it drains.
 */
import { Worker } from 'node:worker_threads';
import type { Codec } from '../codec.js';
import { parseFile, type ParseTask, type TaskMessage } from './parse-file.js';

const PREFETCH = 2;
/**
 * A worker's young generation (MB). V8's default lets each isolate's nursery grow to tens of MB; a parse
 * worker's garbage is short-lived (lines, events; large strings go to large-object space, not the
 * nursery), so a small nursery costs little time and keeps each worker's share of the process's peak RSS
 * down (1.8 GB history: about 30 MB less per run, same duration within noise; see bench/RESULTS.md).
 */
const WORKER_YOUNG_GENERATION_MB = 4;

/** The worker entry: compiled JS next to this file, or the TypeScript sources through the dev loader. */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './worker-dev.mjs' : './worker.js', import.meta.url);

interface Slot {
  worker: Worker;
  inflight: number;
}

export interface PoolOptions {
  /** Worker threads (0: everything on the main thread). */
  size: number;
  /** The codec of a task, and whether a worker can load it. */
  codecOf: (task: ParseTask) => { codec: Codec; onWorker: boolean };
  onMessage: (msg: TaskMessage) => void;
  /** Fatal: a worker died. The scan fails with this error. */
  onFatal: (error: Error) => void;
  canDispatch: () => boolean;
}

export class ParsePool {
  readonly #opts: PoolOptions;
  readonly #slots: Slot[] = [];
  #queue: ParseTask[] = [];
  #inline: ParseTask[] = [];
  #inlineRunning = false;
  #closed = false;

  constructor(options: PoolOptions) {
    this.#opts = options;
  }

  /** Worker threads started. */
  get workers(): number {
    return this.#slots.length;
  }

  /** Queue tasks (sorted largest first) and start dispatching. */
  add(tasks: readonly ParseTask[]): void {
    for (const t of tasks) {
      if (this.#opts.size > 0 && this.#opts.codecOf(t).onWorker) this.#queue.push(t);
      else this.#inline.push(t);
    }
    this.#queue.sort((a, b) => b.weight - a.weight);
    this.#inline.sort((a, b) => b.weight - a.weight);
    const want = Math.min(this.#opts.size, this.#slots.length + this.#queue.length);
    while (this.#slots.length < want) this.#slots.push(this.#spawn());
    this.pump();
  }

  #spawn(): Slot {
    const worker = new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    const slot: Slot = { worker, inflight: 0 };
    worker.on('message', (msg: TaskMessage) => {
      if (msg.type === 'done' || msg.type === 'error') slot.inflight--;
      this.#opts.onMessage(msg);
      if (msg.type === 'done' || msg.type === 'error') this.pump();
    });
    worker.on('error', (e) => {
      if (!this.#closed) this.#opts.onFatal(e);
    });
    worker.on('exit', (code) => {
      if (!this.#closed && slot.inflight > 0) this.#opts.onFatal(new Error(`scan worker exited with code ${code} with ${slot.inflight} task(s) in flight`));
    });
    return slot;
  }

  /** Dispatch while there is room. */
  pump(): void {
    if (this.#closed) return;
    for (let round = 0; round < PREFETCH && this.#queue.length > 0; round++) {
      for (const slot of this.#slots) {
        if (this.#queue.length === 0 || !this.#opts.canDispatch()) break;
        if (slot.inflight > round) continue;
        const task = this.#queue.shift() as ParseTask;
        slot.inflight++;
        slot.worker.postMessage(task);
      }
    }
    this.#steal();
    if (this.#inline.length > 0 && !this.#inlineRunning && this.#opts.canDispatch()) void this.#runInline();
  }

  /**
   * The main thread helps: when it has nothing of its own to parse, it takes the smallest queued task (workers
   * take from the largest end), as long as the workers still have more than their prefetch waiting. Workers
   * need ~100–150 ms each to start (module loading); without this, a history of a few hundred MB parsed on
   * two workers took 1.6x the main thread alone (bench/RESULTS.md).
   */
  #steal(fromRunner = false): void {
    if (this.#inline.length > 0 || (this.#inlineRunning && !fromRunner) || this.#closed) return;
    if (this.#queue.length <= this.#slots.length * PREFETCH || !this.#opts.canDispatch()) return;
    this.#inline.push(this.#queue.pop() as ParseTask);
  }

  async #runInline(): Promise<void> {
    this.#inlineRunning = true;
    try {
      while (!this.#closed && this.#opts.canDispatch()) {
        if (this.#inline.length === 0) this.#steal(true);
        const task = this.#inline.shift();
        if (task === undefined) break;
        await parseFile(this.#opts.codecOf(task).codec, task, (msg) => this.#opts.onMessage(msg));
        // A parse may complete in microtasks alone (synchronous reads): let the event loop deliver the
        // workers' messages before the next task, or they idle, done, until the main thread runs dry.
        await new Promise<void>((r) => setImmediate(r));
      }
    } finally {
      this.#inlineRunning = false;
    }
  }

  /** Stop: terminate the workers (tasks still in flight are abandoned). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#queue = [];
    this.#inline = [];
    await Promise.all(this.#slots.map((s) => s.worker.terminate()));
    this.#slots.length = 0;
  }
}

/** A FIFO the consumer awaits. */
export class AsyncQueue<T> {
  #items: T[] = [];
  #head = 0;
  #waiter: (() => void) | undefined;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  /** Wake a pending `next()` without an item (it returns undefined). */
  wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  /** The next item, waiting for one; undefined when woken without one. */
  async next(): Promise<T | undefined> {
    if (this.size === 0) await new Promise<void>((r) => (this.#waiter = r));
    if (this.size === 0) return undefined;
    const item = this.#items[this.#head] as T;
    this.#items[this.#head++] = undefined as T;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
