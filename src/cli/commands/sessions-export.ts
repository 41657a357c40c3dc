/**
 * `sessionfold sessions export <agent> <id> [--format jsonl|json|markdown]`: the whole session on stdout.
 * `jsonl` (default) is sessionfold's own format, readable back by the `sessionfold-jsonl` codec (save it as
 * `<id>.jsonl` under `$SESSIONFOLD_EXPORT_DIR` to list, search and diff it like any agent's session).
 * JSONL and Markdown are written as the session is read (the manager's `stream`); JSON renders it whole.
 */
import type { ExportFormat, Session } from '../../sessions/types.js';
import { defineCommand, type CommandContext } from '../command.js';
import { makeManager, parseChoice, sessionArgs } from './sessions-common.js';
import { readUsageEvents } from '../../sessions/get.js';
import { tuneHeapForStream } from '../heap.js';
import { withProgress } from '../progress.js';
import { jsonlPieces, markdownPieces } from '../render/session-stream.js';
import { openSink, writePieces } from '../stream-out.js';

/** The session, from the command's environment. */
export async function getSessionFor(ctx: CommandContext, agent: string, id: string): Promise<Session> {
  return makeManager(ctx).get(agent, id);
}

export default defineCommand({
  name: 'export',
  description: 'Write one whole session to stdout as jsonl (default, re-importable), json or markdown.',
  usage: '<agent> <session-id> | <agent>:<session-id> [--format jsonl|json|markdown]',
  options: {
    format: { type: 'string', short: 'f', description: 'jsonl (default) | json | markdown', valueName: '<format>' },
  },
  async run(ctx: CommandContext) {
    const { agent, id } = sessionArgs(ctx);
    const format: ExportFormat = parseChoice(ctx, 'format', ['jsonl', 'json', 'markdown'] as const) ?? 'jsonl';
    if (format === 'json') {
      ctx.stdout.write(await withProgress(ctx, 'Reading the session', () => makeManager(ctx).export(agent, id, format)));
      return 0;
    }
    // Markdown and JSONL stream (sessions-show.ts): the bytes of the manager's export, without the session held
    tuneHeapForStream(ctx.env);
    const markdown = format === 'markdown';
    const stream = await withProgress(ctx, 'Reading the session', () => makeManager(ctx).stream(agent, id, { orphanUsage: !markdown }));
    const file = stream.session.raw?.file;
    const events = markdown || file === undefined ? [] : await readUsageEvents(stream.session.agent, file);
    await writePieces(await openSink(ctx, false), markdown ? markdownPieces(stream, {}) : jsonlPieces(stream, events));
    return 0;
  },
});
