/**
 * A batch of partitions of one database (a database's sessions) read together in one snapshot: what each
 * `readRowsSince` of one partition (cursors/sqlite-rows.ts) returns, with a walk of a table shared by the
 * partitions that hold a large share of its rows, one grouped count instead of one count per partition, and
 * the table marks (`TableMark`) by which the next batch skips that count.
 */
import type { RowCursor } from './protocol/codec.js';
import { enterScanCache, leaveScanCache, type DatabaseIdentity, type SqliteDatabase } from './sqlite.js';
import {
  countRows,
  freshRows,
  fullRead,
  isMark,
  marksColumns,
  partitionSources,
  resumable,
  resumeFrom,
  stmt,
  tableHolds,
  topOf,
  type PartitionedSource,
  type Row,
  type RowCursorState,
  type RowReadOptions,
  type RowReadResult,
  type RowRestartReason,
  type SourceMark,
  type TableMark,
} from './sqlite-rows.js';

/** One partition to read, from its own cursor. */
export interface PartitionRead {
  key: string;
  from: RowCursor | undefined;
}

/** One partition of a codec's batch (a session of a database), with where its events go. */
export interface PartitionReadTo<Out> extends PartitionRead {
  out: Out;
}

/**
 * A walk of the table (one sequential pass) takes over from the partitions' index walks (random access, about
 * three times the cost per row) when the partitions resumed together hold at least this share of its rows.
 */
const WALK_SHARE = 0.25;

/** SQLite's `value > bound` for a numeric bound (integers come as numbers): text and blobs sort above numbers, NULL is never greater. */
function above(value: unknown, bound: number): boolean {
  if (typeof value === 'number') return value > bound;
  return value !== null && value !== undefined;
}

/**
 * The new or updated rows of source `s` for each partition in `marks`, from one walk of the table: the walk
 * selects the rowid and partition of the rows past the lowest marks (no row data), each partition keeps those
 * past its own mark (the same test `freshRows` asks SQLite for), and only those rows are then read whole,
 * inside `wholeRows` (the caller's page cache for them: see `readPartitionsSince`).
 */
function walkFresh(db: SqliteDatabase, s: PartitionedSource, marks: ReadonlyMap<string, SourceMark>, wholeRows: <T>(read: () => T) => T): Map<string, Row[]> {
  let minRowid = Number.POSITIVE_INFINITY;
  let minUpdated: number | null = null;
  for (const m of marks.values()) {
    minRowid = Math.min(minRowid, m.rowid);
    if (s.updated !== undefined && m.updated !== null) minUpdated = minUpdated === null ? m.updated : Math.min(minUpdated, m.updated);
  }
  const byUpdate = s.updated !== undefined && minUpdated !== null;
  const since = byUpdate ? `rowid > ? OR ${s.updated} > ?` : 'rowid > ?';
  const head = db
    .prepare(`SELECT rowid AS _rowid, ${s.partition} AS _part${byUpdate ? `, ${s.updated} AS _updated` : ''} FROM ${s.table} WHERE ${since}`)
    .all(...(byUpdate ? [minRowid, minUpdated] : [minRowid])) as { _rowid: number; _part: unknown; _updated?: unknown }[];
  const partOf = new Map<number, string>();
  for (const h of head) {
    if (typeof h._part !== 'string') continue;
    const m = marks.get(h._part);
    if (m === undefined) continue;
    if (h._rowid > m.rowid || (s.updated !== undefined && m.updated !== null && above(h._updated, m.updated))) partOf.set(h._rowid, h._part);
  }
  const out = new Map<string, Row[]>();
  for (const key of marks.keys()) out.set(key, []);
  if (partOf.size === 0) return out;
  const rows = wholeRows(
    () =>
      db
        .prepare(`SELECT rowid AS _rowid${marksColumns(s)}, ${s.columns} FROM ${s.table} WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY rowid`)
        .all(JSON.stringify([...partOf.keys()])) as Row[],
  );
  for (const r of rows) out.get(partOf.get(r._rowid) as string)?.push(r);
  return out;
}

