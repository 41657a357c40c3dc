/**
 * `sessions list` as data: the sessions of one agent, or of every agent merged newest first, each in the
 * stable JSON shape of docs/sessions.md (`summaryJson`). What the CLI prints and what `serve` sends are made
 * from this; turning it into a table is the CLI's (src/cli/render/sessions-list.ts).
 */
import { listCodecs } from '../registry.js';
import { compareSummaries } from './list.js';
import type { SessionManager } from './manager.js';
import type { SessionListOptions, SessionSummary } from './types.js';

/** A summary in the stable `--json` shape: fixed key order, ISO dates, absent fields left out. */
export interface SessionSummaryJson {
  agent: string;
  sessionId: string;
  unifiedId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  turnCount: number;
  messageCount: number;
  exact: boolean;
  model?: string;
  cost?: SessionSummary['cost'];
  usageUnknown?: true;
  tags: string[];
  cwd?: string;
  forkedFrom?: string;
  subagent?: true;
  relevanceScore?: number;
  snippet?: string;
  file: string;
  sizeBytes: number;
}

/** The stable `--json` shape of a summary: fixed key order, ISO dates, absent fields omitted. */
export function summaryJson(s: SessionSummary): SessionSummaryJson {
  return {
    agent: s.agent,
    sessionId: s.sessionId,
    unifiedId: s.unifiedId,
    title: s.title,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    turnCount: s.turnCount,
    messageCount: s.messageCount,
    exact: s.exact,
    ...(s.model !== undefined && { model: s.model }),
    ...(s.cost !== undefined && { cost: s.cost }),
    ...(s.usageUnknown === true && { usageUnknown: true }),
    tags: s.tags,
    ...(s.cwd !== undefined && { cwd: s.cwd }),
    ...(s.forkedFrom !== undefined && { forkedFrom: s.forkedFrom }),
    ...(s.subagent === true && { subagent: true }),
    ...(s.relevanceScore !== undefined && { relevanceScore: s.relevanceScore }),
    ...(s.snippet !== undefined && { snippet: s.snippet }),
    file: s.file,
    sizeBytes: s.sizeBytes,
  };
}

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
