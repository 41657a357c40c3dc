/**
 * The SessionManager's public types: the spec's SessionSummary, Session, SessionMessage, SessionToolCall,
 * SessionQuery, SessionListOptions, SessionDiff and DiffOperation, with a few additive fields the spec leaves
 * out but a real user needs (the file a session lives in, whether a summary's counts are exact, the search
 * snippet, the full usage of a message so an export loses nothing). Agents are plain strings: any codec id
 * registered now or later is an agent name.
 */
import type { CostMode, CostRecord } from '../cost/types.js';
import type { TokenCounts, UsageEvent } from '../../cursors/protocol/events.js';
import type { SourceReport } from '../scan/sources.js';

/** A registered codec id (`claude`, `codex`, `sessionfold-jsonl`, or a plugin's). */
export type AgentName = string;

/** A lightweight session, returned by `list()` and `search()`. */
export interface SessionSummary {
  agent: AgentName;
  /** The agent's native session id, never rewritten. */
  sessionId: string;
  /** `<agent>:<sessionId>`. */
  unifiedId: string;
  /** The agent's own title, else the first user prompt cut to 100 characters; `''` when neither exists. */
  title: string;
  createdAt: Date;
  /** Latest event timestamp, else the file's mtime. */
  updatedAt: Date;
  /** User prompts answered by at least one assistant message. */
  turnCount: number;
  /** Messages of every role (the length of `get().messages`). */
  messageCount: number;
  /** The most-used model (by requests); from the file's tail when the summary is not exact. */
  model?: string;
  /**
   * Whole-session cost: the session's own spend, its copies of another session's responses left out (usage
   * marked `copied`: a resumed, branched or forked history), so the costs of a parent and its forks add up to
   * `totalCost()`'s. Present only when every usage event of the session was read ($0 for a fork that has
   * only copied usage yet).
   */
  cost?: CostRecord;
  /**
   * The responses the session's file copied from another session (UsageEvent.copied), priced as they are;
   * not in `cost`, as they count in the session that made them. Present only with `cost` and such usage.
   */
  copiedCost?: CostRecord;
  /**
   * The agent has not recorded all of this session's tokens (SessionEvent.usageUnknown: Copilot CLI writes them
   * when a run of the process ends): `cost` is a lower bound, or absent when nothing was recorded, never zero.
   */
  usageUnknown?: true;
  /**
   * `false` when the agent records no token usage at all (Cursor: `Codec.capabilities.recordsUsage`; an Antigravity step log without its database;
   * or an export of such a session, whose header says so): no `cost` because the usage is unknown, not because it was none.
   */
  usageRecorded?: false;
  tags: string[];
  cwd?: string;
  forkedFrom?: string;
  /** Search results only, in [0, 1]. */
  relevanceScore?: number;
  /** Search results only: the matching text, whitespace collapsed, cut around the first hit with `…`. */
  snippet?: string;
  /**
   * True when `messageCount` and `turnCount` come from a fold over the whole file. False when they come from
   * the head and tail windows of a large file only (then they are lower bounds).
   */
  exact: boolean;
  /** Path of the file (or database) the session lives in. */
  file: string;
  /** Size of that file in bytes. */
  sizeBytes: number;
  /** True for a subagent / sidechain transcript. */
  subagent?: boolean;
}

/** A tool call issued by an assistant message, with its result attached when the session holds one. */
export interface SessionToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  output?: unknown;
  /** True when the tool reported an error. */
  isError?: boolean;
  durationMs?: number;
}

/** Every usage field of the events attached to one message, summed, so an export can be read back losslessly. */
export interface SessionMessageUsage extends TokenCounts {
  model: string;
  /** True when the agent did not record the model and the codec used a fallback. */
  modelFallback?: boolean;
  provider?: string;
  /** The agent's own recorded cost, when every attached event had one. */
  costUsd?: number;
  /** Non-standard inference speed (e.g. `fast`), when every attached event had the same one. */
  speed?: string;
  /** Server-side web searches, summed. */
  webSearchRequests?: number;
  singleRequest: boolean;
  /** The dedup key(s) of the attached events, `+`-joined when several. */
  dedupKey: string;
  /** How many usage events were attached. */
  requests: number;
  /** Every attached event was copied from another session (UsageEvent.copied). */
  copied?: boolean;
}

