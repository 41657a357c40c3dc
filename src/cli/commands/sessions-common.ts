/**
 * What the `sessions` sub-commands share: the manager built from the command's env, date and number
 * options, `<agent> <id>` / `<agent>:<id>` arguments, the stable `--json` shape of a summary, table layout
 * and color. Output formatting lives here so every sub-command prints dates, costs and ids the same way.
 */
import { parseDateInZone, ZoneCalendar } from '../../cost/calendar.js';
import { timeZoneOf } from './cost-options.js';
import { resolveNativeId } from '../../sessions/ids.js';
import { createSessionManager, type SessionManager } from '../../sessions/manager.js';
import type { SessionManagerOptions } from '../../sessions/types.js';
import { SessionfoldError } from '../../../cursors/protocol/errors.js';
import { findCodec } from '../../registry.js';
import { CliError, str, type CommandContext } from '../command.js';

export { ellipsize, formatLocal, renderTable, summaryCells, terminalWidth } from '../render/session-table.js';
export { summaryJson } from '../../sessions/listing.js';

export function makeManager(ctx: CommandContext): SessionManager {
  return createSessionManager({ env: ctx.env });
}

/**
 * A date option, parsed as `cost` parses it (`parseDateInZone`): `YYYY-MM-DD` / `YYYYMMDD` is midnight in the
 * command's time zone (`--tz`, else `TZ`, else local; with `endOfDay`, the last millisecond of that day), or an
 * ISO 8601 time. INVALID_OPTION otherwise.
 */
export function parseDateOption(ctx: CommandContext, name: string, endOfDay: boolean): Date | undefined {
  const value = str(ctx, name);
  if (value === undefined) return undefined;
  return parseDateInZone(value, new ZoneCalendar(timeZoneOf(ctx)), endOfDay, `--${name}`);
}

export function parseIntOption(ctx: CommandContext, name: string): number | undefined {
  const v = str(ctx, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new CliError('INVALID_OPTION', `Invalid option --${name}: expected a positive integer, got "${v}"`);
  return Number(v);
}

export function parseChoice<T extends string>(ctx: CommandContext, name: string, choices: readonly T[]): T | undefined {
  const v = str(ctx, name);
  if (v === undefined) return undefined;
  if (!(choices as readonly string[]).includes(v)) throw new CliError('INVALID_OPTION', `Invalid option --${name}: expected ${choices.join('|')}, got "${v}"`);
  return v as T;
}

/**
 * A session argument: `<agent> <id>` (two positionals from `from`) or one unified `<agent>:<id>`.
 * Unknown agents give AGENT_NOT_FOUND.
 */
export function sessionArgs(ctx: CommandContext, from = 0): { agent: string; id: string } {
  const [a, b] = ctx.positionals.slice(from);
  if (a !== undefined && b !== undefined) {
    const codec = findCodec(a);
    if (codec === undefined) throw new SessionfoldError('AGENT_NOT_FOUND', `Unknown agent "${a}" (sessionfold agents lists them)`, { agent: a });
    return { agent: codec.id, id: b };
  }
  if (a !== undefined) return unifiedArg(a);
  throw new CliError('USAGE_ERROR', 'expected <agent> <session-id> or <agent>:<session-id>');
}

/**
 * `sessionArgs` with the id made whole: a person may name a session by the first characters of its id
 * (`resolveId`: a unique prefix of 4 or more). `options` are the manager's the command reads with.
 */
export async function sessionTarget(ctx: CommandContext, options: SessionManagerOptions = { env: ctx.env }, from = 0): Promise<{ agent: string; id: string }> {
  const { agent, id } = sessionArgs(ctx, from);
  return { agent, id: await createSessionManager(options).resolveId(agent, id) };
}

/** `<agent>:<id>` → parts; USAGE_ERROR without a colon, AGENT_NOT_FOUND for an unknown agent. */
export function unifiedArg(arg: string): { agent: string; id: string } {
  const r = resolveNativeId(arg);
  if (r !== null) return { agent: r.agent, id: r.nativeSessionId };
  const i = arg.indexOf(':');
  if (i <= 0 || i === arg.length - 1) throw new CliError('USAGE_ERROR', `expected <agent>:<session-id>, got "${arg}"`);
  throw new SessionfoldError('AGENT_NOT_FOUND', `Unknown agent "${arg.slice(0, i)}" in "${arg}" (sessionfold agents lists them)`, { agent: arg.slice(0, i) });
}

export interface Palette {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

/** ANSI colors when `--color`, or when not `--no-color`, NO_COLOR is unset and stdout is a TTY. */
export function palette(ctx: CommandContext): Palette {
  const flag = ctx.values.color;
  const on = flag === true || (flag !== false && !ctx.env.NO_COLOR && (ctx.stdout as { isTTY?: boolean }).isTTY === true);
  const wrap = (code: string) => (s: string) => (on ? `\x1b[${code}m${s}\x1b[0m` : s);
  return { red: wrap('31'), green: wrap('32'), yellow: wrap('33'), dim: wrap('2'), bold: wrap('1') };
}

/** Quote one argv word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
