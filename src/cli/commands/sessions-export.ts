/**
 * `sessionfold sessions export <agent> <id> [--format jsonl|json|markdown]`: the whole session on stdout.
 * `jsonl` (default) is sessionfold's own format, readable back by the `sessionfold-jsonl` codec (save it as
 * `<id>.jsonl` under `$SESSIONFOLD_EXPORT_DIR` to list, search and diff it like any agent's session).
 */
import { createSessionManager } from '../../sessions/manager.js';
import type { ExportFormat, Session } from '../../sessions/types.js';
import { defineCommand, type CommandContext } from '../command.js';
import { parseChoice, sessionArgs } from './sessions-common.js';
import { withProgress } from '../progress.js';

/** The session, from the command's environment. */
export async function getSessionFor(ctx: CommandContext, agent: string, id: string): Promise<Session> {
  return createSessionManager({ env: ctx.env }).get(agent, id);
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
    const text = await withProgress(ctx, 'Reading the session', () => createSessionManager({ env: ctx.env }).export(agent, id, format));
    ctx.stdout.write(text);
    return 0;
  },
});
