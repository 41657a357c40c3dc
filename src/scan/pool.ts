/**
 * The parse pool: ParseTasks run on worker threads, largest first, each worker holding at most
 * PREFETCH tasks so that none idles while the main thread is busy folding (and the longest file starts
 * first, which bounds the makespan: greedy LPT scheduling). Tasks of codecs a worker cannot load (plugins
 * registered at run time) and every task of a 0-size pool run on the main thread through the same
 * `parseFile`, so both paths post identical messages.
 *
 * Back-pressure: a task is dispatched only while `canDispatch()` holds (the consumer's queue is short); the
 * consumer calls `pump()` as it drains.
 *
 * The native lane: a task marked `native` (and without a cursor) whose codec has a native engine
 * (`Codec.scanUsage`) is read by it on the engines' own threads (native/pool.c), NATIVE_INFLIGHT jobs at a
 * time, largest first; its start / events / done messages are posted from the main thread. It needs no worker
 * thread (no isolate to start, no JavaScript to warm up: C reads the file and the main thread only decodes its
 * usage). A file the engine leaves to `read()` goes back to the queues above.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { nodeWorkerThreads } from '../../cursors/builtins.js';
import { FROM_SOURCES, packageRoot } from '../../cursors/versions.js';
import type { Codec, UsageScanResult } from '../../cursors/protocol/codec.js';
import { nativeKernel } from '../../cursors/native.js';
import { isZstdPath } from '../../cursors/zstd-name.js';
import { newSessionTrack, parseTask, type ParseTask, type TaskMessage } from './parse-file.js';
import { LazyCodec } from '../lazy-codec.js';

const PREFETCH = 2;
/**
 * The share of the bytes queued for workers that the main thread may take (the smallest files, one at a time,
 * while it has nothing of its own to parse). The main thread also lists the files, decodes every worker's
 * segments, folds and prints; taking files whenever it was free, it parsed the 1,651 smallest of the 1,961
 * files of an 858 MB history (one worker forced, 2 cores, no addon) and stayed the busier thread (about
 * 1.4–1.9 s of CPU against the worker's 1.0–1.4 s) while the worker idled at the end. Capped at a tenth, the
 * two threads came out level (1.2–1.3 s against 1.1–1.2 s; bench/RESULTS.md, "The walking pass").
 */
export const MAIN_THREAD_SHARE = 0.1;
/**
 * Jobs the native lane has queued at once: twice the engines' threads (native/pool.c), so that a thread
 * finishing a job finds the next one queued without waiting for the main thread to take the result. A job
 * reads a large file alone, or small files of one codec together (up to NATIVE_BATCH_BYTES or
 * NATIVE_BATCH_FILES): a job per small file cost a thread wake-up and a completion on the main thread each.
 */
export function nativeInflight(): number {
  return 2 * (nativeKernel()?.threads ?? 1);
}
export const NATIVE_BATCH_BYTES = 4 << 20;
export const NATIVE_BATCH_FILES = 64;

/**
 * True when the pool will hand `task` to the codec's native engine first (`SESSIONFOLD_NATIVE_ENGINES=0`: never).
 * Not a compressed file: the engine would leave it to `read()` anyway (cursors/native-engine.ts).
 */
export function takesNativeLane(codec: Codec, task: ParseTask): boolean {
  return task.native === true && task.cursor === undefined && codec.scanUsage !== undefined && !isZstdPath(task.path) && nativeKernel() !== undefined && process.env.SESSIONFOLD_NATIVE_ENGINES !== '0';
}
/** How many files a task reads: a batch's, or one. */
export const filesOf = (task: ParseTask): number => task.batch?.length ?? 1;

/**
 * Tasks resuming from a RowCursor whose files one codec reads together (`Codec.batchKey`: sessions of one
 * database) as one batch task each (`parseTask`): one snapshot and one pass over the rows instead of one per
 * session. A file read from its start stays a task of its own (its rows are read through its own index
 * anyway, and the pool may spread such reads over its workers), as does a key only one task has.
 */
