/**
 * Crush databases for the tests: Crush's own DDL (fixtures/crush/schema.sql, from its migrations; later.sql,
 * the columns later migrations add), the rows of fixtures/crush/rows.sql, in WAL mode as Crush keeps them, and
 * the global `projects.json` that registers the project.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { REPO_ROOT } from './real-fixtures.js';

const sql = (name: string) => readFileSync(join(REPO_ROOT, 'fixtures', 'crush', name), 'utf8');
export const CRUSH_SCHEMA = sql('schema.sql');
export const CRUSH_LATER = sql('later.sql');
export const CRUSH_ROWS = sql('rows.sql');

/** `<dataDir>/crush.db` with the schema (`later`: with the later columns) and, unless `rows` is false, the rows. */
export function buildCrushDb(dataDir: string, opts: { later?: boolean; rows?: boolean } = {}): string {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'crush.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(CRUSH_SCHEMA);
  if (opts.later !== false) db.exec(CRUSH_LATER);
  if (opts.rows !== false) db.exec(CRUSH_ROWS);
  db.close();
  return path;
}

/** `<globalData>/projects.json` naming the projects as Crush's `projects.Register` writes it. */
export function writeCrushProjects(globalData: string, projects: readonly { path: string; data_dir: string }[]): void {
  mkdirSync(globalData, { recursive: true });
  const list = projects.map((p, i) => ({ ...p, last_accessed: new Date(Date.UTC(2026, 0, 6, 12, 0, i)).toISOString() }));
  writeFileSync(join(globalData, 'projects.json'), JSON.stringify({ projects: list }, null, 2));
}

/** The sample tree under `home`: `~/work/shop/.crush/crush.db`, registered in `~/.local/share/crush/projects.json`. */
export function layOutCrush(home: string): string {
  const project = join(home, 'work', 'shop');
  const db = buildCrushDb(join(project, '.crush'));
  writeCrushProjects(join(home, '.local', 'share', 'crush'), [
    { path: project, data_dir: join(project, '.crush') },
    { path: join(home, 'work', 'gone'), data_dir: join(home, 'work', 'gone', '.crush') },
  ]);
  return db;
}
