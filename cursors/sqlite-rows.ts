/**
 * Incremental reads of a database by row watermark (`RowCursor`): a warm read takes only the rows added or
 * changed since the cursor, and starts over (`restarted`, with a reason) when that is not enough to be
 * right: the database file was replaced, a row the cursor had read changed or went away, or the parser
 * changed.
 *
 * Per source (a table restricted to one session, say), the cursor keeps the highest rowid read
 * (`watermark[name]`), and in its state the highest update time and the row count. A warm read asks for
 * `rowid > watermark` (or an update time above the stored one, for tables whose rows are updated in place)
 * and counts the source's rows: a returned row at or below the watermark is a changed row, and a count
 * other than the old count plus the new rows means a row was deleted (or replaced under a new rowid). The
 * work is the count (an index walk over the source's rows, no row data) plus the new rows; a batch of
 * partitions (cursors/sqlite-batch.ts) that walks a table keeps the table's own marks in its cursors, and the
 * next batch takes the counts from there while the table lost no row below them (`TableMark`).
 *
 * Update times come from the agent's clock: a row updated with a time at or below the stored one (a clock
 * set back) is not seen as changed until something else restarts the read.
 */
import type { RowCursor } from './protocol/codec.js';
import type { Statement } from 'better-sqlite3';
import { snapshotMemo, type DatabaseIdentity, type SqliteDatabase } from './sqlite.js';

/** One source of rows: a table or view, optionally restricted by a condition. */
export interface RowSource {
  /** Key of this source in the cursor. */
  name: string;
  /** Table or view, as SQL. */
  table: string;
  /** The columns to select, as SQL (the rowid comes as `_rowid` besides). */
  columns: string;
  /** SQL condition restricting the rows (one session's), with `params` for its `?`. */
  where?: string;
  params?: readonly unknown[];
  /** Column holding the row's last update time, for rows the agent updates in place. */
  updated?: string;
  /**
   * For rows updated in place without an update time (a key-value table): an SQL expression per row (say
   * `length(value)`) whose sum, weighted by rowid, over the rows at or below the watermark is compared on
   * a warm read, with their count. A row at or below it that changed length, went away or moved makes the
   * read start over. The walk reads only row headers (no large value is loaded); a change that keeps every
   * length is not seen.
   */
  fingerprint?: string;
  /**
   * For a source read by rowid alone (no `updated`: its updates in place are not wanted), an SQL expression
   * naming a row (its key): the row at the watermark must still be there with the same value on a warm
   * read. While it is, SQLite gives every new row a rowid above it (max(rowid) + 1), so `rowid > watermark`
   * takes every row added and the count sees every row deleted; once it is gone, a new row may take a rowid
   * at or below the watermark, and the read starts over (`row-deleted`).
   */
  tail?: string;
  /**
   * For a source read by rowid alone (`tail`) whose rows are rewritten in place only until they settle (a reply
   * streaming until it completes): `key` names a row and `updated` gives its update time, `settled` is true (1)
   * for a row that will not change again in any way the reader reads (all three SQL, selected with the row). The mark keeps the key and update time
   * of every row read that has not settled; a warm read reads those rows again by key (an index probe each),
   * and each whose update time moved comes back as a changed row (at or below the watermark), as `updated`
   * would find it, without a walk of every row. What this takes on trust: a settled row is never rewritten
   * with a change the reader would see.
   */
  open?: OpenRows;
}

/** `RowSource.open`. */
export interface OpenRows {
  key: string;
  updated: string;
  settled: string;
}

export interface RowReadOptions {
  /** A source the cursor does not know is read whole beside the others instead of starting every source over. */
  addSources?: boolean;
  /**
   * A row at or below the watermark that changed (its update time moved) comes back with the new rows, for
   * the caller to judge (`Row._rowid` at or below the cursor's `watermark` tells it), instead of starting
   * the read over; the count is held to the new rows alone.
   */
  keepChanged?: boolean;
}

export type Row = Record<string, unknown> & { _rowid: number };

export type RowRestartReason = 'no-cursor' | 'cursor-invalid' | 'parser-changed' | 'kinds-changed' | 'database-replaced' | 'row-changed' | 'row-deleted';

