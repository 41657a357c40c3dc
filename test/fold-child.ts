/**
 * A child process of the concurrency test: a totals report through the fold snapshots of a shared cache,
 * printed as one JSON line `{summary, info}`.
 * Usage: node --import ./src/scan/dev-register.mjs test/fold-child.ts <root> <cachePath> <groupBy>
 */
import { totalCost } from '../src/cost/total.js';
import type { FoldRunInfo } from '../src/cost/incremental.js';
import type { CostGroupBy } from '../src/cost/types.js';

const [root, cachePath, groupBy] = process.argv.slice(2) as [string, string, CostGroupBy];
const info = {} as FoldRunInfo;
const summary = await totalCost(
  { agents: ['sessionfold-jsonl'], roots: { 'sessionfold-jsonl': [root] }, cachePath, groupBy, timeZone: 'UTC' },
  { workers: 0, onWarning: (w) => process.stderr.write(`warning: ${w}\n`) },
  info,
);
process.stdout.write(`${JSON.stringify({ summary, info })}\n`);
