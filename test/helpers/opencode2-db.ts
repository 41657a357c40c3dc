/**
 * OpenCode 2.x databases for tests: `session_v2` and `session_message` as OpenCode 2.x creates them
 * (`anomalyco/opencode` `packages/core/src/database/migration/20260804233008_loose_psylocke.ts` @ 7656aeb6, the
 * `CREATE TABLE` and `CREATE INDEX` statements copied as they are there), beside the 1.x tables of
 * ./opencode-db.ts or alone (a database only 2.x wrote). Rows are written as OpenCode 2.x writes them: a 1.x
 * session copied under its id and its messages under their 1.x ids by the first 2.x start
 * (`packages/core/src/database/v1-migration.bun.ts` `transformSession` and `run` @ 0871f3f7), and a reply's row
 * inserted when its step starts, then rewritten in place with a new `time_updated` as it streams and settles.
 */
import Database from 'better-sqlite3';
import { OPENCODE_DDL } from './opencode-db.js';

export const OPENCODE2_DDL = `
CREATE TABLE \`session_v2\` (
  \`id\` text PRIMARY KEY,
  \`project_id\` text NOT NULL,
  \`workspace_id\` text,
  \`parent_id\` text,
  \`fork_session_id\` text,
  \`fork_boundary\` text,
  \`slug\` text NOT NULL,
  \`directory\` text NOT NULL,
  \`path\` text,
  \`title\` text,
  \`version\` text NOT NULL,
  \`share_url\` text,
  \`summary_additions\` integer,
  \`summary_deletions\` integer,
  \`summary_files\` integer,
  \`summary_diffs\` text,
  \`metadata\` text,
  \`cost\` real DEFAULT 0 NOT NULL,
  \`tokens_input\` integer DEFAULT 0 NOT NULL,
  \`tokens_output\` integer DEFAULT 0 NOT NULL,
  \`tokens_reasoning\` integer DEFAULT 0 NOT NULL,
  \`tokens_cache_read\` integer DEFAULT 0 NOT NULL,
  \`tokens_cache_write\` integer DEFAULT 0 NOT NULL,
  \`revert\` text,
  \`permission\` text,
  \`agent\` text,
  \`model\` text,
  \`time_created\` integer NOT NULL,
  \`time_updated\` integer NOT NULL,
  \`time_compacting\` integer,
  \`time_archived\` integer,
  \`time_suspended\` integer,
  CONSTRAINT \`fk_session_v2_project_id_project_id_fk\` FOREIGN KEY (\`project_id\`) REFERENCES \`project\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`session_message\` (
  \`id\` text PRIMARY KEY,
  \`session_id\` text NOT NULL,
  \`type\` text NOT NULL,
  \`seq\` integer NOT NULL,
  \`time_created\` integer NOT NULL,
  \`time_updated\` integer NOT NULL,
  \`data\` text NOT NULL,
  CONSTRAINT \`fk_session_message_session_id_session_v2_id_fk\` FOREIGN KEY (\`session_id\`) REFERENCES \`session_v2\`(\`id\`) ON DELETE CASCADE
);
CREATE UNIQUE INDEX \`session_message_session_seq_idx\` ON \`session_message\` (\`session_id\`,\`seq\`);
CREATE INDEX \`session_message_session_type_seq_idx\` ON \`session_message\` (\`session_id\`,\`type\`,\`seq\`);
CREATE INDEX \`session_message_session_time_created_id_idx\` ON \`session_message\` (\`session_id\`,\`time_created\`,\`id\`);
CREATE INDEX \`session_message_time_created_idx\` ON \`session_message\` (\`time_created\`);
CREATE INDEX \`session_v2_project_idx\` ON \`session_v2\` (\`project_id\`);
CREATE INDEX \`session_v2_workspace_idx\` ON \`session_v2\` (\`workspace_id\`);
CREATE INDEX \`session_v2_parent_idx\` ON \`session_v2\` (\`parent_id\`);
CREATE INDEX \`session_v2_time_suspended_idx\` ON \`session_v2\` (\`time_suspended\`) WHERE "session_v2"."time_suspended" is not null;
`;

/** The `project` table 2.x keeps (a session's foreign key needs it), as ./opencode-db.ts reduces it. */
const PROJECT_DDL = 'CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);';

const T0 = 1767000000000;

