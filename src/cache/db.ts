/**
 * Opening the event cache database: WAL (a status line and a report read and write at once), a busy timeout,
 * `synchronous = NORMAL` (a crash may lose the last transactions of a cache, never corrupt it), and a
 * schema check. The file is ours when its header's `application_id` is CACHE_APPLICATION_ID and its
 * `user_version` is CACHE_SCHEMA_VERSION; an empty database gets the schema in one IMMEDIATE transaction (so
 * two processes creating it at once do not race). A sessionfold cache (its application_id says so) of a schema
 * version this build does not know, or a corrupt one, is moved aside as `<path>.corrupt-<ms>` (with its -wal
 * and -shm) and rebuilt, with a warning. Anything that cannot be proved a sessionfold cache (a file that is
 * not SQLite, a foreign database, a FIFO or a folder) is never opened for writing, moved or replaced: a
 * CACHE_ERROR names it, since the path is one the user named. A sessionfold cache of an older
 * schema version with a known additive migration (MIGRATIONS) is migrated in place instead, in one IMMEDIATE
 * transaction, so the ledger it holds survives an upgrade.
 */
import { closeSync, mkdirSync, openSync, readSync, renameSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { columnsOf, sqliteDriver } from '../../cursors/sqlite.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';

export type Db = Database.Database;

/** 'SFev' in the SQLite header's application_id. */
export const CACHE_APPLICATION_ID = 0x53466576;
/**
 * Goes up with any change of the tables or of the segment encoding. 2: the `summaries` table (list()).
 * 3: the `folds` table (totals fold snapshots), `meta.instance`, a random id of this database (a
 * snapshot read through one connection is never applied to rows read through another that opened a
 * rebuilt file), and `meta.changes`, a count of the writes to `files` (a snapshot taken at that count, whose
 * files are all as it saw them, is the answer without the rows being read). 4: `files.skipped`, the lines of
 * the file its reads skipped (malformed, absurd usage values, too long), so every report warns about them,
 * not only the run that read them. 5: `files.ino` and `ctime_ms`, `summaries.ino` and `ctime_ms`: a row is the
 * file's while its inode and ctime are too (src/scan/classify.ts `isUnchanged`); a migrated row holds -1,
 * which no file has, so each file is checked once (a resume verifies its prefix; a file without a cursor is
 * read again) and its row takes the file's identity. 6: `files.error` and `retry`: the warning the last read of
 * the file gave when it failed (a corrupt `.zst`, an I/O error), so a warm report gives it again, and whether
 * the file is read again by the next run (the failure was not of its bytes). 7: `files.failed_as`, and `retry`
 * the time from which such a failure is tried again: until then, and while the file is as the failure saw it,
 * its row is served with the warning (rows.ts `IO_RETRY_MS`); a migrated row's `retry` (1) is long past.
 */
export const CACHE_SCHEMA_VERSION = 7;
/**
 * SQLite page cache per connection (KiB). better-sqlite3 builds SQLite with a 16 MB default; the cache's
 * reads are sequential BLOB scans the OS page cache serves as well, so a smaller one costs no time and
 * takes ~10-15 MB off a run's peak RSS (1.8 GB history; bench/RESULTS.md, "Tuning after the peers run").
 */
export const PAGE_CACHE_KIB = 4000;
/** How long a writer waits for another process's transaction (ms). */
export const BUSY_TIMEOUT_MS = 15_000;

/**
 * `list()`'s per-file session summaries (src/cache/summaries.ts), valid while `parser`, `size`, `mtime_ms`,
 * `ino`, `ctime_ms`, `deps` and `fold_key` (summary rules + price data) match. Independent of `files`: a file can be listed
 * without ever being scanned, and the reverse.
 */
const SUMMARIES_SCHEMA = `
CREATE TABLE IF NOT EXISTS summaries (
  id INTEGER PRIMARY KEY,
  agent TEXT NOT NULL,
  path TEXT NOT NULL,
  parser TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  deps TEXT NOT NULL,
  fold_key TEXT NOT NULL,
  ino INTEGER NOT NULL DEFAULT -1,
  ctime_ms REAL NOT NULL DEFAULT -1,
  updated_at INTEGER NOT NULL,
  peek TEXT,
  usage TEXT,
  whole TEXT,
  UNIQUE (agent, path)
);
`;

/**
 * Snapshots of the totals fold (src/cost/incremental.ts): per query key, the fold's state (a header and
 * chunks of slots: src/cost/fold-state.ts) and the `files` rows (id → gen) it holds every record of.
 * `version` goes up with every write (a run that rewrites only the chunks it changed checks it first).
 * `file_changes`: per file, what each of its last updates that was not a rewrite did to its records (a resume:
 * the replaced tail and ledger keys removed, the segments added; a deletion: nothing), so a snapshot that
 * covers an older gen of the file (another query's run read the appended lines first) catches up from the
 * log instead of folding from scratch. A rewrite clears the file's log.
 */
export const FOLDS_SCHEMA = `
CREATE TABLE IF NOT EXISTS folds (
  key TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  chunk_count INTEGER NOT NULL, -- pieces (fold_chunks rows) of the state: seqs 0 … chunk_count - 1
  used_at INTEGER NOT NULL,
  gens BLOB NOT NULL,
  prices TEXT NOT NULL,
  summary TEXT NOT NULL,
  header TEXT NOT NULL,
  changes INTEGER,
  stats TEXT
);
CREATE TABLE IF NOT EXISTS fold_chunks (
  key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (key, seq)
);
CREATE TABLE IF NOT EXISTS file_changes (
  file_id INTEGER NOT NULL,
  gen INTEGER NOT NULL,
  removed BLOB,
  added BLOB,
  PRIMARY KEY (file_id, gen)
);
INSERT OR IGNORE INTO meta (key, value) VALUES ('instance', lower(hex(randomblob(16))));
INSERT OR IGNORE INTO meta (key, value) VALUES ('changes', '0');
`;

/** Additive steps: MIGRATIONS[v] takes a version-v cache to v + 1 without losing a row. */
const MIGRATIONS: Record<number, string | ((db: Db) => void)> = {
  1: SUMMARIES_SCHEMA,
  2: FOLDS_SCHEMA,
  3: (db) => addColumns(db, 'files', ['skipped INTEGER NOT NULL DEFAULT 0']),
  4: (db) => {
    // -1: no file's identity, so every migrated row is checked once against its file.
    for (const table of ['files', 'summaries']) addColumns(db, table, ['ino INTEGER NOT NULL DEFAULT -1', 'ctime_ms REAL NOT NULL DEFAULT -1']);
  },
  5: (db) => addColumns(db, 'files', ['error TEXT', 'retry INTEGER NOT NULL DEFAULT 0']),
  6: (db) => addColumns(db, 'files', ['failed_as TEXT']),
};

/** Add the columns `table` lacks (each given as its definition, name first). */
function addColumns(db: Db, table: string, definitions: readonly string[]): void {
  const columns = columnsOf(db, table);
  for (const d of definitions) if (!columns.has(d.split(' ')[0] as string)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${d}`);
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY,
  agent TEXT NOT NULL,
  path TEXT NOT NULL,
  root TEXT NOT NULL,
  parser TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  deps TEXT NOT NULL,
  prefix_hash TEXT,
  session_events INTEGER NOT NULL DEFAULT 0,
  cwd_index INTEGER,
  cwd TEXT,
  live_count INTEGER NOT NULL DEFAULT 0,
  segment_count INTEGER NOT NULL DEFAULT 0,
  ledger_count INTEGER NOT NULL DEFAULT 0,
  deleted INTEGER NOT NULL DEFAULT 0,
  gen INTEGER NOT NULL DEFAULT 1,
  updated_at INTEGER NOT NULL,
  skipped INTEGER NOT NULL DEFAULT 0,
  ino INTEGER NOT NULL DEFAULT -1,
  ctime_ms REAL NOT NULL DEFAULT -1,
  error TEXT,
  retry INTEGER NOT NULL DEFAULT 0,
  failed_as TEXT,
  -- Large values last: a row scan that does not ask for them never reads their overflow pages.
  cursor TEXT,
  ledger BLOB,
  UNIQUE (agent, path)
);
CREATE TABLE IF NOT EXISTS segments (
  file_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  count INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (file_id, seq)
);
${SUMMARIES_SCHEMA}
${FOLDS_SCHEMA}`;

const EXPECTED_TABLES = ['file_changes', 'files', 'fold_chunks', 'folds', 'meta', 'segments', 'summaries'];

/** True when a cache of `version` can be brought to CACHE_SCHEMA_VERSION by MIGRATIONS. */
function isMigratable(version: number): boolean {
  if (version < 1 || version >= CACHE_SCHEMA_VERSION) return false;
  for (let v = version; v < CACHE_SCHEMA_VERSION; v++) if (MIGRATIONS[v] === undefined) return false;
  return true;
}

/** Run the migrations from the version found (re-read inside the transaction: another process may have done it). */
function migrate(db: Db): void {
  db.transaction(() => {
    let v = db.pragma('user_version', { simple: true }) as number;
    if (!isMigratable(v)) return;
    for (; v < CACHE_SCHEMA_VERSION; v++) {
      const step = MIGRATIONS[v] as string | ((db: Db) => void);
      if (typeof step === 'string') db.exec(step);
      else step(db);
    }
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(`migrated-to-${CACHE_SCHEMA_VERSION}`, new Date().toISOString());
    db.pragma(`user_version = ${CACHE_SCHEMA_VERSION}`);
  }).immediate();
}

/** SQLite error codes that mean the file is not a usable database. */
export function isCorruptionError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'));
}

/** A file that is not a sessionfold cache: never moved, never written (a coded error names it). */
class ForeignDatabase extends Error {}
/** A sessionfold cache (its application_id says so) this build cannot use: moved aside and rebuilt. */
class UnusableCache extends Error {}

function configure(db: Db): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = OFF');
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
}

function validate(db: Db): void {
  const appId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (appId === CACHE_APPLICATION_ID && version === CACHE_SCHEMA_VERSION) {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]).filter((t) => !t.startsWith('sqlite_'));
    if (EXPECTED_TABLES.every((t) => tables.includes(t))) return;
    throw new UnusableCache('tables missing');
  }
  if (appId !== 0 && appId !== CACHE_APPLICATION_ID) throw new ForeignDatabase(`application_id ${appId}`);
  if (appId === CACHE_APPLICATION_ID && isMigratable(version)) {
    migrate(db);
    validate(db);
    return;
  }
  if (appId === CACHE_APPLICATION_ID) throw new UnusableCache(`schema version ${version}, this build knows ${CACHE_SCHEMA_VERSION}`);
  // An empty database: create the schema, unless someone else did it first or it holds foreign tables.
  db.transaction(() => {
    const id = db.pragma('application_id', { simple: true }) as number;
    if (id === CACHE_APPLICATION_ID) return;
    const count = db.prepare("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").pluck().get() as number;
    if (count > 0 || id !== 0) throw new ForeignDatabase('not a sessionfold cache');
    db.exec(SCHEMA);
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run('created', new Date().toISOString());
    db.pragma(`application_id = ${CACHE_APPLICATION_ID}`);
    db.pragma(`user_version = ${CACHE_SCHEMA_VERSION}`);
  }).immediate();
  validate(db);
}

