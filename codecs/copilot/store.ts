/**
 * Per-call token usage from Copilot CLI's `session-store.db` (beside `session-state/` in a Copilot home),
 * table `assistant_usage_events`: one row per model call, written as the call ends, so it holds the tokens of
 * runs that never wrote a `session.shutdown` too. Read through `withSqliteSnapshot` (one consistent snapshot,
 * nothing written beside the database). The rows of every session are grouped once per snapshot state
 * (`snapshotMemo`), so reading many sessions of one database costs one walk of the table. Format, token
 * semantics, the precedence against shutdown totals and sources: README.md ("Per-call usage").
 *
 * The database is a parse dependency of every session of the home, and the CLI writes it for one session at
 * a time, all the while it runs: stamped by its stat, any write would make the event cache read every session
 * again from byte 0 (a warm report over 300 sessions, 183 MB: 0.29 s, and 2.04 s after one row for an
 * unrelated session). So it is stamped per session by the calls that session reads (`storeDependencyStamp`),
 * computed once per state of the database for all sessions, and kept between runs in the discovery's
 * listing memo while the database's files are unchanged.
 */
import { basename, dirname, join } from 'node:path';
import type { DiscoverOptions } from '../../cursors/protocol/codec.js';
import { hashText128 } from '../../cursors/ids.js';
import { memoizedListing, sqliteFileStamp } from '../../cursors/listing-memo.js';
import { hasTable, snapshotMemo, sqliteDependencies, withSqliteSnapshot, type SqliteDatabase } from '../../cursors/sqlite.js';
import { databaseState } from '../../cursors/sqlite-events.js';
import { splitRecordPath } from '../../cursors/record-path.js';
import { CODEC_ID, SESSION_STATE_DIR, EVENTS_FILE, sessionIdOfPath } from './paths.js';
import { PARSER_VERSION } from './descriptor.js';
import { str } from './schema.js';
import { tokensOfMetric, type PerCall } from './usage.js';

/** The database file of a Copilot home. */
export const SESSION_STORE_DB = 'session-store.db';
/** The table of per-call usage. */
export const USAGE_TABLE = 'assistant_usage_events';

/** The table of sessions: a session without a log is named, placed and titled from its row. */
export const SESSIONS_TABLE = 'sessions';

/** What a session's rows gave: its calls in time order, and the rows left out (no usable `created_at` or id). */
export interface SessionCalls {
  calls: PerCall[];
  skipped: number;
}

/** A session's row of the `sessions` table, as a session read from the database alone (records.ts) takes it. */
export interface StoreSession {
  cwd?: string;
  branch?: string;
  summary?: string;
  createdAt?: string;
}

/**
 * The `session-store.db` of the home a session file lies in: `<home>/session-state/<id>/events.jsonl` or
 * `<home>/session-state/<id>.jsonl` → `<home>/session-store.db`; undefined for a file outside a
 * `session-state` folder (a copy read elsewhere has no store beside it).
 */
export function storePathOf(file: string): string | undefined {
  let dir = dirname(file);
  if (basename(file) === EVENTS_FILE) dir = dirname(dir);
  return basename(dir) === SESSION_STATE_DIR ? join(dirname(dir), SESSION_STORE_DB) : undefined;
}

/** The database and its `-wal`: a change to either changes the session's usage. */
export function storeDependencies(file: string): string[] {
  const db = storePathOf(file);
  return db === undefined ? [] : [db, ...sqliteDependencies(db)];
}

/**
 * `created_at` → ms. The CLI writes UTC (`YYYY-MM-DD HH:MM:SS`, SQLite's `datetime()` form, or ISO 8601 with
 * `Z`); a form without a zone is taken as UTC, not local time.
 */
export function createdAtMs(v: unknown): number | undefined {
  const s = str(v)?.trim();
  if (s === undefined) return undefined;
  const plain = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(s);
  const ms = Date.parse(plain ? `${s.replace(' ', 'T')}Z` : s);
  return Number.isFinite(ms) && ms > 0 && ms < 8.64e15 ? ms : undefined;
}

type Row = Record<string, unknown>;

/** A row → a call; undefined when it has no id or no usable time (it cannot be keyed or placed in a run). */
export function callOf(r: Row): PerCall | undefined {
  const id = typeof r.id === 'bigint' ? Number(r.id) : r.id;
  const ms = createdAtMs(r.created_at);
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || ms === undefined) return undefined;
  const tokens = tokensOfMetric({
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    cacheReadTokens: r.cache_read_tokens,
    cacheWriteTokens: r.cache_write_tokens,
    reasoningTokens: r.reasoning_tokens,
  });
  const model = str(r.copilot_usage_model) ?? str(r.model) ?? 'unknown';
  return { id, ms, timestamp: new Date(ms).toISOString(), model, tokens };
}