/** One message of a whole session, with its tool calls and usage. */
export interface SessionMessage {
  role: 'user' | 'assistant' | 'system' | 'tool';
  /** Text; `''` for tool-only messages. Lines sharing the message's native id are joined with a blank line. */
  content: string;
  timestamp?: Date;
  toolCalls?: SessionToolCall[];
  toolResult?: { toolCallId: string; toolName: string; output: unknown; isError?: boolean };
  /** The spec's token view: input is uncached input; cachedTokens = cache reads + cache writes. */
  tokenUsage?: { inputTokens: number; outputTokens: number; thinkingTokens?: number; cachedTokens?: number };
  cost?: CostRecord;
  thinking?: string;
  model?: string;
  /** The agent's id for the message (Claude `message.id`, …). */
  id?: string;
  /** Injected context, compaction summary, … (from the codec). */
  subtype?: string;
  /** Full usage behind `tokenUsage` and `cost`. */
  usage?: SessionMessageUsage;
}

/** One usage event that belongs to no message (usage-only records, usage before any reply). */
export interface OrphanUsage extends SessionMessageUsage {
  /** ISO-8601, as the agent recorded it. */
  timestamp?: string;
}

/** Native details normalization hides, kept on `Session.raw`. */
export interface SessionRaw {
  file: string;
  sizeBytes: number;
  /** `<codec>@n<core>.p<parser>`. */
  parser: string;
  lines: number;
  skippedLines: number;
  events: number;
  /** Every `session` event of the file, as the codec yielded it (version, gitBranch, provider, …). */
  sessionEvents: Record<string, unknown>[];
  /** Usage events attached to no message (counted in `cost`); the JSONL export keeps them. */
  orphanUsage: OrphanUsage[];
  /** Tool results whose call was not in the session. */
  unmatchedToolResults: number;
}

/** One whole session: its summary, every message, and the raw records where asked. */
export interface Session {
  agent: AgentName;
  sessionId: string;
  unifiedId: string;
  title: string;
  createdAt: Date;
  updatedAt: Date;
  turnCount: number;
  model?: string;
  /** The session's own spend, as SessionSummary.cost (usage marked `copied` left out). */
  cost?: CostRecord;
  /** Usage copied from another session, as SessionSummary.copiedCost (each message keeps its own cost). */
  copiedCost?: CostRecord;
  /** Own cost per model (every usage event not marked `copied`, attached to a message or not). */
  costByModel?: Record<string, CostRecord>;
  /**
   * The agent has not recorded all of this session's tokens (SessionEvent.usageUnknown: Copilot CLI writes them
   * when a run of the process ends): `cost` is a lower bound, or absent when nothing was recorded, never zero.
   */
  usageUnknown?: true;
  /**
   * `false` when the agent records no token usage at all (Cursor: `Codec.capabilities.recordsUsage`; an Antigravity step log without its database;
   * or an export of such a session, whose header says so): no `cost` because the usage is unknown, not because it was none.
   */
  usageRecorded?: false;
  tags: string[];
  cwd?: string;
  forkedFrom?: string;
  messages: SessionMessage[];
  raw?: SessionRaw;
}

/** `SessionManager.getWithUsage`'s answer: `get()`'s session and the usage events its fold kept, from one read. */
export interface SessionWithUsage {
  session: Session;
  /**
   * The session's own usage events as its codec yielded them, in the order read, each `dedupKey` once (its
   * first), with their origin's keys and times: what is written from them re-reads to the same cost
   * (`export(…, 'jsonl')`).
   */
  usageEvents: UsageEvent[];
}

/** Filters, sort and limit of `SessionManager.list`. */
export interface SessionListOptions {
  /** Sessions created on or after. */
  since?: Date;
  /** Sessions created on or before. */
  until?: Date;
  /** Sessions that used a model whose id contains this (case-insensitive). */
  model?: string;
  /** Sessions with any of these tags. */
  tags?: string[];
  /** Default 100. */
  limit?: number;
  /** Default `date` (updatedAt). */
  sort?: 'date' | 'cost' | 'turns';
  /** Default `desc`. */
  sortDirection?: 'asc' | 'desc';
  /** Sessions whose cwd is this directory or below it. */
  cwd?: string;
  /** Fold every returned session's whole file, so counts and cost are exact. Default false. */
  full?: boolean;
  /**
   * Fold whole, in output order, the returned sessions that are not exact yet, as long as their files add
   * up to at most this many bytes (larger ones stay lazy). Default 0; the CLI uses 64 MiB.
   */
  exactBytes?: number;
  /** Include subagent / sidechain transcripts. Default false. */
  subagents?: boolean;
  /**
   * Filled in (its old entries replaced): the agent's roots, each found (with its session files, and the
   * folders and files that could not be read, left out of the list), unreadable (and why) or missing, as
   * `ScanOptions.sources` is for a cost report.
   */
  sources?: SourceReport[];
}

