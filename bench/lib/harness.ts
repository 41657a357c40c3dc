/**
 * The benchmark harness: a topic (one question, one `bench/<topic>.bench.ts`) declares cases; each case is
 * run in its own child process (so its peak RSS is its own), asserts its result once before anything is
 * timed, then runs under tinybench for a fixed number of iterations. Throughput is bytes (or events) over
 * the median latency.
 *
 * Why child processes: `maxRSS` is a high-water mark per process; cases sharing a process would inherit each
 * other's peaks. Why assert first: a fast wrong answer is not a result (STYLE.md §13).
 */
import { Bench } from 'tinybench';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Settings every topic sees (from the environment). */
export interface BenchEnv {
  /** Corpus scale (`BENCH_SCALE`, default 0.1 ≈ 160 MB). */
  scale: number;
  seed: string;
  /** Timed iterations per case (`BENCH_ITERATIONS`, default 5). */
  iterations: number;
  /** Where corpora and caches live (`BENCH_DIR`, default `<tmp>/sessionfold-bench`). */
  dir: string;
  /** Size of the single large file used by the line-reader, prefix and resume topics (`BENCH_BIG_MB`, default 100). */
  bigBytes: number;
}

export function readBenchEnv(env: NodeJS.ProcessEnv = process.env): BenchEnv {
  const num = (name: string, dflt: number) => {
    const v = env[name];
    if (v === undefined || v === '') return dflt;
    const n = Number(v);
    if (!(n > 0)) throw new Error(`${name} must be a positive number, got ${v}`);
    return n;
  };
  return {
    scale: num('BENCH_SCALE', 0.1),
    seed: env.BENCH_SEED || 'sessionfold-bench',
    iterations: Math.round(num('BENCH_ITERATIONS', 5)),
    dir: env.BENCH_DIR || join(tmpdir(), 'sessionfold-bench'),
    bigBytes: Math.round(num('BENCH_BIG_MB', 100) * 1e6),
  };
}

/** Iterations of a case whose first run took under 100 ms (at least). */
export const FAST_CASE_ITERATIONS = 25;

/** What one iteration returns; `verify` checks it. */
export interface IterationResult {
  /** Events produced (for events/s). */
  events?: number;
  /**
   * Peak RSS (MB) of the process that did the work when it is not the case's own (a CLI run as a child,
   * measured by a preload): the report gives the largest over the iterations instead of its own process's.
   */
  workPeakRssMb?: number;
  /** Counts the case measures besides time (statements run, lines found): the report carries the last iteration's. */
  counts?: Record<string, number>;
  [k: string]: unknown;
}

export interface BenchCase<S = unknown> {
  name: string;
  /** Bytes one iteration processes (for MB/s). */
  bytes?: number;
  /** A case in the same topic this one is compared with (ratio column). */
  baseline?: string;
  /** Why the case cannot run here (a module not built yet, no data); it is listed, not run. */
  skip?: string;
  /** Runs in the child, untimed. */
  setup?(): Promise<S> | S;
  /** Runs before each iteration, untimed (reset a file, drop a cache). */
  beforeEach?(state: S): Promise<void> | void;
  run(state: S): Promise<IterationResult> | IterationResult;
  /** Throw when the result is wrong. Called on the first iteration's result, before timing. */
  verify(result: IterationResult, state: S): void;
  teardown?(state: S): Promise<void> | void;
  /** Free-form note for the table. */
  note?: string;
}

export interface Topic {
  name: string;
  /** The question this topic answers. */
  question: string;
  /** Runs once in the parent before any case (generate corpora, so children only read them). */
  prepare?(env: BenchEnv): Promise<void>;
  cases(env: BenchEnv): Promise<BenchCase<any>[]>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface CaseReport {
  topic: string;
  case: string;
  status: 'ok' | 'skipped' | 'failed';
  /** Why it was skipped, or the failure. */
  message?: string;
  iterations?: number;
  /** Median and mean latency of one iteration, ms. */
  medianMs?: number;
  meanMs?: number;
  minMs?: number;
  bytes?: number;
  events?: number;
  /** MB/s (1 MB = 1e6 bytes) at the median. */
  mbPerSec?: number;
  eventsPerSec?: number;
  /** CPU time (user + system) over wall time during the timed iterations (>1 means several threads). */
  cpuPerWall?: number;
  /** Peak resident set size of the child process (or of the process that did the work: `workPeakRssMb`), MB. */
  peakRssMb?: number;
  /** The case's own counts (`IterationResult.counts`). */
  counts?: Record<string, number>;
  baseline?: string;
  note?: string;
}

/** Run one case to a report (in the current process). */
export async function runCase(topic: string, c: BenchCase, env: BenchEnv): Promise<CaseReport> {
  const base: CaseReport = { topic, case: c.name, status: 'ok', ...(c.baseline !== undefined && { baseline: c.baseline }), ...(c.note !== undefined && { note: c.note }) };
  if (c.skip !== undefined) return { ...base, status: 'skipped', message: c.skip };
  const state = c.setup ? await c.setup() : undefined;
  try {
    await c.beforeEach?.(state);
    const t0 = performance.now();
    const first = await c.run(state);
    const firstMs = performance.now() - t0;
    c.verify(first, state);
    let events = first.events;
    let workRss = first.workPeakRssMb;
    let counts = first.counts;
    // Cases of a few ms are noisy on a shared machine: give them more samples.
    const iterations = firstMs < 100 ? Math.max(env.iterations, FAST_CASE_ITERATIONS) : env.iterations;
    const bench = new Bench({ iterations, time: 0, warmup: false, throws: true });
    bench.add(
      c.name,
      async () => {
        const r = await c.run(state);
        events = r.events;
        if (r.workPeakRssMb !== undefined) workRss = Math.max(workRss ?? 0, r.workPeakRssMb);
        if (r.counts !== undefined) counts = r.counts;
      },
      { beforeEach: async () => c.beforeEach?.(state) },
    );
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    await bench.run();
    const wall = performance.now() - wall0;
    const cpu = process.cpuUsage(cpu0);
    const task = bench.tasks[0];
    const result = task?.result as { latency?: { p50?: number; mean: number; min: number; samplesCount: number } } | undefined;
    const lat = result?.latency;
    if (!lat) throw new Error(`tinybench gave no latency for ${c.name}`);
    const median = lat.p50 ?? lat.mean;
    return {
      ...base,
      iterations: lat.samplesCount,
      medianMs: median,
      meanMs: lat.mean,
      minMs: lat.min,
      ...(c.bytes !== undefined && { bytes: c.bytes, mbPerSec: c.bytes / 1e6 / (median / 1000) }),
      ...(events !== undefined && { events, eventsPerSec: events / (median / 1000) }),
      cpuPerWall: (cpu.user + cpu.system) / 1000 / wall,
      peakRssMb: workRss ?? process.resourceUsage().maxRSS / 1024,
      ...(counts !== undefined && { counts }),
    };
  } finally {
    await c.teardown?.(state);
  }
}

/** Throw `message` with the actual value unless `ok`. */
export function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(`benchmark result check failed: ${message}`);
}