/** The `sessions` rows of the sessions that have calls, by id (fields absent when not text). */
function sessionRows(db: SqliteDatabase, calls: Map<string, SessionCalls>): Map<string, StoreSession> {
  const out = new Map<string, StoreSession>();
  if (calls.size === 0 || !hasTable(db, SESSIONS_TABLE)) return out;
  for (const r of db.prepare(`SELECT * FROM ${SESSIONS_TABLE}`).iterate() as IterableIterator<Row>) {
    const id = str(r.id);
    if (id === undefined || !calls.has(id)) continue;
    const s: StoreSession = {};
    for (const [k, col] of [['cwd', 'cwd'], ['branch', 'branch'], ['summary', 'summary'], ['createdAt', 'created_at']] as const) {
      const v = str(r[col])?.trim();
      if (v !== undefined && v !== '') s[k] = v;
    }
    out.set(id, s);
  }
  return out;
}

/** Every session's calls in one walk of the table, in (`created_at`, `id`) order. */
function allCalls(db: SqliteDatabase): Map<string, SessionCalls> {
  const out = new Map<string, SessionCalls>();
  if (!hasTable(db, USAGE_TABLE)) return out;
  for (const r of db.prepare(`SELECT * FROM ${USAGE_TABLE}`).iterate() as IterableIterator<Row>) {
    const session = str(r.session_id);
    if (session === undefined) continue;
    let s = out.get(session);
    if (s === undefined) out.set(session, (s = { calls: [], skipped: 0 }));
    const c = callOf(r);
    if (c === undefined) s.skipped++;
    else s.calls.push(c);
  }
  for (const s of out.values()) s.calls.sort((a, b) => a.ms - b.ms || a.id - b.id);
  return out;
}

const NONE: SessionCalls = { calls: [], skipped: 0 };

/**
 * The database's state (cursors/sqlite-events.ts `databaseState`): its stat with ctime and its header's change
 * counter, which a rollback-journal commit moves even when it leaves the file its size and mtime, and its
 * `-wal`'s stat and salts, which a restart of the log draws anew; undefined when it is not a readable file.
 */
const stampOf = databaseState;

/** One walk of a database: every session's calls and `sessions` row, by the database's stamp (`stampOf`) it was taken at. */
export interface Walk {
  db: string;
  stamp: string;
  sessions: Map<string, SessionCalls>;
  rows: Map<string, StoreSession>;
}

/**
 * The last database walked, by its stamp. A scan reads every session of a home in turn: the table is walked
 * once while the database stays as it was, instead of once per session (a live database's snapshot, opened
 * beside its WAL, has no memo of its own: cursors/sqlite.ts `snapshotMemo`).
 */
let last: Walk | undefined;

/**
 * The database's sessions as of `stamp` (`stampOf`): the last walk when it is of that state, else a walk now,
 * kept as the last when no commit moved the stamp meanwhile; undefined when the database cannot be read
 * (being created, or another program's file of that name).
 */
function walkOf(db: string, stamp: string): Walk | undefined {
  if (last?.db === db && last.stamp === stamp) return last;
  let read: Pick<Walk, 'sessions' | 'rows'>;
  try {
    read = withSqliteSnapshot(db, (d) =>
      snapshotMemo(d, 'copilot:calls', () => {
        const sessions = allCalls(d);
        return { sessions, rows: sessionRows(d, sessions) };
      }),
    );
  } catch {
    return undefined;
  }
  const walk: Walk = { db, stamp, ...read };
  // a commit during the walk moved the stamp: keep the walk for this read only
  if (stampOf(db) === stamp) last = walk;
  return walk;
}

/**
 * The calls `session-store.db` recorded for one session of the file's home; none when the file has no store
 * beside it or the database lacks the table. A database that cannot be read (being created, or another
 * program's file of that name) gives none either: the session's log still reads, with its shutdown totals.
 */
export function sessionCalls(file: string, sessionId: string): SessionCalls {
  const db = storePathOf(file);
  return db === undefined ? NONE : (storeWalk(db)?.sessions.get(sessionId) ?? NONE);
}

/** The database's sessions as it is now; undefined when it is missing or cannot be read. */
export function storeWalk(db: string): Walk | undefined {
  const stamp = stampOf(db);
  return stamp === undefined ? undefined : walkOf(db, stamp);
}

/** The stamp of a session with no calls: what a session absent from the table, or any without a database, reads. */
const NO_CALLS = 'none';
/** The stamp of the database's `-wal`: its committed pages are in the database's snapshot, so in its stamp. */
const IN_DATABASE = 'in the database';
/** Goes up whenever the stamps of the same calls would differ. */
const STAMP_VERSION = 2;

