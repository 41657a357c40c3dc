/**
 * Names of sessions inside databases, and what a database's reads depend on, without loading the SQLite
 * driver: a codec calls these at load time and in `getParseDependencies`, which must stay cheap for commands
 * that read no database. cursors/sqlite.ts re-exports them.
 */
import { existsSync } from 'node:fs';

/*
 * URI file names for SQLite, which cursors/sqlite.ts needs for its read-only snapshots: better-sqlite3 reads
 * SQLITE_USE_URI once, at the first database the process opens (the event cache's, often). The codecs import
 * this module when the registry loads and load the driver only on their first read, so the variable is set
 * here, early, and not in sqlite.ts.
 */
if (process.env.SQLITE_USE_URI === undefined) process.env.SQLITE_USE_URI = '1';

/** The files whose change changes what a database holds: its `-wal` (`Codec.getParseDependencies`). */
export function sqliteDependencies(path: string): string[] {
  return [`${path}-wal`];
}

/*
 * Record paths. A database holds many sessions, and every fold above the codecs keys on one path per session
 * (a SessionFile). A session inside a database is named `<database path>#<encoded key>`: the key is
 * `encodeURIComponent`-encoded, so it holds no `#` and no `/`, and the last `#` splits the two. A real file
 * of that name wins over the split (`splitRecordPath`).
 */

/** The path of the record `key` (a session id) inside the database at `db`. */
export function recordPath(db: string, key: string): string {
  return `${db}#${encodeURIComponent(key)}`;
}

/** A record path split into database and key; a plain path (or an existing file) has no key. */
export function splitRecordPath(path: string): { db: string; key: string | undefined } {
  const cut = path.lastIndexOf('#');
  if (cut <= 0) return { db: path, key: undefined };
  const rest = path.slice(cut + 1);
  if (rest === '' || rest.includes('/') || rest.includes('\\') || existsSync(path)) return { db: path, key: undefined };
  try {
    return { db: path.slice(0, cut), key: decodeURIComponent(rest) };
  } catch {
    return { db: path, key: undefined };
  }
}

/**
 * The parse dependencies of a database path or of a record inside one: the `-wal`, and for a record its
 * database too (the record has no file of its own whose change a watcher would see).
 */
export function recordDependencies(path: string): string[] {
  const { db, key } = splitRecordPath(path);
  return key === undefined ? sqliteDependencies(db) : [db, ...sqliteDependencies(db)];
}
