/**
 * The billing-window fold behind `sessionfold cost blocks`: usage records in, 5-hour windows per agent out,
 * with ccusage's rules (its `identifySessionBlocks`, `calculateBurnRate`, `projectBlockUsage`) so the
 * numbers agree with `ccusage blocks`:
 * - a window starts at its first request's time floored to the UTC hour and lasts 5 hours;
 * - a request more than 5 hours after the window's start, or more than 5 hours after the previous request,
 *   starts a new window; a silence longer than 5 hours is listed as a gap (`isGap`) between them;
 * - the window containing now (now before its end, and less than 5 hours since its last request) is active;
 *   its burn rate is tokens/min and $/h between its first and last request, and the projection extends that
 *   rate over the whole minutes left to the window's end (other windows have neither).
 * Records are deduplicated like the totals fold (fold.ts): per dedup key the copy with most output tokens,
 * then most tokens, then the lowest rank (`copyRank`), then the smallest (file, offset) counts, so blocks and
 * `cost report` add up to the same.
 * Copies without a usable timestamp take part in that choice, as they do there; a response whose counted
 * copy is one of them belongs to no window and is counted once in `untimedCount`.
 * Money is summed in integer nano-dollars, as there.
 */
import type { UsageRecord } from '../scan/types.js';
import { drainRecords } from './fold.js';
import { beatsCopy, copyRank, Interner } from './fold-ledger.js';
import { createRecordSelector, normalizeCostOptions, recordTime, type CostFoldOptions } from './filter.js';

/** Length of a billing window (and the silence that closes one). */
export const BLOCK_MS = 5 * 3_600_000;
const HOUR_MS = 3_600_000;

/** Tokens of a window, named as ccusage's `blocks --json` names them. */
export interface BlockTokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
}

/** Tokens per minute and USD per hour between a window's first and last request. */
export interface BlockBurnRate {
  /** All tokens (input, output, cache writes and reads) per minute. */
  tokensPerMinute: number;
  /** Input + output tokens per minute (ccusage's indicator rate). */
  tokensPerMinuteForIndicator: number;
  costPerHour: number;
}

/** The active window's totals if it goes on at its burn rate until its end. */
export interface BlockProjection {
  totalTokens: number;
  totalCost: number;
  remainingMinutes: number;
}

/** One billing window of one agent (or a gap between two). Times are ISO-8601 UTC. */
export interface UsageBlock {
  agent: string;
  /** The start time, or `gap-<start>` for a gap. */
  id: string;
  startTime: string;
  endTime: string;
  /** The last request's time (null on gaps). */
  actualEndTime: string | null;
  isActive: boolean;
  isGap: boolean;
  /** Requests counted in the window. */
  entries: number;
  tokenCounts: BlockTokenCounts;
  totalTokens: number;
  /** USD of the priced requests (see `unpricedCount`). */
  costUSD: number;
  unpricedCount: number;
  /** Models in order of first use. */
  models: string[];
  /** Only on the active window, and null there while it has one instant of activity. */
  burnRate: BlockBurnRate | null;
  /** Only on the active window (null elsewhere). */
  projection: BlockProjection | null;
}

/** What `blocks()` returns: the windows in time order, per agent (agents by name). */
export interface BlocksReport {
  blocks: UsageBlock[];
  /** Responses whose counted copy (after dedup) has no usable timestamp: they belong to no window. */
  untimedCount: number;
}

/** Options of the blocks fold: the selection of the totals fold, and the instant that counts as now. */
export interface BlocksFoldOptions extends CostFoldOptions {
  /** Default: the time `result()` is called. */
  now?: Date;
}

/** The copy of a response that counts (one per dedup key). */
interface Entry {
  agent: string;
  /** NaN when the copy has no usable timestamp. */
  ms: number;
  model: string;
  file: string;
  /** `file` interned: what `beatsCopy` takes. */
  fileId: number;
  offset: number;
  /** `copyRank` of the copy. */
  rank: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  nanoUsd: number;
  unpriced: boolean;
}

const tokensOf = (e: Pick<Entry, 'input' | 'output' | 'cacheRead' | 'cacheWrite'>): number => e.input + e.output + e.cacheRead + e.cacheWrite;

/** The synchronous blocks fold. */
export interface BlocksFold {
  add(record: UsageRecord): void;
  result(now?: Date): BlocksReport;
}

/**
 * The synchronous core of the blocks fold: add records in any order, then `result()`.
 * @example
 * const fold = createBlocksFold({ agents: ['claude'] });
 * for (const r of records) fold.add(r);
 * const active = fold.result().blocks.find((b) => b.isActive);
 */
