/**
 * The scan without the cache (`cache: false`): every file read from byte 0, batches yielded as workers post
 * them, nothing held beyond the consumer's queue. The reference the cached path is tested against.
 */
import type { NormalizedScanOptions } from './options.js';
import { resolveWorkers } from './options.js';
import type { ScanFile } from './discover.js';
import type { ParseTask } from './parse-file.js';
import { isMissingFileError } from './parse-file.js';
import { TaskRunner } from './runner.js';
import { decodeSegment, pushRecords } from './segment.js';
import type { UsageRecord } from './types.js';

export async function* scanStreaming(opts: NormalizedScanOptions, files: readonly ScanFile[]): AsyncGenerator<UsageRecord[]> {
  const stats = opts.stats;
  const tasks: ParseTask[] = files.map((f, id) => ({ id, agent: f.codec.id, path: f.path, weight: f.size, resume: false }));
  const runner = new TaskRunner(opts, resolveWorkers(opts.workers, tasks.length, tasks.reduce((n, t) => n + t.weight, 0)));
  try {
    runner.add(tasks);
    stats.workers = runner.workers;
    for (let m = await runner.next(); m !== undefined; m = await runner.next()) {
      if (m.type === 'batch') {
        const out: UsageRecord[] = [];
        pushRecords(decodeSegment(m.data), (files[m.id] as ScanFile).path, m.cwd, false, out);
        stats.records += out.length;
        yield out;
      } else if (m.type === 'done') {
        stats.fullReads++;
        stats.bytesRead += m.info.bytes;
        stats.skippedLines += m.info.skippedLines;
      } else if (m.type === 'error' && !isMissingFileError(m.error)) {
        stats.failed++;
        opts.onWarning(`Cannot read ${(files[m.id] as ScanFile).path}: ${m.error.message}`);
      }
    }
  } finally {
    await runner.close();
  }
}
