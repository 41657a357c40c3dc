/**
 * Renderings of a BlocksReport for `sessionfold cost blocks`: a terminal table (one row per window or gap,
 * start times in the report's zone, the active window marked) with the active windows' burn rate and
 * projection under it, and JSON (the report object, fields named as `ccusage blocks --json` names them).
 */
import type { BlocksReport, UsageBlock } from '../../cost/blocks.js';
import { ZoneCalendar } from '../../cost/calendar.js';
import { int, usd } from './cost.js';
import { displayWidth, padEndWidth, padStartWidth, ruleLine } from './width.js';

/** Output formats of `cost blocks`. */
export const BLOCK_FORMATS = ['table', 'json'] as const;
/** One of BLOCK_FORMATS. */
export type BlockFormat = (typeof BLOCK_FORMATS)[number];

/** `2h 05m` of a span in ms. */
function span(ms: number): string {
  const m = Math.max(0, Math.round(ms / 60_000));
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** `YYYY-MM-DD HH:MM` of an ISO instant in the calendar's zone. */
function wall(cal: ZoneCalendar, isoTime: string): string {
  const ms = Date.parse(isoTime);
  return new Date(ms + cal.offsetAt(ms)).toISOString().slice(0, 16).replace('T', ' ');
}

function status(b: UsageBlock, nowMs: number): string {
  const start = Date.parse(b.startTime);
  const end = Date.parse(b.endTime);
  if (b.isGap) return `gap ${span(end - start)}`;
  if (b.isActive) return `ACTIVE ${span(end - nowMs)} left`;
  return span(Date.parse(b.actualEndTime ?? b.startTime) - start);
}

const HEADERS = ['Agent', 'Window Start', 'Status', 'Models', 'Requests', 'Input', 'Output', 'Cache Write', 'Cache Read', 'Total Tokens', 'Cost (USD)'];

function costCell(b: UsageBlock): string {
  if (b.unpricedCount > 0 && b.unpricedCount === b.entries) return 'n/a*';
  return b.unpricedCount > 0 ? `${usd(b.costUSD)}*` : usd(b.costUSD);
}

/** The terminal table; `nowMs` is the instant the report was folded at (for the time left). */
export function renderBlocksTable(r: BlocksReport, timeZone: string, nowMs: number): string {
  const cal = new ZoneCalendar(timeZone);
  const t = r.blocks.map((b) => b.tokenCounts);
  const body = r.blocks.map((b, i) => {
    const c = t[i] as UsageBlock['tokenCounts'];
    return b.isGap
      ? [b.agent, wall(cal, b.startTime), status(b, nowMs), '', '', '', '', '', '', '', '']
      : [b.agent, wall(cal, b.startTime), status(b, nowMs), b.models.join(', '), int(b.entries), int(c.inputTokens), int(c.outputTokens), int(c.cacheCreationInputTokens), int(c.cacheReadInputTokens), int(b.totalTokens), costCell(b)];
  });
  const all = [HEADERS, ...body];
  const widths = HEADERS.map((_, c) => Math.max(...all.map((row) => displayWidth(row[c] as string))));
  const line = (row: string[]) => row.map((x, c) => (c < 4 ? padEndWidth(x, widths[c] as number) : padStartWidth(x, widths[c] as number))).join('  ').trimEnd();
  const rule = ruleLine(widths);
  const out = [`Billing windows (5 h) · time zone ${timeZone}`, '', line(HEADERS), rule, ...body.map(line)];
  if (r.blocks.length === 0) out.push('(no usage in the selection)');
  for (const b of r.blocks.filter((x) => x.isActive)) {
    out.push('', `Active ${b.agent} window, ${wall(cal, b.startTime)} to ${wall(cal, b.endTime)}:`);
    if (b.burnRate === null) out.push('  burn rate: not yet known (one request so far)');
    else out.push(`  burn rate:  ${int(b.burnRate.tokensPerMinute)} tokens/min, ${usd(b.burnRate.costPerHour)}/h`);
    if (b.projection !== null) out.push(`  projection: ${int(b.projection.totalTokens)} tokens, ${usd(b.projection.totalCost)} by the window's end (${int(b.projection.remainingMinutes)} min left)`);
  }
  if (r.blocks.some((b) => b.unpricedCount > 0)) out.push('', '* Some usage has no price and is not included in the cost (`cost report` lists it).');
  if (r.untimedCount > 0) out.push('', `${int(r.untimedCount)} request${r.untimedCount === 1 ? '' : 's'} without a timestamp belong to no window.`);
  return out.join('\n') + '\n';
}

/** Render a report in one of the formats. */
export function renderBlocks(r: BlocksReport, format: BlockFormat, timeZone: string, nowMs: number): string {
  return format === 'json' ? JSON.stringify(r, null, 2) + '\n' : renderBlocksTable(r, timeZone, nowMs);
}
