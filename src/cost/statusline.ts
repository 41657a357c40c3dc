/**
 * `statusLine(query)`: what a status line shows for one running session, as plain data (src/cli/render/
 * statusline.ts turns it into the one line): the session's cost, today's cost, the active 5-hour window with
 * its burn rate (the blocks fold, blocks.ts), and how full the context window is.
 *
 * One scan of the session's agent, bounded by `since` to the files written since the earlier of today's
 * start and the window look-back (the event cache answers warm files without reading them), feeds three folds:
 * - today: the totals fold over [start of today, start of tomorrow) in the query's zone: the same records and
 *   dedup as the day's row of `cost report` (a record dated today lives in a file written today);
 * - the window: the blocks fold over the look-back. A window's start depends on the windows before it back to
 *   the last silence of more than 5 hours, so the look-back widens (×4, then no bound) until the result shows
 *   such a silence or starts more than 5 hours after the bound: then it equals `cost blocks`' active window;
 * - the session: the records of the session's file or id (subagent files carry their parent's id), each
 *   response once, but for those marked `copied` (a resumed or forked history: the spend of the session that
 *   made them, as `cost report --group-by session` and `sessions list` count it); its last response's prompt (input + cache reads + cache writes) is the context in use
 *   (responses with no prompt at all, such as the synthetic line Claude Code writes when a task stops, skipped).
 *   The session's file (`file`) is read in the same scan whatever its mtime (`ScanOptions.keep`): a resumed
 *   old session's transcript is last written before the look-back until its first new line lands. When the
 *   look-back would have skipped it, its records feed the session alone, so today and the window stay those
 *   of the bounded scan, which skips the file by its mtime as `cost report` does (a line in it can be stamped
 *   later than that mtime; it is left out of them all the same). It is read wherever it lies, when the
 *   agent's codec claims it (`KeepFiles.unlisted`): a transcript outside the agent's roots (the agent run with
 *   another config folder, a copied transcript) feeds the session alone too, as `cost report`, which scans
 *   the roots, never sees it.
 *
 * Only the local zone's day start is computed with Date's local time (no Intl: loading ICU's zone data costs
 * tens of ms at start-up); an explicit zone goes through ZoneCalendar.
 */
import { getCodec } from '../registry.js';
import { findSessionFile } from '../session-file.js';
import type { KeepFiles, ScanOptions, UsageRecord } from '../scan/types.js';
import { BLOCK_MS, createBlocksFold, type UsageBlock } from './blocks.js';
import { civilFromDays, periodStart, ZoneCalendar } from './calendar.js';
import { createCostFold } from './fold.js';
import { OwnSession } from '../own-session.js';
import { recordTime } from './filter.js';
import { createPricer, type Pricer } from './pricing.js';
import { priceMemoPath, saveMemo, seedFromMemo } from './price-memo.js';
import { getCachePath } from '../cache/paths.js';
import { scanFor } from './total.js';
import type { CostAggregationOptions, CostMode } from './types.js';

/** The first look-back of the window fold (widened while it cannot tell where the window chain starts). */
const FIRST_LOOKBACK_MS = 24 * 3_600_000;

/** What to show a status line for. */
export interface StatusLineQuery extends Pick<CostAggregationOptions, 'cache' | 'cachePath' | 'roots' | 'env' | 'pricesFile'> {
  /** The session's agent (codec id or alias). */
  agent: string;
  /** The session's id (its records' `sessionId`). */
  sessionId?: string;
  /** The session's file (its records' `file`), e.g. Claude Code's `transcript_path`. */
  file?: string;
  /** The model the agent says it runs (Claude Code's `model.id`), else the session's last response's. */
  model?: string;
  /** The model's name for people (Claude Code's `model.display_name`). */
  modelName?: string;
  /** The context window the agent reports (Claude Code's `context_window.context_window_size`). */
  contextWindow?: number;
  /** The instant that counts as now (default: the call's time). */
  now?: Date;
  /** IANA zone of "today" (default: the process's local zone). */
  timeZone?: string;
  mode?: CostMode;
  pricer?: Pricer;
}

