/**
 * `sessionfold sessions list [agent]`: one agent's sessions (or every agent's with storage), newest first.
 * Selection is lazy (heads and tails of files); then the listed sessions are read whole while their files add
 * up to EXACT_BUDGET_MB, so counts and costs are exact in the usual case. Rows beyond the budget (or all,
 * with `--lazy`) keep head-and-tail counts, marked `+` (lower bounds); `--full` reads every listed session.
 * `--sort cost|turns` and `--model` read what they need. The output options (`--format`, `--last`, `--order`,
 * `--compact`, `--no-cost`, `--breakdown`) are cost report's (sessions-format.ts).
 */
import { getCodec, listCodecs } from '../../registry.js';
import type { SourceReport } from '../../scan/sources.js';
import type { SessionListOptions, SessionSummary } from '../../sessions/types.js';
import { bool, CliError, defineCommand, list, str, type CommandContext } from '../command.js';
import { compareSummaries } from '../../sessions/list.js';
import { makeManager, parseChoice, parseDateOption, parseIntOption } from './sessions-common.js';
import { checkDateRange } from './cost-options.js';
import { renderSessionList, type SessionListView } from '../render/sessions-list.js';
import { withProgress } from '../progress.js';
import { tuneJitForScan } from '../jit.js';
import { laterSince, SESSION_FORMAT_OPTIONS, sessionFormatFromArgs, withBreakdown } from './sessions-format.js';

/** Listed sessions whose files add up to this many MiB are read whole, so the table is exact in the usual case. */
export const EXACT_BUDGET_MB = 64;

export default defineCommand({
  name: 'list',
  description: 'List sessions of an agent (all agents with storage when omitted), newest first.',
  usage: '[agent]',
  options: {
    since: { type: 'string', description: 'Created on or after (YYYY-MM-DD or ISO 8601)', valueName: '<date>' },
    until: { type: 'string', description: 'Created on or before (a date includes its whole day)', valueName: '<date>' },
    model: { type: 'string', description: 'Used a model whose id contains this', valueName: '<model>' },
    tag: { type: 'string', multiple: true, description: 'Has this tag (repeatable or comma-separated; any matches)', valueName: '<tag>' },
    cwd: { type: 'string', description: 'Started in this directory or below it', valueName: '<dir>' },
    limit: { type: 'string', description: 'At most this many (default 100)', valueName: '<n>' },
    sort: { type: 'string', description: 'date (default) | cost | turns', valueName: '<key>' },
    direction: { type: 'string', description: 'desc (default) | asc (--order says the same)', valueName: '<dir>' },
    full: { type: 'boolean', oneOf: 'read', description: 'Read every listed session whole: exact counts and cost' },
    lazy: { type: 'boolean', oneOf: 'read', description: `Only heads and tails (default: listed sessions up to ${EXACT_BUDGET_MB} MB in all are read whole)` },
    subagents: { type: 'boolean', description: 'Include subagent transcripts' },
    ...SESSION_FORMAT_OPTIONS,
  },
  /** The compute step (all `serve` runs): the rows, where they were looked for and how to show them, as plain data. */
  async compute(ctx: CommandContext) {
    if (ctx.positionals.length > 1) throw new CliError('USAGE_ERROR', `unexpected argument "${ctx.positionals[1]}"`);
    const agent = ctx.positionals[0];
    const sort = parseChoice(ctx, 'sort', ['date', 'cost', 'turns'] as const);
    const fmt = sessionFormatFromArgs(ctx);
    const dir = parseChoice(ctx, 'direction', ['asc', 'desc'] as const);
    if (dir !== undefined && fmt.order !== undefined && dir !== fmt.order) throw new CliError('INVALID_OPTION', `--direction ${dir} and --order ${fmt.order} disagree`);
    const direction = dir ?? fmt.order;
    const since = laterSince(parseDateOption(ctx, 'since', false), fmt);
    const until = parseDateOption(ctx, 'until', true);
    checkDateRange(since, until);
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
    const manager = makeManager(ctx);
    tuneJitForScan(ctx.env); // the list stats every file of the history, warm or not (jit.ts)
    // The roots looked in, each list's (with the files it could not read), said on stderr (the JSON stays the array of sessions).
    const sources: SourceReport[] = [];
    const listOf = async (name: string): Promise<SessionSummary[]> => {
      const mine: SourceReport[] = [];
      const rows = await manager.list(name, { ...options, sources: mine });
      sources.push(...mine);
      return rows;
    };
    const { rows, out } = await withProgress(ctx, 'Reading sessions', async () => {
      let rows: SessionSummary[];
      if (agent !== undefined) rows = await listOf(agent);
      else {
        // One agent after another, in the registry's order: each list's reads (peeks, the usage scan's
        // workers, whole reads) peak on their own instead of on top of another agent's. Claude first measured
        // lower than Codex first (bench/RESULTS.md, "Peak RSS on the largest inputs").
        const all: SessionSummary[] = [];
        for (const c of listCodecs()) all.push(...(await listOf(c.id)));
        rows = all.sort(compareSummaries(sort ?? 'date', direction ?? 'desc')).slice(0, limit ?? 100);
      }
      return { rows, out: await withBreakdown(manager, rows, fmt) };
    });
    const view: SessionListView = {
      format: fmt.format,
      compact: fmt.compact,
      noCost: fmt.noCost,
      inexact: rows.some((s) => !s.exact),
      timeZone: fmt.timeZone,
      ...(agent !== undefined && { agent, asked: [getCodec(agent).id] }),
    };
    return { rows: out, sources, view };
  },
  render: renderSessionList,
});
