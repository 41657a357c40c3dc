/**
 * `sessionfold sessions export <agent> <id> [--format jsonl|json|markdown]`: the whole session on stdout.
 * `jsonl` (default) is sessionfold's own format, readable back by the `sessionfold-jsonl` codec (save it as
 * `<id>.jsonl` under `$SESSIONFOLD_EXPORT_DIR` to list, search and diff it like any agent's session).
 * Every format is written as the session is read (the manager's `stream` and the library's `exportPieces`),
 * the bytes of the manager's `export` without the session held: two reads of the file, the first of which
 * keeps the usage events the JSONL lines name.
 */
import { exportPieces } from '../../sessions/export.js';
import type { ExportFormat } from '../../sessions/types.js';
import { defineCommand, type CommandContext } from '../command.js';
import { makeManager, parseChoice, sessionTarget } from './sessions-common.js';
import { tuneHeapForStream } from '../heap.js';
import { withProgress } from '../progress.js';
import { openSink, writePieces } from '../stream-out.js';

export default defineCommand({
  name: 'export',
  description: 'Write one whole session to stdout as jsonl (default, re-importable), json or markdown.',
  usage: '<agent> <session-id> | <agent>:<session-id>',
  options: {
    format: { type: 'string', short: 'f', description: 'jsonl (default) | json | markdown', valueName: '<format>' },
  },
  async run(ctx: CommandContext) {
    const { agent, id } = await sessionTarget(ctx);
    const format: ExportFormat = parseChoice(ctx, 'format', ['jsonl', 'json', 'markdown'] as const) ?? 'jsonl';
    tuneHeapForStream(ctx.env);
    const stream = await withProgress(ctx, 'Reading the session', () => makeManager(ctx).stream(agent, id, { orphanUsage: format !== 'markdown' }));
    await writePieces(await openSink(ctx, false), exportPieces(stream, format));
    return 0;
  },
});
