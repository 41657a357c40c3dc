/**
 * `sessionfold sessions search <text…>`: full-text search over every agent with storage (or `--agent`).
 * Terms are ANDed, `"quoted phrases"` kept together, case-insensitive. Prints score, date, unified id and
 * title, then the matching snippet; `--json` prints the summaries with `relevanceScore` and `snippet`.
 */
import type { SessionQuery } from '../../sessions/types.js';
import { bool, CliError, defineCommand, list, str, type CommandContext } from '../command.js';
import { ellipsize, makeManager, parseChoice, parseDateOption, parseIntOption, renderTable, summaryCells, summaryJson, terminalWidth } from './sessions-common.js';

export default defineCommand({
  name: 'search',
  description: 'Search message text and titles across agents (all terms must match, case-insensitive).',
  usage: '<text…> [--agent <a>] [--since <date>] [--until <date>] [--model <m>] [--tag <t>] [--limit <n>] [--sort relevance|date|cost] [--json]',
  options: {
    agent: { type: 'string', short: 'a', description: 'Only this agent (default: every agent with storage)', valueName: '<agent>' },
    since: { type: 'string', description: 'Created on or after (YYYY-MM-DD or ISO 8601)', valueName: '<date>' },
    until: { type: 'string', description: 'Created on or before (a date includes its whole day)', valueName: '<date>' },
    model: { type: 'string', description: 'Used a model whose id contains this', valueName: '<model>' },
    tag: { type: 'string', multiple: true, description: 'Has this tag (repeatable or comma-separated; any matches)', valueName: '<tag>' },
    limit: { type: 'string', description: 'At most this many (default 50)', valueName: '<n>' },
    sort: { type: 'string', description: 'relevance (default) | date | cost', valueName: '<key>' },
    subagents: { type: 'boolean', description: 'Include subagent transcripts' },
    json: { type: 'boolean', description: 'Print a JSON array (schema: docs/sessions.md)' },
  },
  async run(ctx: CommandContext) {
    const text = ctx.positionals.join(' ');
    if (text.trim() === '') throw new CliError('USAGE_ERROR', 'search needs a text');
    const since = parseDateOption(ctx, 'since', false);
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
    const rows = await makeManager(ctx).search(query);
    if (bool(ctx, 'json')) {
      ctx.stdout.write(`${JSON.stringify(rows.map(summaryJson), null, 2)}\n`);
      return 0;
    }
    if (rows.length === 0) {
      ctx.stdout.write(`No sessions match "${text}".\n`);
      return 0;
    }
    const width = terminalWidth(ctx);
    const table = renderTable(
      ['SCORE', 'UPDATED', 'SESSION', 'COST', 'TITLE'],
      rows.map((s) => [(s.relevanceScore ?? 0).toFixed(2), summaryCells(s).updated, s.unifiedId, summaryCells(s).cost, s.title === '' ? '(untitled)' : s.title]),
      width,
      new Set([0, 3]),
    ).split('\n');
    ctx.stdout.write(`${table[0]}\n`);
    rows.forEach((s, i) => {
      ctx.stdout.write(`${table[i + 1]}\n`);
      if (s.snippet !== undefined && s.snippet !== '') ctx.stdout.write(`      ${ellipsize(s.snippet, width - 6)}\n`);
    });
    return 0;
  },
});
