/**
 * Reading an agent's SQLite database without touching it: a consistent snapshot that includes every
 * committed WAL transaction, taken without a write lock, without a checkpoint, and without creating,
 * changing or removing a byte in the agent's folder (the database, its `-wal` and `-shm`).
 *
 * Why not a plain `{ readonly: true }` open: SQLite's read-only flag covers the database file only. Measured
 * with better-sqlite3 12 (test/sqlite-snapshot.test.ts keeps these as cases):
 * - on a WAL database whose writer has closed (no `-wal` on disk), a read-only open creates an empty `-wal`
 *   and a 32 KiB `-shm` and leaves them behind;
 * - on a live one, the reader takes a read-mark slot in the `-shm` (a write into the shared memory: the
 *   `-shm` bytes and mtime change).
 * So one of three strategies is chosen per open (`SnapshotStrategy`):
 * - `shared` — `-wal` and `-shm` both exist: the URI `file:<db>?mode=ro&readonly_shm=1`. The `-shm` is
 *   mapped read-only, so SQLite never writes a read mark: it uses an existing one, or builds a private
 *   wal-index in heap memory from the `-wal` (`walBeginShmUnreliable`). Readers hold only shared fcntl
 *   locks, which change no byte; a writer's commits never wait on them (a checkpoint only stops at the
 *   frames a reader still needs, as with any reader). Cost: nothing beyond an ordinary read.
 * - `immutable` — no `-wal`: every committed transaction is in the database file. The URI
 *   `file:<db>?mode=ro&immutable=1` opens it with no locks, no `-wal` and no `-shm`. A writer that starts
 *   meanwhile writes to a new `-wal`, never into the database file, until it checkpoints; a checkpoint
 *   changes the file's mtime or size, so the snapshot stats the file before and after the read and reads
 *   again when it changed. Cost: one stat.
 * - `copy` — a `-wal` without a `-shm` (a crash leftover: SQLite cannot open it read-only without creating
 *   the `-shm`), or URI file names unavailable: the database and its `-wal` are copied into a private
 *   temporary folder (database first; its stat must be the same after the `-wal` was copied, else a
 *   checkpoint ran between the two copies and it copies again), opened there, and removed. SQLite recovers
 *   the copied `-wal` up to its last valid commit frame. Cost: the size of the database in copied bytes, so it
 *   is the fallback, never the rule.
 *
 * URI file names: better-sqlite3 builds SQLite with `SQLITE_USE_URI=0` and reads `SQLITE_USE_URI` from the
 * environment once, when the first database of the process is opened. cursors/record-path.ts (imported here,
 * and by the database codecs when the registry loads, long before the event cache opens its database) sets
 * it to `1` when it is unset, which works when no better-sqlite3 database was opened in the process before;
 * otherwise a probe
 * (an in-memory URI, opened read-only: nothing is created either way) finds URIs off and every open copies.
 * Absolute paths never start with `file:`, so turning URIs on changes nothing for other databases.
 *
 * A residual race: the agent may close its database (checkpoint, then delete `-wal` and `-shm`) between the
 * check for `-wal` and the `shared` open; SQLite's open then creates an empty `-wal`. The window is the
 * microseconds between a stat and an open.
 *
 * Everything a caller reads runs inside one read transaction (`withSqliteSnapshot`), synchronously, so it
 * sees one committed state of the database.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readSync, rmSync, statSync, type BigIntStats, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { settledBefore, statsStamp } from './listing-memo.js';
import { packageFile } from './package-file.js';
import { SessionfoldError } from './protocol/errors.js';
import { withFileSync } from './read-file.js';

export type SqliteDatabase = Database.Database;

let driver: typeof Database | undefined;
/**
 * better-sqlite3, loaded on first use: its modules and native binding take 15–45 ms to load (profiles of an
 * empty `cost report`), which a command that opens no database (no SQLite agent, no event cache) never pays.
 * Its addon is named to it where its build put it (`nativeBinding`): otherwise better-sqlite3 asks the
 * `bindings` package, which loads and tries a dozen candidate paths (~4 ms of CPU of the first open, the
 * event cache's on a warm report). Not there (a prebuilt binary elsewhere), `bindings` finds it as before.
 * With the addon named, its JavaScript comes from the executable's CommonJS bundle when that holds the
 * installed version (`bundledBetterSqlite3`), else from the package.
 */
