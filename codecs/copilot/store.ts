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
import { snapshotMemo, sqliteDependencies, withSqliteSnapshot, type SqliteDatabase } from '../../cursors/sqlite.js';
import { databaseState } from '../../cursors/sqlite-events.js';
import { CODEC_ID, SESSION_STATE_DIR, EVENTS_FILE, sessionIdOfPath } from './paths.js';
import { PARSER_VERSION } from './descriptor.js';
import { str } from './schema.js';
import { tokensOfMetric, type PerCall } from './usage.js';

/** The database file of a Copilot home. */
export const SESSION_STORE_DB = 'session-store.db';
/** The table of per-call usage. */
export const USAGE_TABLE = 'assistant_usage_events';

/** What a session's rows gave: its calls in time order, and the rows left out (no usable `created_at` or id). */
export interface SessionCalls {
  calls: PerCall[];
  skipped: number;
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

function hasTable(db: SqliteDatabase): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(USAGE_TABLE) !== undefined;
}

/** Every session's calls in one walk of the table, in (`created_at`, `id`) order. */
function allCalls(db: SqliteDatabase): Map<string, SessionCalls> {
  const out = new Map<string, SessionCalls>();
  if (!hasTable(db)) return out;
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

/** One walk of a database: every session's calls, by the database's stamp (`stampOf`) it was taken at. */
interface Walk {
  db: string;
  stamp: string;
  sessions: Map<string, SessionCalls>;
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
  let sessions: Map<string, SessionCalls>;
  try {
    sessions = withSqliteSnapshot(db, (d) => snapshotMemo(d, 'copilot:calls', () => allCalls(d)));
  } catch {
    return undefined;
  }
  const walk: Walk = { db, stamp, sessions };
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
  const stamp = db === undefined ? undefined : stampOf(db);
  if (db === undefined || stamp === undefined) return NONE;
  return walkOf(db, stamp)?.sessions.get(sessionId) ?? NONE;
}

/** The stamp of a session with no calls: what a session absent from the table, or any without a database, reads. */
const NO_CALLS = 'none';
/** The stamp of the database's `-wal`: its committed pages are in the database's snapshot, so in its stamp. */
const IN_DATABASE = 'in the database';
/** Goes up whenever the stamps of the same calls would differ. */
const STAMP_VERSION = 1;

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

function isStampTable(v: unknown): v is Record<string, string> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

/** Every session's stamp (`callsStamp`) of one walk; a session without calls is left out (NO_CALLS). */
function stampsOf(walk: Walk | undefined): Record<string, string> {
  const out: [string, string][] = [];
  for (const [id, s] of walk?.sessions ?? []) if (s.calls.length > 0) out.push([id, callsStamp(s.calls)]);
  return Object.fromEntries(out); // own properties, whatever the ids (`__proto__` included)
}

/** The stamps of the state last stamped, by the database's stamp (as `last`). */
let stamped: { db: string; stamp: string; table: Record<string, string> } | undefined;

/**
 * The stamps of every session of the database as of `stamp`: those of the state last stamped, else those
 * `memo` kept of the database's files as they are now (cursors/listing-memo.ts: a state written within its
 * racy window is never taken back), else a walk's (`walkOf`). A database that cannot be read has none, as
 * its reads find none, and that is kept nowhere.
 */
function stampTable(db: string, stamp: string, memo: DiscoverOptions['listingMemo']): Record<string, string> {
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
  const db = storePathOf(file);
  if (db === undefined) return undefined;
  if (dependency !== db) return sqliteDependencies(db).includes(dependency) ? IN_DATABASE : undefined;
  const stamp = stampOf(db);
  if (stamp === undefined) return NO_CALLS;
  const table = stampTable(db, stamp, options?.listingMemo);
  const id = sessionIdOfPath(file);
  return Object.hasOwn(table, id) ? (table[id] as string) : NO_CALLS;
}
