/** The records of a stored session's family (store.ts), each a JSON file or a JSONL log beside the transcript. */
import type { UsageEvent } from '../../cursors/protocol/events.js';

export const STORE_RECORD_VERSION = 1;

/** Where a stored session came from: the agent and its native id (and file, when imported from one). */
export interface StoreOrigin {
  agent: string;
  sessionId: string;
  file?: string;
}

/** `<name>.meta.json`: the title and the session's recorded stats. */
export interface StoreMeta {
  version: typeof STORE_RECORD_VERSION;
  title: string;
  /** When the store first saved it, ms since the epoch. */
  createdAtMs: number;
  /** When the store last wrote its transcript or title. */
  updatedAtMs: number;
  origin?: StoreOrigin;
  /** Message lines of the transcript. */
  messageCount?: number;
  /** Anything else a caller records (kept by `setTitle`). */
  stats?: Record<string, unknown>;
}

/** One row of `store.list()`. */
export interface SessionInfo {
  name: string;
  archived: boolean;
  /** The meta's title, else the transcript header's, else `''`. */
  title: string;
  /** The transcript. */
  path: string;
  sizeBytes: number;
  mtimeMs: number;
  origin?: StoreOrigin;
  /** The session it was forked from (store name or `<agent>:<id>`), when it is a fork. */
  forkedFrom?: string;
  messageCount?: number;
}

/** `<name>.fork.json`: exactly which session and message offset a fork came from. */
export interface ForkProvenance {
  version: typeof STORE_RECORD_VERSION;
  /** A store name, or `<agent>:<id>` for a fork taken straight from an agent's session. */
  from: string;
  /** The source was in the archive. */
  fromArchived: boolean;
  /** The source's origin, when it has one. */
  fromOrigin?: StoreOrigin;
  to: string;
  /** Kept the first N messages; absent: the whole transcript. */
  truncatedAtMessage?: number;
  messagesKept: number;
  sourceMessages: number;
  /** ms since the epoch, as the caller gave it. */
  forkedAtMs: number;
}

/** One line of `<name>.usage.jsonl`: a usage event as its agent's codec yielded it. */
export type UsageLogRecord = UsageEvent;

/** One line of `<name>.model-changes.jsonl`: the model changed at a message. */
export interface ModelChangeRecord {
  messageIndex: number;
  /** ISO-8601, when the message has one. */
  timestamp?: string;
  from?: string;
  to: string;
}

/** `<name>.git.json`. */
export interface GitMetadataRecord {
  cwd?: string;
  branch?: string;
  commit?: string;
  remote?: string;
  capturedAtMs?: number;
}

/** `<name>.tree.json`: the session's message tree, when it is not one line of messages. */
export interface SessionTree {
  version: typeof STORE_RECORD_VERSION;
  nodes: { id: string; parentId?: string; messageIndex?: number }[];
  /** The node the transcript follows. */
  leaf?: string;
}

/** `<name>.subagents/<child>.lineage.json`: which session spawned a stored child, and how. */
export interface SubagentLineage {
  version: typeof STORE_RECORD_VERSION;
  parent: string;
  child: string;
  origin?: StoreOrigin;
  /** The parent's (or spawning subagent's) native id, as the child's agent recorded it. */
  spawnedBy?: string;
  agentType?: string;
  spawnDepth?: number;
}

/** Everything of one family that `saveFamily` writes in one locked step (staged, then swapped in whole). */
export interface FamilyWrite {
  title: string;
  transcript: string;
  origin?: StoreOrigin;
  stats?: Record<string, unknown>;
  sidecar?: string;
  usage?: readonly UsageLogRecord[];
  modelChanges?: readonly ModelChangeRecord[];
  git?: GitMetadataRecord;
  tree?: SessionTree;
  fork?: ForkProvenance;
  subagents?: readonly { id: string; transcript: string; lineage?: SubagentLineage; sidecar?: string }[];
}

/** `store.describe(name)`. */
export interface FamilyInfo {
  name: string;
  archived: boolean;
  /** The transcript. */
  path: string;
  meta?: StoreMeta;
  fork?: ForkProvenance;
  /** File names of the members present (the subagents folder included), relative to the family's folder. */
  members: string[];
  subagents: { id: string; lineage: SubagentLineage | undefined }[];
}
