/**
 * A database codec's `Codec.dependencyStamp` for its record paths (`<db>#<key>`, cursors/record-path.ts): the
 * database is every session's dependency, and an agent that writes one session at a time rewrites it at each
 * write, so stamped by its stat one write made the event cache and the session list read every session of it
 * again. A codec whose read of a session takes only that session's rows stamps the database per session with
 * what the read takes (equal stamps, equal events); the database's `-wal` and `-shm` are in those stamps (their
 * committed pages are in the snapshot the stamps are taken from). The codec's listing then gives each record a
 * stat of its own row (cursors/discovery.ts `DatabaseRecord`), not the database file's.
 *
 * The stamps of every session are taken in one snapshot per state of the database (`databaseState`), kept for
 * the run and in the listing memo between runs (cursors/listing-memo.ts): a warm run over an unchanged database
 * reads none of it.
 */
import type { DiscoverOptions } from './protocol/codec.js';
import { createHash64, type Hash64 } from './ids.js';
import { memoizedListing, sqliteFileStamp } from './listing-memo.js';
import { splitRecordPath } from './record-path.js';
import { databaseState } from './sqlite-events.js';
import { sqliteDependencies, withSqliteSnapshot, type SqliteDatabase } from './sqlite.js';

/**
 * Add a row to a stamp's hash: its columns in order, each by name, kind and length, then their bytes (a blob's
 * as they are, a text's in UTF-8). `createHash64` is the kernel's synchronous XXH64: stamps are taken during
 * discovery, before xxhash-wasm may have started.
 */
export function hashRow(h: Hash64, row: Record<string, unknown>): void {
  const shape: string[] = [];
  const values: Uint8Array[] = [];
  for (const [k, v] of Object.entries(row)) {
    const bytes = v instanceof Uint8Array ? v : Buffer.from(typeof v === 'string' ? v : String(v), 'utf8');
    shape.push(`${k}:${v instanceof Uint8Array ? 'b' : v === null ? 'z' : typeof v}:${bytes.byteLength}`);
    values.push(bytes);
  }
  h.update(Buffer.from(`${shape.join(',')};`, 'utf8'));
  for (const b of values) h.update(b);
}

/** The stamp of one row alone (`hashRow`). */
export function rowStamp(row: Record<string, unknown>): string {
  const h = createHash64();
  hashRow(h, row);
  return h.digest();
}

/**
 * The stamps of sessions whose read takes their row of a sessions table (`sessionsSql`, rows with an `id`) and
 * their rows of other tables (`childSql`, each giving rows with a `session_id`, in the order the read takes
 * them): every column of every row (`hashRow`), by session id.
 */
export function sessionTableStamps(d: SqliteDatabase, sessionsSql: string, childSql: readonly string[]): Record<string, string> {
  const hashes = new Map<string, Hash64>();
  for (const row of d.prepare(sessionsSql).iterate() as IterableIterator<Record<string, unknown>>) {
    if (typeof row.id !== 'string') continue;
    const h = createHash64();
    hashRow(h, row);
    hashes.set(row.id, h);
  }
  for (const sql of childSql) {
    for (const row of d.prepare(sql).iterate() as IterableIterator<Record<string, unknown>>) {
      const h = hashes.get(String(row.session_id));
      if (h !== undefined) hashRow(h, row);
    }
  }
  return Object.fromEntries([...hashes].map(([id, h]) => [id, h.digest()]));
}

/** The stamp of a session the database does not hold (gone since its listing): its read finds none either. */
const NO_RECORD = 'none';
/** The stamp of the database's `-wal` (and `-shm`): in the sessions' stamps. */
const IN_RECORDS = 'in the records';

function isStampTable(v: unknown): v is Record<string, string> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

/**
 * `Codec.dependencyStamp` from `stampsOf` (every session's stamp by key, from one snapshot of the database),
 * under `name` and `version` in the listing memo (the version goes up whenever the same rows would be stamped
 * otherwise). It stamps a record path's database by the record's stamp and the database's journals as in them;
 * undefined (the stat) for the database's own path, which reads every session, for any other file, and for a
 * database that cannot be read now (nothing is kept of that: it may read in the same state).
 */
export function recordStamper(name: string, version: string, stampsOf: (d: SqliteDatabase) => Record<string, string>): (file: string, dependency: string, options?: DiscoverOptions) => string | undefined {
  let stamped: { db: string; state: string; table: Record<string, string> } | undefined;
  function tableOf(db: string, memo: DiscoverOptions['listingMemo']): Record<string, string> | undefined {
    const state = databaseState(db);
    if (state === undefined) return undefined;
    if (stamped?.db === db && stamped.state === state) return stamped.table;
    let table: Record<string, string>;
    try {
      table = memoizedListing(memo, `${name}:${db}`, version, [db, ...sqliteDependencies(db)], isStampTable, () => withSqliteSnapshot(db, stampsOf), sqliteFileStamp);
    } catch {
      return undefined;
    }
    // a commit during the pass moved the state: the table is this call's alone
    if (databaseState(db) === state) stamped = { db, state, table };
    return table;
  }
  return (file, dependency, options) => {
    const { db, key } = splitRecordPath(file);
    if (key === undefined) return undefined;
    if (dependency !== db) return sqliteDependencies(db).includes(dependency) ? IN_RECORDS : undefined;
    const table = tableOf(db, options?.listingMemo);
    return table === undefined ? undefined : (table[key] ?? NO_RECORD);
  };
}