/**
 * What a session's read takes from the database, stamped: its calls' count, last row id and a 128-bit digest
 * of the calls as the core gets them (`PerCall`, in order). Equal stamps, equal calls: a row added, changed
 * or deleted for the session changes its stamp, and no other session's. Rows without a usable time are read
 * by no core, so they change no stamp.
 */
export function callsStamp(calls: readonly PerCall[]): string {
  if (calls.length === 0) return NO_CALLS;
  const lastId = calls.reduce((m, c) => Math.max(m, c.id), 0);
  return `${calls.length}:${lastId}:${hashText128(JSON.stringify(calls))}`;
}

/**
 * What a session read from the database alone (records.ts) takes from it, stamped: `<calls>:<last call ms>:<digest>`
 * of its calls, skipped rows and `sessions` row. The count and time are its listing's size and mtime.
 */
export function recordStamp(calls: SessionCalls, row: StoreSession | undefined): string {
  const lastMs = calls.calls.reduce((m, c) => Math.max(m, c.ms), 0);
  return `${calls.calls.length}:${lastMs}:${hashText128(JSON.stringify([calls.calls, calls.skipped, row ?? null]))}`;
}

/** A key of the stamp table: a log's stamp (`callsStamp`) under `c:<id>`, a record's (`recordStamp`) under `r:<id>`. */
export const LOG_KEY = 'c:';
export const RECORD_KEY = 'r:';

function isStampTable(v: unknown): v is Record<string, string> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

/**
 * Every session's stamps of one walk: a session without calls is left out (NO_CALLS; no record). A log does
 * not read the `sessions` row, so its stamp leaves it out: the CLI updates the row at each turn.
 */
function stampsOf(walk: Walk | undefined): Record<string, string> {
  const out: [string, string][] = [];
  for (const [id, s] of walk?.sessions ?? []) {
    if (s.calls.length === 0) continue;
    out.push([LOG_KEY + id, callsStamp(s.calls)], [RECORD_KEY + id, recordStamp(s, walk?.rows.get(id))]);
  }
  return Object.fromEntries(out);
}

/** The stamps of the state last stamped, by the database's stamp (as `last`). */
let stamped: { db: string; stamp: string; table: Record<string, string> } | undefined;

/**
 * The stamps of every session of the database as of `stamp`: those of the state last stamped, else those
 * `memo` kept of the database's files as they are now (cursors/listing-memo.ts: a state written within its
 * racy window is never taken back), else a walk's (`walkOf`). A database that cannot be read has none, as
 * its reads find none, and that is kept nowhere.
 */
export function stampTable(db: string, stamp: string, memo: DiscoverOptions['listingMemo']): Record<string, string> {
  if (stamped?.db === db && stamped.stamp === stamp) return stamped.table;
  const version = `${CODEC_ID}@${PARSER_VERSION}.s${STAMP_VERSION}`;
  let table: Record<string, string>;
  try {
    table = memoizedListing(memo, `copilot-calls:${db}`, version, [db, ...sqliteDependencies(db)], isStampTable, () => stampsOf(walkOrThrow(db, stamp)), sqliteFileStamp);
  } catch {
    return {}; // not kept: a walk that failed (a lock, a file being created) may succeed in the same state
  }
  stamped = { db, stamp, table };
  return table;
}

/** `walkOf`, throwing when the database cannot be read: what failed is kept in no memo. */
function walkOrThrow(db: string, stamp: string): Walk {
  const walk = walkOf(db, stamp);
  if (walk === undefined) throw new Error(`${db}: not readable`);
  return walk;
}

/**
 * `Codec.dependencyStamp`: the database stamped by the calls this session reads from it (`callsStamp`), its
 * `-wal` by the database's stamp; undefined (the stat) for any other file. A database that cannot be read
 * gives every session no calls, so its stamp is NO_CALLS, as its read is.
 */
export function storeDependencyStamp(file: string, dependency: string, options?: DiscoverOptions): string | undefined {
  const record = splitRecordPath(file);
  const db = record.key === undefined ? storePathOf(file) : record.db;
  if (db === undefined) return undefined;
  if (dependency !== db) return sqliteDependencies(db).includes(dependency) ? IN_DATABASE : undefined;
  const stamp = stampOf(db);
  if (stamp === undefined) return NO_CALLS;
  const table = stampTable(db, stamp, options?.listingMemo);
  const key = record.key === undefined ? LOG_KEY + sessionIdOfPath(file) : RECORD_KEY + record.key;
  return table[key] ?? NO_CALLS;
}

/** The database's stamps as it is now (`stampTable`); none when it is missing. */
export function currentStamps(db: string, options?: DiscoverOptions): Record<string, string> {
  const stamp = stampOf(db);
  return stamp === undefined ? {} : stampTable(db, stamp, options?.listingMemo);
}
