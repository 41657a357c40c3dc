/**
 * MiMo Code databases for tests, with its real table definitions, translated from Drizzle: `session`,
 * `message` and `part` (XiaomiMiMo/MiMo-Code `packages/opencode/src/session/session.sql.ts`; `message` has
 * MiMo's `agent_id`) and `external_import` (`packages/opencode/src/session/external-import.sql.ts`);
 * `project` reduced to the columns a session's foreign key needs. In WAL mode, as MiMo runs it. The rows are
 * OpenCode's exchanges (test/helpers/opencode-db.ts), the message data MiMo keeps (OpenCode's `MessageV2`).
 */
import Database from 'better-sqlite3';
import { exchange, insertRows } from './opencode-db.js';

const EXTERNAL_IMPORT_DDL = `CREATE TABLE external_import (source text NOT NULL, source_key text NOT NULL, session_id text NOT NULL, source_path text NOT NULL,
  source_mtime integer NOT NULL, time_imported integer NOT NULL, message_ids text, PRIMARY KEY (source, source_key));`;

export const MIMO_DDL = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE session (
  id text PRIMARY KEY, project_id text NOT NULL REFERENCES project(id) ON DELETE CASCADE, workspace_id text, parent_id text,
  context_from text, context_watermark text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL,
  share_url text, summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text,
  revert text, permission text, prompt text, time_created integer NOT NULL, time_updated integer NOT NULL,
  time_compacting integer, time_archived integer, last_checkpoint_message_id text, auto_worktree_hint_sent integer);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_workspace_idx ON session (workspace_id);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE INDEX session_context_from_idx ON session (context_from);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  agent_id text NOT NULL DEFAULT 'main', time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX message_session_agent_idx ON message (session_id, agent_id, id);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id) ON DELETE CASCADE, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
${EXTERNAL_IMPORT_DDL}
`;

/**
 * The list of imports in MiMo's releases before `external_import` (which a migration made of it, as source `cc`):
 * Claude Code's imports only, at first without `message_ids`, then with it.
 */
const CLAUDE_IMPORT_DDL = {
  claude_import: 'CREATE TABLE claude_import (source_uuid text PRIMARY KEY NOT NULL, session_id text NOT NULL, source_path text NOT NULL, source_mtime integer NOT NULL, time_imported integer NOT NULL);',
  'claude_import+ids': 'CREATE TABLE claude_import (source_uuid text PRIMARY KEY, session_id text NOT NULL, source_path text NOT NULL, source_mtime integer NOT NULL, time_imported integer NOT NULL, message_ids text);',
};

export type ImportTable = 'external_import' | keyof typeof CLAUDE_IMPORT_DDL;

const T0 = 1767000000000;

function session(db: Database.Database, id: string, n: number, version: string): void {
  db.prepare('INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(id, 'prj_1', `slug-${n}`, '/work/proj', `Session ${n}`, version, T0 + n, T0 + n);
}

/**
 * A closed WAL database of three sessions: `ses_native` (two exchanges of MiMo's own); `ses_cc`, whose
 * exchanges 1 and 2 MiMo imported from a Claude Code transcript (listed in `external_import`) and whose
 * exchange 3 is MiMo's own continuation; `ses_legacy`, imported by MiMo's earlier Claude importer, whose
 * `external_import` row has no `message_ids` (null) and a `time_imported` between exchange 2 and exchange 3:
 * exchanges 1 and 2 are the imported ones, exchange 3 MiMo's own.
 */
export function buildMimoDb(path: string, imports: ImportTable = 'external_import'): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(imports === 'external_import' ? MIMO_DDL : MIMO_DDL.replace(EXTERNAL_IMPORT_DDL, CLAUDE_IMPORT_DDL[imports]));
    db.prepare('INSERT INTO project (id, worktree, time_created, time_updated) VALUES (?, ?, ?, ?)').run('prj_1', '/work/proj', T0, T0);
    session(db, 'ses_native', 1, '0.9.2');
    session(db, 'ses_cc', 2, '2.1.3');
    session(db, 'ses_legacy', 3, 'claude-code');
    for (const n of [1, 2]) insertRows(db, exchange('ses_native', n, { model: 'mimo-v2.5-pro' }));
    const imported = [1, 2].map((n) => insertExchange(db, 'ses_cc', n));
    insertRows(db, exchange('ses_cc', 3, { model: 'mimo-v2.5-pro' }));
    for (const n of [1, 2]) insertRows(db, exchange('ses_legacy', n));
    insertRows(db, exchange('ses_legacy', 3, { model: 'mimo-v2.5-pro' }));
    // exchange n's messages are created at T0 + n * 10 s (+ 1 s for the reply): imported between 2 and 3
    const rows: [string, string, number, string | null][] = [
      ['uuid-cc', 'ses_cc', imports === 'claude_import' ? T0 + 25_000 : T0, JSON.stringify(imported.flat())],
      ['uuid-legacy', 'ses_legacy', T0 + 25_000, null],
    ];
    for (const [key, session, at, ids] of rows) {
      const file = `/home/u/.claude/projects/-work-proj/${key}.jsonl`;
      if (imports === 'external_import') db.prepare('INSERT INTO external_import (source, source_key, session_id, source_path, source_mtime, time_imported, message_ids) VALUES (?, ?, ?, ?, ?, ?, ?)').run('cc', key, session, file, T0, at, ids);
      else if (imports === 'claude_import') db.prepare('INSERT INTO claude_import (source_uuid, session_id, source_path, source_mtime, time_imported) VALUES (?, ?, ?, ?, ?)').run(key, session, file, T0, at);
      else db.prepare('INSERT INTO claude_import (source_uuid, session_id, source_path, source_mtime, time_imported, message_ids) VALUES (?, ?, ?, ?, ?, ?)').run(key, session, file, T0, at, ids);
    }
  } finally {
    db.close();
  }
}

function insertExchange(db: Database.Database, id: string, n: number): string[] {
  const x = exchange(id, n);
  insertRows(db, x);
  return [x.ids.user, x.ids.asst];
}

/** What the `mimo` codec counts of `buildMimoDb`: exchanges 1 and 2 of `ses_native`, and 3 of `ses_cc` and of `ses_legacy`. */
export const MIMO_TOKENS = { inputTokens: 409, outputTokens: 197, cacheReadTokens: 8009, cacheWriteTokens: 1200 };
