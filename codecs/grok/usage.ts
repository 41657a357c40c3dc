/**
 * A Grok Build turn's `usage` (xai-org/grok-build `PromptUsage`, README "Tokens") in sessionfold's buckets: pure.
 *
 * Grok folds the cache reads and writes into `inputTokens` and the reasoning into `outputTokens`, and its
 * `totalTokens` is input + output; a total other than that says the buckets are already apart. `modelUsage`
 * holds the same numbers per model (the main loop's and its subagents'), and is taken when its rows add up to
 * the turn, so each model's tokens are priced as that model's. `costUsdTicks` is the provider's cost, 10^10 ticks
 * to the dollar, which Grok leaves out when the turn's usage or cost is incomplete.
 */
import { tokenCount } from '../../cursors/glued-json.js';
import { MAX_RECORD_USD } from '../../cursors/sane.js';
import { isRec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;

/** Grok's cost unit: 1 USD is 10^10 ticks (grok-build `USD_TICKS_PER_USD`). */
export const GROK_TICKS_PER_USD = 1e10;

/** One model's share of a turn, in sessionfold's buckets (none overlapping). */
export interface GrokSpend {
  model: string | undefined;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number | undefined;
}

/** The counts as Grok writes them, before the buckets are taken apart. */
interface RawCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}


const pick = (u: Rec, keys: readonly string[]): number => {
  for (const k of keys) if (u[k] !== undefined) return tokenCount(u[k]);
  return 0;
};

function rawCounts(u: Rec): RawCounts {
  return {
    input: pick(u, ['inputTokens', 'input_tokens']),
    output: pick(u, ['outputTokens', 'output_tokens']),
    cacheRead: pick(u, ['cachedReadTokens', 'cacheReadTokens']),
    cacheWrite: pick(u, ['cacheCreationTokens', 'cachedWriteTokens', 'cacheWriteTokens']),
    reasoning: pick(u, ['reasoningTokens']),
  };
}

/** Ticks as dollars; undefined when absent, zero or not a whole number of ticks a record may hold. */
function costOf(ticks: unknown): number | undefined {
  if (typeof ticks !== 'number' || !Number.isSafeInteger(ticks) || ticks <= 0) return undefined;
  const usd = ticks / GROK_TICKS_PER_USD;
  return usd <= MAX_RECORD_USD ? usd : undefined;
}

function spendOf(model: string | undefined, u: Rec, costTrusted: boolean): GrokSpend {
  const c = rawCounts(u);
  const total = u.totalTokens === undefined ? undefined : tokenCount(u.totalTokens);
  const inclusive = total === undefined || total === c.input + c.output;
  const cacheRead = inclusive ? Math.min(c.cacheRead, c.input) : c.cacheRead;
  const cacheWrite = inclusive ? Math.min(c.cacheWrite, c.input - cacheRead) : c.cacheWrite;
  const output = inclusive ? c.output : c.output + c.reasoning;
  return {
    model,
    inputTokens: inclusive ? c.input - cacheRead - cacheWrite : c.input,
    outputTokens: output,
    reasoningTokens: Math.min(c.reasoning, output),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    costUsd: costTrusted && u.costIsPartial !== true ? costOf(u.costUsdTicks) : undefined,
  };
}

const hasTokens = (s: GrokSpend): boolean => s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheWriteTokens > 0;

/** Whether the rows of `modelUsage` add up to the turn, bucket by bucket. */
function rowsMakeTheTurn(turn: Rec, rows: readonly Rec[]): boolean {
  const t = rawCounts(turn);
  const sum: RawCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  for (const r of rows) {
    const c = rawCounts(r);
    sum.input += c.input;
    sum.output += c.output;
    sum.cacheRead += c.cacheRead;
    sum.cacheWrite += c.cacheWrite;
  }
  return sum.input === t.input && sum.output === t.output && sum.cacheRead === t.cacheRead && sum.cacheWrite === t.cacheWrite;
}

/** A turn's spend, and whether it is split by model. */
export interface TurnSpends {
  byModel: boolean;
  spends: GrokSpend[];
}

/**
 * A turn's spend: one entry per model of `modelUsage` when its rows add up to the turn, else one for the turn
 * (its model `fallbackModel`, else the only row's). Entries without tokens are left out.
 */
export function turnSpends(usage: Rec, fallbackModel: string | undefined): TurnSpends {
  const costTrusted = usage.usageIsIncomplete !== true;
  const rows = isRec(usage.modelUsage) ? Object.entries(usage.modelUsage).filter((e): e is [string, Rec] => isRec(e[1]) && e[0] !== '') : [];
  if (rows.length > 0 && rowsMakeTheTurn(usage, rows.map((e) => e[1]))) {
    return { byModel: true, spends: rows.map(([model, row]) => spendOf(model, row, costTrusted)).filter(hasTokens) };
  }
  const keys = isRec(usage.modelUsage) ? Object.keys(usage.modelUsage) : [];
  const model = fallbackModel ?? (keys.length === 1 ? keys[0] : undefined);
  return { byModel: false, spends: [spendOf(model, usage, costTrusted)].filter(hasTokens) };
}
