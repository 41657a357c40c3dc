/**
 * `sessionfold sessions show <agent> <id>` (or `<agent>:<id>`): one session for reading. Markdown by default,
 * with long tool inputs, outputs and thinking cut to SHOW_BLOCK_LINES lines (`--full` keeps all); on a
 * terminal the output goes through `$PAGER` (default `less -FRX`, which exits at once when it fits).
 * `--format json|jsonl` prints the export formats unchanged.
 */
import { spawn } from 'node:child_process';
import { renderExport } from '../../sessions/export.js';
import type { ExportFormat } from '../../sessions/types.js';
import { getSessionFor } from './sessions-export.js';
import { bool, defineCommand, type CommandContext } from '../command.js';
import { parseChoice, sessionArgs } from './sessions-common.js';
import { withProgress } from '../progress.js';

export const SHOW_BLOCK_LINES = 40;

/** Write through the pager when stdout is a terminal; fall back to a plain write when it cannot start. */
async function page(ctx: CommandContext, text: string): Promise<void> {
  const tty = (ctx.stdout as { isTTY?: boolean }).isTTY === true;
  if (!tty || ctx.values.pager === false) {
    ctx.stdout.write(text);
    return;
  }
  const pager = ctx.env.PAGER || 'less -FRX';
  const ok = await new Promise<boolean>((resolve) => {
    const child = spawn(pager, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', ...ctx.env } });
    child.on('error', () => resolve(false));
    child.on('close', () => resolve(true));
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
  });
  if (!ok) ctx.stdout.write(text);
}

export default defineCommand({
  name: 'show',
  description: 'Show one session: Markdown (default, paged on a terminal), or --format json|jsonl.',
  usage: '<agent> <session-id> | <agent>:<session-id> [--format markdown|json|jsonl] [--full]',
  options: {
    format: { type: 'string', short: 'f', description: 'markdown (default) | json | jsonl', valueName: '<format>' },
    full: { type: 'boolean', description: `Do not cut tool blocks and thinking at ${SHOW_BLOCK_LINES} lines` },
    pager: { type: 'boolean', description: 'Page on a terminal (default; --no-pager writes straight out)' },
  },
  async run(ctx: CommandContext) {
    const { agent, id } = sessionArgs(ctx);
    const format: ExportFormat = parseChoice(ctx, 'format', ['markdown', 'json', 'jsonl'] as const) ?? 'markdown';
    const session = await withProgress(ctx, 'Reading the session', () => getSessionFor(ctx, agent, id));
    const text = renderExport(session, format, bool(ctx, 'full') ? {} : { maxBlockLines: SHOW_BLOCK_LINES });
    if (format === 'markdown') await page(ctx, text);
    else ctx.stdout.write(text);
    return 0;
  },
});
