/**
 * `totalCost(options)`: the spec's `SessionManager.totalCost()` on its own: scan the selected agents' usage
 * (`scanUsage`, with the event cache unless `cache: false`) and fold it. The scan gets the agents and the
 * `since` bound so it can skip files; every other filter is the fold's.
 */
import { selectedAgents } from './agents.js';
import { scanUsageBatches } from '../scan/index.js';
import type { ScanOptions, UsageRecord } from '../scan/types.js';
import { foldBlocks, type BlocksFoldOptions, type BlocksReport } from './blocks.js';
import type { CostFoldOptions } from './filter.js';
import { totalCostIncremental, type FoldRunInfo } from './incremental.js';
import type { CostAggregationOptions, CostSummary } from './types.js';

/** A source of usage records: the scan engine's batches (`scanUsageBatches`) or any stream of records. */
export type UsageSource = AsyncIterable<UsageRecord | readonly UsageRecord[]> | Iterable<UsageRecord | readonly UsageRecord[]>;

/** The scan of an aggregation, in batches (one await per batch, not per record). */
export function scanFor(options: CostAggregationOptions, extra: Partial<ScanOptions> = {}): AsyncIterable<UsageRecord[]> {
  return scanUsageBatches(scanOptionsFor(options, extra));
}

/** Scan options for an aggregation. */
export function scanOptionsFor(options: CostAggregationOptions, extra: Partial<ScanOptions> = {}): ScanOptions {
  const agents = selectedAgents(options);
  return {
    ...(agents !== undefined && { agents }),
    ...(options.roots !== undefined && { roots: options.roots }),
    ...(options.since !== undefined && { since: options.since }),
    ...(options.cache !== undefined && { cache: options.cache }),
    ...(options.cachePath !== undefined && { cachePath: options.cachePath }),
    ...(options.env !== undefined && { env: options.env }),
    ...extra,
  };
}

/**
 * Total cost and tokens of every selected agent's history. With the event cache (the default), the fold's
 * state is kept per query and the next run folds only what changed (src/cost/incremental.ts); `info` says
 * how this run went.
 * @example
 * const s = await totalCost({ since: new Date('2026-01-01'), groupBy: 'model' });
 * console.log(`$${s.totalUsd.toFixed(2)} over ${s.sessionCount} sessions`, s.unpriced);
 */
export async function totalCost(
  options: CostAggregationOptions & Pick<CostFoldOptions, 'pricer' | 'tagIndex'> = {},
  scan?: Partial<ScanOptions>,
  info?: FoldRunInfo,
): Promise<CostSummary> {
  return totalCostIncremental(options, scanOptionsFor(options, scan), info);
}

/**
 * The selected agents' usage cut into 5-hour billing windows (src/cost/blocks.ts), with the event cache
 * unless `cache: false`.
 * @example
 * const { blocks } = await usageBlocks({ agents: ['claude'] });
 * const active = blocks.find((b) => b.isActive);
 */
export async function usageBlocks(options: CostAggregationOptions & Pick<BlocksFoldOptions, 'pricer' | 'tagIndex' | 'now'> = {}, scan?: Partial<ScanOptions>): Promise<BlocksReport> {
  return foldBlocks(scanFor(options, scan), options);
}
