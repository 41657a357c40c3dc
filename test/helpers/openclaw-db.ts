/**
 * OpenClaw's per-agent database for tests, `agents/<agentId>/agent/openclaw-agent.sqlite`: the tables a
 * transcript read touches, verbatim from openclaw/openclaw `src/state/openclaw-agent-schema.sql` (@ 0b03f834):
 * `session_nodes`, `session_windows` (and `conversations`, its foreign key's table), `transcript_events`. With
 * `compressed`, `transcript_events` as OpenClaw 2026.9.6 (schema 23) has it: `event_json` nullable, a large
 * entry zstd-compressed in `event_zstd` with its size in `event_utf8_bytes` (OpenClaw's own payload reader,
 * `readSqliteTranscriptPayload`, reads exactly these). WAL mode, as OpenClaw runs it. With `schema`, the
 * index tables as they were before schema 14 renamed them (`OPENCLAW_AGENT_DDL_ENTRIES_V11`, `_V1`).
 */
import Database from 'better-sqlite3';

/** A session window's columns after its id and key, the same in `sessions` (before schema 14) and `session_windows`. */
const WINDOW_COLUMNS = `
  session_scope TEXT NOT NULL DEFAULT 'conversation' CHECK (session_scope IN ('conversation', 'shared-main', 'group', 'channel')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  transcript_updated_at INTEGER DEFAULT NULL,
  transcript_observed_at INTEGER DEFAULT NULL,
  session_entry_provenance INTEGER NOT NULL DEFAULT 0 CHECK (session_entry_provenance IN (0, 1)),
  acp_owned INTEGER NOT NULL DEFAULT 0 CHECK (acp_owned IN (0, 1)),
  plugin_owner_id TEXT,
  hook_external_content_source TEXT CHECK (hook_external_content_source IS NULL OR hook_external_content_source IN ('gmail', 'webhook')),
  started_at INTEGER, ended_at INTEGER,
  status TEXT CHECK (status IS NULL OR status IN ('running', 'done', 'failed', 'killed', 'timeout')),
  chat_type TEXT CHECK (chat_type IS NULL OR chat_type IN ('direct', 'group', 'channel')),
  channel TEXT, account_id TEXT, primary_conversation_id TEXT, model_provider TEXT, model TEXT, agent_harness_id TEXT,
  parent_session_key TEXT, spawned_by TEXT, display_name TEXT,`;

const CONVERSATIONS = `
CREATE TABLE IF NOT EXISTS conversations (
  conversation_id TEXT NOT NULL PRIMARY KEY, channel TEXT NOT NULL, account_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('direct', 'group', 'channel')), peer_id TEXT NOT NULL, delivery_target TEXT NOT NULL,
  parent_conversation_id TEXT, thread_id TEXT, native_channel_id TEXT, native_direct_user_id TEXT, label TEXT,
  metadata_json TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
) STRICT;`;

/** `transcript_events` with its rows owned by `parent`'s sessions. */
const events = (parent: string, strict = ' STRICT'): string => `
CREATE TABLE IF NOT EXISTS transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES ${parent}(session_id) ON DELETE CASCADE
)${strict};`;

export const OPENCLAW_AGENT_DDL = `
CREATE TABLE IF NOT EXISTS session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY,
  current_session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL,
  entry_valid INTEGER NOT NULL DEFAULT 0 CHECK (entry_valid IN (-1, 0, 1)),
  updated_at INTEGER NOT NULL,
  status TEXT CHECK (status IS NULL OR status IN ('running', 'done', 'failed', 'killed', 'timeout')),
  created_at INTEGER,
  created_via TEXT CHECK (created_via IS NULL OR created_via IN ('operator', 'spawn', 'channel', 'cron', 'talk', 'run', 'plugin', 'internal')),
  created_actor_type TEXT CHECK (created_actor_type IS NULL OR created_actor_type IN ('human', 'agent', 'system')),
  created_actor_id TEXT, owner_actor_type TEXT, owner_actor_id TEXT, owner_assigned_by_type TEXT, owner_assigned_by_id TEXT,
  owner_assigned_at INTEGER, project_id TEXT, parent_session_key TEXT, spawned_by TEXT, fork_source_session_key TEXT,
  fork_source_session_id TEXT, fork_source_entry_id TEXT, label TEXT, display_name TEXT, category TEXT, icon TEXT,
  pinned_at INTEGER, archived_at INTEGER, last_read_at INTEGER, last_interaction_at INTEGER, last_activity_at INTEGER
) STRICT;
CREATE TABLE IF NOT EXISTS session_windows (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,
  previous_session_id TEXT,
  reason TEXT CHECK (reason IS NULL OR reason IN ('initial', 'reset', 'rollover', 'fork', 'rewind', 'switch', 'recovery', 'compaction')),${WINDOW_COLUMNS}
  FOREIGN KEY (session_key) REFERENCES session_nodes(session_key) ON DELETE CASCADE,
  FOREIGN KEY (primary_conversation_id) REFERENCES conversations(conversation_id) ON DELETE SET NULL
) STRICT;${CONVERSATIONS}
`;

/**
 * The tables a transcript read touches before OpenClaw's schema 14 (which renamed `session_entries` to
 * `session_nodes` and `sessions` to `session_windows`), as the `openclaw` package 2026.7.2-beta.3 on npm has them
 * (schema 11; `dist/openclaw-agent-db-C4OFXhEu.js`, `OPENCLAW_AGENT_SCHEMA_SQL`; columns, checks and keys as
 * there, some lines joined), in its order: `sessions`, `session_routes`, `conversations` (a foreign key's
 * table), `session_entries`, `transcript_events`. 2026.7.2-beta.1 and beta.2 (schemas 8 and 9) have the same
 * session tables without STRICT.
 */