/** Cost and requests of a span. */
export interface StatusLineCost {
  costUsd: number;
  requests: number;
  /** Requests without a price (not in `costUsd`). */
  unpricedCount: number;
}

/** The active 5-hour window of the session's agent: its cost as StatusLineCost, `requests` its responses. */
export interface StatusLineBlock extends StatusLineCost {
  startTime: string;
  endTime: string;
  totalTokens: number;
  /** Minutes from now to the window's end, rounded (as ccusage prints them). */
  remainingMinutes: number;
  /** USD per hour and tokens per minute between the window's first and last request; null after one request. */
  burnRate: { costPerHour: number; tokensPerMinute: number } | null;
  /** USD at the window's end if the burn rate holds (null without one). */
  projectedCostUsd: number | null;
}

/** How full the session's context window is, from its last response. */
export interface StatusLineContext {
  /** Input + cache reads + cache writes of the session's last response. */
  usedTokens: number;
  /** The model's context window; null when neither the agent nor the price data states one. */
  windowTokens: number | null;
  /**
   * Where `windowTokens` comes from: the agent's own report, the model id's `[1m]` (Claude Code's name for a
   * model run with the 1M-token context), or genai-prices' model data.
   */
  windowSource: 'agent' | 'model-id' | 'genai-prices' | null;
  /** usedTokens / windowTokens × 100, or null. */
  percent: number | null;
}

/** What `statusLine()` returns. */
export interface StatusLineData {
  agent: string;
  sessionId: string | null;
  model: { id: string | null; displayName: string | null };
  /** The session's usage; null when none of its responses is recorded yet (or no transcript holds it). */
  session: StatusLineCost | null;
  /**
   * False when the query names the session by id only and no transcript of the agent holds that id: a null
   * `session` then says nothing of its spend. A session named by its file counts as found even before the
   * file exists: Claude Code names the transcript before it writes the first line.
   */
  sessionFound: boolean;
  /** Today's usage of the agent, in the query's zone. */
  today: StatusLineCost & { date: string };
  /** null when no window of the agent is active. */
  block: StatusLineBlock | null;
  /** null when the session has no response with usage yet. */
  context: StatusLineContext | null;
  /** The instant the data is for (ISO-8601 UTC). */
  now: string;
}

/** Start and end (exclusive) of the day holding `nowMs`, and its `YYYY-MM-DD`, in `timeZone` or the local zone. */
export function dayOf(nowMs: number, timeZone: string | undefined): { start: number; end: number; date: string } {
  if (timeZone !== undefined) {
    const cal = new ZoneCalendar(timeZone);
    const n = cal.dayNumber(nowMs);
    const [ny, nm, nd] = civilFromDays(n + 1);
    return { start: periodStart(cal, 'day', 0, nowMs), end: cal.toInstant(ny, nm, nd), date: cal.dayKey(nowMs) };
  }
  const t = new Date(nowMs);
  const [y, m, d] = [t.getFullYear(), t.getMonth(), t.getDate()];
  return { start: new Date(y, m, d).getTime(), end: new Date(y, m, d + 1).getTime(), date: `${y}-${String(m + 1).padStart(2, '0')}-${String(d).padStart(2, '0')}` };
}

/** Whether the windows folded from `bound` on are the ones an unbounded fold cuts (see the module comment). */
function windowsSettled(blocks: readonly UsageBlock[], bound: number): boolean {
  const first = blocks[0];
  if (first === undefined || blocks.some((b) => b.isGap)) return true;
  return Date.parse(first.startTime) - bound > BLOCK_MS;
}

