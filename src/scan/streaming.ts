/**
 * The scan without the cache (`cache: false`): every file read from byte 0, batches yielded as workers post
 * them, nothing held beyond the consumer's queue. The reference the cached path is tested against.
 *
 * Files a codec's native engine reads (the pool's native lane) start reading as discovery finds them; files
 * for `parseFile` wait until their bytes call for workers (then each is queued as it is found) or discovery
 * ends, whichever comes first: the pool is sized by their bytes.
 */
import type { NormalizedScanOptions } from './options.js';
import { resolveWorkers } from './options.js';
import { canDiscoverStreaming, discoverStreaming, type ScanFile } from './discover.js';
import type { ParseTask } from './parse-file.js';
import { isMissingFileError } from './parse-file.js';
import { TaskRunner } from './runner.js';
import { decodeSegment, pushRecords } from './segment.js';
import { asRecords, blockRecords, SkipTally, type UsageRecord, type UsageRecordBlock } from './types.js';
import { takesNativeLane } from './pool.js';

/**
 * Scan `files`, or, when undefined, discover them as the scan goes (see the module header). `blocks`: a file the
 * native lane read comes as its block, undecoded (UsageRecordBlock), for a consumer that decodes it itself;
 * otherwise as its records.
 */
export function scanStreaming(opts: NormalizedScanOptions, files?: readonly ScanFile[], blocks?: false): AsyncGenerator<UsageRecord[]>;
export function scanStreaming(opts: NormalizedScanOptions, files: readonly ScanFile[] | undefined, blocks: boolean): AsyncGenerator<UsageRecord[] | UsageRecordBlock>;
export async function* scanStreaming(opts: NormalizedScanOptions, files?: readonly ScanFile[], blocks = false): AsyncGenerator<UsageRecord[] | UsageRecordBlock> {
  const stats = opts.stats;
  const all: ScanFile[] = [];
  const js: ParseTask[] = [];
  const runner = new TaskRunner(opts, undefined);
  // Set when the consumer stops early (or the scan fails): discovery, which may still be listing, then adds
  // nothing to a closed runner and stops at its next chunk.
  let stopped = false;
  // Bytes of the files for `parseFile` found so far; whether the runner has its workers' count (then each file
  // found is queued as it is found).
  let jsBytes = 0;
  let sized = false;
  const take = (found: readonly ScanFile[]): boolean => {
    if (stopped) return false;
    const native: ParseTask[] = [];
    const fresh = js.length;
    for (const f of found) {
      const t: ParseTask = { id: all.length, agent: f.codec.id, path: f.path, weight: f.size, resume: false, native: true };
      all.push(f);
      if (takesNativeLane(f.codec, t)) native.push(t);
      else {
        js.push(t);
        jsBytes += f.size;
      }
    }
    runner.add(native);
    if (sized) runner.add(js.slice(fresh));
    else if (opts.workers === undefined) startJs(false);
    return true;
  };
  // Workers for what the native lane will not read (it reads on the engines' own threads, not on workers):
  // the files it never took, and those its engines handed back so far. An explicit `workers` is a cap over
  // every file, as the engines may hand any back later; workers start only when there is work for them.
  // Without an explicit count they start as soon as the files found so far call for them (`final` false),
  // not at the end of discovery: a worker then loads its bundle and reads the largest files found while the
  // main thread is still listing.
  const startJs = (final: boolean): void => {
    if (stopped || sized) return;
    const back = runner.deferred;
    // Sized before the listing ends, the pool must not be capped at the files found so far (more come;
    // workers spawn only for queued work anyway).
    const tasks = final ? js.length + back.count : Number.MAX_SAFE_INTEGER;
    const count = opts.workers !== undefined ? Math.min(opts.workers, all.length) : resolveWorkers(undefined, tasks, jsBytes + back.bytes, opts.workerMinBytes);
    if (!final && count === 0) return;
    sized = true;
    runner.setWorkers(count);
    stats.workers = runner.workers; // again at the end; here too for a consumer that stops early
    runner.add(js);
  };
  let discovery: Promise<void> | undefined;
  let failed: unknown;
  if (files !== undefined) {
    take(files);
    startJs(true);
  } else if (canDiscoverStreaming()) {
    runner.expectMore();
    discovery = discoverStreaming(opts, take).then(
      () => {
        startJs(true);
        runner.noMore();
      },
      (e: unknown) => {
        failed = e;
        // The files the engines handed back wait for the workers' count: without it the runner would wait
        // for them forever and the error would never surface.
        startJs(true);
        runner.noMore();
      },
    );
  } else {
    throw new Error('scanStreaming: a discovery cache is installed; pass the discovered files');
  }
  const skipped = new SkipTally();
  try {
    for (let m = await runner.next(); m !== undefined; m = await runner.next()) {
      if (m.type === 'batch') {
        const out: UsageRecord[] = [];
        pushRecords(decodeSegment(m.data), (all[m.id] as ScanFile).path, m.cwd, false, out);
        stats.records += out.length;
        yield out;
      } else if (m.type === 'events') {
        const out = asRecords(m.events, (all[m.id] as ScanFile).path, m.cwd);
        stats.records += out.length;
        yield out;
      } else if (m.type === 'block') {
        const u: UsageRecordBlock = { block: m.block, file: (all[m.id] as ScanFile).path, cwd: m.cwd };
        stats.records += m.block.count;
        yield blocks ? u : blockRecords(u);
      } else if (m.type === 'done') {
        stats.fullReads++;
        if (m.native === true) stats.nativeReads++;
        stats.bytesRead += m.info.bytes;
        stats.skippedLines += m.info.skippedLines;
        skipped.add((all[m.id] as ScanFile).path, m.info.skippedLines);
      } else if (m.type === 'error' && !isMissingFileError(m.error)) {
        stats.failed++;
        const file = all[m.id] as ScanFile;
        opts.sourceReport?.tally.failed(file.codec.id, file.root);
        opts.onWarning(`Cannot read ${file.path}: ${m.error.message}`);
      }
    }
    await discovery;
    stats.workers = runner.workers;
    if (failed !== undefined) throw failed;
    const w = skipped.warning();
    if (w !== undefined) opts.onWarning(w);
  } finally {
    stopped = true;
    await runner.close();
  }
}
