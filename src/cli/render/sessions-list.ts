/**
 * `sessions list` as text: the rows in the chosen format (table, JSON, CSV, Markdown; render/sessions.ts) on
 * stdout and the roots looked in on stderr, from the listing's data, the same whether it was computed in this
 * process or by `serve` (whose JSON carries the dates as strings: they are revived here).
 */
import type { SourceReport } from '../../scan/sources.js';
import { stderrIsTerminal, writeSourceNotes } from '../sources.js';
import type { CostFormat } from './cost.js';
import type { RenderIo } from './io.js';
import { terminalWidth } from './session-table.js';
import { renderSessions, type SessionRow } from './sessions.js';

/** What `sessions list` shows besides the rows. */
export interface SessionListView {
  format: CostFormat;
  compact: boolean;
  noCost: boolean;
  /** Some row counts only the head and tail of its file (lower bounds). */
  inexact: boolean;
  /** The agent asked for, as given (absent: every agent), and its codec id. */
  agent?: string;
  asked?: readonly string[];
  /** The zone of the table's dates (`--tz`, else TZ, else local), as the command resolved it. */
  timeZone?: string;
}

const revive = (d: Date | string): Date => (d instanceof Date ? d : new Date(d));

/** Write the listing to `io`; the exit code. */
export function renderSessionList(data: { rows: SessionRow[]; sources: SourceReport[]; view: SessionListView }, io: RenderIo): number {
  const { view } = data;
  const rows = data.rows.map((r) => ({ ...r, summary: { ...r.summary, createdAt: revive(r.summary.createdAt), updatedAt: revive(r.summary.updatedAt) } }));
  writeSourceNotes(io.stderr, data.sources, { env: io.env, asked: view.asked, verbose: view.format !== 'json' && stderrIsTerminal(io.stderr) });
  const empty = `No sessions${view.agent !== undefined ? ` for ${view.agent}` : ''}.`;
  io.stdout.write(renderSessions(rows, view.format, { search: false, withAgent: view.agent === undefined, width: terminalWidth(io), compact: view.compact, noCost: view.noCost, timeZone: view.timeZone }, empty));
  if (view.format === 'table' && view.inexact) io.stdout.write('+ counts from the head and tail of the file only (lower bounds); --full reads every listed session whole\n');
  return 0;
}
