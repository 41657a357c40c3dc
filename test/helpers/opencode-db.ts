/**
 * OpenCode databases for tests, with the real table definitions (`packages/opencode/src/session/session.sql.ts`
 * @ 063e8306, translated from Drizzle in ../shared/formats/sqlite-schemas.md section 3; `project` reduced to the
 * columns a session's foreign key needs), in WAL mode as OpenCode runs it.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { PartitionedSource } from '../../cursors/sqlite-rows.js';
import type { Writer } from './sqlite-db.js';

export const OPENCODE_DDL = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE session (
  id text PRIMARY KEY, project_id text NOT NULL REFERENCES project(id) ON DELETE CASCADE, workspace_id text, parent_id text,
  slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL, version text NOT NULL, share_url text,
  summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text,
  cost real NOT NULL DEFAULT 0, tokens_input integer NOT NULL DEFAULT 0, tokens_output integer NOT NULL DEFAULT 0,
  tokens_reasoning integer NOT NULL DEFAULT 0, tokens_cache_read integer NOT NULL DEFAULT 0, tokens_cache_write integer NOT NULL DEFAULT 0,
  revert text, permission text, goal text, agent text, model text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_workspace_idx ON session (workspace_id);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id) ON DELETE CASCADE, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
`;

export const INSERT_SESSION =
  'INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, model, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
export const INSERT_MESSAGE = 'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)';
export const INSERT_PART = 'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)';

const T0 = 1767000000000;

/** What an exchange may vary: the reply's model, and the state its tool call is in. */
export interface ExchangeOptions {
  model?: string;
  tool?: 'completed' | 'error' | 'running';
  /** The reply not completed yet (no `time.completed`: OpenCode sets it with its last write of the reply). */
  open?: boolean;
}

/** One exchange of a session: a user prompt and an assistant reply with a tool, as parameter lists. */
export function exchange(session: string, n: number, opts: ExchangeOptions = {}) {
  const t = T0 + n * 10_000;
  const user = `msg_${session}_${String(n).padStart(4, '0')}a`;
  const asst = `msg_${session}_${String(n).padStart(4, '0')}b`;
  const model = opts.model ?? 'claude-sonnet-4-5';
  const messages: unknown[][] = [
    [user, session, t, t, JSON.stringify({ role: 'user', time: { created: t }, agent: 'build', model: { providerID: 'anthropic', modelID: model } })],
    [
      asst,
      session,
      t + 1000,
      t + 5000,
      JSON.stringify({
        role: 'assistant',
        time: opts.open === true ? { created: t + 1000 } : { created: t + 1000, completed: t + 5000 },
        parentID: user,
        modelID: model,
        providerID: 'anthropic',
        mode: 'build',
        agent: 'build',
        path: { cwd: '/work/proj', root: '/work/proj' },
        cost: 0.0125 + n / 1000,
        tokens: { input: 100 + n, output: 40 + n, reasoning: 7, cache: { read: 2000 + n, write: 300 } },
        finish: 'tool-calls',
      }),
    ],
  ];
  const status = opts.tool ?? 'completed';
  const state =
    status === 'completed'
      ? { status, input: { command: `ls ${n}` }, output: `file${n}.txt\n`, title: 'ls', metadata: {}, time: { start: t + 2000, end: t + 2500 } }
      : status === 'error'
        ? { status, input: { command: 'false' }, error: 'exit 1', time: { start: t + 2000, end: t + 2100 } }
        : { status, input: { command: 'sleep 9' }, time: { start: t + 2000 } };
  const parts: unknown[][] = [
    [`prt_${user}_1`, user, session, t, t, JSON.stringify({ type: 'text', text: `prompt ${n}` })],
    [`prt_${asst}_1`, asst, session, t + 1000, t + 1000, JSON.stringify({ type: 'step-start' })],
    [`prt_${asst}_2`, asst, session, t + 1100, t + 1100, JSON.stringify({ type: 'reasoning', text: `thinking ${n}`, time: { start: t + 1100 } })],
    [`prt_${asst}_3`, asst, session, t + 2000, t + 2500, JSON.stringify({ type: 'tool', callID: `call_${n}`, tool: 'bash', state })],
    [`prt_${asst}_4`, asst, session, t + 3000, t + 3000, JSON.stringify({ type: 'text', text: `answer ${n}` })],
    [`prt_${asst}_5`, asst, session, t + 5000, t + 5000, JSON.stringify({ type: 'step-finish', reason: 'tool-calls', cost: 0.0125 + n / 1000, tokens: { input: 100 + n, output: 40 + n, reasoning: 7, cache: { read: 2000 + n, write: 300 } } })],
  ];
  return { messages, parts, ids: { user, asst } };
}

