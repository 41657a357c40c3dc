/**
 * `sessions list` as data: the sessions of one agent, or of every agent merged newest first, each in the
 * stable JSON shape of docs/sessions.md (`summaryJson`). What the CLI prints and what `serve` sends are made
 * from this; turning it into a table is the CLI's (src/cli/render/sessions-list.ts).
 */
import { listCodecs } from '../registry.js';
import { compareSummaries } from './list.js';
import type { SessionManager } from './manager.js';
import { summaryJson, type SessionSummaryJson } from './summary-json.js';
import type { SessionListOptions, SessionSummary } from './types.js';

export { summaryJson, type SessionSummaryJson } from './summary-json.js';

/** What `sessions list` answers: plain JSON data. */
export interface SessionListing {
  /** The agent asked for, as given; absent: every agent. */
  agent?: string;
  sessions: SessionSummaryJson[];
}

/** List `agent`'s sessions, or every agent's merged (sorted as asked, cut to the limit). */
export async function listSessionsData(manager: SessionManager, agent: string | undefined, options: SessionListOptions): Promise<SessionListing> {
  let rows: SessionSummary[];
  if (agent !== undefined) rows = await manager.list(agent, options);
  else {
    const all = await Promise.all(listCodecs().map((c) => manager.list(c.id, options)));
    rows = all.flat().sort(compareSummaries(options.sort ?? 'date', options.sortDirection ?? 'desc')).slice(0, options.limit ?? 100);
  }
  return { ...(agent !== undefined && { agent }), sessions: rows.map(summaryJson) };
}
