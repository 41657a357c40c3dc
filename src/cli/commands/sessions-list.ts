/**
 * `sessionfold sessions list [agent]`: one agent's sessions (or every agent's with storage), newest first.
 * Selection is lazy (heads and tails of files); then the listed sessions are read whole while their files add
 * up to EXACT_BUDGET_MB, so counts and costs are exact in the usual case. Rows beyond the budget (or all,
 * with `--lazy`) keep head-and-tail counts, marked `+` (lower bounds); `--full` reads every listed session.
 * `--sort cost|turns` and `--model` read what they need.
 */
import { listSessionsData } from '../../sessions/listing.js';
import type { SessionListOptions } from '../../sessions/types.js';
import { bool, CliError, defineCommand, list, str, type CommandContext } from '../command.js';
import { renderSessionList, type SessionListView } from '../render/sessions-list.js';
import { makeManager, parseChoice, parseDateOption, parseIntOption } from './sessions-common.js';

/** Listed sessions whose files add up to this many MiB are read whole, so the table is exact in the usual case. */
export const EXACT_BUDGET_MB = 64;

export default defineCommand({
  name: 'list',
  description: 'List sessions of an agent (all agents with storage when omitted), newest first.',
  usage: '[agent] [--since <date>] [--until <date>] [--model <m>] [--tag <t>] [--cwd <dir>] [--limit <n>] [--sort date|cost|turns] [--direction asc|desc] [--full|--lazy] [--subagents] [--json]',
  options: {
    since: { type: 'string', description: 'Created on or after (YYYY-MM-DD or ISO 8601)', valueName: '<date>' },
    until: { type: 'string', description: 'Created on or before (a date includes its whole day)', valueName: '<date>' },
    model: { type: 'string', description: 'Used a model whose id contains this', valueName: '<model>' },
    tag: { type: 'string', multiple: true, description: 'Has this tag (repeatable or comma-separated; any matches)', valueName: '<tag>' },
    cwd: { type: 'string', description: 'Started in this directory or below it', valueName: '<dir>' },
    limit: { type: 'string', description: 'At most this many (default 100)', valueName: '<n>' },
    sort: { type: 'string', description: 'date (default) | cost | turns', valueName: '<key>' },
    direction: { type: 'string', description: 'desc (default) | asc', valueName: '<dir>' },
    full: { type: 'boolean', description: 'Read every listed session whole: exact counts and cost' },
    lazy: { type: 'boolean', description: `Only heads and tails (default: listed sessions up to ${EXACT_BUDGET_MB} MB in all are read whole)` },
    subagents: { type: 'boolean', description: 'Include subagent transcripts' },
    json: { type: 'boolean', description: 'Print a JSON array (schema: docs/sessions.md)' },
  },
  /** The compute step (all `serve` runs): the listing and how to show it, as plain data. */
  async compute(ctx: CommandContext) {
    if (ctx.positionals.length > 1) throw new CliError('USAGE_ERROR', `unexpected argument "${ctx.positionals[1]}"`);
    const agent = ctx.positionals[0];
    const sort = parseChoice(ctx, 'sort', ['date', 'cost', 'turns'] as const);
    const direction = parseChoice(ctx, 'direction', ['asc', 'desc'] as const);
    const since = parseDateOption(ctx, 'since', false);
    const until = parseDateOption(ctx, 'until', true);
    const limit = parseIntOption(ctx, 'limit');
    const model = str(ctx, 'model');
    const tags = list(ctx, 'tag');
    const cwd = str(ctx, 'cwd');
    const options: SessionListOptions = {
      ...(since && { since }),
      ...(until && { until }),
      ...(model !== undefined && { model }),
      ...(tags !== undefined && tags.length > 0 && { tags }),
      ...(cwd !== undefined && { cwd }),
      ...(limit !== undefined && { limit }),
      ...(sort !== undefined && { sort }),
      ...(direction !== undefined && { sortDirection: direction }),
      full: bool(ctx, 'full'),
      exactBytes: bool(ctx, 'lazy') ? 0 : EXACT_BUDGET_MB * 1024 * 1024,
      subagents: bool(ctx, 'subagents'),
    };
    const view: SessionListView = { json: bool(ctx, 'json') };
    return { listing: await listSessionsData(makeManager(ctx), agent, options), view };
  },
  render: renderSessionList,
});