export function sqliteDriver(): typeof Database {
  if (driver !== undefined) return driver;
  const req = createRequire(import.meta.url);
  const nativeBinding = packageFile(req, 'better-sqlite3', 'build/Release/better_sqlite3.node');
  const loaded = (nativeBinding === undefined ? undefined : bundledBetterSqlite3(req)) ?? (req('better-sqlite3') as typeof Database);
  driver =
    nativeBinding === undefined
      ? loaded
      : (class extends loaded {
          constructor(filename?: string | Buffer, options?: Database.Options) {
            super(filename, { nativeBinding, ...options });
          }
        } as typeof Database);
  return driver;
}

/**
 * Where the executable (src/cli/main.cts) runs its CommonJS bundle, it sets this global to a loader of the
 * packages the bundle holds, `(name, version) => exports | undefined`: scripts/bundle-cli.mjs puts
 * better-sqlite3's JavaScript (its thirteen modules, one file) there as `better-sqlite3-<version>.cjs`, which the
 * bundle's loader compiles with V8's code cache (src/cli/code-cache.cts). Required from the package instead,
 * Node's loader resolved and compiled each module afresh: about 3 ms of the first open on every run that
 * opens the event cache (a warm report after an append, bench/RESULTS.md).
 */
export const BUNDLED_PACKAGE = Symbol.for('sessionfold.bundledPackage');

/**
 * better-sqlite3's JavaScript from the executable's bundle (`BUNDLED_PACKAGE`), when the bundle holds the
 * version installed beside the addon `req` finds (the package.json of the copy `require` would load): a
 * bundle built before an upgrade of the package holds another version, and the package's own then loads.
 * Only with the addon named (`nativeBinding`): the bundled copy cannot ask `bindings`, which looks for the
 * addon beside the module that calls it.
 */
export function bundledBetterSqlite3(req: NodeJS.Require): typeof Database | undefined {
  const load = (globalThis as Record<symbol, unknown>)[BUNDLED_PACKAGE];
  if (typeof load !== 'function') return undefined;
  const pkg = packageFile(req, 'better-sqlite3', 'package.json');
  if (pkg === undefined) return undefined;
  let version: unknown;
  try {
    version = (JSON.parse(readFileSync(pkg, 'utf8')) as { version?: unknown }).version;
  } catch {
    return undefined;
  }
  if (typeof version !== 'string') return undefined;
  const exports = (load as (name: string, version: string) => unknown)('better-sqlite3', version);
  return typeof exports === 'function' ? (exports as typeof Database) : undefined;
}
export type SnapshotStrategy = 'shared' | 'immutable' | 'copy';

/** How long a reader waits on a lock another connection holds (SQLite's busy handler). */
export const BUSY_TIMEOUT_MS = 2000;
/** Reads tried before a `copy`, when the database changed under an `immutable` read. */
const IMMUTABLE_TRIES = 3;
const COPY_TRIES = 5;

export interface SnapshotOptions {
  /** Called with the strategy each attempt takes (tests, diagnostics). */
  onStrategy?: (strategy: SnapshotStrategy) => void;
  /** Take this strategy when its preconditions allow (tests); `copy` is always allowed. */
  prefer?: SnapshotStrategy;
  busyTimeoutMs?: number;
  /** The connection's page cache in KiB (`SCAN_CACHE_KIB` for reads that visit each page once); default better-sqlite3's 16 MB. */
  cacheKiB?: number;
}

/** The identity of a database file: a replaced file (new inode) restarts every cursor over it. */
export interface DatabaseIdentity {
  dev: number;
  ino: number;
}

let uriSupport: boolean | undefined;

/** True when this process's SQLite takes URI file names (see the header). Probed once; creates nothing. */
export function sqliteUriSupport(): boolean {
  if (uriSupport === undefined) {
    try {
      new (sqliteDriver())('file:sessionfold-uri-probe?mode=memory', { readonly: true }).close();
      uriSupport = true;
    } catch {
      uriSupport = false;
    }
  }
  return uriSupport;
}

