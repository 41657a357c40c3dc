/**
 * The session tables' text: cells of a summary (dates in the local time zone, counts, cost), a column layout
 * that fits the terminal, and its width. Kept light (no registry, no scan): a served `sessions list` is
 * rendered with it in the client process.
 */
import { ZoneCalendar } from '../../cost/calendar.js';
import type { SessionSummary } from '../../sessions/types.js';
import { formatUsd } from '../../sessions/usd.js';
import { displayWidth, fitWidth, padEndWidth, padStartWidth, ruleLine } from './width.js';

/** What a row's cells are made of: a summary, or a served one with its dates revived. */
export type SummaryCellsInput = Pick<SessionSummary, 'updatedAt' | 'exact' | 'turnCount' | 'messageCount' | 'cost' | 'usageUnknown' | 'usageRecorded' | 'model'>;

/** The Cost (or Tokens) cell of a session whose agent records no usage (`usageRecorded: false`): never `-` or $0. */
export const UNRECORDED_CELL = 'not recorded';

const pad2 = (n: number) => String(n).padStart(2, '0');

/** One calendar per zone: its formatter costs more than a row. */
const calendars = new Map<string, ZoneCalendar>();
const calendarOf = (zone: string): ZoneCalendar => calendars.get(zone) ?? calendars.set(zone, new ZoneCalendar(zone)).get(zone)!;

/** `YYYY-MM-DD HH:MM` in `timeZone` (an IANA name), else in the process's local time zone (TZ). */
export function formatLocal(d: Date, timeZone?: string): string {
  if (timeZone !== undefined) {
    const ms = d.getTime();
    return new Date(ms + calendarOf(timeZone).offsetAt(ms)).toISOString().slice(0, 16).replace('T', ' ');
  }
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

/** The table width: `$COLUMNS`, else the width of the terminal `stdout` is, else 120. */
export function terminalWidth(io: { env: NodeJS.ProcessEnv; stdout: NodeJS.WritableStream }): number {
  const env = Number(io.env.COLUMNS);
  if (Number.isInteger(env) && env > 20) return env;
  const cols = (io.stdout as { columns?: number }).columns;
  return typeof cols === 'number' && cols > 20 ? cols : 120;
}

/** Whitespace runs folded to one space, then cut to `max` terminal columns with `…` (render/width.ts). */
export function ellipsize(text: string, max: number): string {
  return fitWidth(text.replace(/\s+/g, ' ').trim(), Math.max(1, max));
}

/**
 * Left-aligned columns (`rightAligned` ones and their headers right-aligned), measured in terminal columns
 * (render/width.ts), with a rule under the header as the cost tables have; the last column takes what width
 * remains.
 */
export function renderTable(header: string[], rows: string[][], width: number, rightAligned: ReadonlySet<number> = new Set()): string {
  const n = header.length;
  const widths = header.map((h, i) => (i === n - 1 ? 0 : Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? '')))));
  const used = widths.slice(0, -1).reduce((a, b) => a + b + 2, 0);
  const last = Math.max(10, width - used);
  widths[n - 1] = Math.max(...[header, ...rows].map((r) => displayWidth(ellipsize(r[n - 1] ?? '', last))));
  const line = (r: string[]) =>
    r
      .map((c, i) => {
        if (i === n - 1) return ellipsize(c, last);
        const w = widths[i] as number;
        return rightAligned.has(i) ? padStartWidth(c, w) : padEndWidth(c, w);
      })
      .join('  ')
      .trimEnd();
  return [line(header), ruleLine(widths), ...rows.map(line)].join('\n') + '\n';
}

/**
 * The COST cell: `unknown` when the agent recorded no tokens yet, `$x+` when only some (SessionEvent.usageUnknown),
 * UNRECORDED_CELL when it records none.
 */
function costCell(s: SummaryCellsInput): string {
  if (s.usageRecorded === false && (s.cost === undefined || s.cost.requestCount === 0)) return UNRECORDED_CELL;
  if (s.usageUnknown !== true) return formatUsd(s.cost);
  return s.cost === undefined || s.cost.requestCount === 0 ? 'unknown' : `${formatUsd(s.cost)}+`;
}

/** The table row cells of a summary (count cells marked `+` when they are lower bounds), dates in `timeZone`. */
export function summaryCells(s: SummaryCellsInput, timeZone?: string): { updated: string; turns: string; messages: string; cost: string; model: string } {
  const mark = s.exact ? '' : '+';
  return {
    updated: formatLocal(s.updatedAt, timeZone),
    turns: `${s.turnCount}${mark}`,
    messages: `${s.messageCount}${mark}`,
    cost: costCell(s),
    model: s.model ?? '-',
  };
}
