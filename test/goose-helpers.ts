/**
 * Real Goose `sessions.db` files for the tests, with Goose's own DDL (codecs/goose/README.md): the base
 * tables of `SessionStorage::create` (block/goose crates/goose/src/session/session_manager.rs @0164300,
 * schema version 5) and the later migrations 6-13 of crates/goose/src/session/migrations.rs @865e4a0, in
 * WAL mode as sqlx opens it. Deterministic content.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

const BASE_DDL = [
  `CREATE TABLE schema_version (
    version INTEGER PRIMARY KEY,
    applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
  )`,
  `CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER,
    input_tokens INTEGER,
    output_tokens INTEGER,
    accumulated_total_tokens INTEGER,
    accumulated_input_tokens INTEGER,
    accumulated_output_tokens INTEGER,
    schedule_id TEXT,
    recipe_json TEXT,
    user_recipe_values_json TEXT
  )`,
  `CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER,
    metadata_json TEXT
  )`,
  'CREATE INDEX idx_messages_session ON messages(session_id)',
  'CREATE INDEX idx_messages_timestamp ON messages(timestamp)',
  'CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC)',
  'CREATE INDEX idx_sessions_type ON sessions(session_type)',
];

/** Migrations 6-13 as Goose runs them on a version-5 database (11, the provider inventory, is not read here). */
const MIGRATIONS: Record<number, string[]> = {
  6: ['ALTER TABLE sessions ADD COLUMN provider_name TEXT', 'ALTER TABLE sessions ADD COLUMN model_config_json TEXT'],
  7: [
    'ALTER TABLE messages ADD COLUMN message_id TEXT',
    "UPDATE messages SET message_id = 'msg_' || session_id || '_' || id",
    'CREATE INDEX idx_messages_message_id ON messages(message_id)',
  ],
  8: ["ALTER TABLE sessions ADD COLUMN goose_mode TEXT NOT NULL DEFAULT 'auto'"],
  9: ["UPDATE sessions SET session_type = 'acp' WHERE session_type = 'user' AND name = 'ACP Session' AND user_set_name = FALSE"],
  10: [
    'ALTER TABLE sessions ADD COLUMN thread_id TEXT',
    'CREATE INDEX IF NOT EXISTS idx_sessions_thread ON sessions(thread_id)',
    `CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT 'New Chat', user_set_name BOOLEAN DEFAULT FALSE, working_dir TEXT, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, archived_at TIMESTAMP, metadata_json TEXT DEFAULT '{}')`,
    `CREATE TABLE IF NOT EXISTS thread_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL REFERENCES threads(id), session_id TEXT, message_id TEXT, role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, metadata_json TEXT DEFAULT '{}')`,
  ],
  11: [],
  12: ['ALTER TABLE sessions ADD COLUMN archived_at TIMESTAMP', 'ALTER TABLE sessions ADD COLUMN project_id TEXT'],
  13: ['ALTER TABLE sessions ADD COLUMN accumulated_cost REAL'],
};

export const S_MAIN = '20260525_1';
export const S_SUB = '20260525_2';
export const S_EMPTY = '20260526_1';
export const S_BAD = '20260526_2';

const text = (t: string) => ({ type: 'text', text: t });
const VISIBLE = JSON.stringify({ userVisible: true, agentVisible: true });

/** The conversation of the main session: [role, content blocks, created (epoch s), metadata]. */
export const MAIN_MESSAGES: [string, unknown[], number, string][] = [
  ['user', [text('Why does cargo test fail?')], 1779699600, VISIBLE],
  [
    'assistant',
    [text('Let me run the tests.'), { type: 'toolRequest', id: 'toolu_01', toolCall: { status: 'success', value: { name: 'developer__shell', arguments: { command: 'cargo test' } } } }],
    1779699605,
    VISIBLE,
  ],
  ['user', [{ type: 'toolResponse', id: 'toolu_01', toolResult: { status: 'success', value: { content: [text('test parse ... FAILED')], isError: false } } }], 1779699610, VISIBLE],
  [
    'assistant',
    [{ type: 'thinking', thinking: 'The parser test fails.', signature: 'sig' }, text('Reading the parser.'), { type: 'toolRequest', id: 'toolu_02', toolCall: { status: 'error', error: 'invalid JSON arguments' } }],
    1779699615,
    VISIBLE,
  ],
  ['user', [{ type: 'toolResponse', id: 'toolu_02', toolResult: { status: 'error', error: 'Tool call could not be parsed' } }], 1779699616, VISIBLE],
  ['user', [text('Summary of the conversation so far.')], 1779699620, JSON.stringify({ userVisible: false, agentVisible: true })],
  ['assistant', [text('The parser drops the last token; fixed in src/parse.rs.')], 1779699630, VISIBLE],
];

export interface GooseDbOptions {
  /** Schema version: 5 (the base tables only) or 13 (every migration). Default 13. */
  version?: 5 | 13;
}

/** A Goose database at `path` with four sessions (see the constants); closed when returned. */
export function writeGooseDb(path: string, o: GooseDbOptions = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  const version = o.version ?? 13;
  for (const s of BASE_DDL) db.exec(s);
  db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(5);
  for (let v = 6; v <= version; v++) {
    for (const s of MIGRATIONS[v] ?? []) db.exec(s);
    db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(v);
  }
  const session = db.prepare(
    `INSERT INTO sessions (id, name, session_type, working_dir, created_at, updated_at, total_tokens, input_tokens, output_tokens,
       accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  session.run(S_MAIN, 'Fix the parser', 'user', '/home/dev/app', '2026-05-25 09:00:00', '2026-05-25 09:05:30', 3200, 3000, 200, 12800, 12000, 800);
  session.run(S_SUB, 'subagent: read files', 'sub_agent', '/home/dev/app', '2026-05-25 09:01:00', '2026-05-25 09:02:00', 1500, 1400, 100, null, null, null);
  session.run(S_EMPTY, '', 'user', '/home/dev/other', '2026-05-26 10:00:00', '2026-05-26 10:00:00', null, null, null, null, null, null);
  session.run(S_BAD, 'damaged', 'user', '/home/dev/app', '2026-05-26 11:00:00', '2026-05-26 11:10:00', null, null, null, 900, -5, 40);
  if (version >= 13) {
    const model = db.prepare('UPDATE sessions SET provider_name = ?, model_config_json = ?, accumulated_cost = ? WHERE id = ?');
    model.run('anthropic', JSON.stringify({ model_name: 'claude-sonnet-4-5', context_limit: 200000, temperature: null }), 0.048, S_MAIN);
    model.run('openai', JSON.stringify({ model_name: 'gpt-5-mini' }), null, S_SUB);
  }
  const msg = db.prepare('INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?)');
  for (const [role, content, created, meta] of MAIN_MESSAGES) msg.run(S_MAIN, role, JSON.stringify(content), created, meta);
  msg.run(S_SUB, 'user', JSON.stringify([text('List the files in src/.')]), 1779699660, VISIBLE);
  msg.run(S_SUB, 'assistant', JSON.stringify([text('main.rs and parse.rs.')]), 1779699670, VISIBLE);
  msg.run(S_BAD, 'user', '{not json', 1779786000, VISIBLE);
  msg.run(S_BAD, 'user', JSON.stringify([text('still readable')]), 1779786001, VISIBLE);
  if (version >= 7) db.exec("UPDATE messages SET message_id = 'msg_' || session_id || '_' || id");
  db.close();
}
