/** `normalizeScanOptions`: every default filled once, every bad option an INVALID_OPTION. */
import { availableParallelism } from 'node:os';
import type { DiscoverOptions } from '../../cursors/protocol/codec.js';
import { invalidOption } from '../../cursors/protocol/errors.js';
import { getCachePath } from '../cache/paths.js';
import { openListingMemo } from '../cache/listing-memo.js';
import { newScanStats, type ScanDelta, type ScanOptions, type ScanStats } from './types.js';
import { tallyOf, type SourceReport, type SourceTally } from './sources.js';
import { scanSources, type ScanSource } from './select.js';

/**
 * Default pool size: min(cores − 1, MAX_DEFAULT_WORKERS), where there is a worker at all (`workerMinBytes`).
 * The main thread parses too (the pool's inline runner takes the smallest tasks), so cores − 1 workers keep
 * every core busy without a thread too many.
 * Measured once on 2 cores with a script, not a benchmark (cold `--no-cache` report over the 1.82 GB peers
 * history, 3 interleaved runs each):
 * 1 worker 2.03–2.06 s, 2 workers 2.18–2.26 s, 3 workers 2.40–2.47 s; building the cache, 1 and 2 workers
 * were level (2.88 s against 2.87–3.21 s).
 */
export const MAX_DEFAULT_WORKERS = 4;
/**
 * With the default pool size, less than this much to parse runs on the main thread. A worker loads its bundle
 * and warms up its own JIT for the same read path the main thread runs too (about 160 ms of CPU to start, and
 * its own compiles on V8's threads), so it never pays in CPU time; in wall time it pays only where the CPU it
 * adds still fits beside the main thread. With the addon, Claude's and Codex's files go to its engines and
 * count nothing here.
 */
export const AUTO_WORKER_MIN_BYTES = 1 << 30;

/**
 * With fewer available cores than this (`os.availableParallelism()`), the default pool starts no worker at
 * any size: on two cores a worker lost by wall in 20 of 22 pairs at 858 MB and in every pair at 1.81 GB
 * (bench/RESULTS.md, "Both cores for the wasm path"), the main thread and the worker taking turns on the
 * cores V8's compiler and the garbage collector also want. AUTO_WORKER_MIN_BYTES holds from three cores on
 * until a machine with more cores measures where a worker pays.
 */
export const MIN_WORKER_CORES = 3;

/**
 * The threshold a scan uses on a machine with `cores` available: `SESSIONFOLD_WORKER_MIN_BYTES` of the scan's
 * environment (a non-negative integer, bytes) where set (a worker still needs a spare core), so the trade above can be
 * measured on another machine without a build; else AUTO_WORKER_MIN_BYTES from MIN_WORKER_CORES cores, and
 * Infinity (no worker) below. Pure: the scan passes `os.availableParallelism()`.
 */
export function workerMinBytes(env: NodeJS.ProcessEnv, cores: number): number {
  const v = env.SESSIONFOLD_WORKER_MIN_BYTES;
  if (v !== undefined && /^\d{1,15}$/.test(v)) return Number(v);
  return cores < MIN_WORKER_CORES ? Infinity : AUTO_WORKER_MIN_BYTES;
}

export type { ScanSource } from './select.js';

export interface NormalizedScanOptions {
  sources: ScanSource[];
  /** ms since the epoch, or undefined. */
  since: number | undefined;
  /** `ScanOptions.keep`, its paths as a set. */
  keep: { paths: ReadonlySet<string>; beforeSince: Set<string>; unlisted: Set<string> | undefined; listedAs: Map<string, string> | undefined } | undefined;
  cache: boolean;
  cachePath: string;
  /** Requested pool size; undefined = automatic. */
  workers: number | undefined;
  /**
   * With an automatic pool size, less than this much to parse runs on the main thread (`workerMinBytes` of the
   * env and this machine's cores; Infinity: no worker).
   */
  workerMinBytes: number;
  env: NodeJS.ProcessEnv;
  onProgress: ((done: number, total: number) => void) | undefined;
  onWarning: (message: string) => void;
  retainDeleted: boolean;
  stats: ScanStats;
  delta: ScanDelta | undefined;
  /** Discovery's listings kept between runs beside the cache (src/cache/listing-memo.ts); none without the cache. */
  discover: DiscoverOptions;
  /** Where discovery writes its source report (`ScanOptions.sources`), and the tally behind it. */
  sourceReport: { out: SourceReport[]; tally: SourceTally } | undefined;
}

function defaultWarning(message: string): void {
  process.emitWarning(message, { type: 'SessionfoldWarning' });
}

export function normalizeScanOptions(user: ScanOptions = {}): NormalizedScanOptions {
  const env = user.env ?? process.env;
  const sources = scanSources(user, env);

  let since: number | undefined;
  if (user.since !== undefined) {
    if (!(user.since instanceof Date) || Number.isNaN(user.since.getTime())) throw invalidOption('since', 'a valid Date', user.since);
    since = user.since.getTime();
  }
  const keep = user.keep;
  if (keep !== undefined && (keep === null || !Array.isArray(keep.paths) || keep.paths.some((p) => typeof p !== 'string') || !(keep.beforeSince instanceof Set) || !(keep.unlisted === undefined || keep.unlisted instanceof Set) || !(keep.listedAs === undefined || keep.listedAs instanceof Map))) {
    throw invalidOption('keep', '{ paths: string[], beforeSince: Set, unlisted?: Set, listedAs?: Map }', keep);
  }
  if (user.workers !== undefined && (!Number.isInteger(user.workers) || user.workers < 0)) throw invalidOption('workers', 'a non-negative integer', user.workers);
  if (user.cachePath !== undefined && (typeof user.cachePath !== 'string' || user.cachePath === '')) throw invalidOption('cachePath', 'a file path', user.cachePath);
  if (user.cache !== undefined && typeof user.cache !== 'boolean') throw invalidOption('cache', 'a boolean', user.cache);
  if (user.sources !== undefined && !Array.isArray(user.sources)) throw invalidOption('sources', 'an array to fill', user.sources);
  const stats = user.stats ?? newScanStats();
  const cache = user.cache ?? true;
  const cachePath = user.cachePath ?? getCachePath(env);
  return {
    sources,
    since,
    keep: keep === undefined ? undefined : { paths: new Set(keep.paths), beforeSince: keep.beforeSince, unlisted: keep.unlisted, listedAs: keep.listedAs },
    cache,
    cachePath,
    discover: { listingMemo: cache ? openListingMemo(cachePath) : undefined },
    workers: user.workers,
    workerMinBytes: workerMinBytes(env, availableParallelism()),
    env,
    onProgress: user.onProgress,
    onWarning: user.onWarning ?? defaultWarning,
    retainDeleted: user.retainDeleted ?? true,
    stats,
    delta: user.delta,
    sourceReport: user.sources === undefined ? undefined : { out: user.sources, tally: tallyOf(user.sources) },
  };
}

/**
 * The pool size for `tasks` tasks totalling `bytes` to read on a machine with `cores` available: `requested`
 * up to the tasks, else automatic, from `minBytes` (`workerMinBytes`) and for more than one task, a worker per
 * spare core up to MAX_DEFAULT_WORKERS. Pure but for the default of `cores`.
 */
export function resolveWorkers(requested: number | undefined, tasks: number, bytes: number, minBytes: number, cores = availableParallelism()): number {
  if (requested !== undefined) return Math.min(requested, tasks);
  if (tasks <= 1 || bytes < minBytes) return 0;
  return Math.max(0, Math.min(cores - 1, MAX_DEFAULT_WORKERS, tasks));
}
