/**
 * `sessionfold cost blocks`: the selected usage in 5-hour billing windows per agent (ccusage's rules, see
 * src/cost/blocks.ts), the active window with its burn rate and projection. `--json` prints the report
 * object only; warnings and the progress bar go to stderr.
 */
import { usageBlocks } from '../../cost/total.js';
import { createPricer } from '../../cost/pricing.js';
import { BLOCK_FORMATS, renderBlocks, type BlockFormat } from '../render/blocks.js';
import { CliError, bool, defineCommand, str, type CommandContext } from '../command.js';
import { SELECTION_OPTIONS, selectionFromArgs, tuneJitForHistory, withScanProgress } from './cost-options.js';

export default defineCommand({
  name: 'blocks',
  description: '5-hour billing windows per agent: tokens and cost of each, the active one with its burn rate and projection',
  usage: '',
  options: {
    ...SELECTION_OPTIONS,
    active: { type: 'boolean', description: 'Only the active window(s): the ones containing now' },
    format: { type: 'string', short: 'f', description: `Output: ${BLOCK_FORMATS.join('|')} (default table)`, valueName: '<fmt>' },
    json: { type: 'boolean', description: 'Same as --format json: print the report object only' },
  },
  async run(ctx: CommandContext) {
    if (ctx.positionals.length > 0) throw new CliError('USAGE_ERROR', `unexpected argument "${ctx.positionals[0]}"`);
    const f = bool(ctx, 'json') ? 'json' : (str(ctx, 'format') ?? 'table');
    if (!(BLOCK_FORMATS as readonly string[]).includes(f)) throw new CliError('INVALID_OPTION', `Invalid option --format: expected ${BLOCK_FORMATS.join('|')}, got "${f}"`);
    const selection = selectionFromArgs(ctx);
    const pricer = createPricer({ env: ctx.env, ...(selection.mode !== undefined && { mode: selection.mode }), ...(selection.pricesFile !== undefined && { pricesFile: selection.pricesFile }) });
    const now = new Date();
    tuneJitForHistory(ctx, selection);
    let report = await withScanProgress(ctx, (scan) => usageBlocks({ ...selection, pricer, now }, scan));
    if (bool(ctx, 'active')) report = { ...report, blocks: report.blocks.filter((b) => b.isActive) };
    ctx.stdout.write(renderBlocks(report, f as BlockFormat, selection.timeZone, now.getTime()));
    return 0;
  },
});
