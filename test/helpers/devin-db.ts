/** A Devin CLI sessions database for the tests, built from fixtures/devin/sessions.sql in WAL mode as Devin keeps it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { REPO_ROOT } from './real-fixtures.js';

export const DEVIN_SQL = readFileSync(join(REPO_ROOT, 'fixtures', 'devin', 'sessions.sql'), 'utf8');

export function buildDevinDb(path: string, sql: string = DEVIN_SQL): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(sql);
  db.close();
}