/** A `file:` URI for an absolute path, with the characters URIs reserve escaped. */
function fileUri(path: string, query: string): string {
  const escaped = path.replace(/[%?#]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return `file:${escaped}?${query}`;
}

function statOrUndefined(path: string): Stats | undefined {
  return statSync(path, { throwIfNoEntry: false });
}

function sameFile<S extends Stats | BigIntStats>(a: S | undefined, b: S | undefined): boolean {
  return a !== undefined && b !== undefined && a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

function notFound(path: string, cause?: unknown): SessionfoldError {
  return new SessionfoldError('SESSION_NOT_FOUND', `Cannot open database ${path}: ENOENT`, { file: path, cause });
}

/**
 * A page cache for reads that visit each page once (a `count(*)` over an index, a range of a table), in KiB:
 * SQLite's own default. better-sqlite3 raises it to 16 MB, and a connection that reads more pages than it
 * keeps then allocates and first touches a fresh buffer per page until the cache is full: `count(*)` of
 * OpenCode's `part` and `message` in a 1 GiB database took 125-264 ms of CPU with 16 MB, 21-47 ms with 2 MB
 * (fresh connections, timed alone), most of the difference page faults. Reads that come back to pages (a
 * cold read of every session through its index) keep the large cache: with 2 MB one took twice the CPU.
 */
export const SCAN_CACHE_KIB = 2000;

function setCache(db: SqliteDatabase, kib: number | undefined): SqliteDatabase {
  if (kib !== undefined) db.pragma(`cache_size = -${Math.max(1, Math.floor(kib))}`);
  return db;
}

function openReadOnly(name: string, busyTimeoutMs: number, cacheKiB?: number): SqliteDatabase {
  return setCache(new (sqliteDriver())(name, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs }), cacheKiB);
}

/** The page cache of `db` at `SCAN_CACHE_KIB` (see there), for queries that visit each page once; returns its size before, for `leaveScanCache`. */
export function enterScanCache(db: SqliteDatabase): number {
  const before = db.pragma('cache_size', { simple: true }) as number;
  setCache(db, SCAN_CACHE_KIB);
  return before;
}

/** The page cache of `db` back to `before` (`enterScanCache`'s answer). */
export function leaveScanCache(db: SqliteDatabase, before: number): void {
  db.pragma(`cache_size = ${before}`);
}

/**
 * What a snapshot of an unchanging file computed, kept for the next snapshot of the same file state: a warm
 * run's discovery and its batch read each count the same tables (`count(*)` of OpenCode's `part` and `message`;
 * their cost on a 1 GiB database: bench/RESULTS.md, "Fewer statements per changed session") in snapshots of
 * their own. Only an `immutable` snapshot (no `-wal`: every committed transaction is in the file) has a
 * state that a stat names: the file's device, inode, size, mtime and ctime (a write changes mtime and ctime,
 * and ctime cannot be set back; no read moves it, as reads as root move a `-wal`'s), the same stat the snapshot already holds equal before and after its read to
 * trust what it read. A value enters the memo only once its snapshot was found valid that way; a `shared` or
 * `copy` snapshot computes every time.
 *
 * A timestamp moves once per clock tick (whole seconds on some file systems), and a WAL writer's checkpoint
 * moves neither the size nor the header's change counter: a row deleted in the same tick as a snapshot's
 * stat would leave the stamp as it was. So a snapshot keeps nothing when the file's mtime or ctime is within
 * RACY_MS of its start (cursors/listing-memo.ts `settledBefore`, git's "racily clean" rule): a later write
 * then has a later mtime.
 */
const memo = new Map<string, unknown>();
/** Entries kept at most (a process reading many databases, `serve`): the oldest go first. */
const MEMO_MAX = 256;
/**
 * Per open snapshot: its file, the stamp of the stat taken before the read (`statsStamp`), that stamp with the
 * header (`withHeader`, read when first asked), and what it computed so far.
 */
interface PendingMemo {
  path: string;
  stamp: string;
  named?: string;
  values: Map<string, unknown>;
}
const pendingMemo = new WeakMap<SqliteDatabase, PendingMemo>();

/**
 * The SQLite header's change counter and page count of the database at `path`, in hex (a rollback-journal
 * writer bumps the counter with every transaction, whatever the clock); undefined when the file cannot be read.
 */
export function headerStamp(path: string): string | undefined {
  try {
    return withFileSync(path, undefined, (fd) => {
      const b = Buffer.alloc(8);
      return readSync(fd, b, 0, 8, 24) === 8 ? b.toString('hex') : undefined;
    });
  } catch {
    return undefined;
  }
}

/**
 * The stamp with the header (`headerStamp`); undefined when the file cannot be read. Read once per snapshot,
 * when it first memoizes: a write after the stat moves the stat (the file was settled: see `memo`), which
 * `keepMemo` checks, so the header need not be read again after the read.
 */
function withHeader(p: PendingMemo): string | undefined {
  const header = headerStamp(p.path);
  return header === undefined ? undefined : `${p.stamp}:${header}`;
}

/**
 * `compute()` inside a snapshot of `db` (`withSqliteSnapshot`), or what an earlier snapshot of the same file
 * state computed under `key` (see `memo`). `compute` must depend on nothing but the database's contents.
 */
export function snapshotMemo<T>(db: SqliteDatabase, key: string, compute: () => T): T {
  const p = pendingMemo.get(db);
  if (p === undefined) return compute();
  if (p.values.has(key)) return p.values.get(key) as T;
  p.named ??= withHeader(p);
  if (p.named === undefined) {
    pendingMemo.delete(db);
    return compute();
  }
  const k = `${p.named}|${key}`;
  if (memo.has(k)) return memo.get(k) as T;
  const v = compute();
  p.values.set(key, v);
  return v;
}

/** The values a snapshot computed, when the file's stat `after` the read still names the state it started in. */
function keepMemo(db: SqliteDatabase, after: BigIntStats): void {
  const p = pendingMemo.get(db);
  if (p?.named === undefined || p.values.size === 0 || statsStamp(after) !== p.stamp) return;
  for (const [key, v] of p.values) {
    memo.delete(`${p.named}|${key}`);
    memo.set(`${p.named}|${key}`, v);
  }
  while (memo.size > MEMO_MAX) memo.delete(memo.keys().next().value as string);
}

/** Run `fn` inside one read transaction of `db`. */
function inReadTransaction<T>(db: SqliteDatabase, fn: (db: SqliteDatabase) => T): T {
  db.exec('BEGIN');
  try {
    return fn(db);
  } finally {
    if (db.inTransaction) db.exec('COMMIT');
  }
}

/**
 * Copy the database and its `-wal` into a fresh temporary folder; the database's stat must be the same after
 * the `-wal` was copied (no checkpoint between the two copies). Returns the copy's path and its folder.
 */
function copyDatabase(path: string): { copy: string; dir: string } {
  for (let attempt = 0; attempt < COPY_TRIES; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'sessionfold-sqlite-'));
    const copy = join(dir, basename(path));
    try {
      const before = statOrUndefined(path);
      if (before === undefined) throw notFound(path);
      copyFileSync(path, copy);
      const walBefore = statOrUndefined(`${path}-wal`);
      if (walBefore !== undefined) copyFileSync(`${path}-wal`, `${copy}-wal`);
      const walAfter = statOrUndefined(`${path}-wal`);
      // A -wal that shrank was restarted after a checkpoint while it was copied.
      const walOk = walBefore === undefined || (walAfter !== undefined && walAfter.size >= walBefore.size && walAfter.ino === walBefore.ino);
      if (sameFile(before, statOrUndefined(path)) && walOk) return { copy, dir };
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
    rmSync(dir, { recursive: true, force: true });
  }
  throw new SessionfoldError('IO_ERROR', `Cannot take a consistent copy of ${path}: it kept changing`, { file: path });
}

function readCopy<T>(path: string, fn: (db: SqliteDatabase) => T, busyTimeoutMs: number, cacheKiB?: number): T {
  const { copy, dir } = copyDatabase(path);
  try {
    // Read-write on the private copy: SQLite recovers the copied -wal into a -shm of its own there.
    const db = setCache(new (sqliteDriver())(copy, { fileMustExist: true, timeout: busyTimeoutMs }), cacheKiB);
    try {
      return inReadTransaction(db, fn);
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The strategy the files on disk allow (see the header). */
function chooseStrategy(path: string, prefer: SnapshotStrategy | undefined): SnapshotStrategy {
  if (prefer === 'copy' || !sqliteUriSupport()) return 'copy';
  const wal = existsSync(`${path}-wal`);
  if (!wal) return 'immutable';
  return existsSync(`${path}-shm`) ? 'shared' : 'copy';
}

/** SQLite errors after which the `copy` strategy can still read the database. */
function isRecoverable(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && /^SQLITE_(CANTOPEN|READONLY|BUSY|IOERR|PROTOCOL)/.test(code);
}

/**
 * `fn(db)` over a consistent, read-only snapshot of the database at `path` (see the header), inside one
 * read transaction; nothing is written beside the database. `fn` must be synchronous and may run more than
 * once (an `immutable` read whose file changed under it is read again), so it must only read.
 * Throws SESSION_NOT_FOUND when the database does not exist.
 */
export function withSqliteSnapshot<T>(path: string, fn: (db: SqliteDatabase) => T, options: SnapshotOptions = {}): T {
  const busy = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS;
  for (let attempt = 0; attempt < IMMUTABLE_TRIES; attempt++) {
    const started = Date.now();
    const before = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (before === undefined || !before.isFile()) throw notFound(path);
    const strategy = chooseStrategy(path, options.prefer);
    options.onStrategy?.(strategy);
    if (strategy === 'copy') return readCopy(path, fn, busy, options.cacheKiB);
    let db: SqliteDatabase;
    try {
      db = openReadOnly(fileUri(path, strategy === 'shared' ? 'mode=ro&readonly_shm=1' : 'mode=ro&immutable=1'), busy, options.cacheKiB);
    } catch (e) {
      if (!isRecoverable(e)) throw e;
      options.onStrategy?.('copy');
      return readCopy(path, fn, busy, options.cacheKiB);
    }
    if (strategy === 'immutable' && settledBefore(Math.max(Number(before.mtimeMs), Number(before.ctimeMs)), started)) {
      pendingMemo.set(db, { path, stamp: statsStamp(before), values: new Map() });
    }
    let value: T;
    try {
      value = inReadTransaction(db, fn);
    } catch (e) {
      db.close();
      if (!isRecoverable(e)) throw e;
      options.onStrategy?.('copy');
      return readCopy(path, fn, busy, options.cacheKiB);
    }
    db.close();
    // An immutable read is only as good as the file was still: a checkpoint may have written into it.
    if (strategy === 'shared') return value;
    const after = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (after !== undefined && sameFile(before, after)) {
      keepMemo(db, after);
      return value;
    }
  }
  options.onStrategy?.('copy');
  return readCopy(path, fn, busy, options.cacheKiB);
}

/**
 * `withSqliteSnapshot` for a codec: an SQLite error (a missing table: not this agent's database, or a schema
 * it does not know) becomes a PARSE_ERROR naming the agent and the file.
 */
export function withAgentSnapshot<T>(agent: string, path: string, fn: (db: SqliteDatabase) => T): T {
  try {
    return withSqliteSnapshot(path, fn);
  } catch (e) {
    if (e instanceof SessionfoldError) throw e;
    throw new SessionfoldError('PARSE_ERROR', `Cannot read the ${agent} database ${path}: ${(e as Error).message}`, { agent, file: path, cause: e });
  }
}

// Schema probes: a database changes shape across its versions (tables added or renamed, columns
// added), so a reader asks before it reads instead of letting a missing name fail the read. They read the
// schema only (`sqlite_master`, `pragma_table_info`), in the caller's snapshot.
/** Whether `name` is a table of the database (with `views`, a view of that name counts too). */
export function hasTable(db: SqliteDatabase, name: string, options: { views?: boolean } = {}): boolean {
  const types = options.views === true ? "('table', 'view')" : "('table')";
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type IN ${types} AND name = ?`).get(name) !== undefined;
}

/** The names of the database's tables. */
export function tableNames(db: SqliteDatabase): Set<string> {
  return new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
}

/** The column names of `table` (empty when there is no such table). */
export function columnsOf(db: SqliteDatabase, table: string): Set<string> {
  return new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]);
}

/** A JSON column's value as an object, or undefined (not text, not JSON, not an object). */
export { jsonObject } from './core.js';

/** The database file's identity, or undefined when it is gone. */
export function databaseIdentity(path: string): DatabaseIdentity | undefined {
  const s = statOrUndefined(path);
  return s === undefined ? undefined : { dev: s.dev, ino: s.ino };
}

const SQLITE_MAGIC = 'SQLite format 3\0';

/** True when the file starts with SQLite's header (a database, whatever its name). */
export function isSqliteFile(path: string): boolean {
  return withFileSync(path, false, (fd) => {
    const b = Buffer.alloc(16);
    return readSync(fd, b, 0, 16, 0) === 16 && b.toString('latin1') === SQLITE_MAGIC;
  });
}

// Record paths and the -wal dependency need no driver: they live where a codec can import them at load time.
export { recordPath, splitRecordPath, sqliteDependencies } from './record-path.js';
