/**
 * Zed `threads.db` databases for the tests: Zed's own DDL (fixtures/zed/schema.sql) and the rows of
 * fixtures/zed/rows.json, whose blobs are the committed `threads/*.json.zst` (compressed as Zed compresses,
 * fixtures/zed/README.md), in WAL mode.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { REPO_ROOT } from './real-fixtures.js';

export const ZED_FIXTURES = join(REPO_ROOT, 'fixtures', 'zed');
export const ZED_SCHEMA = readFileSync(join(ZED_FIXTURES, 'schema.sql'), 'utf8');

export interface ZedRow {
  id: string;
  summary: string;
  updated_at: string;
  created_at?: string;
  parent_id?: string;
  folder_paths?: string;
  folder_paths_order?: string;
  data_type: string;
  /** The blob's file under fixtures/zed; `hex`: raw bytes instead. */
  data?: string;
  hex?: string;
}

export const ZED_ROWS = JSON.parse(readFileSync(join(ZED_FIXTURES, 'rows.json'), 'utf8')) as ZedRow[];

/** A row's `data` as Zed binds it: the compressed bytes, or (`json`) the text. */
export function zedBlob(row: ZedRow): Buffer | string {
  if (row.hex !== undefined) return Buffer.from(row.hex, 'hex');
  const bytes = readFileSync(join(ZED_FIXTURES, row.data!));
  return row.data_type === 'zstd' ? bytes : bytes.toString('utf8').trim();
}

/** Insert `rows` as `ThreadsDatabase::save_thread_sync` does (its column list). */
export function insertZedRows(db: Database.Database, rows: readonly ZedRow[]): void {
  const insert = db.prepare('INSERT INTO threads (id, parent_id, folder_paths, folder_paths_order, summary, updated_at, data_type, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  for (const r of rows) insert.run(r.id, r.parent_id ?? null, r.folder_paths ?? null, r.folder_paths_order ?? null, r.summary, r.updated_at, r.data_type, zedBlob(r), r.created_at ?? null);
}

/** `<dataDir>/threads/threads.db` with Zed's schema and (unless `rows` is false) the fixture rows. */
export function buildZedDb(dataDir: string, opts: { rows?: boolean } = {}): string {
  const dir = join(dataDir, 'threads');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'threads.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(ZED_SCHEMA);
  if (opts.rows !== false) insertZedRows(db, ZED_ROWS);
  db.close();
  return path;
}

/** The sample tree under `home`: Zed's Linux data folder, `~/.local/share/zed/threads/threads.db`. */
export function layOutZed(home: string): string {
  return buildZedDb(join(home, '.local', 'share', 'zed'));
}
