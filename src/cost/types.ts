/**
 * Cost types (the spec's CostSummary / CostBreakdown / CostAggregationOptions, extended), their closed sets of
 * values and their zeros. Shared by the pricing module, the totals fold, the SessionManager and the CLI; small
 * and free of the fold, so an empty report (src/cost/empty-report.ts) takes them without loading it.
 */
import { invalidOption } from '../../cursors/protocol/errors.js';
import type { TokenCounts } from '../../cursors/protocol/events.js';

/** Aggregated cost and tokens of a session, a message or a group. */
export interface CostRecord extends Omit<TokenCounts, 'reasoningTokens'> {
  /** USD; priced usage only (see `unpriced`). */
  totalUsd: number;
  /** Reasoning tokens (part of outputTokens): the spec's name for `reasoningTokens`. */
  thinkingTokens: number;
  /** Cache reads + cache writes (the spec's `cachedTokens`). */
  cachedTokens: number;
  /** Usage events counted. */
  requestCount: number;
  /** Usage events that could not be priced (no price for their model). */
  unpricedCount: number;
}

/** `auto`: the cost the agent recorded, else the price; `calculate`: always the price; `display`: only recorded costs. */
export type CostMode = 'auto' | 'calculate' | 'display';
/** The dimension a cost report groups by. */
export type CostGroupBy = 'agent' | 'model' | 'day' | 'week' | 'month' | 'session' | 'project' | 'tag';

/** Every cost mode. */
export const COST_MODES: readonly CostMode[] = ['auto', 'calculate', 'display'];
/** Every `groupBy` dimension. */
export const COST_GROUP_BYS: readonly CostGroupBy[] = ['agent', 'model', 'day', 'week', 'month', 'session', 'project', 'tag'];

/** `mode` as a CostMode; anything else is INVALID_OPTION under `name`. */
export function checkCostMode(mode: unknown, name = 'mode'): CostMode {
  if (typeof mode === 'string' && (COST_MODES as readonly string[]).includes(mode)) return mode as CostMode;
  throw invalidOption(name, COST_MODES.join('|'), mode);
}

/** What a cost report covers (agents, dates, model, tags, cwd) and how it groups and prices. */
export interface CostAggregationOptions {
  agent?: string;
  agents?: string[];
  since?: Date;
  until?: Date;
  model?: string;
  tags?: string[];
  cwd?: string;
  groupBy?: CostGroupBy;
  /** With `groupBy` (other than `model`): each group also lists its models (`modelBreakdowns`). */
  breakdown?: boolean;
  /** IANA time zone for day/week/month buckets and since/until dates. Default: the local zone. */
  timeZone?: string;
  mode?: CostMode;
  /** Use the event cache (default true). */
  cache?: boolean;
  /** Path of the event cache database. */
  cachePath?: string;
  /** Per-agent roots overriding the codecs' defaults. */
  roots?: Record<string, string[]>;
  env?: NodeJS.ProcessEnv;
  /** Path of a price-override config file. */
  pricesFile?: string;
  /**
   * Keep the totals fold's state in the event cache and fold only what changed on the next run with the same
   * query (default true with the cache; src/cost/incremental.ts). Results are the same either way.
   */
  snapshots?: boolean;
}

/** Usage that had no price, reported instead of being counted as $0. */
export interface UnpricedUsage extends Pick<TokenCounts, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'> {
  model: string;
  provider?: string;
  count: number;
}

/** One group of a cost report. */
export interface CostBreakdown extends CostRecord {
  key: string;
  sessionCount: number;
  /** With `breakdown`: the group's usage per model (`key` is the model), highest cost first. */
  modelBreakdowns?: CostBreakdown[];
}

/** A cost report: the totals, the groups, and the usage that could not be priced. */
export interface CostSummary extends CostRecord {
  sessionCount: number;
  runCount: number;
  unpriced: UnpricedUsage[];
  breakdowns?: Record<string, CostBreakdown>;
  /**
   * Of the totals, the usage counted from lines no longer in their file (rewritten, truncated or deleted),
   * which the event cache's ledger kept (src/cost/retained.ts). Present only when some is counted; a report
   * without the cache counts only what the files hold now, so it is lower by this.
   */
  retained?: CostRecord;
}

/** A zero CostRecord (also the SessionManager's per-session and per-message start). */
export function emptyCostRecord(): CostRecord {
  return {
    totalUsd: 0,
    inputTokens: 0,
    outputTokens: 0,
    thinkingTokens: 0,
    cachedTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    requestCount: 0,
    unpricedCount: 0,
  };
}

/** A zero-valued summary (what a selection without usage folds to). */
export function emptyCostSummary(grouped: boolean): CostSummary {
  return { ...emptyCostRecord(), sessionCount: 0, runCount: 0, unpriced: [], ...(grouped && { breakdowns: {} }) };
}
