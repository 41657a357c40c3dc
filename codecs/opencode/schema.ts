/**
 * OpenCode's records as the three sources hold them (README.md): `Session.Info`, `MessageV2.Info` and
 * `MessageV2.Part` (`packages/opencode/src/session/message-v2.ts`). The database's `message.data` and
 * `part.data` are the same objects without their id fields, which the row's columns give back.
 * Every field is optional here: the parser checks each one it uses.
 */

export interface OpencodeTokens {
  input?: unknown;
  output?: unknown;
  reasoning?: unknown;
  cache?: { read?: unknown; write?: unknown } | null;
}

export interface OpencodeSessionInfo {
  id: string;
  parentID?: string | null;
  directory?: string;
  title?: string;
  version?: string;
  time?: { created?: unknown; updated?: unknown };
  /** Newer databases: the model the session was started with. */
  model?: { id?: unknown; providerID?: unknown } | null;
}

export interface OpencodeMessageInfo {
  id: string;
  sessionID?: string;
  role?: unknown;
  time?: { created?: unknown; completed?: unknown };
  parentID?: unknown;
  modelID?: unknown;
  providerID?: unknown;
  /** User messages: the model asked for. */
  model?: { providerID?: unknown; modelID?: unknown } | null;
  /** USD, a number in OpenCode's own records. */
  cost?: unknown;
  tokens?: OpencodeTokens | null;
  /** true on a compaction summary. */
  summary?: unknown;
}

export interface OpencodeToolState {
  status?: unknown;
  input?: unknown;
  output?: unknown;
  error?: unknown;
  title?: unknown;
  time?: { start?: unknown; end?: unknown };
}

export interface OpencodePart {
  id: string;
  messageID?: string;
  type?: unknown;
  text?: unknown;
  synthetic?: unknown;
  ignored?: unknown;
  callID?: unknown;
  tool?: unknown;
  state?: OpencodeToolState | null;
  tokens?: OpencodeTokens | null;
  cost?: unknown;
}

/** One message with its parts, in OpenCode's order; `offset`/`partOffsets` say where they came from. */
export interface OpencodeMessageRecord {
  info: OpencodeMessageInfo;
  parts: OpencodePart[];
  /** Record index (rowid in a database, ordinal in a file tree or export). */
  offset: number;
  partOffsets: number[];
}

/** `opencode export <id>`: `{ info: Session.Info, messages: [{ info, parts }] }`. */
export interface OpencodeExport {
  info: OpencodeSessionInfo;
  messages: { info: OpencodeMessageInfo; parts: OpencodePart[] }[];
}
