/**
 * The selection options shared by `cost report` and `events export` (agents, dates, model, tags, cwd, time
 * zone, cost mode, cache, prices), their parsing into CostAggregationOptions, and a scan run with progress
 * and warnings on stderr.
 */
import { resolve } from 'node:path';
import { checkTimeZone, localTimeZone, parseDateInZone, ZoneCalendar } from '../../cost/calendar.js';
import { COST_MODES, checkCostMode, type CostAggregationOptions } from '../../cost/types.js';
import { CliError, list, noCache as noCacheGiven, str, type CommandContext, type OptionDef } from '../command.js';
import { createProgress } from '../progress.js';
import { tuneJitForScan } from '../jit.js';
import { absentHistory } from '../../cost/empty-report.js';
import { selectedAgents } from '../../cost/agents.js';

/** CLI options of the usage selection, shared by `cost report` and `events export`. */
export const SELECTION_OPTIONS: Record<string, OptionDef> = {
  agent: { type: 'string', short: 'a', multiple: true, description: 'Agents (ids or aliases), comma-separated or repeated (default: all)', valueName: '<a,b>' },
  since: { type: 'string', description: 'From this date (YYYY-MM-DD, in --tz) or ISO time', valueName: '<date>' },
  until: { type: 'string', description: 'Through this date (YYYY-MM-DD, inclusive, in --tz) or ISO time', valueName: '<date>' },
  model: { type: 'string', description: 'Only models whose id contains this (case-insensitive)', valueName: '<text>' },
  tag: { type: 'string', multiple: true, description: 'Only sessions with any of these tags (tags.json)', valueName: '<t,t>' },
  cwd: { type: 'string', description: 'Only sessions run in this directory or below it', valueName: '<dir>' },
  tz: { type: 'string', description: 'IANA time zone for dates and day buckets (default: local)', valueName: '<zone>' },
  mode: { type: 'string', description: `Cost mode: ${COST_MODES.join('|')} (default auto: recorded cost, else computed)`, valueName: '<mode>' },
  prices: { type: 'string', description: 'Price-override file (default $SESSIONFOLD_PRICES or ~/.config/sessionfold/prices.json)', valueName: '<file>' },
  cache: { type: 'string', description: 'Event cache database (default $XDG_CACHE_HOME/sessionfold/events.db)', valueName: '<path>' },
  'no-cache': { type: 'boolean', description: 'Read every file, without the event cache' },
};

/** The time zone of a run: --tz, else `$TZ` of the command's env when it names a zone, else the local one. */
export function timeZoneOf(ctx: CommandContext): string {
  const tz = str(ctx, 'tz');
  if (tz !== undefined) return checkTimeZone(tz, '--tz');
  const envTz = ctx.env.TZ;
  if (envTz) {
    try {
      return checkTimeZone(envTz.replace(/^:/, ''), 'TZ');
    } catch {
      /* not an IANA name (e.g. a POSIX rule): use the process zone */
    }
  }
  return localTimeZone();
}

/** INVALID_OPTION when `--since` is after `--until`: such a range selects nothing, which is never what was meant. */
export function checkDateRange(since: Date | undefined, until: Date | undefined): void {
  if (since !== undefined && until !== undefined && since.getTime() > until.getTime()) {
    throw new CliError('INVALID_OPTION', `--since ${since.toISOString()} is after --until ${until.toISOString()}: the range holds nothing`);
  }
}

/** Parse the selection options of a command into aggregation options. */
export function selectionFromArgs(ctx: CommandContext): CostAggregationOptions & { timeZone: string } {
  const timeZone = timeZoneOf(ctx);
  const cal = new ZoneCalendar(timeZone);
  const sinceText = str(ctx, 'since');
  const untilText = str(ctx, 'until');
  const since = sinceText === undefined ? undefined : parseDateInZone(sinceText, cal, false, '--since');
  const until = untilText === undefined ? undefined : parseDateInZone(untilText, cal, true, '--until');
  checkDateRange(since, until);
  const agents = list(ctx, 'agent');
  const tags = list(ctx, 'tag');
  const model = str(ctx, 'model');
  const cwd = str(ctx, 'cwd');
  const mode = str(ctx, 'mode');
  const prices = str(ctx, 'prices');
  const cachePath = typeof ctx.values.cache === 'string' ? ctx.values.cache : undefined;
  const noCache = noCacheGiven(ctx);
  return {
    timeZone,
    env: ctx.env,
    ...(agents !== undefined && agents.length > 0 && { agents }),
    ...(since !== undefined && { since }),
    ...(until !== undefined && { until }),
    ...(model !== undefined && { model }),
    ...(tags !== undefined && tags.length > 0 && { tags }),
    ...(cwd !== undefined && { cwd: resolve(cwd) }),
    ...(mode !== undefined && { mode: checkCostMode(mode, '--mode') }),
    ...(prices !== undefined && { pricesFile: prices }),
    ...(cachePath !== undefined && { cachePath }),
    ...(noCache && { cache: false }),
  };
}

/**
 * V8's budget before a scan lists the history of `selection` (jit.ts: a warm run with nothing changed still
 * lists and stats every file), unless it has none by the empty report's own test (`absentHistory`): the one
 * rule of `cost report` and `cost blocks`.
 */
export function tuneJitForHistory(ctx: CommandContext, selection: CostAggregationOptions): void {
  let agents: string[] | undefined;
  try {
    agents = selectedAgents(selection);
  } catch {
    return; // an unknown agent: the command reports it, in its own order of checks, and lists nothing
  }
  if (absentHistory(agents, selection, ctx.env) === undefined) tuneJitForScan(ctx.env);
}

/**
 * Run a scan with the stderr progress bar and warnings (`warning: …` lines, the bar cleared first): `scan`
 * gets the scan options to pass on.
 */
export async function withScanProgress<T>(ctx: CommandContext, scan: (extra: { onProgress(done: number, total: number): void; onWarning(message: string): void }) => Promise<T>): Promise<T> {
  const progress = createProgress(ctx.stderr, ctx.env, 'Reading usage');
  const warned = new Set<string>();
  try {
    return await scan({
      onProgress: progress.onProgress,
      onWarning: (m) => {
        // A fold that starts over scans again: its warnings are said once.
        if (warned.has(m)) return;
        warned.add(m);
        progress.clear();
        ctx.stderr.write(`warning: ${m}\n`);
      },
    });
  } finally {
    progress.stop();
  }
}
