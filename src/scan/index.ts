/**
 * `scanUsage`: every usage event of the selected agents' session files, through the event cache and the
 * worker pool. The engine under `cost report`, `events export` and the totals fold.
 *
 * - Discovery: each selected codec's `discover()` under `options.roots[agent]` or `codec.defaultRoots(env)`;
 *   `since` skips files whose mtime precedes it when the codec declares `eventsPrecedeMtime`, except those
 *   named in `keep`.
 * - Each file is read with kinds ['session', 'usage']; every usage record carries the file's path and its
 *   session cwd (the cwd of the first session event that has one).
 * - Records are yielded raw: a response recorded in several files (resumed, forked sessions) comes once per
 *   file. Consumers count each `dedupKey` once.
 * - Order: the records of one file come in file order (live usage, then `retained` ledger records); files
 *   interleave in completion order, which is not deterministic across runs.
 *
 * @example
 * import { scanUsage } from 'sessionfold';
 * const seen = new Set<string>();
 * let output = 0;
 * for await (const u of scanUsage({ agents: ['claude'] })) {
 *   if (seen.has(u.dedupKey)) continue;
 *   seen.add(u.dedupKey);
 *   output += u.outputTokens;
 * }
 */
import { hashText128 } from '../../cursors/ids.js';
import { canDiscoverStreaming, discoverFiles, loadListedCodecs, type Discovery } from './discover.js';
import { normalizeScanOptions } from './options.js';
import { scanStreaming } from './streaming.js';
import type { ScanOptions, UsageRecord, UsageRecordBlock } from './types.js';

export type { KeepFiles, ScanDelta, ScanOptions, ScanStats, UsageRecord, UsageRecordBlock } from './types.js';
export { newScanDelta, newScanStats } from './types.js';
export { getCachePath } from '../cache/paths.js';

/**
 * The usage records of the selection, in batches (arrays of records: part of one file's records from a
 * parse, many files' from the cache). The fast path for folds: one await per batch instead of one per record.
 */
export function scanUsageBatches(options: ScanOptions = {}, discovered?: Discovery): AsyncGenerator<UsageRecord[]> {
  return scanUnits(options, discovered, false);
}

/**
 * `scanUsageBatches`, but a file a native engine read comes as its block, undecoded (UsageRecordBlock): for a
 * consumer that keeps no record past its use and decodes a block onto one object (the cost fold's
 * `addBlock`), so a cold scan makes no object per record. Scans with the cache yield batches only.
 */
export function scanUsageBlocks(options: ScanOptions = {}, discovered?: Discovery): AsyncGenerator<UsageRecord[] | UsageRecordBlock> {
  return scanUnits(options, discovered, true);
}

function scanUnits(options: ScanOptions, discovered: Discovery | undefined, blocks: false): AsyncGenerator<UsageRecord[]>;
function scanUnits(options: ScanOptions, discovered: Discovery | undefined, blocks: boolean): AsyncGenerator<UsageRecord[] | UsageRecordBlock>;
async function* scanUnits(options: ScanOptions, discovered: Discovery | undefined, blocks: boolean): AsyncGenerator<UsageRecord[] | UsageRecordBlock> {
  const opts = normalizeScanOptions(options);
  if (!opts.cache) {
    if (opts.delta) opts.delta.exact = false;
    // Without the cache, reading starts as discovery finds files (unless a discovery cache answers for it).
    if (discovered === undefined && canDiscoverStreaming()) yield* scanStreaming(opts, undefined, blocks);
    else {
      const d = discovered ?? (await discoverFiles(opts));
      await loadListedCodecs(opts); // a discovery made without the parsers loaded none
      yield* scanStreaming(opts, d.files, blocks);
    }
    return;
  }
  // The cache (SQLite) is loaded only by a scan that uses it.
  const { scanCached } = await import('./cached.js');
  yield* scanCached(opts, discovered ?? (await discoverFiles(opts)));
}

/**
 * The files a scan with these options would read, stat'ed (the discovery `scanUsageBatches` does first).
 * Pass it to `scanUsageBatches(options, discovery)` to scan without listing the roots again.
 */
export async function discoverUsageFiles(options: ScanOptions = {}, withoutParsers = false): Promise<Discovery> {
  return discoverFiles(normalizeScanOptions(options), withoutParsers);
}

/** A digest of a discovery's files and their stats: equal digests, the same files as they were. */
export function discoveryStats(d: Discovery): string {
  // One update of the whole text: an update per file costs a native call each (3,922 files: ~4 ms).
  let text = '';
  for (const f of d.files) text += `${f.codec.id}\0${f.path}\0${f.size}\0${f.mtimeMs}\0${f.ino}\0${f.ctimeMs}\0${f.deps}\n`;
  return hashText128(text);
}

/** The usage records of the selection, one by one (see the module header for order and duplicates). */
export async function* scanUsage(options: ScanOptions = {}): AsyncGenerator<UsageRecord> {
  for await (const batch of scanUsageBatches(options)) yield* batch;
}
