/**
 * Real Goose `sessions.db` files for the tests, with Goose's own DDL (codecs/goose/README.md): the base
 * tables of `SessionStorage::create` (block/goose crates/goose/src/session/session_manager.rs @0164300,
 * schema version 5), the later migrations 6-13 of crates/goose/src/session/migrations.rs @865e4a0 and 14-17
 * of `apply_migration` (aaif-goose/goose crates/goose/src/session/session_manager.rs @017176d), or a new
 * database as `create_schema` writes it at version 17 (same file and commit), in WAL mode as sqlx opens it.
 * Deterministic content.
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

/** `usage_ledger` (schema 15): one row per provider call. */
const USAGE_LEDGER = `CREATE TABLE IF NOT EXISTS usage_ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  created_timestamp INTEGER NOT NULL,
  model TEXT,
  input_tokens INTEGER,
  output_tokens INTEGER,
  total_tokens INTEGER,
  cache_read_tokens INTEGER,
  cache_write_tokens INTEGER,
  cost REAL,
  cost_source TEXT,
  is_compaction INTEGER DEFAULT 0
)`;

/** Migrations 6-17 as Goose runs them on a version-5 database (11, the provider inventory, is not read here). */
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
  14: ['cache_read_tokens', 'cache_write_tokens', 'accumulated_cache_read_tokens', 'accumulated_cache_write_tokens'].map((c) => `ALTER TABLE sessions ADD COLUMN ${c} INTEGER`),
  15: [
    'ALTER TABLE sessions ADD COLUMN parent_session_id TEXT',
    'CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id)',
    USAGE_LEDGER,
    'CREATE INDEX IF NOT EXISTS idx_usage_ledger_session ON usage_ledger(session_id)',
  ],
  16: ['CREATE INDEX IF NOT EXISTS idx_messages_session_created ON messages(session_id, created_timestamp, id)'],
  17: ['ALTER TABLE sessions ADD COLUMN parent_delegation TEXT'],
};

/** A new database at version 17, as `create_schema` writes it (the provider inventory tables left out: not read). */
const FRESH_DDL = [
  'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)',
  'INSERT OR IGNORE INTO schema_version (version) VALUES (17)',
  `CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER,
    output_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER, accumulated_total_tokens INTEGER,
    accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, accumulated_cache_read_tokens INTEGER,
    accumulated_cache_write_tokens INTEGER, accumulated_cost REAL, schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT,
    provider_name TEXT, model_config_json TEXT, goose_mode TEXT NOT NULL DEFAULT 'auto', archived_at TIMESTAMP, project_id TEXT,
    parent_session_id TEXT, parent_delegation TEXT
  )`,
  `CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
    content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER,
    metadata_json TEXT
  )`,
  USAGE_LEDGER,
  'CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id)',
  'CREATE INDEX IF NOT EXISTS idx_messages_timestamp ON messages(timestamp)',
  'CREATE INDEX IF NOT EXISTS idx_messages_message_id ON messages(message_id)',
  ...(MIGRATIONS[16] as string[]),
  'CREATE INDEX IF NOT EXISTS idx_sessions_updated ON sessions(updated_at DESC)',
  'CREATE INDEX IF NOT EXISTS idx_sessions_type ON sessions(session_type)',
  'CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id)',
  'CREATE INDEX IF NOT EXISTS idx_usage_ledger_session ON usage_ledger(session_id)',
];

export const S_MAIN = '20260525_1';
export const S_SUB = '20260525_2';
export const S_EMPTY = '20260526_1';
export const S_BAD = '20260526_2';
/** Schema 15 on: a session with `usage_ledger` rows (a carried-forward span, calls, a compaction, an absurd row) and totals beyond them. */
export const S_LEDGER = '20260527_1';

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
  /** Schema version: 5 (the base tables only) to 17 (every migration). Default 13. */
  version?: number;
  /** Version 17 as a new database gets it (`create_schema`), not migrated from version 5. */
  fresh?: boolean;
}

/**
 * A Goose database at `path` with four sessions (see the constants), five from version 15, with the columns
 * and rows its version has; closed when returned.
 */