function blockOf(b: UsageBlock | undefined, nowMs: number): StatusLineBlock | null {
  if (b === undefined) return null;
  return {
    startTime: b.startTime,
    endTime: b.endTime,
    costUsd: b.costUSD,
    requests: b.entries,
    unpricedCount: b.unpricedCount,
    totalTokens: b.totalTokens,
    remainingMinutes: b.projection?.remainingMinutes ?? Math.max(0, Math.round((Date.parse(b.endTime) - nowMs) / 60_000)),
    burnRate: b.burnRate === null ? null : { costPerHour: b.burnRate.costPerHour, tokensPerMinute: b.burnRate.tokensPerMinute },
    projectedCostUsd: b.projection?.totalCost ?? null,
  };
}

/**
 * The status of one session: its cost, today's, the active window and the context in use.
 * @example
 * const s = await statusLine({ agent: 'claude', sessionId, file: transcriptPath });
 * console.log(s.session?.costUsd, s.today.costUsd, s.block?.burnRate?.costPerHour, s.context?.percent);
 */
export async function statusLine(query: StatusLineQuery, scan: Partial<ScanOptions> = {}): Promise<StatusLineData> {
  const agent = getCodec(query.agent).id;
  const nowMs = (query.now ?? new Date()).getTime();
  const day = dayOf(nowMs, query.timeZone);
  const pricer = query.pricer ?? createPricer({ ...(query.env !== undefined && { env: query.env }), ...(query.mode !== undefined && { mode: query.mode }), ...(query.pricesFile !== undefined && { pricesFile: query.pricesFile }) });
  // With the cache: the models resolved on an earlier run under the same fingerprint need no price data now.
  const memo = query.cache !== false ? priceMemoPath(query.cachePath ?? getCachePath(query.env ?? process.env)) : undefined;
  const seeded = memo === undefined ? 0 : seedFromMemo(pricer, memo);
  const base: CostAggregationOptions = {
    agents: [agent],
    ...(query.cache !== undefined && { cache: query.cache }),
    ...(query.cachePath !== undefined && { cachePath: query.cachePath }),
    ...(query.roots !== undefined && { roots: query.roots }),
    ...(query.env !== undefined && { env: query.env }),
  };
  // The folds below group by nothing: their calendar is never asked (UTC spares Intl's start-up).
  const fold = { agents: [agent], pricer, timeZone: 'UTC', ...(query.mode !== undefined && { mode: query.mode }) };
  const file = query.file;
  // The file's usage counts for its own session only, as in the session views: a Claude transcript also
  // holds its subagents' responses (agent_progress copies), which are their sessions'.
  const own = new OwnSession();
  // The file as discovery lists it, when the caller spelled it otherwise (`KeepFiles.listedAs`).
  let fileAt = file;
  const ofFile = (r: UsageRecord): boolean => r.file === fileAt && own.claim(r.sessionId);
  const mine = (r: UsageRecord): boolean => (file !== undefined && ofFile(r)) || (query.sessionId !== undefined && r.sessionId === query.sessionId);

  let lookback = FIRST_LOOKBACK_MS;
  for (;;) {
    const bound = lookback === Infinity ? -Infinity : nowMs - lookback;
    const since = Math.min(day.start, bound);
    const today = createCostFold({ ...fold, since: new Date(day.start), until: new Date(day.end - 1) });
    const blocks = createBlocksFold({ ...fold, ...(Number.isFinite(bound) && { since: new Date(bound) }), now: new Date(nowMs) });
    const session = createCostFold(fold);
    let last: UsageRecord | undefined;
    let lastMs = -Infinity;
    // Discovery notes the file in `beforeSince`, `unlisted` or `listedAs` before any of its records is yielded.
    const keep: KeepFiles | undefined = file === undefined ? undefined : { paths: [file], beforeSince: new Set(), unlisted: new Set(), listedAs: new Map() };
    for await (const batch of scanFor({ ...base, ...(Number.isFinite(since) && { since: new Date(since) }) }, { ...scan, ...(keep !== undefined && { keep }) })) {
      const sessionOnly = keep !== undefined && (keep.beforeSince.has(file as string) || keep.unlisted?.has(file as string) === true);
      fileAt = keep?.listedAs?.get(file as string) ?? file;
      for (const r of batch) {
        // what is written after the instant asked for (`--now` in the past) is not yet spent at it
        const ms = recordTime(r);
        if (ms > nowMs) continue;
        if (!sessionOnly || r.file !== fileAt) {
          today.add(r);
          blocks.add(r);
        }
        if (!mine(r)) continue;
        // A response the file copied from another session (a resumed or forked history) is that session's
        // spend, as in `cost report` and the session views; it still shows the context the session carries.
        if (r.copied !== true) session.add(r);
        // A response with no prompt (a synthetic stop line) says nothing of the context.
        if (r.inputTokens + r.cacheReadTokens + r.cacheWriteTokens === 0) continue;
        if (last === undefined || ms > lastMs || (ms === lastMs && r.file === last.file && r.offset > last.offset)) [last, lastMs] = [r, ms];
      }
    }
    const windows = blocks.result(new Date(nowMs)).blocks;
    if (lookback !== Infinity && !windowsSettled(windows, bound)) {
      lookback = lookback * 4 > 400 * 24 * 3_600_000 ? Infinity : lookback * 4;
      continue;
    }
    const t = today.result();
    const s = session.result();
    const modelId = query.model ?? last?.model ?? null;
    const context = last === undefined ? null : contextOf(last, modelId, query.contextWindow, pricer);
    if (memo !== undefined) saveMemo(pricer, memo, seeded);
    // Looked up only when there is no usage to show: a session with usage was found by the scan.
    const found = s.requestCount > 0 || file !== undefined || query.sessionId === undefined || (await holdsSession(agent, query, query.sessionId));
    return {
      agent,
      sessionId: query.sessionId ?? last?.sessionId ?? null,
      model: { id: modelId, displayName: query.modelName ?? null },
      session: s.requestCount === 0 ? null : { costUsd: s.totalUsd, requests: s.requestCount, unpricedCount: s.unpricedCount },
      sessionFound: found,
      today: { date: day.date, costUsd: t.totalUsd, requests: t.requestCount, unpricedCount: t.unpricedCount },
      block: blockOf(windows.find((b) => b.isActive), nowMs),
      context,
      now: new Date(nowMs).toISOString(),
    };
  }
}

