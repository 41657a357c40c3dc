/**
 * `sessionfold sessions show <agent> <id>` (or `<agent>:<id>`): one session for reading. Markdown by default,
 * with long tool inputs, outputs and thinking cut to SHOW_BLOCK_LINES lines (`--full` keeps all); on a
 * terminal the output goes through `$PAGER` (default `less -FRX`, which exits at once when it fits).
 * `--format json|jsonl` prints the export formats unchanged.
 *
 * Every format is written as the session is read (the manager's `stream` and the library's `exportPieces`):
 * the header from a first, text-free pass, then each message as soon as it is settled, so a show holds
 * about one message, not the session (bench/RESULTS.md, peak RSS). JSON and JSONL are `sessions export`'s
 * bytes: JSONL writes each usage event with its own key and time, so its stream keeps the usage events.
 */
import { exportPieces } from '../../sessions/export.js';
import type { MarkdownOptions } from '../../sessions/markdown.js';
import type { ExportFormat } from '../../sessions/types.js';
import { bool, defineCommand, type CommandContext } from '../command.js';
import { makeManager, parseChoice, sessionTarget } from './sessions-common.js';
import { tuneHeapForStream } from '../heap.js';
import { openSink, writePieces } from '../stream-out.js';
import { withProgress } from '../progress.js';

export const SHOW_BLOCK_LINES = 40;

export default defineCommand({
  name: 'show',
  description: 'Show one session: Markdown (default, paged on a terminal), or --format json|jsonl.',
  usage: '<agent> <session-id> | <agent>:<session-id>',
  options: {
    format: { type: 'string', short: 'f', description: 'markdown (default) | json | jsonl', valueName: '<format>' },
    full: { type: 'boolean', description: `Do not cut tool blocks and thinking at ${SHOW_BLOCK_LINES} lines` },
    pager: { type: 'boolean', negatable: true, description: 'Page on a terminal (default; --no-pager writes straight out)' },
  },
  async run(ctx: CommandContext) {
    const { agent, id } = await sessionTarget(ctx);
    const format: ExportFormat = parseChoice(ctx, 'format', ['markdown', 'json', 'jsonl'] as const) ?? 'markdown';
    const cut: MarkdownOptions = bool(ctx, 'full') ? {} : { maxBlockLines: SHOW_BLOCK_LINES };
    tuneHeapForStream(ctx.env);
    const markdown = format === 'markdown';
    const jsonl = format === 'jsonl';
    const stream = await withProgress(ctx, 'Reading the session', () => makeManager(ctx).stream(agent, id, { orphanUsage: !markdown, usageEvents: jsonl }));
    // JSON writes no usage event of its own: its first pass need not hold them
    const pieces = exportPieces(markdown || jsonl ? stream : { ...stream, usageEvents: [] }, format, cut);
    await writePieces(await openSink(ctx, markdown), pieces);
    return 0;
  },
});