export function writeGooseDb(path: string, o: GooseDbOptions = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  const version = o.fresh === true ? 17 : (o.version ?? 13);
  if (o.fresh === true) for (const s of FRESH_DDL) db.exec(s);
  else {
    for (const s of BASE_DDL) db.exec(s);
    db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(5);
    for (let v = 6; v <= version; v++) {
      for (const s of MIGRATIONS[v] ?? []) db.exec(s);
      db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(v);
    }
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
  if (version >= 14) writeCacheColumns(db);
  if (version >= 15) writeLedger(db, version);
  db.close();
}

/** Schema 14: the main session's cache counts, which its input holds (it has no ledger: its totals are read). */
function writeCacheColumns(db: Database.Database): void {
  db.prepare('UPDATE sessions SET cache_read_tokens = 2000, cache_write_tokens = 300, accumulated_cache_read_tokens = 8000, accumulated_cache_write_tokens = 1000 WHERE id = ?').run(S_MAIN);
}

/** A `usage_ledger` row as `insert_usage_ledger_row` writes it: [session, created (epoch s), model, input, output, cache read, cache write, cost, source, compaction]. */
type LedgerRow = [string, number, string | null, number | null, number | null, number | null, number | null, number | null, string | null, number];

export const LEDGER_ROWS: LedgerRow[] = [
  [S_SUB, 1779699662, 'gpt-5-mini-2025-08-07', 900, 60, 400, 0, 0.0003, 'estimated', 0],
  [S_SUB, 1779699668, 'gpt-5-mini-2025-08-07', 500, 40, 300, 0, 0.00021, 'provider_reported', 0],
  // what the session held before its ledger began, booked by the first call after (`record_usage_metrics`)
  [S_LEDGER, 1779872400, null, 5000, 400, 3000, 500, 0.02, 'carried_forward', 0],
  [S_LEDGER, 1779872460, 'claude-sonnet-4-5-20250929', 20000, 800, 15000, 2000, 0.0375, 'provider_reported', 0],
  [S_LEDGER, 1779872520, 'claude-sonnet-4-5-20250929', 30000, 1200, 0, 0, 0.108, 'estimated', 1],
  // a count no call carries: the row is refused whole
  [S_LEDGER, 1779872580, 'claude-sonnet-4-5-20250929', 99_999_999_999, 10, 0, 0, null, 'estimated', 0],
];

/**
 * Schema 15 on: the subagent's parent and ledger, whose sums are its totals; a session of ledger rows whose
 * totals hold more than their sums (2000 input, 1000 of them cache reads, and 100 output beyond them).
 */
function writeLedger(db: Database.Database, version: number): void {
  db.prepare(
    `INSERT INTO sessions (id, name, session_type, working_dir, created_at, updated_at, provider_name, model_config_json, total_tokens, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens, accumulated_cache_read_tokens,
       accumulated_cache_write_tokens, accumulated_cost) VALUES (?, ?, 'user', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(S_LEDGER, 'Speed up the build', '/home/dev/app', '2026-05-27 09:00:00', '2026-05-27 09:10:00', 'anthropic', JSON.stringify({ model_name: 'claude-sonnet-4-5' }), 31200, 30000, 1200, 0, 0, 59500, 57000, 2500, 19000, 2500, 0.2);
  db.prepare('INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json, message_id) VALUES (?, ?, ?, ?, ?, ?)').run(
    S_LEDGER, 'user', JSON.stringify([text('Why is the build slow?')]), 1779872390, VISIBLE, `msg_${S_LEDGER}_1`,
  );
  db.prepare('UPDATE sessions SET parent_session_id = ?, accumulated_input_tokens = 1400, accumulated_output_tokens = 100, accumulated_total_tokens = 1500, accumulated_cache_read_tokens = 700, accumulated_cache_write_tokens = 0 WHERE id = ?').run(S_MAIN, S_SUB);
  if (version >= 17) {
    const delegation = { execution_mode: 'foreground', parent_delegate_message_id: `msg_${S_MAIN}_2`, result_delivered_to_parent: true };
    db.prepare('UPDATE sessions SET parent_delegation = ? WHERE id = ?').run(JSON.stringify(delegation), S_SUB);
  }
  const row = db.prepare(
    `INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source, is_compaction)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const [session, created, model, input, output, read, write, cost, source, compaction] of LEDGER_ROWS) {
    row.run(session, created, model, input, output, (input ?? 0) + (output ?? 0), read, write, cost, source, compaction);
  }
}