export interface SourceMark {
  rowid: number;
  updated: number | null;
  count: number;
  /** The fingerprint of the rows at or below `rowid` (`RowSource.fingerprint`): their count and sum. */
  print?: [number, number];
  /** `RowSource.tail` of the row at `rowid` (null: no row). */
  top?: string | number | null;
  /** `RowSource.open`: the key and update time of each row read that has not settled. */
  open?: Record<string, unknown>;
  /** The whole table's marks in the snapshot this mark was taken in (a batch's only: `readPartitionsSince`). */
  table?: TableMark;
}

/**
 * A table's row count, highest rowid and `tail` of the row there, in one snapshot. A later snapshot in which
 * the row at `r` still has that tail and the table holds `n` rows plus those above `r` lost no row at or below
 * `r` and gained none there (new rows take rowids above the highest, which is at least `r`): every partition
 * marked in that snapshot then holds its old count plus its rows above its own watermark, with no count of it.
 * What this takes on trust, as `appendedOnly` does for one partition's watermark: an id once deleted never
 * comes back, here for the one id at the table's highest rowid, on behalf of every partition marked with it. If the rows at `r`
 * and below are deleted and new rows fill their rowids, the last of them under the id that was at `r`, the
 * count and the id at `r` balance and a new row at or below `r` goes unseen (test/sqlite-table-marks.test.ts
 * holds such a sequence). No cheap check sees it: the rowids below `r` are the same set again, so their count
 * and sum are too, and only the id of every row there would tell (a walk of the table's id index, about what the
 * grouped count it saves costs). And a row keeps its partition (a row moved to another session by an update
 * would leave both counts unseen; OpenCode never moves one, and its listing takes the same on trust).
 */
export interface TableMark {
  n: number;
  r: number;
  t: string | number | null;
}

/** Where a source's resumed read starts (`rowsSince`): a mark's highest rowid, update time and open rows. */
export type RowsMark = Pick<SourceMark, 'rowid' | 'updated' | 'open'>;

/** The `state` of a RowCursor written here. */
export interface RowCursorState {
  db: DatabaseIdentity;
  sources: Record<string, SourceMark>;
  /** What the codec keeps besides (opaque here). */
  codec?: unknown;
}

export interface RowReadResult {
  restarted: boolean;
  reason: RowRestartReason | undefined;
  /** Per source name: the rows of this read (all of them when restarted), by rowid. */
  rows: Record<string, Row[]>;
  /** The codec state the cursor carried (undefined when restarted). */
  codecState: unknown;
  /** The cursor after this read, without codec state: see `withCodecState`. */
  cursor: RowCursor;
}

/** Statements prepared once per connection: a batch of many partitions asks the same few queries of each. */
const statements = new WeakMap<SqliteDatabase, Map<string, Statement>>();

export function stmt(db: SqliteDatabase, sql: string): Statement {
  let byText = statements.get(db);
  if (byText === undefined) statements.set(db, (byText = new Map()));
  let st = byText.get(sql);
  if (st === undefined) byText.set(sql, (st = db.prepare(sql)));
  return st;
}

function whereOf(s: Pick<RowSource, 'where'>, extra?: string): string {
  const parts = [s.where, extra].filter((p): p is string => p !== undefined && p !== '');
  return parts.length === 0 ? '' : ` WHERE ${parts.map((p) => `(${p})`).join(' AND ')}`;
}

/**
 * The columns a row carries besides `s.columns`: its update time (`_updated`), its open key, time and whether it
 * settled (`_okey`, `_oupd`, `_osettled`).
 */
export function marksColumns(s: Pick<RowSource, 'updated' | 'open'>): string {
  const updated = s.updated === undefined ? '' : `, ${s.updated} AS _updated`;
  return s.open === undefined ? updated : `${updated}, ${s.open.key} AS _okey, ${s.open.updated} AS _oupd, ${s.open.settled} AS _osettled`;
}

function allRows(db: SqliteDatabase, s: RowSource): Row[] {
  return stmt(db, `SELECT rowid AS _rowid${marksColumns(s)}, ${s.columns} FROM ${s.table}${whereOf(s)} ORDER BY rowid`).all(...(s.params ?? [])) as Row[];
}

