/**
 * `cost report` over a history that is not there. When no root of any selected agent exists and no event
 * cache can hold the records of deleted files (none at its path, or `cache: false`), a report counts nothing,
 * and this makes it from the roots' stats alone: without the scan, the event cache, the fold or the pricer,
 * the CLI's largest chunk, which an empty report would otherwise load and run for nothing (bench/RESULTS.md,
 * "startup"). The CLI asks here first and runs `costReport` (src/cost/report.ts) when this says undefined.
 *
 * Its answer is `costReport`'s, field for field: the empty summary the fold gives for no records, the same
 * source report (every root `missing`), no warnings and no unrecorded-usage notes (those need files). It
 * fails where `costReport` fails first, with the same error, by running the same checks in the same order:
 * the cost mode and the price-override file (the pricer), the agents' names (AGENT_NOT_FOUND), the tags file
 * (with tags or `groupBy: 'tag'`). test/empty-report.test.ts holds the CLI's output equal both ways.
 * `SESSIONFOLD_EMPTY_REPORT=0` in the environment always takes the full path.
 */
import { existsSync } from 'node:fs';
import { getCodec, listCodecs } from '../registry.js';
import { getCachePath } from '../cache/paths.js';
import { rootState, SourceTally } from '../scan/sources.js';
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
  const codecs = agents === undefined ? listCodecs() : agents.map((a) => getCodec(a));
  // As the scan takes them (src/scan/options.ts): each codec's default roots, once each.
  const sources = codecs.map((codec) => ({ codec, roots: [...new Set(codec.defaultRoots(env))] }));
  if (!sources.every((s) => s.roots.every((r) => rootState(r).status === 'missing'))) return undefined;
  if (options.cache !== false && existsSync(options.cachePath ?? getCachePath(env))) return undefined;
  return { summary: emptyCostSummary(options.groupBy !== undefined), mode, warnings: [], unknownUsage: [], sources: new SourceTally().report(sources, env) };
}