/**
 * The row count of every partition of `s`, from one pass over the partition's index (in its order: no
 * sorter); what `count(*)` of each partition gives, without one index search and page walk per partition.
 */
function countsOf(db: SqliteDatabase, s: PartitionedSource): Map<string, number> {
  const out = new Map<string, number>();
  const grouped = db.prepare(`SELECT ${s.partition} AS k, count(*) AS n FROM ${s.table} GROUP BY ${s.partition}`).raw().all() as [unknown, number][];
  for (const r of grouped) {
    // as `partition = ?` compares a key given as text (a partition missing here is counted on its own)
    if (r[0] !== null && r[0] !== undefined) out.set(String(r[0]), r[1]);
  }
  return out;
}

/**
 * The `tail` and partition of the rows of `s` at `rowids` (the resumed partitions' watermarks), in one lookup:
 * what each partition's `topOf` at its watermark asks for alone (one query per partition).
 */
function tailsAt(db: SqliteDatabase, s: PartitionedSource & { tail: string }, rowids: readonly number[]): Map<number, { p: unknown; t: unknown }> {
  const rows = db
    .prepare(`SELECT rowid AS r, ${s.partition} AS p, ${s.tail} AS t FROM ${s.table} WHERE rowid IN (SELECT value FROM json_each(?))`)
    .raw()
    .all(JSON.stringify(rowids)) as [number, unknown, unknown][];
  return new Map(rows.map(([r, p, t]) => [r, { p, t }]));
}

/**
 * `topOf(db, partition's source, rowid)` from `tailsAt`'s lookup when it can tell: no row there (null), or a
 * row of this partition (its partition value the key as text, as `partition = ?` matches it); else undefined,
 * and the partition asks on its own.
 */
function tailFrom(found: ReadonlyMap<number, { p: unknown; t: unknown }> | undefined, key: string, rowid: number): string | number | null | undefined {
  if (found === undefined) return undefined;
  const row = found.get(rowid);
  if (row === undefined) return null;
  if (row.p !== key) return undefined;
  return typeof row.t === 'string' || typeof row.t === 'number' ? row.t : null;
}

/** Distinct `TableMark`s of one batch checked at most (each costs a range count); partitions under others are counted. */
const MAX_TABLE_MARKS = 4;

/** The `TableMark` of `s`'s table now (`top`: its highest rowid). */
function tableMarkOf(db: SqliteDatabase, s: PartitionedSource & { tail: string }, top: number): TableMark {
  const table = { table: s.table, tail: s.tail };
  return { n: countRows(db, table), r: top, t: topOf(db, table, top) };
}

const isTableMark = (m: unknown): m is TableMark => {
  const t = m as TableMark | null | undefined;
  return typeof t === 'object' && t !== null && Number.isSafeInteger(t.n) && Number.isSafeInteger(t.r) && (t.t === null || typeof t.t === 'string' || typeof t.t === 'number');
};

/**
 * The partitions of `marks` whose table lost no row at or below their `TableMark` since it was taken (see
 * `TableMark`), given the table's mark now: their counts need no count. A mark far below the highest rowid is
 * not checked (its range count would cost about what the grouped count does).
 */
function untouched(db: SqliteDatabase, s: PartitionedSource & { tail: string }, marks: ReadonlyMap<string, SourceMark>, now: TableMark): Set<string> {
  const byMark = new Map<string, { m: TableMark; keys: string[] }>();
  for (const [key, mark] of marks) {
    const m = mark.table;
    // a null id at the mark (a NULL or blob tail) cannot tell the row there from none: no trust on it
    if (!isTableMark(m) || m.t === null || m.r > now.r || now.r - m.r > 1024 + now.n / 64) continue;
    const id = JSON.stringify([m.n, m.r, m.t]);
    const group = byMark.get(id) ?? { m, keys: [] };
    group.keys.push(key);
    byMark.set(id, group);
  }
  const out = new Set<string>();
  for (const { m, keys } of [...byMark.values()].sort((a, b) => b.m.r - a.m.r).slice(0, MAX_TABLE_MARKS)) {
    const mark = { count: m.n, rowid: m.r, top: m.t };
    if (tableHolds(db, { table: s.table, tail: s.tail }, mark, () => now.n)) for (const k of keys) out.add(k);
  }
  return out;
}