export function batchTasks(tasks: readonly ParseTask[], codecOf: (task: ParseTask) => Codec): ParseTask[] {
  const out: ParseTask[] = [];
  const groups = new Map<string, ParseTask[]>();
  for (const t of tasks) {
    const listed = codecOf(t);
    // A built-in codec whose module is not loaded has read none of its files: nothing of it to batch.
    const codec = listed instanceof LazyCodec ? listed.loaded : listed;
    const key = codec?.readBatch !== undefined && t.cursor?.format === 'sqlite' && t.batch === undefined ? codec.batchKey?.(t.path) : undefined;
    if (key === undefined) {
      out.push(t);
      continue;
    }
    const id = `${t.agent}\0${key}`;
    const group = groups.get(id);
    if (group === undefined) groups.set(id, [t]);
    else group.push(t);
  }
  for (const group of groups.values()) {
    const first = group[0] as ParseTask;
    if (group.length === 1) out.push(first);
    else out.push({ ...first, weight: group.reduce((n, t) => n + t.weight, 0), cursor: undefined, batch: group });
  }
  return out;
}

/**
 * A worker's young generation (MB). V8's default lets each isolate's nursery grow to tens of MB; a parse
 * worker's garbage is short-lived (lines, events; large strings go to large-object space, not the
 * nursery), so a small nursery costs little time and keeps each worker's share of the process's peak RSS
 * down (1.8 GB history: about 30 MB less per run, same duration within noise; see bench/RESULTS.md).
 */
const WORKER_YOUNG_GENERATION_MB = 4;

/**
 * The worker entry: the build's bundled worker, `dist/src/cli/bundle/scan-worker.js` (scripts/bundle-cli.mjs),
 * when it is not older than `dist/src/scan/worker.js`, else that module; named from the package folder (this
 * module may be running from the CLI's bundle, `dist/src/cli/bundle/`), or next to this module without one;
 * from the TypeScript sources, through the dev loader. The bundle is a few files instead of about seventy
 * modules, which every worker would resolve, read and compile one after another before its first file: about
 * 120 ms of CPU less per worker (bench/RESULTS.md). Resolved at the first spawn: most scans start none.
 */
let workerUrl: URL | undefined;
export function workerEntry(): URL {
  if (workerUrl !== undefined) return workerUrl;
  if (FROM_SOURCES) return (workerUrl = new URL('./worker-dev.mjs', import.meta.url));
  const root = packageRoot();
  if (root === undefined) return (workerUrl = new URL('./worker.js', import.meta.url));
  const plain = join(root, 'dist', 'src', 'scan', 'worker.js');
  const bundled = join(root, 'dist', 'src', 'cli', 'bundle', 'scan-worker.js');
  let fresh = false;
  try {
    fresh = statSync(bundled).mtimeMs >= statSync(plain).mtimeMs;
  } catch {
    // no bundle (a build without rolldown)
  }
  return (workerUrl = pathToFileURL(fresh ? bundled : plain));
}

interface Slot {
  worker: Worker;
  inflight: number;
}

export interface PoolOptions {
  /** Worker threads (0: everything on the main thread); undefined: set later with `setSize`. */
  size: number | undefined;
  /** The codec of a task, and whether a worker can load it. */
  codecOf: (task: ParseTask) => { codec: Codec; onWorker: boolean };
  onMessage: (msg: TaskMessage) => void;
  /** Fatal: a worker died. The scan fails with this error. */
  onFatal: (error: Error) => void;
  canDispatch: () => boolean;
  /**
   * Whether a task goes to the native lane (default `takesNativeLane`: the kernel loaded, the engines on).
   * Tests of the lane's batching give their fake engines one that needs no kernel.
   */
  takesNative?: (codec: Codec, task: ParseTask) => boolean;
}

/** Largest first; among equals, as added (ids go up as discovery finds files). */
const largestFirst = (a: ParseTask, b: ParseTask): number => b.weight - a.weight || a.id - b.id;

