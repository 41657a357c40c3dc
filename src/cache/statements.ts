/**
 * The event cache's SQL (the tables of db.ts): the statements store.ts and file-segments.ts run, each prepared
 * on its first use by an EventCache (the two rare writes, `setRoots` and `forget`, prepare theirs where they
 * run). Kept apart so that store.ts reads as what the cache does, and this as how it asks the database.
 * Prepared lazily because most runs use a few: a warm report after an append reads the rows, applies one file
 * and stores its fold; the retained-spend pass (src/cost/retained.ts) opens a second store on the same
 * connection for one query. Preparing all two dozen with each store was work the run never used.
 */
import type Database from 'better-sqlite3';
import type { Db } from './db.js';

const ROW_COLUMNS =
  'id, agent, path, root, parser, size, mtime_ms, deps, cursor IS NOT NULL AS has_cursor, prefix_hash, session_events, cwd_index, cwd, live_count, segment_count, ledger_count, deleted, gen, skipped, ino, ctime_ms, error, retry, failed_as';
const BULK_COLUMNS =
  'id, agent, path, root, parser, size, mtime_ms, deps, prefix_hash, session_events, cwd_index, cwd, live_count, segment_count, ledger_count, deleted, gen, skipped, ino, ctime_ms, error, retry, failed_as';

/**
 * The prepared statements of one connection, by the names store.ts and file-segments.ts run them by. Spelled
 * out: better-sqlite3's own Statement type cannot be named in the declarations tsc emits, so the object's
 * inferred type cannot be exported; the object literal below must have exactly these keys.
 */
export type Statements = { readonly [K in StatementName]: Database.Statement };
type StatementName =
  | 'byAgent'
  | 'byPath'
  | 'bulkByPath'
  | 'retaining'
  | 'changesCount'
  | 'byId'
  | 'ledger'
  | 'cursor'
  | 'bulkRows'
  | 'bulkSegments'
  | 'segments'
  | 'segmentCountsDesc'
  | 'segmentData'
  | 'maxSeq'
  | 'deleteSegments'
  | 'deleteSegment'
  | 'insertSegment'
  | 'replaceSegment'
  | 'insertFile'
  | 'updateFile'
  | 'insertFailed'
  | 'noteFailure'
  | 'markDeleted'
  | 'insertChange'
  | 'pruneChanges'
  | 'clearChanges'
  | 'countChange'
  | 'changes';