/**
 * `prev` (the open rows of a mark, by key: `RowSource.open`) after `rows` were read: a row settled leaves it, one
 * still open enters it as `valueOf` gives it (a mark keeps its update time; a caller may keep more beside).
 */
export function openAfter<V>(rows: readonly Row[], prev: Readonly<Record<string, V>> | undefined, valueOf: (r: Row) => V): Record<string, V> {
  const open = { ...prev };
  for (const r of rows) {
    const key = String(r._okey);
    if (r._osettled === 1) delete open[key];
    else open[key] = valueOf(r);
  }
  return open;
}

/**
 * The rows of `s` at or below the mark that were open (not settled) and whose update time moved since: read
 * again by key. A row gone is not among them: the count sees it.
 */
function reopened(db: SqliteDatabase, s: RowSource, prev: RowsMark): Row[] {
  const open = prev.open ?? {};
  const keys = Object.keys(open);
  if (s.open === undefined || keys.length === 0) return [];
  const rows = stmt(db, `SELECT rowid AS _rowid${marksColumns(s)}, ${s.columns} FROM ${s.table}${whereOf(s, `${s.open.key} IN (SELECT value FROM json_each(?)) AND rowid <= ?`)}`)
    .all(...(s.params ?? []), JSON.stringify(keys), prev.rowid) as Row[];
  return rows.filter((r) => r._oupd !== open[String(r._okey)]);
}

/**
 * Count and rowid-weighted sum of `s.fingerprint` over the source's rows with `lo < rowid <= hi`. Integer
 * terms kept small, so sums of ranges add up exactly to the sum of their union.
 */
function printOf(db: SqliteDatabase, s: RowSource, lo: number, hi: number): [number, number] | undefined {
  if (s.fingerprint === undefined) return undefined;
  const sql = `SELECT count(*) AS n, coalesce(sum(((ifnull(${s.fingerprint}, 0) + 1) * ((rowid % 65521) + 1)) % 1000003), 0) AS h FROM ${s.table}${whereOf(s, 'rowid > ? AND rowid <= ?')}`;
  const r = stmt(db, sql).get(...(s.params ?? []), lo, hi) as { n: number; h: number };
  return [r.n, r.h];
}

/** `s.tail` of the source's row at `rowid` (null when there is none). */
export function topOf(db: SqliteDatabase, s: Pick<RowSource, 'table' | 'tail' | 'where' | 'params'>, rowid: number): string | number | null {
  const r = stmt(db, `SELECT ${s.tail} AS t FROM ${s.table}${whereOf(s, 'rowid = ?')}`).get(...(s.params ?? []), rowid) as { t: unknown } | undefined;
  return typeof r?.t === 'string' || typeof r?.t === 'number' ? r.t : null;
}

/**
 * `topOf` from the rows a read took, when the row at `rowid` is among them and the tail is a plain column that
 * `s.columns` selects as it is (no alias, no expression): the same row of the same snapshot, so the same
 * value, without a query per source (a batch of 200 sessions asked 200 per table). Undefined when it cannot
 * tell: `topOf` asks.
 */
function tailInRows(rows: readonly Row[], s: Pick<RowSource, 'tail' | 'columns'>, rowid: number): string | number | null | undefined {
  const tail = s.tail;
  if (tail === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tail) || !s.columns.split(',').some((c) => c.trim() === tail)) return undefined;
  // the rows come by rowid, so the highest is usually last
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i] as Row;
    if (r._rowid !== rowid) continue;
    if (!Object.hasOwn(r, tail)) return undefined;
    const t = r[tail];
    return typeof t === 'string' || typeof t === 'number' ? t : null;
  }
  return undefined;
}

/** What a source's rows were at a mark: how many, the highest rowid, and `RowSource.tail` of the row there. */
export interface AppendMark {
  count: number;
  rowid: number;
  top?: string | number | null;
}