/** `result` with the table marks of this snapshot in its cursor's marks (a result of this snapshot, every count exact). */
function withTableMarks(result: RowReadResult, tables: ReadonlyMap<string, TableMark>): RowReadResult {
  if (tables.size === 0) return result;
  const state = result.cursor.state as RowCursorState;
  const sources = { ...state.sources };
  for (const [name, table] of tables) {
    const m = sources[name];
    if (m !== undefined) sources[name] = { ...m, table };
  }
  return { ...result, cursor: { ...result.cursor, state: { ...state, sources } } };
}

/**
 * For each of `reads`, what `readRowsSince(db, partitionSources(sources, key), from, parser, identity)`
 * returns (but for a table mark's trust, below), read together in the caller's snapshot: one database whose sessions changed is read once instead
 * of once per session. A table whose resumed partitions hold a large share of its rows (`WALK_SHARE`, from
 * the cursors' own counts and the table's highest rowid) is walked once for all of them (`walkFresh`); the
 * others, and every partition that starts over, are read through the partition's index as alone.
 * `options.walkShare` sets that share (tests: 0 always walks, Infinity never does).
 *
 * A walked source with a `tail` also takes the table's `TableMark` (one `count(*)` of the table) and keeps it
 * in each of this batch's cursors: the next batch's partitions whose mark still holds skip the grouped count of
 * every partition (the rows, events and counts are a read alone's, except under the mark's trust, `TableMark`:
 * only the cursors carry the table marks besides).
 *
 * A key read more than once (one session from several cursors): the walk and the trust in a table mark are
 * by key, so only its first read takes them; the others find their rows and counts as a read alone does (a
 * grouped count is the partition's count now, whatever the cursor, and is shared).
 */
