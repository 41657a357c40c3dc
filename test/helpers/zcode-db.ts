/** A Z Code usage database for the tests, built from fixtures/zcode/db.sql in WAL mode as Z Code keeps it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './real-fixtures.js';
import Database from 'better-sqlite3';

export const ZCODE_SQL = readFileSync(join(REPO_ROOT, 'fixtures', 'zcode', 'db.sql'), 'utf8');

export function buildZcodeDb(path: string): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(ZCODE_SQL);
  db.close();
}
