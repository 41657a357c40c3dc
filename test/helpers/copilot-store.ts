/**
 * Copilot CLI's `session-store.db` for tests (test/copilot-store.test.ts, test/copilot-stamp.test.ts): the
 * CLI's tables as public readers of real databases record them (codecs/copilot/README.md, "Per-call usage"),
 * and rows inserted as the CLI writes them, one per model call.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { homeEnv } from './isolated-home.js';

/** The CLI's tables (README "Per-call usage" cites them). */
export const COPILOT_STORE_SCHEMA = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (id TEXT PRIMARY KEY, cwd TEXT, repository TEXT, host_type TEXT, branch TEXT, summary TEXT, created_at TEXT, updated_at TEXT);
CREATE TABLE turns (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT REFERENCES sessions(id), turn_index INTEGER, user_message TEXT, assistant_response TEXT, timestamp TEXT);
CREATE TABLE assistant_usage_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, turn_index INTEGER, agent_id TEXT, parent_tool_call_id TEXT,
  model TEXT NOT NULL, copilot_usage_model TEXT, input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER,
  cache_write_tokens INTEGER, reasoning_tokens INTEGER, total_nano_aiu INTEGER, request_multiplier REAL, duration_ms INTEGER,
  time_to_first_token_ms INTEGER, output_ttft_ms REAL, inter_token_latency_ms INTEGER, initiator TEXT, api_endpoint TEXT,
  reasoning_effort TEXT, finish_reason TEXT, content_filter_triggered INTEGER, token_details_json TEXT,
  created_at TEXT DEFAULT (datetime('now'))
);
INSERT INTO schema_version (version) VALUES (8);`;

/** One call: gross input (cache reads and writes included), as the CLI records it. */
export type CallRow = [session: string, model: string, usageModel: string | null, input: number | null, output: number | null, cacheRead: number | null, cacheWrite: number | null, reasoning: number | null, createdAt: string];

/** A writer of a new `session-store.db` at `path` in WAL mode, with the CLI's tables: a running CLI's connection. */
export function openCopilotStore(path: string): Database.Database {
  const writer = new Database(path);
  writer.pragma('journal_mode = WAL');
  writer.exec(COPILOT_STORE_SCHEMA);
  return writer;
}

/** Insert calls as the CLI does, one row each. */
export function insertCalls(db: Database.Database, rows: readonly CallRow[]): void {
  const st = db.prepare('INSERT INTO assistant_usage_events (session_id, turn_index, model, copilot_usage_model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, total_nano_aiu, request_multiplier, created_at) VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?, 1000, 1.0, ?)');
  for (const r of rows) st.run(...r);
}

type Line = Record<string, unknown>;

/** A line of a Copilot CLI `events.jsonl`: the envelope the CLI writes (agents.md §4), the `n`th of its log. */
export const copilotLine = (type: string, timestamp: string, data: Line, n: number): Line => ({ type, data, id: `e-${n}`, timestamp, parentId: n === 0 ? null : `e-${n - 1}` });

/** A `session.shutdown`'s `modelMetrics` entry of one request: gross input (cache reads and writes included). */
export const usage = (input: number, output: number, cacheRead: number, cacheWrite: number) => ({ requests: { count: 1, cost: 1 }, usage: { inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite } });

/**
 * One run of a session on `day` (model gpt-4.1, from 12:00:00 UTC): with a shutdown and no recorded call its
 * totals count; without one, the calls the database recorded for it (or none: usage unknown).
 */
export function oneRun(id: string, shutdown: boolean, day = '2026-03-04'): string {
  const ev = copilotLine;
  const lines = [
    ev('session.start', `${day}T12:00:00.000Z`, { sessionId: id, copilotVersion: '1.0.80', startTime: `${day}T12:00:00.000Z`, selectedModel: 'gpt-4.1', context: { cwd: '/work/b' } }, 0),
    ev('user.message', `${day}T12:00:01.000Z`, { content: 'hello' }, 1),
    ev('assistant.message', `${day}T12:00:05.000Z`, { messageId: 'm1', content: 'hi', model: 'gpt-4.1' }, 2),
  ];
  if (shutdown) lines.push(ev('session.shutdown', `${day}T12:30:00.000Z`, { modelMetrics: { 'gpt-4.1': usage(500, 40, 100, 0) } }, 3));
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** A temp HOME with a Copilot home (`copilotHomeFixture`); its fields are set before the tests run. */
export interface CopilotHome {
  home: string;
  copilotHome: string;
  /** The open writer of its `session-store.db` (WAL mode), as a running CLI keeps one. */
  writer: Database.Database;
  /** HOME and XDG folders inside `home` (isolated-home.ts `homeEnv`), `COPILOT_HOME` the Copilot home. */
  env: NodeJS.ProcessEnv;
  /** A session's `session-state/<id>/events.jsonl`. */
  sessionFile(id: string): string;
}

/**
 * In the calling file or `describe`: a temp HOME whose Copilot home holds `logs` (session id, events.jsonl
 * text) and a `session-store.db` that `fill` writes the first rows of; the writer is closed and the HOME
 * removed after the tests. `each`: a new HOME for every test, for tests that write rows of their own and
 * must not see another test's.
 */
export function copilotHomeFixture(prefix: string, logs: () => [string, string][], fill: (writer: Database.Database) => void, each = false): CopilotHome {
  const h = { sessionFile: (id: string) => join(h.copilotHome, 'session-state', id, 'events.jsonl') } as CopilotHome;
  (each ? beforeEach : beforeAll)(() => {
    h.home = mkdtempSync(join(tmpdir(), prefix));
    h.copilotHome = join(h.home, '.copilot');
    for (const [id, text] of logs()) {
      mkdirSync(join(h.copilotHome, 'session-state', id), { recursive: true });
      writeFileSync(h.sessionFile(id), text);
    }
    h.writer = openCopilotStore(join(h.copilotHome, 'session-store.db'));
    fill(h.writer);
    h.env = { ...homeEnv(h.home), COPILOT_HOME: h.copilotHome };
  });
  (each ? afterEach : afterAll)(() => {
    h.writer?.close();
    if (h.home !== undefined) rmSync(h.home, { recursive: true, force: true });
  });
  return h;
}
