/**
 * `sessionfold cost report`: scan the selected agents' usage (event cache unless --no-cache), fold it into
 * a CostSummary (incrementally, from the last run's fold state, when the cache is on: src/cost/report.ts) and
 * print it (render/cost-report.ts): a table by default (by day), or JSON / CSV / Markdown. `--json` prints the
 * CostSummary object and nothing else on stdout; warnings and the progress bar go to stderr. Over no history
 * at all, src/cost/empty-report.ts answers instead, the same report without loading the scan, the cache, the
 * fold or the pricer (src/cost/report.ts is imported only when it is needed).
 */
import { periodStart, ZoneCalendar } from '../../cost/calendar.js';
import { emptyHistoryReport } from '../../cost/empty-report.js';
import type { CostReportOptions } from '../../cost/report.js';
import { COST_GROUP_BYS, type CostGroupBy } from '../../cost/types.js';
import { COST_FORMATS, type CostFormat } from '../render/cost.js';
import { renderCostReport, type CostReportView } from '../render/cost-report.js';
import { CliError, bool, defineCommand, str, type CommandContext } from '../command.js';
import { SELECTION_OPTIONS, selectionFromArgs } from './cost-options.js';
import { tuneJitForScan } from '../jit.js';
import { selectedAgents } from '../../cost/agents.js';
import { createProgress } from '../progress.js';

export default defineCommand({
  name: 'report',
  description: 'Total cost and tokens of the selected usage, grouped (default: by day)',
  usage: '',
  options: {
    ...SELECTION_OPTIONS,
    'group-by': { type: 'string', short: 'g', description: `Group rows by ${COST_GROUP_BYS.join('|')}|none (default day)`, valueName: '<dim>' },
    format: { type: 'string', short: 'f', description: `Output: ${COST_FORMATS.join('|')} (default table)`, valueName: '<fmt>' },
    json: { type: 'boolean', description: 'Same as --format json: print the CostSummary object only' },
    breakdown: { type: 'boolean', short: 'b', description: 'List each group\'s models under it (modelBreakdowns in JSON)' },
    last: { type: 'string', description: 'Only the last n days, weeks or months (with --group-by day|week|month), the current one included', valueName: '<n>' },
    order: { type: 'string', description: 'Row order: asc|desc (default: dates ascending, other groups by cost descending)', valueName: '<dir>' },
    compact: { type: 'boolean', description: 'Fewer columns, so the table fits 80 columns' },
    'no-cost': { type: 'boolean', description: 'Tokens only: no cost column (no money fields in JSON)' },
  },
  /** The compute step (all `serve` runs): the report and how to show it, as plain data. */
  async compute(ctx: CommandContext) {
    if (ctx.positionals.length > 0) throw new CliError('USAGE_ERROR', `unexpected argument "${ctx.positionals[0]}"`);
    const g = str(ctx, 'group-by') ?? 'day';
    if (g !== 'none' && !(COST_GROUP_BYS as readonly string[]).includes(g)) throw new CliError('INVALID_OPTION', `Invalid option --group-by: expected ${COST_GROUP_BYS.join('|')}|none, got "${g}"`);
    const groupBy = g === 'none' ? undefined : (g as CostGroupBy);
    const f = bool(ctx, 'json') ? 'json' : (str(ctx, 'format') ?? 'table');
    if (!(COST_FORMATS as readonly string[]).includes(f)) throw new CliError('INVALID_OPTION', `Invalid option --format: expected ${COST_FORMATS.join('|')}, got "${f}"`);
    const format = f as CostFormat;

    const selection = selectionFromArgs(ctx);
    const last = str(ctx, 'last');
    if (last !== undefined) {
      if (!/^[1-9]\d{0,5}$/.test(last)) throw new CliError('INVALID_OPTION', `Invalid option --last: expected a whole number of periods (1 or more), got "${last}"`);
      if (groupBy !== 'day' && groupBy !== 'week' && groupBy !== 'month') throw new CliError('INVALID_OPTION', 'Invalid option --last: needs --group-by day, week or month');
      const from = periodStart(new ZoneCalendar(selection.timeZone), groupBy, Number(last) - 1, Date.now());
      if (selection.since === undefined || selection.since.getTime() < from) selection.since = new Date(from);
    }
    const order = str(ctx, 'order');
    if (order !== undefined && order !== 'asc' && order !== 'desc') throw new CliError('INVALID_OPTION', `Invalid option --order: expected asc|desc, got "${order}"`);
    const progress = createProgress(ctx.stderr, ctx.env, 'Reading usage');
    try {
      const options: CostReportOptions = { ...selection, ...(groupBy !== undefined && { groupBy }), ...(bool(ctx, 'breakdown') && { breakdown: true }), ...(order !== undefined && { order }), onProgress: progress.onProgress };
      // No history and no cache: the empty report from the roots' stats, without loading the scan and the fold.
      const empty = emptyHistoryReport(options);
      // Else a scan lists the history: V8's budget first (jit.ts). emptyHistoryReport already asked
      // absentHistory, the rule `cost blocks` asks through tuneJitForHistory, so it is not asked again here.
      if (empty === undefined) tuneJitForScan(ctx.env);
      const report = empty ?? (await (await import('../../cost/report.js')).costReport(options));
      const asked = selectedAgents(selection);
      const view: CostReportView = {
        format,
        groupBy,
        timeZone: selection.timeZone,
        compact: bool(ctx, 'compact'),
        noCost: bool(ctx, 'no-cost') || ctx.values.cost === false,
        noCache: selection.cache === false,
        ...(asked !== undefined && { asked }),
      };
      return { report, view };
    } finally {
      progress.stop();
    }
  },
  render: renderCostReport,
});