/**
 * Whether source `s` lost no row since `mark`, now that it holds `count` rows of which `added` lie above the
 * mark's rowid: the count is the mark's plus those, and (for a source read by rowid alone, `RowSource.tail`) the
 * row at the mark's rowid is still there under the same key. While it is, SQLite gives every row added a rowid
 * above it, so a row deleted and another added in its place cannot balance the count unseen. The rule of a
 * resumed read (which asks `topHolds` first, then the count), of a batch's table mark (sqlite-batch.ts
 * `untouched`, likewise) and of a listing brought up to date (codecs/opencode/listing.ts). What it takes on trust: an
 * id once deleted never comes back (the row at the mark deleted, new rows in its rowid and below, the last
 * under its old id, would balance both checks).
 */
export function appendedOnly(db: SqliteDatabase, s: Pick<RowSource, 'table' | 'tail' | 'where' | 'params'>, mark: AppendMark, count: number, added: number): boolean {
  return count === mark.count + added && topHolds(db, s, mark);
}

/**
 * Whether the row at the mark's rowid is still there under the same `RowSource.tail` (true for a source without
 * one, or a mark of no row). Asked on its own first by a resumed read, before any count or new row is read, so
 * a read whose top row went starts over at once (`row-deleted`). `topAt` is where the row's tail comes from (a
 * batch's shared lookup); by default its own query.
 */
export function topHolds(
  db: SqliteDatabase,
  s: Pick<RowSource, 'table' | 'tail' | 'where' | 'params'>,
  mark: Pick<AppendMark, 'rowid' | 'top'>,
  topAt: (rowid: number) => string | number | null = (rowid) => topOf(db, s, rowid),
): boolean {
  return s.tail === undefined || mark.rowid <= 0 || topAt(mark.rowid) === mark.top;
}

/**
 * `appendedOnly` for a whole table: the id at the mark first (a table whose top row went costs no count), then
 * the rows above the mark counted and `count()` (the table's count now) compared with the mark's plus those.
 * A batch's table mark (sqlite-batch.ts `untouched`) and a listing brought up to date (codecs/opencode/listing.ts)
 * ask it.
 */
export function tableHolds(db: SqliteDatabase, s: { table: string; tail: string }, mark: AppendMark, count: () => number): boolean {
  if (!topHolds(db, s, mark)) return false;
  const above = (stmt(db, `SELECT count(*) AS n FROM ${s.table} WHERE rowid > ?`).get(mark.rowid) as { n: number }).n;
  return count() === mark.count + above;
}

const samePrint = (a: [number, number] | undefined, b: unknown): boolean => Array.isArray(b) && a !== undefined && a[0] === b[0] && a[1] === b[1];

function markOf(db: SqliteDatabase, rows: readonly Row[], s: RowSource, count: number, prev?: SourceMark): SourceMark {
  let rowid = prev?.rowid ?? 0;
  let updated = prev?.updated ?? null;
  for (const r of rows) {
    if (r._rowid > rowid) rowid = r._rowid;
    const u = s.updated === undefined ? null : r._updated;
    if (typeof u === 'number' && Number.isFinite(u) && (updated === null || u > updated)) updated = u;
  }
  const before = prev?.rowid ?? 0;
  const added = rowid > before ? printOf(db, s, before, rowid) : undefined;
  const had = prev?.print ?? (s.fingerprint === undefined ? undefined : ([0, 0] as [number, number]));
  const print = added === undefined || had === undefined ? had : ([had[0] + added[0], had[1] + added[1]] as [number, number]);
  const top = s.tail === undefined ? undefined : prev?.top !== undefined && rowid === before ? prev.top : (tailInRows(rows, s, rowid) ?? topOf(db, s, rowid));
  const open = s.open === undefined ? undefined : openAfter(rows, prev?.open, (r) => r._oupd);
  return { rowid, updated, count, ...(print !== undefined && { print }), ...(top !== undefined && { top }), ...(open !== undefined && { open }) };
}

function isState(v: unknown): v is RowCursorState {
  const s = v as RowCursorState | null;
  return s !== null && typeof s === 'object' && typeof s.db === 'object' && s.db !== null && typeof s.sources === 'object' && s.sources !== null;
}

function cursorOf(parser: string, identity: DatabaseIdentity, marks: Record<string, SourceMark>): RowCursor {
  const watermark: Record<string, number> = {};
  for (const [name, m] of Object.entries(marks)) watermark[name] = m.rowid;
  const state: RowCursorState = { db: identity, sources: marks };
  return { format: 'sqlite', version: 1, parser, watermark, state };
}

