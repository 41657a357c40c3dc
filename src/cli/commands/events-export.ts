/**
 * `sessionfold events export`: stream every selected usage event once, with its cost, as NDJSON (default)
 * or CSV, in constant memory (LineWriter; a compact hash seen-set for dedup). `--after <cursor-file>`
 * exports only events no earlier run with that cursor exported, then saves the cursor atomically.
 */
import { exportCsvHeader, exportCsvRow, exportUsageBatches, ExportCursor } from '../../cost/export.js';
import { createPricer } from '../../cost/pricing.js';
import { scanFor } from '../../cost/total.js';
import { CliError, defineCommand, str, type CommandContext } from '../command.js';
import { LineWriter } from '../output.js';
import { SELECTION_OPTIONS, selectionFromArgs } from './cost-options.js';
import { createProgress } from '../progress.js';

const FORMATS = ['ndjson', 'csv'] as const;

export default defineCommand({
  name: 'export',
  description: 'Stream every selected usage event once, with its cost (schema/usage-event.schema.json)',
  usage: '',
  options: {
    ...SELECTION_OPTIONS,
    format: { type: 'string', short: 'f', description: 'ndjson (default) or csv', valueName: '<fmt>' },
    after: { type: 'string', description: 'Export only events not exported with this cursor file before; update it', valueName: '<file>' },
  },
  async run(ctx: CommandContext) {
    if (ctx.positionals.length > 0) throw new CliError('USAGE_ERROR', `unexpected argument "${ctx.positionals[0]}"`);
    const format = str(ctx, 'format') ?? 'ndjson';
    if (!(FORMATS as readonly string[]).includes(format)) throw new CliError('INVALID_OPTION', `Invalid option --format: expected ${FORMATS.join('|')}, got "${format}"`);
    const selection = selectionFromArgs(ctx);
    const pricer = createPricer({ env: ctx.env, ...(selection.mode !== undefined && { mode: selection.mode }), ...(selection.pricesFile !== undefined && { pricesFile: selection.pricesFile }) });
    const afterPath = str(ctx, 'after');
    const cursor = afterPath !== undefined ? await ExportCursor.load(afterPath) : undefined;

    // Lines streamed to a terminal would run into the bar: then there is none.
    const toTerminal = (ctx.stdout as NodeJS.WriteStream).isTTY === true;
    const progress = createProgress(ctx.stderr, toTerminal ? { ...ctx.env, SESSIONFOLD_PROGRESS: '0' } : ctx.env, 'Exporting usage');
    const records = scanFor(selection, {
      onProgress: progress.onProgress,
      onWarning: (m) => {
        progress.clear();
        ctx.stderr.write(`warning: ${m}\n`);
      },
    });
    const out = new LineWriter(ctx.stdout);
    if (format === 'csv') await out.line(exportCsvHeader());
    let count = 0;
    try {
      for await (const lines of exportUsageBatches(records, { ...selection, pricer, ...(cursor !== undefined && { cursor }) })) {
        for (const line of lines) await out.line(format === 'csv' ? exportCsvRow(line) : JSON.stringify(line));
        count += lines.length;
      }
      await out.flush();
    } finally {
      progress.stop();
    }
    if (cursor) {
      await cursor.save();
      ctx.stderr.write(`exported ${count} new event${count === 1 ? '' : 's'}; cursor ${cursor.path} (${cursor.exported} in all)\n`);
    }
    return 0;
  },
});