/** A full-text query of `SessionManager.search`, with its filters. */
export interface SessionQuery {
  /** Case-insensitive; whitespace-separated terms must all occur; `"quoted phrases"` stay together. */
  text: string;
  /** One agent; an unknown agent gives `[]`. Default: every agent with storage on this machine. */
  agent?: AgentName;
  since?: Date;
  until?: Date;
  model?: string;
  tags?: string[];
  /** Default 50. */
  limit?: number;
  /** Default `relevance`. */
  sort?: 'relevance' | 'date' | 'cost';
  subagents?: boolean;
  /**
   * Filled in (its old entries replaced): the roots of the agents searched (the one asked for, else every
   * agent), each found (with its session files, and the folders and files that could not be read, left out
   * of the results), unreadable (and why) or missing, as `SessionListOptions.sources` is for a list.
   */
  sources?: SourceReport[];
  /** Counters of the walk (files pre-filtered, read, early stop); for tools and tests. */
  onStats?: (stats: SearchStats) => void;
}

export interface SearchStats {
  /** Candidate files after discovery and mtime filters. */
  files: number;
  /** Files rejected by the raw-byte pre-filter without parsing. */
  prefiltered: number;
  /** Files parsed. */
  read: number;
  /** Files never opened because the walk stopped early. */
  skippedEarly: number;
  stoppedEarly: boolean;
}

/** One session of one agent, as `diff` takes it. */
export interface SessionRef {
  agent: AgentName;
  sessionId: string;
}

/** One step of a diff's alignment: a message kept, added or removed. */
export interface DiffOperation {
  type: 'addition' | 'removal' | 'modification' | 'unchanged';
  indexA?: number;
  indexB?: number;
  messageA?: SessionMessage;
  messageB?: SessionMessage;
}

/** The message-level alignment of two sessions. */
export interface SessionDiff {
  a: { agent: AgentName; sessionId: string; unifiedId: string };
  b: { agent: AgentName; sessionId: string; unifiedId: string };
  operations: DiffOperation[];
  stats: { removals: number; additions: number; modifications: number; unchanged: number };
}

/** What `SessionManager.export` writes: JSON, sessionfold JSONL, or markdown. */
export type ExportFormat = 'json' | 'jsonl' | 'markdown';

/** What `createPricer()` of the cost module gives: one price per usage event. */
export interface UsagePricer {
  price(usage: UsageEvent, mode: CostMode): { usd: number | undefined; source?: string; unpriced?: boolean };
}

/** Where a SessionManager reads (environment, roots) and how it prices. */
export interface SessionManagerOptions {
  /** Environment for roots, tags and prices. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Per-agent roots overriding the codecs' `defaultRoots(env)`. */
  roots?: Record<string, string[]>;
  /** Default `auto`: the agent's recorded cost when present, else computed. */
  costMode?: CostMode;
  /** A pricer; default the cost module's `createPricer()`. */
  pricer?: UsagePricer;
  /** Price-override config file for the default pricer. */
  pricesFile?: string;
  /** Files opened at once by list and search. Default 8. */
  concurrency?: number;
  /** Use the event cache for usage over many sessions (`list --sort cost`, `--model`, totalCost). Default true. */
  cache?: boolean;
  /** Path of the event cache database (default `$SESSIONFOLD_CACHE`, else `$XDG_CACHE_HOME/sessionfold/events.db`). */
  cachePath?: string;
}

/** A summary as stored: a SessionSummary without what tags, path and stat give; dates in ms. */
export interface SummaryData {
  sessionId: string;
  title: string;
  createdMs: number;
  updatedMs: number;
  turnCount: number;
  messageCount: number;
  exact: boolean;
  model?: string;
  cost?: CostRecord;
  copiedCost?: CostRecord;
  cwd?: string;
  forkedFrom?: string;
  subagent?: true;
  usageUnknown?: true;
  usageRecorded?: false;
  /** Every model the reads saw (the `model` filter matches any). */
  models: string[];
}

/** What a usage-only read of the whole file adds to a lazy summary. */
export interface UsageData {
  cost?: CostRecord;
  copiedCost?: CostRecord;
  model?: string;
  models: string[];
}