/** `cursor` carrying the codec's own state beside the watermarks. */
export function withCodecState(cursor: RowCursor, codec: unknown): RowCursor {
  return { ...cursor, state: { ...(cursor.state as RowCursorState), codec } };
}

export function fullRead(db: SqliteDatabase, sources: readonly RowSource[], parser: string, identity: DatabaseIdentity, reason: RowRestartReason): RowReadResult {
  const rows: Record<string, Row[]> = {};
  const marks: Record<string, SourceMark> = {};
  for (const s of sources) {
    const r = allRows(db, s);
    rows[s.name] = r;
    marks[s.name] = markOf(db, r, s, r.length);
  }
  return { restarted: true, reason, rows, codecState: undefined, cursor: cursorOf(parser, identity, marks) };
}

/** Why a cursor cannot be resumed from, or its row state. */
export function resumable(from: RowCursor | undefined, parser: string, identity: DatabaseIdentity): RowRestartReason | RowCursorState {
  if (from === undefined || from.format !== 'sqlite') return 'no-cursor';
  if (!isState(from.state)) return 'cursor-invalid';
  if (from.parser !== parser) return 'parser-changed';
  const state = from.state;
  if (state.db.dev !== identity.dev || state.db.ino !== identity.ino) return 'database-replaced';
  return state;
}

/** The rows of `s` added (rowid above the mark) or updated (update time above it) since `prev`, by rowid. */
export function freshRows(db: SqliteDatabase, s: RowSource, prev: RowsMark): Row[] {
  const since = s.updated !== undefined && prev.updated !== null ? `rowid > ? OR ${s.updated} > ?` : 'rowid > ?';
  const sinceParams = s.updated !== undefined && prev.updated !== null ? [prev.rowid, prev.updated] : [prev.rowid];
  return stmt(db, `SELECT rowid AS _rowid${marksColumns(s)}, ${s.columns} FROM ${s.table}${whereOf(s, since)} ORDER BY rowid`).all(...(s.params ?? []), ...sinceParams) as Row[];
}

/** Where a resumed read gets a source's new or updated rows (`freshRows`, or a walk shared by several reads). */
type FreshRows = (s: RowSource, prev: RowsMark) => Row[];

/**
 * The rows of `s` a read resumed from `mark` takes, by rowid: those added or updated since (`freshOf`: by
 * default `rowid > ?`, or an update time above the mark's, `RowSource.updated`), and the open rows whose update
 * time moved, read again by key (`RowSource.open`). Those at or below the mark's rowid are rows changed.
 */
export function rowsSince(db: SqliteDatabase, s: RowSource, mark: RowsMark, freshOf: FreshRows = (x, m) => freshRows(db, x, m)): Row[] {
  const again = reopened(db, s, mark);
  return again.length === 0 ? freshOf(s, mark) : [...again, ...freshOf(s, mark)].sort((a, b) => a._rowid - b._rowid);
}

/**
 * Where it gets a source's row count now, given its mark and the rows above the mark this read found (its own
 * `count(*)`, one grouped count shared by several reads, or the mark's count plus those rows: `TableMark`).
 */
type CountRows = (s: RowSource, prev: SourceMark, added: number) => number;

/** Where it gets `topOf` of a source at a rowid (its own query, or one lookup shared by several reads). */
type TopAt = (s: RowSource, rowid: number) => string | number | null;

/**
 * The source's row count now. A whole table's count is kept for the next snapshot of the same file state
 * (`snapshotMemo`: a warm run's discovery and batch read count the same tables).
 */
export function countRows(db: SqliteDatabase, s: Pick<RowSource, 'table' | 'where' | 'params'>): number {
  const count = (): number => (stmt(db, `SELECT count(*) AS n FROM ${s.table}${whereOf(s)}`).get(...(s.params ?? [])) as { n: number }).n;
  return s.where === undefined || s.where === '' ? snapshotMemo(db, `count(*) ${s.table}`, count) : count();
}

