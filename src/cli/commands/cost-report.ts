/**
 * `sessionfold cost report`: scan the selected agents' usage (event cache unless --no-cache), fold it into
 * a CostSummary (incrementally, from the last run's fold state, when the cache is on) and print it: a table by default (by day), or JSON / CSV / Markdown. `--json` prints the
 * CostSummary object and nothing else on stdout; warnings and the progress bar go to stderr.
 */
import { periodStart, ZoneCalendar } from '../../cost/calendar.js';
import { COST_GROUP_BYS } from '../../cost/filter.js';
import { COST_FORMATS, renderCostSummary, type CostFormat } from '../render/cost.js';
import { createPricer } from '../../cost/pricing.js';
import { totalCost } from '../../cost/total.js';
import type { CostGroupBy } from '../../cost/types.js';
import { CliError, bool, defineCommand, str, type CommandContext } from '../command.js';
import { SELECTION_OPTIONS, selectionFromArgs, withScanProgress } from './cost-options.js';
import { findCodec, listCodecs } from '../../registry.js';

/**
 * On stderr: per agent that records tokens only when a run ends (`usageRecordedAtEnd`), how many of its
 * sessions (created in the report's dates) have usage it has not recorded yet, which the report counts as
 * none. The sessions' lazy summaries tell (summary cache: a stat per file when warm).
 */
async function noteUnknownUsage(ctx: CommandContext, selection: ReturnType<typeof selectionFromArgs>): Promise<void> {
  const selected = (id: string) => selection.agents === undefined || selection.agents.some((a) => findCodec(a)?.id === id);
  const codecs = listCodecs().filter((c) => c.capabilities.usageRecordedAtEnd === true && selected(c.id));
  if (codecs.length === 0) return;
  let manager: import('../../sessions/manager.js').SessionManager | undefined;
  for (const codec of codecs) {
    // No session files, no note: a report on a machine without the agent loads and opens nothing more.
    const files = codec.discoverSync?.(codec.defaultRoots(ctx.env))[Symbol.iterator]();
    if (files !== undefined && files.next().done === true) continue;
    manager ??= (await import('../../sessions/manager.js')).createSessionManager({ env: ctx.env, ...(selection.cache === false && { cache: false }), ...(selection.cachePath !== undefined && { cachePath: selection.cachePath }) });
    let n: number;
    try {
      const rows = await manager.list(codec.id, { limit: Number.MAX_SAFE_INTEGER, exactBytes: 0, ...(selection.since && { since: selection.since }), ...(selection.until && { until: selection.until }) });
      n = rows.filter((r) => r.usageUnknown === true).length;
    } catch {
      continue; // the report stands without the note; `sessions list` reports what failed
    }
    if (n > 0) ctx.stderr.write(`note: ${codec.id}: ${n} session${n === 1 ? ' has' : 's have'} tokens the agent has not recorded yet, counted as none here (\`sessions list ${codec.id}\` marks them)\n`);
  }
}

export default defineCommand({
  name: 'report',
  description: 'Total cost and tokens of the selected usage, grouped (default: by day)',
  usage: '[--agent a,b] [--since <date>] [--until <date>] [--group-by <dim>] [--format table|json|csv|markdown] [options]',
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
  async run(ctx: CommandContext) {
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
    const breakdown = bool(ctx, 'breakdown');
    const pricer = createPricer({ env: ctx.env, ...(selection.mode !== undefined && { mode: selection.mode }), ...(selection.pricesFile !== undefined && { pricesFile: selection.pricesFile }) });
    const summary = await withScanProgress(ctx, (scan) => totalCost({ ...selection, pricer, ...(groupBy !== undefined && { groupBy }), ...(breakdown && { breakdown }) }, scan));
    const chronological = groupBy === 'day' || groupBy === 'week' || groupBy === 'month';
    if (order !== undefined && summary.breakdowns !== undefined && (order === 'asc') !== chronological) summary.breakdowns = Object.fromEntries(Object.entries(summary.breakdowns).reverse());
    const noCost = bool(ctx, 'no-cost') || ctx.values.cost === false;
    ctx.stdout.write(renderCostSummary(summary, format, { groupBy, timeZone: selection.timeZone, mode: pricer.mode, compact: bool(ctx, 'compact'), noCost }));
    await noteUnknownUsage(ctx, selection);
    return 0;
  },
});
