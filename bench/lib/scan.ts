/**
 * The scan engine as benchmarks use it: every usage record of a corpus through `scanUsage` (event cache or
 * not), folded into a UsageCollector so the result can be checked against expected.json.
 */
import { UsageCollector } from '../../fixtures/generate/index.js';
import { newScanStats, scanUsageBatches, type ScanStats } from '../../src/scan/index.js';

export interface ScanRun {
  usage: UsageCollector;
  stats: ScanStats;
}

export async function scanCorpus(o: { env: NodeJS.ProcessEnv; cache: boolean; cachePath?: string; agents?: string[]; workers?: number }): Promise<ScanRun> {
  const stats = newScanStats();
  const usage = new UsageCollector();
  for await (const batch of scanUsageBatches({
    env: o.env,
    cache: o.cache,
    agents: o.agents ?? ['claude', 'codex'],
    ...(o.cachePath !== undefined && { cachePath: o.cachePath }),
    ...(o.workers !== undefined && { workers: o.workers }),
    stats,
    onWarning: (m) => process.stderr.write(`warning: ${m}\n`),
  })) {
    for (const r of batch) usage.add(r);
  }
  return { usage, stats };
}