export function createBlocksFold(options: BlocksFoldOptions = {}): BlocksFold {
  const n = normalizeCostOptions(options);
  const sel = createRecordSelector(n);
  const byKey = new Map<string, Entry>();
  const files = new Interner();
  const fileName = (id: number): string => files.values[id] as string;
  return {
    add(r) {
      const ms = recordTime(r);
      if (!sel.accepts(r, ms)) return;
      // An untimed copy takes part in the dedup as the totals fold counts it; `result()` drops it if it wins.
      const usd = n.pricer.priceUsd(r, n.mode);
      const e: Entry = {
        agent: r.agent,
        ms,
        model: r.model,
        file: r.file,
        fileId: files.id(r.file),
        offset: r.offset,
        rank: copyRank(r),
        input: r.inputTokens,
        output: r.outputTokens,
        cacheRead: r.cacheReadTokens,
        cacheWrite: r.cacheWriteTokens,
        nanoUsd: Number.isNaN(usd) ? 0 : Math.round(usd * 1e9),
        unpriced: Number.isNaN(usd),
      };
      // The totals fold's choice between two copies of one response.
      const old = byKey.get(r.dedupKey);
      if (old === undefined || beatsCopy(r, old.output, tokensOf(old), old.rank, old.fileId, old.offset, fileName)) byKey.set(r.dedupKey, e);
    },
    result(now) {
      const nowMs = (now ?? options.now ?? new Date()).getTime();
      const perAgent = new Map<string, Entry[]>();
      let untimed = 0;
      for (const e of byKey.values()) {
        if (!(e.ms === e.ms)) {
          untimed++;
          continue;
        }
        let list = perAgent.get(e.agent);
        if (list === undefined) perAgent.set(e.agent, (list = []));
        list.push(e);
      }
      const blocks: UsageBlock[] = [];
      for (const agent of [...perAgent.keys()].sort()) blocks.push(...windowsOf(agent, perAgent.get(agent) as Entry[], nowMs));
      return { blocks, untimedCount: untimed };
    },
  };
}

/** One agent's entries cut into windows and gaps (ccusage's rules, see the module comment). */
function windowsOf(agent: string, entries: Entry[], nowMs: number): UsageBlock[] {
  entries.sort((a, b) => a.ms - b.ms || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.offset - b.offset));
  const out: UsageBlock[] = [];
  let start = NaN;
  let current: Entry[] = [];
  for (const e of entries) {
    const last = current[current.length - 1];
    if (last !== undefined && (e.ms - start > BLOCK_MS || e.ms - last.ms > BLOCK_MS)) {
      out.push(windowOf(agent, start, current, nowMs));
      if (e.ms - last.ms > BLOCK_MS) out.push(gapOf(agent, last.ms + BLOCK_MS, e.ms));
      current = [];
    }
    if (current.length === 0) start = Math.floor(e.ms / HOUR_MS) * HOUR_MS;
    current.push(e);
  }
  if (current.length > 0) out.push(windowOf(agent, start, current, nowMs));
  return out;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function windowOf(agent: string, start: number, entries: Entry[], nowMs: number): UsageBlock {
  const tokenCounts: BlockTokenCounts = { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };
  let nano = 0;
  let unpricedCount = 0;
  const models = new Set<string>();
  for (const e of entries) {
    tokenCounts.inputTokens += e.input;
    tokenCounts.outputTokens += e.output;
    tokenCounts.cacheCreationInputTokens += e.cacheWrite;
    tokenCounts.cacheReadInputTokens += e.cacheRead;
    nano += e.nanoUsd;
    if (e.unpriced) unpricedCount++;
    models.add(e.model);
  }
  const first = (entries[0] as Entry).ms;
  const last = (entries[entries.length - 1] as Entry).ms;
  const end = start + BLOCK_MS;
  const totalTokens = tokenCounts.inputTokens + tokenCounts.outputTokens + tokenCounts.cacheCreationInputTokens + tokenCounts.cacheReadInputTokens;
  const costUSD = nano / 1e9;
  const isActive = nowMs - last < BLOCK_MS && nowMs < end;
  const minutes = (last - first) / 60_000;
  const burnRate: BlockBurnRate | null =
    isActive && minutes > 0 ? { tokensPerMinute: totalTokens / minutes, tokensPerMinuteForIndicator: (tokenCounts.inputTokens + tokenCounts.outputTokens) / minutes, costPerHour: (costUSD / minutes) * 60 } : null;
  let projection: BlockProjection | null = null;
  if (burnRate !== null) {
    // As ccusage's projectBlockUsage: the rate over the exact minutes left, the minutes printed rounded.
    const remaining = Math.max(0, (end - nowMs) / 60_000);
    projection = {
      totalTokens: Math.round(totalTokens + burnRate.tokensPerMinute * remaining),
      totalCost: Math.round((costUSD + (burnRate.costPerHour / 60) * remaining) * 100) / 100,
      remainingMinutes: Math.round(remaining),
    };
  }
  return {
    agent,
    id: iso(start),
    startTime: iso(start),
    endTime: iso(end),
    actualEndTime: iso(last),
    isActive,
    isGap: false,
    entries: entries.length,
    tokenCounts,
    totalTokens,
    costUSD,
    unpricedCount,
    models: [...models],
    burnRate,
    projection,
  };
}

function gapOf(agent: string, start: number, end: number): UsageBlock {
  return {
    agent,
    id: `gap-${iso(start)}`,
    startTime: iso(start),
    endTime: iso(end),
    actualEndTime: null,
    isActive: false,
    isGap: true,
    entries: 0,
    tokenCounts: { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    totalTokens: 0,
    costUSD: 0,
    unpricedCount: 0,
    models: [],
    burnRate: null,
    projection: null,
  };
}

/**
 * Fold usage records (any iterable or async iterable of records or batches) into billing windows.
 * @example
 * const report = await foldBlocks(scanUsageBatches({ agents: ['claude'] }));
 */
export async function foldBlocks(records: AsyncIterable<UsageRecord | readonly UsageRecord[]> | Iterable<UsageRecord | readonly UsageRecord[]>, options: BlocksFoldOptions = {}): Promise<BlocksReport> {
  const fold = createBlocksFold(options);
  await drainRecords(records, fold.add);
  return fold.result();
}