export type Exchange = ReturnType<typeof exchange>;

/** An exchange's rows (as made, or changed by the test) inserted through `d`: its messages, then its parts. */
export function insertRows(d: Database.Database, x: Pick<Exchange, 'messages' | 'parts'>): void {
  const m = d.prepare(INSERT_MESSAGE);
  const p = d.prepare(INSERT_PART);
  for (const r of x.messages) m.run(...r);
  for (const r of x.parts) p.run(...r);
}

/** Exchange `n` of `session` inserted through `d`: its messages, then its parts. */
export function insertExchange(d: Database.Database, session: string, n: number, opts: ExchangeOptions = {}): Exchange {
  const x = exchange(session, n, opts);
  insertRows(d, x);
  return x;
}

/** Exchange `n` of `session` committed by a writer process (test/helpers/sqlite-db.ts): its messages, then its parts. */
export async function writeExchange(w: Writer, session: string, n: number, opts: ExchangeOptions = {}): Promise<Exchange> {
  const x = exchange(session, n, opts);
  await w.run(INSERT_MESSAGE, x.messages);
  await w.run(INSERT_PART, x.parts);
  return x;
}

/** Session `id` (`sessionRow(id, n)`) and its exchanges 1 to `exchanges`, inserted through `d`. */
export function insertSession(d: Database.Database, id: string, n: number, exchanges: number): void {
  d.prepare(INSERT_SESSION).run(...sessionRow(id, n));
  for (let k = 1; k <= exchanges; k++) insertExchange(d, id, k);
}

/**
 * Run `fn` on the database at `path` as OpenCode would: through a connection of its own, closed after.
 * `foreignKeys: false` lets `fn` write rows OpenCode's keys would refuse (a part before its message).
 */
export function writeDb(path: string, fn: (d: Database.Database) => void, foreignKeys = true): void {
  const d = new Database(path);
  try {
    if (!foreignKeys) d.pragma('foreign_keys = OFF');
    fn(d);
  } finally {
    d.close();
  }
}

export function sessionRow(id: string, n: number, parent: string | null = null): unknown[] {
  return [id, 'prj_1', parent, `slug-${n}`, '/work/proj', parent === null ? `Session ${n}` : `Task ${n} (@general subagent)`, '1.14.39', JSON.stringify({ id: 'claude-sonnet-4-5', providerID: 'anthropic' }), T0 + n, T0 + n];
}

/** A new WAL database at `path` with OpenCode's tables and the project its sessions name (prj_1), open. */
function openEmpty(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(OPENCODE_DDL);
  db.prepare('INSERT INTO project (id, worktree, time_created, time_updated) VALUES (?, ?, ?, ?)').run('prj_1', '/work/proj', T0, T0);
  return db;
}

/** A closed WAL database with OpenCode's tables and a project, but no session yet. */
export function emptyOpencodeDb(path: string): void {
  openEmpty(path).close();
}

/** A closed WAL database: two sessions (the second a subagent of the first), `exchanges` each. */
export function buildOpencodeDb(path: string, exchanges = 3): { sessions: string[] } {
  const db = openEmpty(path);
  const sessions = ['ses_main', 'ses_child'];
  db.prepare(INSERT_SESSION).run(...sessionRow('ses_main', 1));
  db.prepare(INSERT_SESSION).run(...sessionRow('ses_child', 2, 'ses_main'));
  for (const s of sessions) {
    for (let n = 1; n <= exchanges; n++) insertExchange(db, s, n, { tool: n === 2 ? 'error' : 'completed', model: s === 'ses_child' ? 'claude-haiku-4-5' : undefined });
  }
  db.close();
  return { sessions };
}

/**
 * `buildOpencodeDb(path, 3)` with `sessions` beyond its first two (each of three exchanges): a database whose
 * sessions a batch read takes together (test/sqlite-table-marks.test.ts, test/sqlite-batch-lookups.test.ts).
 */
export function buildSessionsDb(path: string, sessions: readonly string[]): void {
  mkdirSync(dirname(path), { recursive: true });
  buildOpencodeDb(path, 3);
  writeDb(path, (db) => {
    for (const [k, s] of sessions.slice(2).entries()) insertSession(db, s, k + 3, 3);
  });
}

/** OpenCode's tables read by rowid, with the row at the watermark checked by its id (as its usage reads), per session. */
export const STEP_SOURCES: PartitionedSource[] = [
  { name: 'message', table: 'message', columns: 'id, session_id, data', tail: 'id', partition: 'session_id' },
  { name: 'part', table: 'part', columns: 'id, message_id, data', tail: 'id', partition: 'session_id' },
];
