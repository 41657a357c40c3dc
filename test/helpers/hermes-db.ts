/**
 * Hermes `state.db` for tests: the core tables verbatim from `SCHEMA_SQL` and the FTS5 layout from `FTS_SQL`
 * (`NousResearch/hermes-agent` `hermes_state_common.py` @ 00704d08, schema 30; copied in
 * ../shared/formats/sqlite-schemas.md §1). The FTS triggers are named there but not quoted: the ones here
 * are written for the external-content table as FTS5's documentation prescribes. WAL mode, as Hermes runs.
 */
import Database from 'better-sqlite3';

export const HERMES_DDL = `
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, created_source TEXT, user_id TEXT, session_key TEXT, chat_id TEXT,
    chat_type TEXT, thread_id TEXT, display_name TEXT, origin_json TEXT, expiry_finalized INTEGER DEFAULT 0, model TEXT,
    model_config TEXT, system_prompt TEXT, system_prompt_hash TEXT, parent_session_id TEXT, started_at REAL NOT NULL,
    ended_at REAL, end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0, cwd TEXT, git_branch TEXT, git_repo_root TEXT,
    git_metadata_generation INTEGER NOT NULL DEFAULT 0, billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT,
    estimated_cost_usd REAL, actual_cost_usd REAL, cost_status TEXT, cost_source TEXT, pricing_version TEXT, title TEXT,
    title_source TEXT, last_activity_at REAL, last_activity_description TEXT, last_activity_provenance TEXT,
    api_call_count INTEGER DEFAULT 0, handoff_state TEXT, handoff_platform TEXT, handoff_error TEXT,
    compression_failure_cooldown_until REAL, compression_failure_error TEXT, compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
    compression_ineffective_count INTEGER NOT NULL DEFAULT 0, compression_recovery_deadline REAL,
    compression_overload_streak INTEGER NOT NULL DEFAULT 0, profile_name TEXT, transport_profile TEXT,
    rewind_count INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0, pinned INTEGER NOT NULL DEFAULT 0,
    hidden INTEGER NOT NULL DEFAULT 0, last_read_at REAL, tool_names TEXT,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id),
    FOREIGN KEY (system_prompt_hash) REFERENCES system_prompts(hash)
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content TEXT,
    tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, effect_disposition TEXT, timestamp REAL NOT NULL, token_count INTEGER,
    finish_reason TEXT, reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT, codex_reasoning_items TEXT,
    codex_message_items TEXT, platform_message_id TEXT, observed INTEGER DEFAULT 0, _compressed_summary INTEGER NOT NULL DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1, compacted INTEGER NOT NULL DEFAULT 0, api_content TEXT, display_kind TEXT,
    display_metadata TEXT, display_identity BLOB, display_order INTEGER
);
CREATE TABLE IF NOT EXISTS session_model_usage (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, model TEXT NOT NULL,
    billing_provider TEXT NOT NULL DEFAULT '', billing_base_url TEXT NOT NULL DEFAULT '', billing_mode TEXT NOT NULL DEFAULT '',
    task TEXT NOT NULL DEFAULT '', api_call_count INTEGER NOT NULL DEFAULT 0, input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0, cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0, estimated_cost_usd REAL NOT NULL DEFAULT 0, actual_cost_usd REAL NOT NULL DEFAULT 0,
    cost_status TEXT, cost_source TEXT, first_seen REAL, last_seen REAL,
    PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode, task)
);
CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
CREATE VIEW IF NOT EXISTS messages_fts_src AS
    SELECT id, CASE WHEN role = 'tool' THEN substr(COALESCE(content, ''), 1, 8192) ELSE content END AS content, tool_name, tool_calls
    FROM messages;
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(content, tool_name, tool_calls, content='messages_fts_src', content_rowid='id');
CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
  VALUES (new.id, CASE WHEN new.role = 'tool' THEN substr(COALESCE(new.content, ''), 1, 8192) ELSE new.content END, new.tool_name, new.tool_calls);
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
  VALUES ('delete', old.id, CASE WHEN old.role = 'tool' THEN substr(COALESCE(old.content, ''), 1, 8192) ELSE old.content END, old.tool_name, old.tool_calls);
END;
INSERT INTO schema_version (version) VALUES (30);
`;

