/**
 * `sessionfold sessions search <text…>`: full-text search over every agent with storage (or `--agent`).
 * Terms are ANDed, `"quoted phrases"` kept together, case-insensitive. Prints score, date, unified id and
 * title, then the matching snippet; `--json` prints the summaries with `relevanceScore` and `snippet`. What
 * could not be read is said on stderr, as `sessions list` says it. The output options (`--format`, `--last`,
 * `--order`, `--compact`, `--no-cost`, `--breakdown`) are cost report's (sessions-format.ts).
 */
import { getCodec } from '../../registry.js';
import type { SourceReport } from '../../scan/sources.js';
import { bySearchOrder, DEFAULT_SEARCH_LIMIT } from '../../sessions/search.js';
import type { SessionManager } from '../../sessions/manager.js';
import type { SessionQuery, SessionSummary } from '../../sessions/types.js';
import { bool, CliError, defineCommand, list, str, type CommandContext } from '../command.js';
import { makeManager, parseChoice, parseDateOption, parseIntOption, terminalWidth } from './sessions-common.js';
import { checkDateRange } from './cost-options.js';
import { renderSessions } from '../render/sessions.js';
import { withProgress } from '../progress.js';
import { stderrIsTerminal, writeSourceNotes } from '../sources.js';
import { laterSince, SESSION_FORMAT_OPTIONS, sessionFormatFromArgs, withBreakdown } from './sessions-format.js';

/**
 * `query` over each of `agents` (every agent with storage when undefined), merged in the search's order, with
 * the roots looked in (and what could not be read) in `sources`. One agent after another: discovery notes the
 * folders it could not list process-wide, so two at once would count each other's.
 */
async function searchAgents(manager: SessionManager, query: SessionQuery, agents: readonly string[] | undefined, sources: SourceReport[]): Promise<SessionSummary[]> {
  if (agents === undefined || agents.length <= 1) return manager.search({ ...query, ...(agents?.[0] !== undefined && { agent: agents[0] }), sources });
  const found: SessionSummary[] = [];
  for (const agent of new Set(agents)) {
    const mine: SourceReport[] = [];
    found.push(...(await manager.search({ ...query, agent, sources: mine })));
    sources.push(...mine);
  }
  return found.sort(bySearchOrder(query.sort ?? 'relevance')).slice(0, query.limit ?? DEFAULT_SEARCH_LIMIT);
}

export default defineCommand({
  name: 'search',
  description: 'Search message text and titles across agents (all terms must match, case-insensitive).',
  usage: '<text…>',
  options: {
    agent: { type: 'string', short: 'a', description: 'Only these agents (comma-separated; default: every agent with storage)', valueName: '<a,b>' },
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
    checkDateRange(since, until);
    const limit = parseIntOption(ctx, 'limit');
    const sort = parseChoice(ctx, 'sort', ['relevance', 'date', 'cost'] as const);
    const tags = list(ctx, 'tag');
    // every name checked (AGENT_NOT_FOUND), as `cost report --agent` does: the library answers [] for an unknown one
    const agents = list(ctx, 'agent')?.map((a) => getCodec(a).id);
    const model = str(ctx, 'model');
    const query: SessionQuery = {
      text,
      ...(since && { since }),
      ...(until && { until }),
      ...(model !== undefined && { model }),
      ...(tags !== undefined && tags.length > 0 && { tags }),
      ...(limit !== undefined && { limit }),
      ...(sort !== undefined && { sort }),
      subagents: bool(ctx, 'subagents'),
    };
    const manager = makeManager(ctx);
    // The roots looked in (with the files that could not be read), said on stderr (the JSON stays the array of sessions).
    const sources: SourceReport[] = [];
    const out = await withProgress(ctx, 'Searching sessions', async () => {
      const found = await searchAgents(manager, query, agents, sources);
      // The sort's own order is descending (best match, newest, dearest first); --order asc turns the found rows round.
      return withBreakdown(manager, fmt.order === 'asc' ? found.reverse() : found, fmt);
    });
    writeSourceNotes(ctx.stderr, sources, { env: ctx.env, asked: agents, verbose: fmt.format !== 'json' && stderrIsTerminal(ctx.stderr) });
    ctx.stdout.write(renderSessions(out, fmt.format, { search: true, withAgent: false, width: terminalWidth(ctx), compact: fmt.compact, noCost: fmt.noCost, timeZone: fmt.timeZone }, `No sessions match "${text}".`));
    return 0;
  },
});
