/**
 * The output options `sessions list` and `sessions search` share with `cost report`: `--format` (and
 * `--json`), `--last N` (days, today included), `--order asc|desc`, `--compact`, `--no-cost` and
 * `--breakdown` (each session's usage per model, from its own fold as `sessions show` reads it).
 */
import { periodStart, ZoneCalendar } from '../../cost/calendar.js';
import { mapLimit } from '../../sessions/context.js';
import type { SessionManager } from '../../sessions/manager.js';
import type { SessionSummary } from '../../sessions/types.js';
import { bool, CliError, str, type CommandContext, type OptionDef } from '../command.js';
import { COST_FORMATS, type CostFormat } from '../render/cost.js';
import type { ModelUsage, SessionRow } from '../render/sessions.js';
import { timeZoneOf } from './cost-options.js';

export const SESSION_FORMAT_OPTIONS: Record<string, OptionDef> = {
  format: { type: 'string', short: 'f', description: `Output: ${COST_FORMATS.join('|')} (default table)`, valueName: '<fmt>' },
  json: { type: 'boolean', description: 'Same as --format json: a JSON array (schema: docs/sessions.md)' },
  last: { type: 'string', description: 'Only sessions created in the last n days, today included (in --tz)', valueName: '<n>' },
  order: { type: 'string', description: 'Row order: asc|desc (default desc)', valueName: '<dir>' },
  compact: { type: 'boolean', description: 'Fewer columns, so the table fits 80 columns' },
  'no-cost': { type: 'boolean', description: 'Tokens only: a Tokens column instead of Cost (no money fields in JSON/CSV)' },
  breakdown: { type: 'boolean', short: 'b', description: 'Each session\'s usage per model under its row (reads each listed session whole)' },
  tz: { type: 'string', description: 'IANA time zone for dates and --last (default: local)', valueName: '<zone>' },
};

export interface SessionFormat {
  format: CostFormat;
  order: 'asc' | 'desc' | undefined;
  compact: boolean;
  noCost: boolean;
  breakdown: boolean;
  /** From `--last n`: the start of the day n-1 days before today. */
  lastSince: Date | undefined;
  /** The zone of the dates (`--tz`, else TZ, else local): checked here, so a bad `--tz` fails whatever else is asked. */
  timeZone: string;
}

/** Parse the shared output options (INVALID_OPTION for a bad value). */
export function sessionFormatFromArgs(ctx: CommandContext): SessionFormat {
  const f = bool(ctx, 'json') ? 'json' : (str(ctx, 'format') ?? 'table');
  if (!(COST_FORMATS as readonly string[]).includes(f)) throw new CliError('INVALID_OPTION', `Invalid option --format: expected ${COST_FORMATS.join('|')}, got "${f}"`);
  const order = str(ctx, 'order');
  if (order !== undefined && order !== 'asc' && order !== 'desc') throw new CliError('INVALID_OPTION', `Invalid option --order: expected asc|desc, got "${order}"`);
  const last = str(ctx, 'last');
  const timeZone = timeZoneOf(ctx);
  let lastSince: Date | undefined;
  if (last !== undefined) {
    if (!/^[1-9]\d{0,5}$/.test(last)) throw new CliError('INVALID_OPTION', `Invalid option --last: expected a whole number of days (1 or more), got "${last}"`);
    lastSince = new Date(periodStart(new ZoneCalendar(timeZone), 'day', Number(last) - 1, Date.now()));
  }
  return {
    format: f as CostFormat,
    order,
    compact: bool(ctx, 'compact'),
    noCost: bool(ctx, 'no-cost') || ctx.values.cost === false,
    breakdown: bool(ctx, 'breakdown'),
    lastSince,
    timeZone,
  };
}

/** The later of `--since` and `--last`'s start. */
export function laterSince(since: Date | undefined, fmt: SessionFormat): Date | undefined {
  if (fmt.lastSince === undefined) return since;
  return since === undefined || since.getTime() < fmt.lastSince.getTime() ? fmt.lastSince : since;
}

/** Each summary with its per-model usage (highest cost first) when `--breakdown`; a session that cannot be read gets none. */
export async function withBreakdown(manager: SessionManager, rows: SessionSummary[], fmt: SessionFormat): Promise<SessionRow[]> {
  if (!fmt.breakdown) return rows.map((summary) => ({ summary }));
  return mapLimit(rows, 4, async (summary) => {
    let models: ModelUsage[] = [];
    try {
      const s = await manager.get(summary.agent, summary.sessionId);
      models = Object.entries(s.costByModel ?? {})
        .map(([model, cost]) => ({ model, cost }))
        .sort((a, b) => b.cost.totalUsd - a.cost.totalUsd || a.model.localeCompare(b.model));
    } catch {
      /* the row stands without its models */
    }
    return { summary, models };
  });
}