export function prepareStatements(db: Db): Statements {
  return lazyStatements({
    // Raw rows, without the cursor test: a warm run loads every row, and better-sqlite3 builds objects
    // from named columns about twice as slowly as arrays (3,922 rows: 24 ms vs 14 ms).
    byAgent: () => db.prepare(`SELECT ${BULK_COLUMNS} FROM files WHERE agent = ?`).raw(),
    byPath: () => db.prepare(`SELECT ${ROW_COLUMNS} FROM files WHERE agent = ? AND path = ?`),
    bulkByPath: () => db.prepare(`SELECT ${BULK_COLUMNS} FROM files WHERE agent = ? AND path = ?`).raw(),
    retaining: () => db.prepare(`SELECT ${BULK_COLUMNS} FROM files WHERE agent = ? AND (ledger_count > 0 OR deleted != 0)`).raw(),
    changesCount: () => db.prepare("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'changes'").pluck(),
    byId: () => db.prepare(`SELECT ${ROW_COLUMNS} FROM files WHERE id = ?`),
    ledger: () => db.prepare('SELECT ledger FROM files WHERE id = ?').pluck(),
    cursor: () => db.prepare('SELECT cursor FROM files WHERE id = ?').pluck(),
    bulkRows: () => db.prepare(`SELECT id, path, cwd, deleted, ledger_count, ledger FROM files WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`),
    bulkSegments: () => db.prepare('SELECT file_id, data FROM segments WHERE file_id IN (SELECT value FROM json_each(?)) ORDER BY file_id, seq').raw(),
    segments: () => db.prepare('SELECT data FROM segments WHERE file_id = ? ORDER BY seq').pluck(),
    segmentCountsDesc: () => db.prepare('SELECT seq, count FROM segments WHERE file_id = ? ORDER BY seq DESC'),
    segmentData: () => db.prepare('SELECT data FROM segments WHERE file_id = ? AND seq = ?').pluck(),
    maxSeq: () => db.prepare('SELECT max(seq) FROM segments WHERE file_id = ?').pluck(),
    deleteSegments: () => db.prepare('DELETE FROM segments WHERE file_id = ?'),
    deleteSegment: () => db.prepare('DELETE FROM segments WHERE file_id = ? AND seq = ?'),
    insertSegment: () => db.prepare('INSERT INTO segments (file_id, seq, count, data) VALUES (?, ?, ?, ?)'),
    replaceSegment: () => db.prepare('UPDATE segments SET count = ?, data = ? WHERE file_id = ? AND seq = ?'),
    insertFile: () => db.prepare(
      `INSERT INTO files (agent, path, root, parser, size, mtime_ms, ino, ctime_ms, deps, cursor, prefix_hash, session_events, cwd_index, cwd,
           live_count, segment_count, ledger, ledger_count, deleted, gen, updated_at, skipped)
         VALUES (@agent, @path, @root, @parser, @size, @mtime_ms, @ino, @ctime_ms, @deps, @cursor, @prefix_hash, @session_events, @cwd_index, @cwd,
           @live_count, @segment_count, @ledger, @ledger_count, 0, 1, @updated_at, @skipped) RETURNING id`,
    ),
    updateFile: () => db.prepare(
      `UPDATE files SET root = @root, parser = @parser, size = @size, mtime_ms = @mtime_ms, ino = @ino, ctime_ms = @ctime_ms, deps = @deps, cursor = @cursor,
           prefix_hash = @prefix_hash, session_events = @session_events, cwd_index = @cwd_index, cwd = @cwd, live_count = @live_count,
           segment_count = @segment_count, ledger = @ledger, ledger_count = @ledger_count, deleted = 0, gen = gen + 1,
           updated_at = @updated_at, skipped = @skipped, error = NULL, retry = 0, failed_as = NULL
         WHERE id = @id`,
    ),
    insertFailed: () => db.prepare(
      `INSERT INTO files (agent, path, root, parser, size, mtime_ms, ino, ctime_ms, deps, updated_at, error, retry, failed_as)
         VALUES (@agent, @path, @root, @parser, @size, @mtime_ms, @ino, @ctime_ms, @deps, @updated_at, @error, @retry, @failed_as) RETURNING id`,
    ),
    noteFailure: () => db.prepare(
      `UPDATE files SET size = @size, mtime_ms = @mtime_ms, ino = @ino, ctime_ms = @ctime_ms, deps = @deps, error = @error, retry = @retry, failed_as = @failed_as,
           updated_at = @updated_at
         WHERE id = @id`,
    ),
    markDeleted: () => db.prepare('UPDATE files SET deleted = 1, gen = gen + 1, updated_at = ? WHERE id = ? AND deleted = 0 RETURNING gen').pluck(),
    insertChange: () => db.prepare('INSERT OR REPLACE INTO file_changes (file_id, gen, removed, added) VALUES (?, ?, ?, ?)'),
    pruneChanges: () => db.prepare('DELETE FROM file_changes WHERE file_id = ? AND gen <= ?'),
    clearChanges: () => db.prepare('DELETE FROM file_changes WHERE file_id = ?'),
    countChange: () => db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'changes'"),
    changes: () => db.prepare('SELECT gen, removed, added FROM file_changes WHERE file_id = ? AND gen > ? AND gen <= ? ORDER BY gen'),
  }) as Statements;
}

type Lazy<T extends Record<string, () => object>> = { readonly [K in keyof T]: ReturnType<T[K]> };

/**
 * An object whose property `k` is `make[k]()`, prepared when first read and kept. (The makers are typed as
 * returning any object: typed as returning a `Statement`, that return type would be taken for the bind
 * parameters `prepare` infers.)
 */
export function lazyStatements<T extends Record<string, () => object>>(make: T): Lazy<T> {
  const out = {} as Record<string, object>;
  for (const key of Object.keys(make)) {
    Object.defineProperty(out, key, {
      configurable: true,
      enumerable: true,
      get(): object {
        const statement = (make[key] as () => object)();
        Object.defineProperty(out, key, { value: statement, enumerable: true, writable: false, configurable: false });
        return statement;
      },
    });
  }
  return out as Lazy<T>;
}