export function readPartitionsSince(
  db: SqliteDatabase,
  sources: readonly PartitionedSource[],
  reads: readonly PartitionRead[],
  parser: string,
  identity: DatabaseIdentity,
  options: { walkShare?: number; rows?: RowReadOptions } = {},
): RowReadResult[] {
  const share = options.walkShare ?? WALK_SHARE;
  const states = reads.map((r) => resumable(r.from, parser, identity));
  // the walk's rows and the trust in a table mark follow one cursor per key: a key's first read that can
  // resume takes them (one that starts over reads alone anyway)
  const lead = new Map<string, number>();
  reads.forEach((r, i) => lead.has(r.key) || typeof states[i] === 'string' || lead.set(r.key, i));
  const walked = new Map<string, Map<string, Row[]>>();
  const counted = new Map<string, Map<string, number>>();
  const trusted = new Map<string, Set<string>>();
  const tables = new Map<string, TableMark>();
  // the rows at the resumed partitions' watermarks, per source with a tail: one lookup instead of one per partition
  const tails = new Map<string, Map<number, { p: unknown; t: unknown }>>();
  for (const s of sources) {
    if (s.tail === undefined) continue;
    const rowids = new Set<number>();
    reads.forEach((r, i) => {
      const st = states[i];
      const m = typeof st === 'string' ? undefined : st?.sources[s.name];
      if (isMark(m) && m.rowid > 0 && lead.get(r.key) === i) rowids.add(m.rowid);
    });
    if (rowids.size >= 2) tails.set(s.name, tailsAt(db, { ...s, tail: s.tail }, [...rowids]));
  }
  // the walks, counts and checks below visit each page once: the small page cache, set once for all of them
  // (at the first walk) and restored after the last. Not for a walk's whole rows by rowid: each is a search from
  // the table's root, which comes back to the same pages, and the small cache for them is unmeasured (before,
  // they ran with the connection's own cache): that cache is back while they are read.
  let cacheBefore: number | undefined;
  const ownCache = <T>(read: () => T): T => {
    if (cacheBefore === undefined) return read();
    leaveScanCache(db, cacheBefore);
    try {
      return read();
    } finally {
      enterScanCache(db);
    }
  };
  try {
    for (const s of sources) {
      const marks = new Map<string, SourceMark>();
      let rows = 0;
      reads.forEach((r, i) => {
        const st = states[i];
        const m = typeof st === 'string' ? undefined : st?.sources[s.name];
        if (!isMark(m) || lead.get(r.key) !== i) return;
        marks.set(r.key, m);
        rows += m.count;
      });
      if (marks.size < 2) continue;
      const top = (stmt(db, `SELECT max(rowid) AS n FROM ${s.table}`).get() as { n: number | null }).n ?? 0;
      if (rows < top * share) continue;
      cacheBefore ??= enterScanCache(db);
      walked.set(s.name, walkFresh(db, s, marks, ownCache));
      const tailed = s.tail === undefined ? undefined : { ...s, tail: s.tail };
      const now = tailed === undefined ? undefined : tableMarkOf(db, tailed, top);
      const sure = tailed === undefined || now === undefined ? new Set<string>() : untouched(db, tailed, marks, now);
      if (now !== undefined) tables.set(s.name, now);
      trusted.set(s.name, sure);
      // the partitions left to count: one grouped count, or each its own when they hold few of the rows
      let left = 0;
      for (const [key, m] of marks) if (!sure.has(key)) left += m.count;
      if (left >= top * share && left > 0) counted.set(s.name, countsOf(db, s));
    }
  } finally {
    if (cacheBefore !== undefined) leaveScanCache(db, cacheBefore);
  }
  return reads.map((r, i) => {
    const own = partitionSources(sources, r.key);
    const st = states[i] as RowRestartReason | RowCursorState;
    if (typeof st === 'string') return withTableMarks(fullRead(db, own, parser, identity, st), tables);
    const read = resumeFrom(
      db,
      own,
      st,
      parser,
      identity,
      options.rows ?? {},
      (s, prev) => (lead.get(r.key) === i ? walked.get(s.name)?.get(r.key) : undefined) ?? freshRows(db, s, prev),
      (s, prev, added) => (lead.get(r.key) === i && trusted.get(s.name)?.has(r.key) === true ? prev.count + added : (counted.get(s.name)?.get(r.key) ?? countRows(db, s))),
      (s, rowid) => (lead.get(r.key) === i ? tailFrom(tails.get(s.name), r.key, rowid) : undefined) ?? topOf(db, s, rowid),
    );
    return withTableMarks(read, tables);
  });
}

/**
 * `readPartitionsSince`, then the partitions the codec says must start over after all (`restartOf`: its own
 * state in the cursor does not fit, say) read again from the start in the same snapshot, with its reason.
 */
export function readPartitionsSettled(
  db: SqliteDatabase,
  sources: readonly PartitionedSource[],
  reads: readonly PartitionRead[],
  parser: string,
  identity: DatabaseIdentity,
  restartOf: (read: RowReadResult, i: number) => RowRestartReason | undefined,
  rows: RowReadOptions = {},
): RowReadResult[] {
  const first = readPartitionsSince(db, sources, reads, parser, identity, { rows });
  const reasons = first.map((read, i) => (read.restarted ? undefined : restartOf(read, i)));
  const again = reads.flatMap((r, i) => (reasons[i] === undefined ? [] : [{ key: r.key, from: undefined, i }]));
  const redone = readPartitionsSince(db, sources, again, parser, identity);
  again.forEach((a, k) => (first[a.i] = { ...(redone[k] as RowReadResult), reason: reasons[a.i] }));
  return first;
}