export const OPENCLAW_AGENT_DDL_ENTRIES_V11 = `
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,${WINDOW_COLUMNS}
  FOREIGN KEY (primary_conversation_id) REFERENCES conversations(conversation_id) ON DELETE SET NULL
) STRICT;
CREATE TABLE IF NOT EXISTS session_routes (
  session_key TEXT NOT NULL PRIMARY KEY,
  session_id TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES sessions(session_id) ON DELETE CASCADE
) STRICT;${CONVERSATIONS}
CREATE TABLE IF NOT EXISTS session_entries (
  session_key TEXT NOT NULL PRIMARY KEY,
  session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  status TEXT CHECK (status IS NULL OR status IN ('running', 'done', 'failed', 'killed', 'timeout')),
  FOREIGN KEY (session_id) REFERENCES sessions(session_id) ON DELETE CASCADE
) STRICT;${events('sessions')}
`;

/** The same tables at schema 1 of the switch's branch: openclaw/openclaw `src/state/openclaw-agent-schema.sql` @ b8a4997. */
export const OPENCLAW_AGENT_DDL_ENTRIES_V1 = `
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  started_at INTEGER,
  ended_at INTEGER,
  status TEXT,
  chat_type TEXT,
  channel TEXT,
  model_provider TEXT,
  model TEXT,
  agent_harness_id TEXT,
  parent_session_key TEXT,
  spawned_by TEXT,
  display_name TEXT
);
CREATE TABLE IF NOT EXISTS session_entries (
  session_key TEXT NOT NULL PRIMARY KEY,
  session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES sessions(session_id) ON DELETE CASCADE
);${events('sessions', '')}`;

const EVENTS = events('"session_windows"');

const EVENTS_COMPRESSED = `
CREATE TABLE transcript_events(session_id TEXT NOT NULL,seq INTEGER NOT NULL,event_json TEXT,created_at INTEGER NOT NULL,
  event_zstd BLOB,event_utf8_bytes INTEGER,navigation_json TEXT,PRIMARY KEY(session_id,seq)) STRICT;`;

/**
 * A zstd frame holding `text` in one raw (stored) block: a valid frame any decoder reads (RFC 8878 §3.1.1),
 * written here so the test needs no compressor.
 */
export function zstdStored(text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  const head = Buffer.alloc(4 + 1 + 4 + 3);
  head.writeUInt32LE(0xfd2fb528, 0);
  head.writeUInt8(0xa0, 4); // content size in 4 bytes, single segment, no checksum, no dictionary
  head.writeUInt32LE(body.length, 5);
  head.writeUIntLE(1 | (body.length << 3), 9, 3); // last block, raw, its size
  return Buffer.concat([head, body]);
}

export interface OpenclawSessionRows {
  id: string;
  key: string;
  /** Its index entry; with `schema`, none leaves the session to its `sessions` row (an older window of its key). */
  entry?: Record<string, unknown>;
  lines: readonly string[];
  /** Rows (by index) stored compressed; needs `compressed`. */
  zstd?: readonly number[];
  /** Its `sessions` row's title and spawner (`schema` only). */
  window?: { displayName?: string; spawnedBy?: string };
}

/**
 * An agent database holding `sessions`, each a session node, its window and its transcript rows (`seq` from 1);
 * with `schema`, a `sessions` row and a `session_entries` row instead (and a `session_routes` row at v11).
 */
export function buildOpenclawAgentDb(path: string, sessions: readonly OpenclawSessionRows[], o: { compressed?: boolean; schema?: 'entries-v11' | 'entries-v1' } = {}): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  if (o.schema === undefined) db.exec(OPENCLAW_AGENT_DDL + (o.compressed === true ? EVENTS_COMPRESSED : EVENTS));
  else db.exec(o.schema === 'entries-v11' ? OPENCLAW_AGENT_DDL_ENTRIES_V11 : OPENCLAW_AGENT_DDL_ENTRIES_V1);
  const T = 1_778_547_747_000;
  for (const s of sessions) {
    if (o.schema === undefined) {
      db.prepare('INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at) VALUES (?, ?, ?, ?)').run(s.key, s.id, JSON.stringify(s.entry ?? {}), T);
      db.prepare('INSERT INTO session_windows (session_id, session_key, reason, created_at, updated_at, channel) VALUES (?, ?, ?, ?, ?, ?)').run(s.id, s.key, 'initial', T, T, 'webchat');
    } else {
      db.prepare('INSERT INTO sessions (session_id, session_key, created_at, updated_at, channel, display_name, spawned_by) VALUES (?, ?, ?, ?, ?, ?, ?)').run(s.id, s.key, T, T, 'webchat', s.window?.displayName ?? null, s.window?.spawnedBy ?? null);
      if (o.schema === 'entries-v11') db.prepare('INSERT OR REPLACE INTO session_routes (session_key, session_id, updated_at) VALUES (?, ?, ?)').run(s.key, s.id, T);
      if (s.entry !== undefined) db.prepare('INSERT INTO session_entries (session_key, session_id, entry_json, updated_at) VALUES (?, ?, ?, ?)').run(s.key, s.id, JSON.stringify(s.entry), T);
    }
    s.lines.forEach((line, i) => {
      if (s.zstd?.includes(i) === true)
        db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes) VALUES (?, ?, NULL, ?, ?, ?)').run(s.id, i + 1, T + i, zstdStored(line), Buffer.byteLength(line));
      else db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)').run(s.id, i + 1, line, T + i);
    });
  }
  db.close();
}
