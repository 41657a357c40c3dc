/**
 * A session summary in the stable `--json` shape of docs/sessions.md, on its own so that the CLI's render step
 * of a served `sessions list` loads it without the registry and the session folds.
 */
import type { SessionSummary } from './types.js';

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
  copiedCost?: SessionSummary['copiedCost'];
  usageUnknown?: true;
  usageRecorded?: false;
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
    ...(s.copiedCost !== undefined && { copiedCost: s.copiedCost }),
    ...(s.usageUnknown === true && { usageUnknown: true }),
    ...(s.usageRecorded === false && { usageRecorded: false }),
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