function inode(path: string): number | undefined {
  return statSync(path, { throwIfNoEntry: false })?.ino;
}

/** Move `path` (and its -wal / -shm) aside as `<path>.corrupt-<ms>`; returns the new name. */
export function moveAside(path: string, expectedInode?: number): string | undefined {
  // Another process may already have moved it and built a fresh one: never move that one.
  if (expectedInode !== undefined && inode(path) !== expectedInode) return undefined;
  let aside = `${path}.corrupt-${Date.now()}`;
  for (let i = 1; statSync(aside, { throwIfNoEntry: false }) !== undefined; i++) aside = `${path}.corrupt-${Date.now()}-${i}`;
  try {
    renameSync(path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  for (const suffix of ['-wal', '-shm']) {
    try {
      renameSync(path + suffix, aside + suffix);
    } catch {
      // absent
    }
  }
  return aside;
}

export interface OpenedDb {
  db: Db;
  /** A corrupt or foreign file was moved aside and a fresh cache built. */
  rebuilt: boolean;
}

/**
 * Reject a foreign database before touching it (switching it to WAL would write its header). The header and
 * the table count are read in one read transaction: another process may be creating the schema of a new
 * cache right now, and reading its id before that commit and its tables after it would call it foreign.
 */
function precheck(db: Db): void {
  db.transaction(() => precheckRead(db))();
}

function precheckRead(db: Db): void {
  const appId = db.pragma('application_id', { simple: true }) as number;
  if (appId !== 0 && appId !== CACHE_APPLICATION_ID) throw new ForeignDatabase(`application_id ${appId}`);
  if (appId === CACHE_APPLICATION_ID) {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== CACHE_SCHEMA_VERSION && !isMigratable(version)) throw new UnusableCache(`schema version ${version}, this build knows ${CACHE_SCHEMA_VERSION}`);
  } else {
    const count = db.prepare("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").pluck().get() as number;
    if (count > 0) throw new ForeignDatabase('not a sessionfold cache');
  }
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * What the file at `path` is, read from its first bytes before SQLite opens it (so a FIFO, a device or a
 * folder is never opened, and a file that is not a database is never written): 'free' (absent or empty),
 * 'ours' (a SQLite header with CACHE_APPLICATION_ID), 'sqlite' (another SQLite header: its application_id
 * may still be in its WAL, so SQLite decides), or why it is not a cache.
 */
export function cacheFileKind(path: string): 'free' | 'ours' | 'sqlite' | { foreign: string } {
  let st;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch (e) {
    return { foreign: (e as Error).message };
  }
  if (st === undefined) return 'free';
  if (!st.isFile()) return { foreign: 'not a regular file' };
  if (st.size === 0) return 'free';
  const head = Buffer.alloc(100);
  let n = 0;
  try {
    const fd = openSync(path, 'r');
    try {
      n = readSync(fd, head, 0, 100, 0);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    return { foreign: (e as Error).message };
  }
  if (n < 100 || !head.subarray(0, 16).equals(SQLITE_MAGIC)) return { foreign: 'not a SQLite database' };
  return head.readUInt32BE(68) === CACHE_APPLICATION_ID ? 'ours' : 'sqlite';
}

const foreignErrors = new WeakSet<object>();

/** Whether `e` says the cache path holds something that is not a sessionfold cache (the user named a wrong path). */
export function isForeignCacheError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && foreignErrors.has(e);
}

function foreignError(path: string, why: string, cause?: unknown): SessionfoldError {
  const e = new SessionfoldError('CACHE_ERROR', `${path} is not a sessionfold cache (${why}): it is left as it is; name another cache file (--cache, SESSIONFOLD_CACHE) or remove it`, { file: path, cause });
  foreignErrors.add(e);
  return e;
}

function tryOpen(path: string): Db {
  const db = new (sqliteDriver())(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    precheck(db);
    configure(db);
    validate(db);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** SQLITE_BUSY / SQLITE_LOCKED: another process holds a lock the busy handler could not wait out. */
function isBusyError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

const SLEEP = new Int32Array(new SharedArrayBuffer(4));

/**
 * Connection reuse, for a resident process (`sessionfold serve`): `openCacheDb` hands out one open
 * connection per cache file, and `releaseCacheDb` keeps it open. A run then skips opening the file and,
 * more, the WAL checkpoint SQLite makes when the last connection closes. A file replaced underneath (moved
 * aside as corrupt by another process) is seen by its inode and opened afresh. The stores never hold a
 * transaction across an await, so the runs of one process can share a connection.
 */
let reuse = false;
const pooled = new Map<string, { db: Db; ino: number | undefined }>();

export function setConnectionReuse(on: boolean): void {
  reuse = on;
  if (on) return;
  for (const p of pooled.values()) if (p.db.open) p.db.close();
  pooled.clear();
}

export function isConnectionReused(): boolean {
  return reuse;
}

/** Whether `db` is a connection `openCacheDb` keeps open for reuse. */
export function isPooled(db: Db): boolean {
  for (const p of pooled.values()) if (p.db === db) return true;
  return false;
}

/**
 * Set by the executable (src/cli/main.cts) for a command it ends with `process.exit()` once the command
 * returns (`cost`): a connection that wrote, released then, is left open, and the exit drops it without
 * SQLite's close. The last close of a WAL database checkpoints it (an fsync of the WAL, the pages copied, an
 * fsync of the database) and deletes the WAL, which the next run's first write creates again (an fsync of its
 * header and one of the folder): four fsyncs on every run that writes, a few ms of wall time on an idle disk
 * and tens of ms on a busy one (bench/RESULTS.md, "After +1 MB"). Left open, the WAL stays, later commits
 * append to it, and SQLite checkpoints it when it passes `wal_autocheckpoint` (1,000 pages); the next process
 * to open the cache rebuilds the WAL's index from it. To SQLite such an exit is a crash, which WAL mode
 * recovers from (docs/cache.md, "Concurrency"). A connection that changed nothing is closed: a run that
 * answers without writing is the one that records the answer beside the cache (src/cache/answer-memo.ts),
 * and an open of an existing WAL can move its ctime (SQLite running as root gives it the database's owner
 * again), which that record takes for a write. A program that imports the library closes as before.
 */
export const LEAVE_OPEN_AT_EXIT = Symbol.for('sessionfold.cacheLeftOpenAtExit');

/** The end of a store's use of `db`: closed, unless it is kept for reuse or, having written, left to the exit. */
export function releaseCacheDb(db: Db): void {
  if (!db.open || isPooled(db)) return;
  if ((globalThis as Record<symbol, unknown>)[LEAVE_OPEN_AT_EXIT] === true && wrote(db)) return;
  db.close();
}

/** Whether this connection inserted, updated or deleted any row since it was opened. */
function wrote(db: Db): boolean {
  try {
    return (db.prepare('SELECT total_changes()').pluck().get() as number) > 0;
  } catch {
    return false; // closed under us, or busy: close it
  }
}

/** The inode of the file each connection `openFresh` made opened (a file moved aside has another, or none). */
const openedInode = new WeakMap<Db, number | undefined>();

/**
 * `db`, already open on the cache at `path`, for a second store of the same run (a report's fold snapshots and
 * its event cache): one connection instead of two, so one open (its schema check) and one close less. The
 * caller keeps ownership: the borrower must not close it. Undefined when `db` is closed or the file at `path`
 * is no longer the one it opened (moved aside as corrupt meanwhile): then the borrower opens its own.
 */
export function borrowCacheDb(path: string, db: Db): OpenedDb | undefined {
  if (!db.open || !openedInode.has(db) || openedInode.get(db) !== inode(path)) return undefined;
  return { db, rebuilt: false };
}

/**
 * Open (creating) the cache at `path`; a corrupt or foreign file is moved aside and rebuilt.
 *
 * Two processes opening a new cache at once race to switch it to WAL and create the schema; SQLite may answer
 * one of them SQLITE_BUSY at once instead of calling the busy handler (it does so to break a lock-upgrade
 * deadlock), so a busy open is retried, with jitter, until the busy timeout has passed.
 */
export function openCacheDb(path: string, warn: (message: string) => void): OpenedDb {
  if (!reuse) return openFresh(path, warn);
  const key = resolve(path);
  const p = pooled.get(key);
  if (p !== undefined) {
    if (p.db.open && inode(path) === p.ino) return { db: p.db, rebuilt: false };
    pooled.delete(key);
    if (p.db.open) p.db.close();
  }
  const opened = openFresh(path, warn);
  pooled.set(key, { db: opened.db, ino: inode(path) });
  return opened;
}

function openFresh(path: string, warn: (message: string) => void): OpenedDb {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    throw new SessionfoldError('CACHE_ERROR', `Cannot create the cache directory for ${path}: ${(e as Error).message}`, { file: path, cause: e });
  }
  let rebuilt = false;
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let attempt = 0; ; attempt++) {
    const ino = inode(path);
    const kind = cacheFileKind(path);
    if (typeof kind === 'object') throw foreignError(path, kind.foreign);
    try {
      const db = tryOpen(path);
      openedInode.set(db, inode(path));
      return { db, rebuilt };
    } catch (e) {
      if (isBusyError(e) && Date.now() < deadline) {
        Atomics.wait(SLEEP, 0, 0, 5 + Math.floor(Math.random() * 20));
        attempt--;
        continue;
      }
      if (e instanceof ForeignDatabase) throw foreignError(path, e.message, e);
      if (!(e instanceof UnusableCache) && !isCorruptionError(e)) {
        throw new SessionfoldError('CACHE_ERROR', `Cannot open the event cache ${path}: ${(e as Error).message}`, { file: path, cause: e });
      }
      // Only a file that says it is a sessionfold cache is moved aside: a corrupt one must carry our id.
      if (!(e instanceof UnusableCache) && cacheFileKind(path) !== 'ours') throw foreignError(path, `unreadable as a database: ${(e as Error).message}`, e);
      if (attempt >= 2) throw new SessionfoldError('CACHE_ERROR', `The event cache ${path} stays unusable: ${(e as Error).message}`, { file: path, cause: e });
      const what = e instanceof UnusableCache ? `is not a sessionfold cache this version knows (${e.message})` : `is corrupt (${(e as Error).message})`;
      const aside = moveAside(path, ino);
      if (aside !== undefined) {
        warn(`The event cache ${path} ${what}: moved it aside to ${aside} and rebuilt it.`);
        rebuilt = true;
      }
    }
  }
}