export function resumeFrom(
  db: SqliteDatabase,
  sources: readonly RowSource[],
  state: RowCursorState,
  parser: string,
  identity: DatabaseIdentity,
  options: RowReadOptions,
  freshOf: FreshRows,
  countOf: CountRows = (s) => countRows(db, s),
  topAt: TopAt = (s, rowid) => topOf(db, s, rowid),
): RowReadResult {
  const rows: Record<string, Row[]> = {};
  const marks: Record<string, SourceMark> = {};
  for (const s of sources) {
    const prev = state.sources[s.name];
    if (prev === undefined && options.addSources === true) {
      const r = allRows(db, s);
      rows[s.name] = r;
      marks[s.name] = markOf(db, r, s, r.length);
      continue;
    }
    if (!isMark(prev)) return fullRead(db, sources, parser, identity, 'no-cursor');
    if (s.fingerprint !== undefined && !samePrint(printOf(db, s, 0, prev.rowid), prev.print)) return fullRead(db, sources, parser, identity, 'row-changed');
    if (s.tail !== undefined && prev.top === undefined) return fullRead(db, sources, parser, identity, 'cursor-invalid');
    if (!topHolds(db, s, prev, (rowid) => topAt(s, rowid))) return fullRead(db, sources, parser, identity, 'row-deleted');
    if (s.open !== undefined && (prev.open === null || typeof prev.open !== 'object')) return fullRead(db, sources, parser, identity, 'cursor-invalid');
    const fresh = rowsSince(db, s, prev, freshOf);
    const added = fresh.filter((r) => r._rowid > prev.rowid).length;
    if (added < fresh.length && options.keepChanged !== true) return fullRead(db, sources, parser, identity, 'row-changed');
    const count = countOf(s, prev, added);
    // a partition a batch trusts gets count = prev.count + added, so the count check below holds by itself: the
    // table mark (cursors/sqlite-batch.ts `untouched`) is its only guard; the row at the watermark was checked above
    // (`topHolds`: with the count, `appendedOnly`'s rule)
    if (count !== prev.count + added) return fullRead(db, sources, parser, identity, 'row-deleted');
    rows[s.name] = fresh;
    marks[s.name] = markOf(db, fresh, s, count, prev);
  }
  return { restarted: false, reason: undefined, rows, codecState: state.codec, cursor: cursorOf(parser, identity, marks) };
}

/**
 * `items` grouped by `keyOf(item)`, each group in the order given: the rows of one query over many keys (an
 * `IN (SELECT value FROM json_each(?))`) handed back per key.
 */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}

export const isMark = (m: SourceMark | undefined): m is SourceMark => m !== undefined && typeof m.rowid === 'number' && typeof m.count === 'number';

/**
 * The rows of `sources` since `from` (all of them when it cannot resume), inside the caller's read
 * transaction (`withSqliteSnapshot`). `identity` is the database file's (`databaseIdentity`).
 */
export function readRowsSince(
  db: SqliteDatabase,
  sources: readonly RowSource[],
  from: RowCursor | undefined,
  parser: string,
  identity: DatabaseIdentity,
  options: RowReadOptions = {},
): RowReadResult {
  const state = resumable(from, parser, identity);
  if (typeof state === 'string') return fullRead(db, sources, parser, identity, state);
  return resumeFrom(db, sources, state, parser, identity, options, (s, prev) => freshRows(db, s, prev));
}

/**
 * A source split by one of its columns into partitions (a table's rows per session), each partition read by
 * a cursor of its own: `partitionSources` gives one partition's sources.
 */
export interface PartitionedSource {
  name: string;
  table: string;
  columns: string;
  updated?: string;
  /** As `RowSource.tail`. */
  tail?: string;
  /** As `RowSource.open`. */
  open?: OpenRows;
  /** The column whose value names the partition; indexed, so one partition's rows are found without a walk. */
  partition: string;
}

/** The sources of the partition `key`: each restricted to `partition = key`. */
export function partitionSources(sources: readonly PartitionedSource[], key: string): RowSource[] {
  return sources.map(({ partition, ...s }) => ({ ...s, where: `${partition} = ?`, params: [key] }));
}

/** `fn` of each item, or the error it threw (one session of a batch failing alone). */
export function eachOrError<T, R>(items: readonly T[], fn: (item: T, i: number) => R): (R | Error)[] {
  return items.map((item, i) => {
    try {
      return fn(item, i);
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    }
  });
}
