/**
 * The SessionManager: a read-only query surface over every registered codec (now and later), through the
 * registry alone. Each method is a fold over `codec.read()` event streams; nothing here parses a file, and
 * nothing opens an agent's file for writing.
 *
 * @example
 * import { createSessionManager } from 'sessionfold';
 * const sessions = createSessionManager();
 * const recent = await sessions.list('claude', { limit: 5 });
 * const full = await sessions.get('claude', recent[0].sessionId);
 * const { usageEvents } = await sessions.getWithUsage('claude', full.sessionId);
 * const hits = await sessions.search({ text: 'refactor auth', limit: 10 });
 * const md = await sessions.export('claude', full.sessionId, 'markdown');
 */
import type { CostAggregationOptions, CostMode, CostSummary } from '../cost/types.js';
import type { PriceableUsage, Pricer } from '../cost/pricing.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';
import { invalidOption } from '../../cursors/protocol/errors.js';
import { totalCost } from '../cost/total.js';
import { ManagerContext, normalizeManagerOptions } from './context.js';
import { diffSessions } from './diff.js';
import { checkExportFormat, renderExport, renderJsonl } from './export.js';
import { getSession, getSessionWithUsage, resolveSessionId, streamSession, type SessionStream, type StreamOptions } from './get.js';
import { resolveNativeId, resolveUnifiedId } from './ids.js';
import { listSessions } from './list.js';
import { getResumeCommand, type ResumeCommand } from './resume.js';
import { searchSessions } from './search.js';
import type { AgentName, ExportFormat, Session, SessionDiff, SessionListOptions, SessionManagerOptions, SessionQuery, SessionRef, SessionSummary, SessionWithUsage, UsagePricer } from './types.js';

function isRef(v: unknown): v is SessionRef {
  const r = v as Partial<SessionRef> | null;
  return typeof r === 'object' && r !== null && typeof r.agent === 'string' && typeof r.sessionId === 'string';
}

/** The two sessions of either form of `diff`; INVALID_OPTION (not a TypeError) for anything else. */
function diffRefs(args: readonly unknown[]): [SessionRef, SessionRef] {
  if (args.length === 4 && args.every((x) => typeof x === 'string')) {
    const [agentA, sessionIdA, agentB, sessionIdB] = args as string[];
    return [
      { agent: agentA as string, sessionId: sessionIdA as string },
      { agent: agentB as string, sessionId: sessionIdB as string },
    ];
  }
  if (args.length === 2 && isRef(args[0]) && isRef(args[1])) return [args[0], args[1]];
  throw invalidOption('diff arguments', '({agent, sessionId}, {agent, sessionId}) or (agentA, sessionIdA, agentB, sessionIdB)', args);
}

/** The spec's SessionManager over every registered agent: list, get, search, cost, export, diff and resume. */
export interface SessionManager {
  /** Summaries of one agent's sessions (lazy: head and tail of each file). AGENT_NOT_FOUND; `[]` without storage. */
  list(agent: AgentName, options?: SessionListOptions): Promise<SessionSummary[]>;
  /** One session, whole. AGENT_NOT_FOUND, SESSION_NOT_FOUND, PARSE_ERROR. */
  get(agent: AgentName, sessionId: string): Promise<Session>;
  /**
   * `get()`'s session and, from the same read of its file, the session's own usage events, each `dedupKey`
   * once (sessionfold extension): what `export(…, 'jsonl')` and the store's `importSession` write, so a copy
   * keeps its origin's keys and re-reads to the same cost. AGENT_NOT_FOUND, SESSION_NOT_FOUND, PARSE_ERROR.
   */
  getWithUsage(agent: AgentName, sessionId: string): Promise<SessionWithUsage>;
  /** Full-text search over one agent or all with storage; never AGENT_NOT_FOUND. */
  search(query: SessionQuery): Promise<SessionSummary[]>;
  /** The cost module's totals, with this manager's env, roots and cost mode as defaults. */
  totalCost(options?: CostAggregationOptions): Promise<CostSummary>;
  /**
   * One session without holding it whole (sessionfold extension): `get()`'s session but for its messages,
   * their count, and the messages one by one (get.ts `streamSession`); `exportPieces` writes it in any export
   * format. AGENT_NOT_FOUND, SESSION_NOT_FOUND, PARSE_ERROR.
   */
  stream(agent: AgentName, sessionId: string, options?: StreamOptions): Promise<SessionStream>;
  /**
   * The session as `json`, `jsonl` (readable back by the sessionfold-jsonl codec) or `markdown`, as one
   * string: the same layout `exportPieces` streams (renderExport, renderJsonl), from one read of the file.
   */
  export(agent: AgentName, sessionId: string, format: ExportFormat): Promise<string>;
  /**
   * Message-level LCS diff of two sessions (same agent or not): `diff({agent, sessionId}, {agent, sessionId})`
   * or the spec's four-argument `diff(agentA, idA, agentB, idB)`. INVALID_OPTION for any other arguments.
   */
  diff(a: SessionRef, b: SessionRef): Promise<SessionDiff>;
  diff(agentA: AgentName, sessionIdA: string, agentB: AgentName, sessionIdB: string): Promise<SessionDiff>;
  /** `<agent>:<nativeId>`, pure. */
  resolveUnifiedId(agent: AgentName, nativeSessionId: string): string;
  /** Split on the first colon; null when malformed or the agent is not registered. */
  resolveNativeId(unifiedId: string): { agent: AgentName; nativeSessionId: string } | null;
  /** The agent's own resume command for a session, and the cwd to run it in (sessionfold extension). */
  resumeCommand(agent: AgentName, sessionId: string): Promise<ResumeCommand>;
  /**
   * The whole id of a session named by its id or by a unique prefix of it (4 characters or more, as git
   * takes a commit's). SESSION_NOT_FOUND when no session, or more than one, matches (the message names them).
   */
  resolveId(agent: AgentName, idOrPrefix: string): Promise<string>;
}

