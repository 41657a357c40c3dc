/**
 * `threads.db` stamped per thread (`Codec.dependencyStamp`). The database is every thread's dependency, and Zed
 * rewrites it at each save of any thread: stamped by its stat, one save made the event cache and the session
 * list read every thread of it again. A thread's read takes its own row and nothing else of the database
 * (index.ts `rowEvents`), so the row stamps it: its columns' digest, blob included. Equal stamps, equal rows,
 * equal events. Its `-wal`'s committed pages are in the snapshot a read takes, so in the rows' stamps.
 *
 * The stamps of every row are taken in one pass over the table per state of the database (`databaseState`),
 * kept for the run and in the listing memo between runs (cursors/listing-memo.ts): a warm run over an
 * unchanged database reads none of it.
 */
import type { DiscoverOptions } from '../../cursors/protocol/codec.js';
import { createHash64 } from '../../cursors/ids.js';
import { memoizedListing, sqliteFileStamp } from '../../cursors/listing-memo.js';
import { splitRecordPath } from '../../cursors/record-path.js';
import { databaseState } from '../../cursors/sqlite-events.js';
import { sqliteDependencies, withSqliteSnapshot } from '../../cursors/sqlite.js';
import { PARSER_VERSION } from './descriptor.js';
import { CODEC_ID } from './paths.js';

/** The stamp of a thread the table does not hold (gone since its listing): its read finds none either. */
const NO_ROW = 'none';
/** The stamp of the database's `-wal`: its committed pages are in the rows' stamps. */
const IN_ROWS = 'in the rows';
/** Goes up whenever the stamps of the same rows would differ. */
const STAMP_VERSION = 1;

/**
 * A row's stamp: its columns in order, each by name, kind and length, then the XXH64 of their bytes (a blob's
 * as they are, a text's in UTF-8), by the kernel's synchronous hash (cursors/ids.ts `createHash64`: the stamps
 * are taken during discovery, before xxhash-wasm may have started).
 */
export function rowStamp(row: Record<string, unknown>): string {
  const h = createHash64();
  const shape: string[] = [];
  for (const [k, v] of Object.entries(row)) {
    const bytes = v instanceof Uint8Array ? v : Buffer.from(typeof v === 'string' ? v : String(v), 'utf8');
    shape.push(`${k}:${v instanceof Uint8Array ? 'b' : v === null ? 'z' : typeof v}:${bytes.byteLength}`);
    h.update(bytes);
  }
  return `${shape.join(',')}/${h.digest()}`;
}

function isStampTable(v: unknown): v is Record<string, string> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

/** Every row's stamp by thread id; none when the database cannot be read (nothing is kept of that). */
function rowStamps(db: string): Record<string, string> {
  return withSqliteSnapshot(db, (d) => {
    const out: Record<string, string> = {};
    for (const row of d.prepare('SELECT * FROM threads').iterate() as IterableIterator<Record<string, unknown>>) {
      if (typeof row.id === 'string') out[row.id] = rowStamp(row);
    }
    return out;
  });
}

/** The stamps of the state last stamped. */
let stamped: { db: string; state: string; table: Record<string, string> } | undefined;

/** The stamps of every thread of `db` as it is now: the last state's, else the memo's, else a pass now. */
function stampTable(db: string, memo: DiscoverOptions['listingMemo']): Record<string, string> | undefined {
  const state = databaseState(db);
  if (state === undefined) return undefined;
  if (stamped?.db === db && stamped.state === state) return stamped.table;
  let table: Record<string, string>;
  try {
    table = memoizedListing(memo, `zed-rows:${db}`, `${CODEC_ID}@${PARSER_VERSION}.s${STAMP_VERSION}`, [db, ...sqliteDependencies(db)], isStampTable, () => rowStamps(db), sqliteFileStamp);
  } catch {
    return undefined; // a read that failed (a lock, a file being replaced) may succeed in the same state
  }
  // a commit during the pass moved the state: the table is this call's alone
  if (databaseState(db) === state) stamped = { db, state, table };
  return table;
}

/**
 * `Codec.dependencyStamp`: a thread's record path stamped by its row (`rowStamp`) for its database, and by the
 * rows for the database's `-wal`; undefined (the stat) for the database's own path, which reads every thread,
 * and for a database that cannot be read now.
 */
export function zedDependencyStamp(file: string, dependency: string, options?: DiscoverOptions): string | undefined {
  const { db, key } = splitRecordPath(file);
  if (key === undefined) return undefined;
  if (dependency !== db) return sqliteDependencies(db).includes(dependency) ? IN_ROWS : undefined;
  const table = stampTable(db, options?.listingMemo);
  return table === undefined ? undefined : (table[key] ?? NO_ROW);
}