/** Two lists sorted by `largestFirst`, merged into one. */
function mergeLargestFirst(a: readonly ParseTask[], b: readonly ParseTask[]): ParseTask[] {
  if (a.length === 0) return b as ParseTask[];
  const out: ParseTask[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = largestFirst(a[i] as ParseTask, b[j] as ParseTask) <= 0 ? (a[i++] as ParseTask) : (b[j++] as ParseTask);
  while (i < a.length) out[k++] = a[i++] as ParseTask;
  while (j < b.length) out[k++] = b[j++] as ParseTask;
  return out;
}

export class ParsePool {
  readonly #opts: PoolOptions;
  readonly #slots: Slot[] = [];
  #queue: ParseTask[] = [];
  /** Bytes ever queued for workers, and those the main thread took from that queue (`#steal`). */
  #queuedBytes = 0;
  #stolenBytes = 0;
  #inline: ParseTask[] = [];
  #inlineRunning = false;
  #closed = false;
  /**
   * The native lane's tasks by agent, each largest first: a batch is a run of one agent's (see `#pumpNative`),
   * taken from the front of its list, where one list of every agent's tasks was searched and copied whole for
   * each batch (quadratic in the files, and a third of the main thread's garbage in a cold scan's lane). Tasks
   * added later are sorted alone and merged in (`add`), not the whole list sorted again.
   */
  readonly #native = new Map<string, ParseTask[]>();
  #nativeCount = 0;
  #nativeInflight = 0;
  #size: number;
  /** Tasks for `parseFile` held until `setSize` (a pool made without a size): files the engines handed back. */
  #deferred: ParseTask[] | undefined;

  constructor(options: PoolOptions) {
    this.#opts = options;
    this.#size = options.size ?? 0;
    if (options.size === undefined) this.#deferred = [];
  }

  /**
   * Set the size of a pool made without one (a scan that discovers as it reads), once: the tasks held until
   * now are queued with it.
   */
  setSize(size: number): void {
    if (this.#deferred === undefined) throw new Error('ParsePool.setSize: the pool has its size');
    const held = this.#deferred;
    this.#deferred = undefined;
    this.#size = size;
    this.#addJs(held);
  }

  /** The tasks held for `setSize`, and their bytes (what the size should account for besides its own). */
  get deferred(): { count: number; bytes: number } {
    const d = this.#deferred ?? [];
    return { count: d.length, bytes: d.reduce((n, t) => n + t.weight, 0) };
  }

  /** Worker threads started. */
  get workers(): number {
    return this.#slots.length;
  }

  /** Queue tasks (sorted largest first) and start dispatching. */
  add(tasks: readonly ParseTask[]): void {
    if (this.#closed) return;
    const js: ParseTask[] = [];
    const fresh = new Map<string, ParseTask[]>();
    for (const t of tasks) {
      if (!(this.#opts.takesNative ?? takesNativeLane)(this.#opts.codecOf(t).codec, t)) {
        js.push(t);
        continue;
      }
      let list = fresh.get(t.agent);
      if (list === undefined) fresh.set(t.agent, (list = []));
      list.push(t);
      this.#nativeCount++;
    }
    // Only the new tasks are sorted, then merged into the agent's sorted list in one pass.
    for (const [agent, list] of fresh) this.#native.set(agent, mergeLargestFirst(this.#native.get(agent) ?? [], list.sort(largestFirst)));
    this.#addJs(js);
  }

  /** Queue tasks for `parseFile`, on a worker or on the main thread (none once closed: no worker starts then). */
  #addJs(tasks: readonly ParseTask[]): void {
    if (this.#closed) return;
    if (this.#deferred !== undefined) {
      this.#deferred.push(...tasks);
      this.pump(); // the native lane's
      return;
    }
    for (const t of tasks) {
      if (this.#size > 0 && this.#opts.codecOf(t).onWorker) {
        this.#queue.push(t);
        this.#queuedBytes += t.weight;
      } else this.#inline.push(t);
    }
    this.#queue.sort((a, b) => b.weight - a.weight);
    this.#inline.sort((a, b) => b.weight - a.weight);
    const want = Math.min(this.#size, this.#slots.length + this.#queue.length);
    while (this.#slots.length < want) this.#slots.push(this.#spawn());
    this.pump();
  }

  /** The agent's list whose first task is the largest queued (the first added among equals); some task is queued. */
  #largestNative(): ParseTask[] {
    let list: ParseTask[] = [];
    for (const l of this.#native.values()) {
      const head = l[0];
      const best = list[0];
      if (head !== undefined && (best === undefined || head.weight > best.weight || (head.weight === best.weight && head.id < best.id))) list = l;
    }
    return list;
  }

  /**
   * Start native reads while there is room: a batch of files of one codec per pool thread job (a large file
   * alone; small ones together, up to NATIVE_BATCH_BYTES or NATIVE_BATCH_FILES), each file's messages posted
   * when C is done with the batch.
   */
  #pumpNative(): void {
    while (this.#nativeInflight < nativeInflight() && this.#nativeCount > 0 && this.#opts.canDispatch() && !this.#closed) {
      // The largest task queued, and the next ones of its codec, in order, up to the batch's limits.
      const list = this.#largestNative();
      const first = list[0] as ParseTask;
      let n = 1;
      let bytes = first.weight;
      while (n < list.length && bytes < NATIVE_BATCH_BYTES && n < NATIVE_BATCH_FILES) bytes += (list[n++] as ParseTask).weight;
      const batch = list.splice(0, n);
      this.#nativeCount -= n;
      const codec = this.#opts.codecOf(first).codec;
      let read: Promise<(UsageScanResult | false | undefined)[]> | undefined;
      try {
        read = codec.scanUsage?.(batch.map((t) => t.path));
      } catch {
        read = undefined;
      }
      if (read === undefined) {
        this.#addJs(batch.map((t) => ({ ...t, native: false })));
        continue;
      }
      this.#nativeInflight++;
      read.then(
        (results) => {
          this.#nativeInflight--;
          if (this.#closed) return;
          const js: ParseTask[] = [];
          batch.forEach((task, i) => {
            const r = results[i];
            if (r === undefined || r === false) js.push({ ...task, native: false });
            else this.#deliver(task, r);
          });
          if (js.length > 0) this.#addJs(js);
          this.pump();
        },
        () => {
          // The engine itself failed (no thread, no memory): `read()` takes the batch, and reports what is
          // wrong with a file itself.
          this.#nativeInflight--;
          if (this.#closed) return;
          this.#addJs(batch.map((t) => ({ ...t, native: false })));
          this.pump();
        },
      );
    }
  }

  #deliver(task: ParseTask, r: UsageScanResult): void {
    const post = this.#opts.onMessage;
    post({ type: 'start', id: task.id, start: { restarted: true, reason: 'no-cursor', replaced: {} } });
    // The block as the engine handed it over: the consumer decodes it (the cost fold onto one object).
    if (r.block !== undefined) {
      if (r.block.count > 0) post({ type: 'block', id: task.id, block: r.block, cwd: r.cwd, bytes: r.info.bytes });
    } else if (r.events.length > 0) post({ type: 'events', id: task.id, events: r.events, cwd: r.cwd, bytes: r.info.bytes });
    const track = r.cwd === undefined ? newSessionTrack() : { events: 1, cwdIndex: 0, cwd: r.cwd };
    post({ type: 'done', id: task.id, cursor: undefined, prefixHash: undefined, partialLine: r.info.bytes > r.info.bytesCommitted, info: r.info, track, bytesVerified: 0, native: true });
  }

  #spawn(): Slot {
    const worker = new (nodeWorkerThreads().Worker)(workerEntry(), { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
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
    this.#pumpNative();
    for (let round = 0; round < PREFETCH && this.#queue.length > 0; round++) {
      for (const slot of this.#slots) {
        if (this.#queue.length === 0 || !this.#opts.canDispatch()) break;
        if (slot.inflight > round) continue;
        const task = this.#queue.shift() as ParseTask;
        slot.inflight += filesOf(task);
        slot.worker.postMessage(task);
      }
    }
    this.#steal();
    if (this.#inline.length > 0 && !this.#inlineRunning && this.#opts.canDispatch()) void this.#runInline();
  }

  /**
   * The main thread helps: when it has nothing of its own to parse, it takes the smallest queued task (workers
   * take from the largest end), as long as the workers still have more than their prefetch waiting and the
   * main thread's take stays within MAIN_THREAD_SHARE of the queued bytes. Workers need ~100–150 ms each to
   * start (module loading); without this, a history of a few hundred MB parsed on two workers took 1.6x the
   * main thread alone (bench/RESULTS.md).
   */
  #steal(fromRunner = false): void {
    if (this.#inline.length > 0 || (this.#inlineRunning && !fromRunner) || this.#closed) return;
    if (this.#queue.length <= this.#slots.length * PREFETCH || !this.#opts.canDispatch()) return;
    const task = this.#queue[this.#queue.length - 1] as ParseTask;
    if (this.#stolenBytes + task.weight > MAIN_THREAD_SHARE * this.#queuedBytes) return;
    this.#stolenBytes += task.weight;
    this.#inline.push(this.#queue.pop() as ParseTask);
  }

  async #runInline(): Promise<void> {
    this.#inlineRunning = true;
    try {
      while (!this.#closed && this.#opts.canDispatch()) {
        if (this.#inline.length === 0) this.#steal(true);
        const task = this.#inline.shift();
        if (task === undefined) break;
        await parseTask(this.#opts.codecOf(task).codec, task, (msg) => this.#opts.onMessage(msg), true);
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
    this.#native.clear();
    this.#nativeCount = 0;
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
