/**
 * `sessionfold sessions search <text…>`: full-text search over every agent with storage (or `--agent`).
 * Terms are ANDed, `"quoted phrases"` kept together, case-insensitive. Prints score, date, unified id and
 * title, then the matching snippet; `--json` prints the summaries with `relevanceScore` and `snippet`. The
 * output options (`--format`, `--last`, `--order`, `--compact`, `--no-cost`, `--breakdown`) are cost report's
 * (sessions-format.ts).
 */
import type { SessionQuery } from '../../sessions/types.js';
import { bool, CliError, defineCommand, list, str, type CommandContext } from '../command.js';
import { makeManager, parseChoice, parseDateOption, parseIntOption, terminalWidth } from './sessions-common.js';
import { renderSessions } from '../render/sessions.js';
import { withProgress } from '../progress.js';
import { laterSince, SESSION_FORMAT_OPTIONS, sessionFormatFromArgs, withBreakdown } from './sessions-format.js';

export default defineCommand({
  name: 'search',
  description: 'Search message text and titles across agents (all terms must match, case-insensitive).',
  usage: '<text…> [--agent <a>] [--since <date>] [--until <date>] [--model <m>] [--tag <t>] [--limit <n>] [--sort relevance|date|cost] [--format table|json|csv|markdown] [--last <n>] [--order asc|desc] [--compact] [--no-cost] [--breakdown]',
  options: {
    agent: { type: 'string', short: 'a', description: 'Only this agent (default: every agent with storage)', valueName: '<agent>' },
    since: { type: 'string', description: 'Created on or after (YYYY-MM-DD or ISO 8601)', valueName: '<date>' },
    until: { type: 'string', description: 'Created on or before (a date includes its whole day)', valueName: '<date>' },
    model: { type: 'string', description: 'Used a model whose id contains this', valueName: '<model>' },
    tag: { type: 'string', multiple: true, description: 'Has this tag (repeatable or comma-separated; any matches)', valueName: '<tag>' },
    limit: { type: 'string', description: 'At most this many (default 50)', valueName: '<n>' },
    sort: { type: 'string', description: 'relevance (default) | date | cost', valueName: '<key>' },
    subagents: { type: 'boolean', description: 'Include subagent transcripts' },
    ...SESSION_FORMAT_OPTIONS,
  },
  async run(ctx: CommandContext) {
    const text = ctx.positionals.join(' ');
    if (text.trim() === '') throw new CliError('USAGE_ERROR', 'search needs a text');
    const fmt = sessionFormatFromArgs(ctx);
    const since = laterSince(parseDateOption(ctx, 'since', false), fmt);
    const until = parseDateOption(ctx, 'until', true);
    const limit = parseIntOption(ctx, 'limit');
    const sort = parseChoice(ctx, 'sort', ['relevance', 'date', 'cost'] as const);
    const tags = list(ctx, 'tag');
    const agent = str(ctx, 'agent');
    const model = str(ctx, 'model');
    const query: SessionQuery = {
      text,
      ...(agent !== undefined && { agent }),
      ...(since && { since }),
      ...(until && { until }),
      ...(model !== undefined && { model }),
      ...(tags !== undefined && tags.length > 0 && { tags }),
      ...(limit !== undefined && { limit }),
      ...(sort !== undefined && { sort }),
      subagents: bool(ctx, 'subagents'),
    };
    const manager = makeManager(ctx);
    const out = await withProgress(ctx, 'Searching sessions', async () => {
      const found = await manager.search(query);
      // The sort's own order is descending (best match, newest, dearest first); --order asc turns the found rows round.
      return withBreakdown(manager, fmt.order === 'asc' ? found.reverse() : found, fmt);
    });
    ctx.stdout.write(renderSessions(out, fmt.format, { search: true, withAgent: false, width: terminalWidth(ctx), compact: fmt.compact, noCost: fmt.noCost, timeZone: fmt.timeZone }, `No sessions match "${text}".`));
    return 0;
  },
});