/** Whether a transcript of `agent` under the query's roots holds session `id` (the lookup the sessions' `get` makes: src/session-file.ts). */
async function holdsSession(agent: string, query: StatusLineQuery, id: string): Promise<boolean> {
  const codec = getCodec(agent);
  return (await findSessionFile(codec, query.roots?.[codec.id] ?? codec.defaultRoots(query.env ?? process.env), id)) !== undefined;
}

/** The context in use after `last`, against the agent's stated window, else the price data's for the model. */
function contextOf(last: UsageRecord, model: string | null, stated: number | undefined, pricer: Pricer): StatusLineContext {
  const usedTokens = last.inputTokens + last.cacheReadTokens + last.cacheWriteTokens;
  let windowTokens: number | null = null;
  let windowSource: StatusLineContext['windowSource'] = null;
  if (stated !== undefined && Number.isSafeInteger(stated) && stated > 0) [windowTokens, windowSource] = [stated, 'agent'];
  else if ((model ?? last.model).endsWith('[1m]')) [windowTokens, windowSource] = [1_000_000, 'model-id'];
  else {
    const w = pricer.resolve(model ?? last.model, last.provider)?.contextWindow;
    if (w !== undefined) [windowTokens, windowSource] = [w, 'genai-prices'];
  }
  return { usedTokens, windowTokens, windowSource, percent: windowTokens === null ? null : (usedTokens / windowTokens) * 100 };
}