export const INSERT_SESSION = 'INSERT INTO sessions (id, source, model, model_config, parent_session_id, started_at, ended_at, end_reason, cwd, git_branch, billing_provider, title) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
export const INSERT_MESSAGE = 'INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';
export const UPSERT_USAGE = `INSERT INTO session_model_usage (session_id, model, billing_provider, task, api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd, actual_cost_usd, first_seen, last_seen)
  VALUES (?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (session_id, model, billing_provider, billing_base_url, billing_mode, task) DO UPDATE SET
  api_call_count = api_call_count + excluded.api_call_count, input_tokens = input_tokens + excluded.input_tokens,
  output_tokens = output_tokens + excluded.output_tokens, cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
  cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens, reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
  estimated_cost_usd = estimated_cost_usd + excluded.estimated_cost_usd, last_seen = excluded.last_seen`;

const T0 = 1777000000; // epoch seconds

/** A turn: user prompt, assistant with a tool call, the tool's result, the answer. */
export function turn(session: string, n: number, text = `question ${n}`): unknown[][] {
  const t = T0 + n * 60;
  const calls = JSON.stringify([{ id: `call_${session}_${n}`, type: 'function', function: { name: 'terminal', arguments: JSON.stringify({ command: `ls ${n}` }) } }]);
  return [
    [session, 'user', text, null, null, null, t, null, null],
    [session, 'assistant', `Looking at ${n}.`, null, calls, null, t + 1, 'tool_calls', `reasoning ${n}`],
    [session, 'tool', `file${n}.txt`, `call_${session}_${n}`, null, 'terminal', t + 2, n === 2 ? 'error' : 'stop', null],
    [session, 'assistant', `Answer ${n}.`, null, null, null, t + 3, 'stop', null],
  ];
}

/** A usage upsert: one API call of `model`. */
export function usage(session: string, model: string, n: number): unknown[] {
  return [session, model, model.startsWith('claude') ? 'anthropic' : 'openrouter', 1, 1000 + n, 200 + n, 5000 + n, 100, 30, 0.01 * n, 0, T0 + n * 60, T0 + n * 60 + 3];
}

export interface HermesDbOptions {
  /**
   * Add `s_reset`, a reset of the continuation `s_cont` (`model_config._reset_from`, `parent_session_id`
   * s_cont): the chain s_root → s_cont → s_reset, with a turn (8) and usage of its own.
   */
  reset?: boolean;
}

/**
 * A closed WAL database with a root session, its compression continuation, a branch and a delegate (a
 * subagent), each with turns and per-model usage; with `reset`, a reset of the continuation too.
 */
export function buildHermesDb(path: string, o: HermesDbOptions = {}): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(HERMES_DDL);
  const s = db.prepare(INSERT_SESSION);
  s.run('s_root', 'cli', 'claude-sonnet-4-6', '{}', null, T0, T0 + 500, 'compression', '/work/app', 'main', 'anthropic', 'Fix the parser');
  s.run('s_cont', 'cli', 'claude-sonnet-4-6', '{}', 's_root', T0 + 500, null, null, '/work/app', 'main', 'anthropic', 'Fix the parser (continued)');
  s.run('s_branch', 'cli', 'gpt-5.2', JSON.stringify({ _branched_from: 's_root' }), 's_root', T0 + 600, null, null, '/work/app', 'main', 'openrouter', 'Try another way');
  s.run('s_task', 'subagent', 'claude-haiku-4-5', JSON.stringify({ _delegate_from: 's_root' }), 's_root', T0 + 700, T0 + 800, 'done', '/work/app', null, 'anthropic', null);
  if (o.reset === true) s.run('s_reset', 'cli', 'claude-sonnet-4-6', JSON.stringify({ _reset_from: 's_cont' }), 's_cont', T0 + 900, null, null, '/work/app', 'main', 'anthropic', 'Start over');
  const m = db.prepare(INSERT_MESSAGE);
  const u = db.prepare(UPSERT_USAGE);
  const plan: [string, number[], string[]][] = [
    ['s_root', [1, 2, 3], ['claude-sonnet-4-6', 'claude-sonnet-4-6', 'gpt-5.2']],
    ['s_cont', [4, 5], ['claude-sonnet-4-6', 'claude-sonnet-4-6']],
    ['s_branch', [6], ['gpt-5.2']],
    ['s_task', [7], ['claude-haiku-4-5']],
    ...(o.reset === true ? [['s_reset', [8], ['claude-sonnet-4-6']] as [string, number[], string[]]] : []),
  ];
  for (const [id, turns, models] of plan) {
    for (const n of turns) for (const r of turn(id, n, n === 5 ? 'where is the tokenizer bug' : undefined)) m.run(...r);
    models.forEach((model, i) => u.run(...usage(id, model, i + 1)));
  }
  db.close();
}
