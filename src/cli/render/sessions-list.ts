/**
 * `sessions list` as text: the JSON array (`--json`) or the table, from the listing's data (src/sessions/
 * listing.ts), the same whether it was computed in this process or by `serve`.
 */
import type { SessionListing } from '../../sessions/listing.js';
import type { RenderIo } from './io.js';
import { renderTable, summaryCells, terminalWidth } from './sessions.js';

/** What `sessions list` shows besides the listing. */
export interface SessionListView {
  json: boolean;
}

/** Write the listing to `io.stdout` (a table as wide as the terminal, dates in the local time zone); the exit code. */
export function renderSessionList(data: { listing: SessionListing; view: SessionListView }, io: RenderIo): number {
  const { agent, sessions } = data.listing;
  if (data.view.json) {
    io.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    io.stdout.write(`No sessions${agent !== undefined ? ` for ${agent}` : ''}.\n`);
    return 0;
  }
  const withAgent = agent === undefined;
  const header = ['UPDATED', ...(withAgent ? ['AGENT'] : []), 'SESSION', 'MODEL', 'TURNS', 'MSGS', 'COST', 'TITLE'];
  const body = sessions.map((s) => {
    const c = summaryCells({ ...s, updatedAt: new Date(s.updatedAt) });
    return [c.updated, ...(withAgent ? [s.agent] : []), s.sessionId, c.model, c.turns, c.messages, c.cost, s.title === '' ? '(untitled)' : s.title];
  });
  const right = new Set(withAgent ? [4, 5, 6] : [3, 4, 5]);
  io.stdout.write(renderTable(header, body, terminalWidth(io), right));
  if (sessions.some((s) => !s.exact)) io.stdout.write('+ counts from the head and tail of the file only (lower bounds); --full reads every listed session whole\n');
  return 0;
}
