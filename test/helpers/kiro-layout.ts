/**
 * Kiro CLI samples for the tests: fixtures/kiro/sessions/cli (session metadata and logs) at
 * `~/.kiro/sessions/cli`, and `data.sqlite3` built from the CLI's own DDL (fixtures/kiro/schema.sql, from its
 * migration) with the rows of fixtures/kiro/rows.sql, at `~/.local/share/kiro-cli`.
 */
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { REPO_ROOT } from './real-fixtures.js';

const sql = (name: string) => readFileSync(join(REPO_ROOT, 'fixtures', 'kiro', name), 'utf8');
export const KIRO_SCHEMA = sql('schema.sql');
export const KIRO_ROWS = sql('rows.sql');
export const KIRO_SESSIONS = join(REPO_ROOT, 'fixtures', 'kiro', 'sessions', 'cli');

/** `<dir>/data.sqlite3` with the schema and, unless `rows` is false, the rows; in WAL mode when asked. */
export function buildKiroDb(dir: string, opts: { rows?: boolean; wal?: boolean } = {}): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'data.sqlite3');
  const db = new Database(path);
  if (opts.wal === true) db.pragma('journal_mode = WAL');
  db.exec(KIRO_SCHEMA);
  if (opts.rows !== false) db.exec(KIRO_ROWS);
  db.close();
  return path;
}

/** The sample tree under `home`: the session files and the database where kiro-cli keeps them on Linux. */
export function layOutKiro(home: string): { sessions: string; db: string } {
  const sessions = join(home, '.kiro', 'sessions', 'cli');
  cpSync(KIRO_SESSIONS, sessions, { recursive: true });
  return { sessions, db: buildKiroDb(join(home, '.local', 'share', 'kiro-cli')) };
}
