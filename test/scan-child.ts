/**
 * A child process of the concurrency test: scans a tree through a shared cache and prints what a fold
 * would count (distinct dedup keys, token sums) plus its stats, as one JSON line.
 * Usage: node --import ./src/scan/dev-register.mjs test/scan-child.ts <root> <cachePath> <workers>
 */
import { scanUsageBatches } from '../src/scan/index.js';
import { newScanStats } from '../src/scan/types.js';

const [root, cachePath, workers] = process.argv.slice(2) as [string, string, string];
const stats = newScanStats();
const seen = new Map<string, number>();
let records = 0;
for await (const batch of scanUsageBatches({
  agents: ['sessionfold-jsonl'],
  roots: { 'sessionfold-jsonl': [root] },
  cachePath,
  workers: Number(workers),
  stats,
  onWarning: (w) => process.stderr.write(`warning: ${w}\n`),
})) {
  for (const r of batch) {
    records++;
    if (!seen.has(r.dedupKey)) seen.set(r.dedupKey, r.outputTokens + r.inputTokens);
  }
}
let tokens = 0;
for (const v of seen.values()) tokens += v;
process.stdout.write(`${JSON.stringify({ records, keys: seen.size, tokens, stats })}\n`);