/** A closed WAL database with 2.x's tables, and 1.x's too with `v1` (a database 2.x migrated). */
export function opencode2Db(path: string, v1: boolean): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(v1 ? OPENCODE_DDL + OPENCODE2_DDL : PROJECT_DDL + OPENCODE2_DDL);
  db.prepare('INSERT INTO project (id, worktree, time_created, time_updated) VALUES (?, ?, ?, ?)').run('prj_1', '/work/proj', T0, T0);
  db.close();
}

/** A 2.x session row (`session_v2`), created at `T0 + n`. */
export function insertSessionV2(d: Database.Database, id: string, n: number, parent: string | null = null): void {
  d.prepare('INSERT INTO session_v2 (id, project_id, parent_id, slug, directory, title, version, model, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
    id, 'prj_1', parent, `slug-${n}`, '/work/proj', `Session ${n}`, '2.0.15', JSON.stringify({ id: 'claude-sonnet-4-5', providerID: 'anthropic', variant: 'default' }), T0 + n, T0 + n,
  );
}

/** What the first 2.x start does to a 1.x session (`run`): the session copied under its id. */
export function copySession(d: Database.Database, id: string): void {
  d.prepare(
    `INSERT OR IGNORE INTO session_v2 (id, project_id, workspace_id, parent_id, slug, directory, path, title, version, share_url, cost, agent, model, time_created, time_updated)
     SELECT id, project_id, workspace_id, parent_id, slug, directory, path, title, version, share_url, cost, agent, model, time_created, time_updated FROM session WHERE id = ?`,
  ).run(id);
}

/**
 * And its messages (`transformSession`): each user message as a `user` row and each reply as an `assistant`
 * row under its 1.x id, the reply's tokens and cost as 1.x recorded them, in order (`seq` from 0).
 */
export function copyMessages(d: Database.Database, session: string): number {
  const rows = d.prepare('SELECT id, time_created, time_updated, data FROM message WHERE session_id = ? ORDER BY time_created, id').all(session) as { id: string; time_created: number; time_updated: number; data: string }[];
  const insert = d.prepare('INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
  rows.forEach((r, seq) => {
    const m = JSON.parse(r.data) as Record<string, any>;
    const data =
      m.role === 'user'
        ? { text: 'copied prompt', time: { created: r.time_created } }
        : { agent: m.agent, model: { providerID: m.providerID, id: m.modelID, variant: 'default' }, content: [{ type: 'text', text: 'copied answer' }], finish: m.finish, cost: m.cost, tokens: m.tokens, time: { created: r.time_created, completed: r.time_updated } };
    insert.run(r.id, session, m.role, seq, r.time_created, r.time_updated, JSON.stringify(data));
  });
  return rows.length;
}

/** A 2.x turn's `user` row. */
export function userV2(id: string, session: string, seq: number, t: number, text: string): unknown[] {
  return [id, session, 'user', seq, t, t, JSON.stringify({ text, time: { created: t } })];
}

/** The tokens of a settled 2.x reply: `input` without the cache, `output` without the reasoning. */
export const V2_TOKENS = { input: 1000, output: 200, reasoning: 50, cache: { read: 3000, write: 400 } };

/** A 2.x `assistant` row's data: as its step starts (`done` false: no tokens, no completion) or once settled. */
export function assistantV2Data(t: number, text: string, done: boolean): Record<string, unknown> {
  const base = { agent: 'build', model: { providerID: 'anthropic', id: 'claude-sonnet-4-5', variant: 'default' }, content: [{ type: 'reasoning', text: 'hmm' }, { type: 'text', text }, { type: 'tool', id: 'call_1', name: 'bash', state: { status: 'completed', input: { command: 'ls' }, content: [{ type: 'text', text: 'a.txt' }] }, time: { created: t, ran: t + 10, completed: t + 20 } }] };
  return done ? { ...base, finish: 'stop', cost: 0.5, tokens: V2_TOKENS, time: { created: t, completed: t + 900 } } : { ...base, time: { created: t } };
}

export const INSERT_V2 = 'INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?, ?)';
export const REWRITE_V2 = 'UPDATE session_message SET data = ?, time_updated = ? WHERE id = ?';

/** Run `fn` on the database at `path` through a connection of its own, closed after (as OpenCode writes it). */
export function write2(path: string, fn: (d: Database.Database) => void): void {
  const d = new Database(path);
  try {
    fn(d);
  } finally {
    d.close();
  }
}
