/**
 * `cost report` over a history that is not there. When no root of any selected agent exists and no event
 * cache can hold the records of deleted files (none at its path, or `cache: false`), a report counts nothing,
 * and this makes it from the roots' stats alone: without the scan, the event cache, the fold or the pricer,
 * the CLI's largest chunk, which an empty report would otherwise load and run for nothing (bench/RESULTS.md,
 * "startup"). The CLI asks here first and runs `costReport` (src/cost/report.ts) when this says undefined.
 *
 * Its answer is `costReport`'s, field for field: the empty summary the fold gives for no records, the same
 * source report (every root `missing`), no warnings and no unrecorded-usage notes (those need files). The
 * sources are the scan's own (src/scan/select.ts, which `normalizeScanOptions` builds them with), and "no
 * root there" is the narrowest case of the full path's own shortcut, nothing to read (src/cost/incremental.ts).
 *
 * It runs some of `costReport`'s checks, in its order, with the same errors: the cost mode and the
 * price-override file (the pricer), the agents' names (AGENT_NOT_FOUND), the tags file (with tags or
 * `groupBy: 'tag'`). It does not run the rest of what `normalizeCostOptions` and `normalizeScanOptions`
 * check: the shape of `agent`/`agents` (a string spread as an agents list passes here), `groupBy`, `since`
 * and `until`, the time zone, the `model` and `cwd` filters' types, `workers` and `cachePath`'s types. So it
 * is safe only behind a caller that has checked those already, as its one caller, the CLI's `cost report`
 * (src/cli/commands/cost-report.ts), does: its options come from parsed arguments it validated. A library
 * caller uses `costReport`. test/empty-report.test.ts holds the CLI's output equal both ways.
 * `SESSIONFOLD_EMPTY_REPORT=0` in the environment always takes the full path.
 */
import { existsSync } from 'node:fs';
import { getCachePath } from '../cache/paths.js';
import { scanSources } from '../scan/select.js';
import { SourceTally, type SourceReport } from '../scan/sources.js';
import { loadTags } from '../tags.js';
import { selectedAgents } from './agents.js';
import { loadPriceOverrides } from './overrides.js';
import type { CostReport, CostReportOptions } from './report.js';
import { checkCostMode, emptyCostSummary } from './types.js';

/** The report of a selection that has no history and no cache to hold any; undefined when it may have some. */
export function emptyHistoryReport(options: CostReportOptions): CostReport | undefined {
  const env = options.env ?? process.env;
  // Roots of the caller's own, or a cache path the scan refuses: the full path checks them and says so.
  if (env.SESSIONFOLD_EMPTY_REPORT === '0' || options.roots !== undefined || options.cachePath === '') return undefined;
  const mode = checkCostMode(options.mode ?? 'auto');
  loadPriceOverrides(env, options.pricesFile);
  const agents = selectedAgents(options);
  if ((options.tags !== undefined && options.tags.length > 0) || options.groupBy === 'tag') loadTags(env);
  const report = absentHistory(agents, options, env);
  if (report === undefined) return undefined;
  return { summary: emptyCostSummary(options.groupBy !== undefined), mode, warnings: [], unknownUsage: [], sources: report };
}

/**
 * The one test of an empty history: the source report (every root `missing`) when none of the selected
 * `agents`' roots exists and no event cache can hold the records of deleted files (none at its path, or
 * `cache: false`); undefined when there may be a history (roots of the caller's own, a cache path the scan
 * refuses, or any of the above). The empty report above is made on it, and the CLI raises V8's budget
 * (src/cli/jit.ts) only where it says undefined, so a run over no history never loads `node:v8`.
 */
export function absentHistory(agents: string[] | undefined, options: Pick<CostReportOptions, 'roots' | 'cache' | 'cachePath'>, env: NodeJS.ProcessEnv): SourceReport[] | undefined {
  if (options.roots !== undefined || options.cachePath === '') return undefined;
  const sources = scanSources({ agents }, env);
  // every root missing: the narrowest test of an empty history, the only one that needs no listing (a scan
  // whose discovery finds no file is the wider one); the report states each root once for both
  const report = new SourceTally().report(sources, env);
  if (!report.every((s) => s.status === 'missing')) return undefined;
  if (options.cache !== false && existsSync(options.cachePath ?? getCachePath(env))) return undefined;
  return report;
}