/** A caller's UsagePricer as the totals fold's Pricer. */
function foldPricer(p: UsagePricer, mode: CostMode): Pricer {
  const price = (u: PriceableUsage, m: CostMode = mode) => p.price(u as UsageEvent, m);
  return {
    mode,
    overridesPath: undefined,
    price(u, m = mode) {
      const r = price(u, m);
      return { usd: r.usd, source: r.source === 'agent' ? 'agent' : 'calculated', unpriced: r.unpriced ?? r.usd === undefined };
    },
    priceUsd: (u, m = mode) => price(u, m).usd ?? NaN,
    calculate: (u) => price(u, 'calculate').usd,
    resolve: () => undefined,
  };
}

/** A SessionManager over the registry (see the file header). Options are checked here, once. */
export function createSessionManager(options?: SessionManagerOptions): SessionManager {
  const ctx = new ManagerContext(normalizeManagerOptions(options));
  const o = ctx.options;
  return {
    list: (agent, opts) => listSessions(ctx, agent, opts),
    get: (agent, id) => getSession(ctx, agent, id),
    async getWithUsage(agent, id) {
      const { session, usageEvents } = await getSessionWithUsage(ctx, agent, id, true);
      return { session, usageEvents: usageEvents ?? [] };
    },
    stream: (agent, id, opts) => streamSession(ctx, agent, id, opts),
    search: (query) => searchSessions(ctx, query),
    totalCost: (opts = {}) =>
      totalCost({
        env: o.env,
        mode: o.costMode,
        cache: o.cache,
        ...(o.cachePath !== undefined && { cachePath: o.cachePath }),
        ...(Object.keys(o.roots).length > 0 && { roots: o.roots }),
        ...(o.pricesFile !== undefined && { pricesFile: o.pricesFile }),
        // The manager's own pricer prices its totals too (as its sessions); it has no fingerprint, so
        // these totals are folded fresh each time rather than from a stored snapshot.
        ...(o.pricer !== undefined && { pricer: foldPricer(o.pricer, opts.mode ?? o.costMode) }),
        ...opts,
      }),
    async export(agent, id, format) {
      const f = checkExportFormat(format);
      // one read: the JSONL lines' own usage keys are the fold's usage events
      const { session, usageEvents } = await getSessionWithUsage(ctx, agent, id, f === 'jsonl');
      return f === 'jsonl' ? renderJsonl(session, usageEvents ?? []) : renderExport(session, f);
    },
    async diff(...args: [SessionRef, SessionRef] | [AgentName, string, AgentName, string]) {
      const [a, b] = diffRefs(args);
      const [sa, sb] = await Promise.all([getSession(ctx, a.agent, a.sessionId), getSession(ctx, b.agent, b.sessionId)]);
      return diffSessions(sa, sb);
    },
    resolveUnifiedId,
    resolveNativeId,
    resumeCommand: (agent, id) => getResumeCommand(ctx, agent, id),
    resolveId: (agent, id) => resolveSessionId(ctx, agent, id),
  };
}
