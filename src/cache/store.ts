/**
 * The event cache's operations over the database of db.ts: per file, the state a warm run needs (stat,
 * dependencies, parser, cursor, the cache's own xxh64 prefix fingerprint, the session cwd) and the usage the
 * file yielded, as segments (src/scan/segment.ts); plus the ledger.
 *
 * Ledger: when a file is read from byte 0 again (rewritten in place, a dependency changed) under the same
 * parser, the usage it yielded before whose dedup key the new read no longer yields is kept in the file's
 * `ledger` segment, and keeps being yielded (marked `retained`). The ledger never loses spend it has seen;
 * a key that comes back in the file leaves the ledger. Under a new parser the old live usage is dropped
 * instead (its dedup keys may follow an old scheme and would double count), but the ledger is kept.
 *
 * Concurrency: each batch of files is applied in one IMMEDIATE transaction, and a file's row is updated only
 * when its `gen` is still the one the scan started from; otherwise another process got there first and the
 * caller re-classifies the file against the new row (optimistic concurrency, no lock held while parsing).
 */
import type { Segment } from '../scan/segment.js';
import { decodeSegment, pushRecords, SegmentWriter, segmentCount, segmentKey } from '../scan/segment.js';
import type { UsageRecord } from '../scan/types.js';
import { diffRecords } from '../scan/record-diff.js';
import { borrowCacheDb, isPooled, openCacheDb, releaseCacheDb, type Db } from './db.js';
import { bulkRow, currentMemo, dropMemo, memoAtStart, patchMemo, type BulkRow, type RowMemo } from './row-memo.js';
import { cacheInstance } from './folds.js';
import { fileKey, type ApplyOutcome, type FileResult, type FileRow } from './rows.js';
import { lazyStatements } from './statements.js';

/** A file's segments are merged into one when an append takes them past this. */
export const MAX_SEGMENTS_PER_FILE = 32;
/** Updates of a file kept in its change log (file_changes). */
export const MAX_CHANGES_PER_FILE = 64;
/**
 * A rewrite whose diff changes more records than this is not logged (the log restarts): a compacted long
 * session shifts every offset, and 64 such diffs would store the file's usage many times over. A snapshot
 * that held the file before then folds from scratch once.
 */
export const MAX_LOGGED_RECORDS = 20_000;

const ROW_COLUMNS =
  'id, agent, path, root, parser, size, mtime_ms, deps, cursor IS NOT NULL AS has_cursor, prefix_hash, session_events, cwd_index, cwd, live_count, segment_count, ledger_count, deleted, gen, skipped';
const BULK_COLUMNS =
  'id, agent, path, root, parser, size, mtime_ms, deps, prefix_hash, session_events, cwd_index, cwd, live_count, segment_count, ledger_count, deleted, gen, skipped';

/** Records as one segment (null for none). */
function encodeRecords(records: readonly UsageRecord[]): Buffer | null {
  if (records.length === 0) return null;
  const w = new SegmentWriter();
  for (const r of records) w.add(r);
  return toBuffer(w.finish());
}

function toBuffer(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

export class EventCache {
  readonly path: string;
  /** A corrupt or foreign file was moved aside and this cache built fresh. */
  rebuilt: boolean;
  readonly #db: Db;
  /** The connection is another store's of the same run (`borrowCacheDb`): that store closes it. */
  readonly #borrowed: boolean;
  readonly #s;
  readonly #readTx: (ids: string) => { records: UsageRecord[]; retained: number };
  readonly #applyTx: { immediate: (results: readonly FileResult[]) => ApplyOutcome[] };
  readonly #deleteTx: { immediate: (rows: readonly FileRow[], now: number) => void };

  private constructor(path: string, db: Db, rebuilt: boolean, borrowed = false) {
    this.path = path;
    this.#db = db;
    this.#borrowed = borrowed;
    this.rebuilt = rebuilt;
    this.#readTx = db.transaction((ids: string) => this.#readFiles(ids));
    this.#applyTx = db.transaction((results: readonly FileResult[]) => {
      const memo = memoAtStart(this.#db, this.#s.changesCount.get() as number);
      const out = results.map((r) => this.#applyOne(r));
      if (out.some((o) => o.ok)) this.#countChange();
      this.#memoPatch(memo, results);
      return out;
    });
    this.#deleteTx = db.transaction((rows: readonly FileRow[], now: number) => {
      const memo = memoAtStart(this.#db, this.#s.changesCount.get() as number);
      this.#countChange();
      for (const r of rows) {
        // A deletion changes no record (they stay, retained): an empty step in the file's log.
        const gen = this.#s.markDeleted.get(now, r.id) as number | undefined;
        if (gen !== undefined) this.#logChange(r.id, gen, null, []);
      }
      this.#memoPatch(memo, rows);
    });
    this.#s = lazyStatements({
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
        `INSERT INTO files (agent, path, root, parser, size, mtime_ms, deps, cursor, prefix_hash, session_events, cwd_index, cwd,
           live_count, segment_count, ledger, ledger_count, deleted, gen, updated_at, skipped)
         VALUES (@agent, @path, @root, @parser, @size, @mtime_ms, @deps, @cursor, @prefix_hash, @session_events, @cwd_index, @cwd,
           @live_count, @segment_count, @ledger, @ledger_count, 0, 1, @updated_at, @skipped) RETURNING id`,
      ),
      updateFile: () => db.prepare(
        `UPDATE files SET root = @root, parser = @parser, size = @size, mtime_ms = @mtime_ms, deps = @deps, cursor = @cursor,
           prefix_hash = @prefix_hash, session_events = @session_events, cwd_index = @cwd_index, cwd = @cwd, live_count = @live_count,
           segment_count = @segment_count, ledger = @ledger, ledger_count = @ledger_count, deleted = 0, gen = gen + 1,
           updated_at = @updated_at, skipped = @skipped
         WHERE id = @id`,
      ),
      markDeleted: () => db.prepare('UPDATE files SET deleted = 1, gen = gen + 1, updated_at = ? WHERE id = ? AND deleted = 0 RETURNING gen').pluck(),
      insertChange: () => db.prepare('INSERT OR REPLACE INTO file_changes (file_id, gen, removed, added) VALUES (?, ?, ?, ?)'),
      pruneChanges: () => db.prepare('DELETE FROM file_changes WHERE file_id = ? AND gen <= ?'),
      clearChanges: () => db.prepare('DELETE FROM file_changes WHERE file_id = ?'),
      countChange: () => db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'changes'"),
      changes: () => db.prepare('SELECT gen, removed, added FROM file_changes WHERE file_id = ? AND gen > ? AND gen <= ? ORDER BY gen'),
    });
  }

  /** Open (or create, or rebuild) the cache at `path`; through `borrow`, a connection open on it already, when it still is. */
  static open(path: string, warn: (message: string) => void, borrow?: Db): EventCache {
    const lent = borrow === undefined ? undefined : borrowCacheDb(path, borrow);
    if (lent !== undefined) return new EventCache(path, lent.db, false, true);
    const { db, rebuilt } = openCacheDb(path, warn);
    return new EventCache(path, db, rebuilt);
  }

  close(): void {
    if (!this.#borrowed) releaseCacheDb(this.#db);
  }

  /** Writes this connection counted in `meta.changes` (committed or not: a rolled-back one throws). */
  writes = 0;

  #countChange(): void {
    this.#s.countChange.run();
    this.writes++;
  }

  /** The random id of this database (`meta.instance`). */
  instance(): string {
    return cacheInstance(this.#db);
  }

  /** Every cached file of these agents, keyed `agent\0path`. */
  loadFiles(agents: readonly string[]): Map<string, FileRow> {
    const out = new Map<string, FileRow>();
    const memo = isPooled(this.#db) ? currentMemo(this.#db, this.instance(), this.#s.changesCount.get() as number) : undefined;
    for (const a of agents) {
      let rows = memo?.agents.get(a);
      if (rows === undefined) {
        rows = new Map();
        for (const raw of this.#s.byAgent.all(a) as BulkRow[]) rows.set(fileKey(raw[1], raw[2]), bulkRow(raw));
        memo?.agents.set(a, rows);
      }
      for (const [k, r] of rows) out.set(k, r);
    }
    return out;
  }

  /** The cached files of these agents that hold retained usage (a ledger, or their file deleted from disk). */
  retainingFiles(agents: readonly string[]): FileRow[] {
    const out: FileRow[] = [];
    for (const a of agents) for (const raw of this.#s.retaining.all(a) as BulkRow[]) out.push(bulkRow(raw));
    return out;
  }

  getFile(agent: string, path: string): FileRow | undefined {
    return this.#s.byPath.get(agent, path) as FileRow | undefined;
  }

  /** The stored cursor (JSON) of a file, if any. */
  getCursor(id: number): string | null {
    return (this.#s.cursor.get(id) as string | null | undefined) ?? null;
  }

  /**
   * The records of cached files (live usage, then ledger), read in one transaction with two statements for
   * the whole batch, so each file's row and segments agree. Files gone from the cache are skipped.
   */
  readFiles(rows: readonly FileRow[]): { records: UsageRecord[]; retained: number } {
    return this.#readTx(JSON.stringify(rows.map((r) => r.id)));
  }

  #readFiles(ids: string): { records: UsageRecord[]; retained: number } {
    const out: UsageRecord[] = [];
    let retained = 0;
    const files = new Map<number, { path: string; cwd: string | null; deleted: number; ledger_count: number; ledger: Buffer | null }>();
    for (const f of this.#s.bulkRows.all(ids) as { id: number; path: string; cwd: string | null; deleted: number; ledger_count: number; ledger: Buffer | null }[]) files.set(f.id, f);
    for (const [fileId, data] of this.#s.bulkSegments.all(ids) as [number, Buffer][]) {
      const f = files.get(fileId);
      if (f === undefined) continue;
      const seg = decodeSegment(data);
      pushRecords(seg, f.path, f.cwd ?? undefined, f.deleted !== 0, out);
      if (f.deleted !== 0) retained += seg.count;
    }
    for (const f of files.values()) {
      if (f.ledger_count === 0 || f.ledger === null) continue;
      const seg = decodeSegment(f.ledger);
      pushRecords(seg, f.path, f.cwd ?? undefined, true, out);
      retained += seg.count;
    }
    return { records: out, retained };
  }

  /** Mark files deleted from disk (their usage stays, as retained records). */
  markDeleted(rows: readonly FileRow[]): void {
    if (rows.length === 0) return;
    this.#memoGuard(() => this.#deleteTx.immediate(rows, Date.now()));
  }

  /**
   * Move rows to the roots their files are now found under (a file read outside the agent's roots, then
   * listed under one): the scan of a root takes only its own rows for deleted files. Their records stay.
   */
  setRoots(moves: readonly { row: FileRow; root: string }[]): void {
    this.#writeRows(moves.map((m) => m.row), () => {
      const set = this.#db.prepare('UPDATE files SET root = ? WHERE id = ?');
      for (const { row, root } of moves) set.run(root, row.id);
    });
  }

  /**
   * Forget files whose stored events failed their check (a damaged segment): their rows, segments and log
   * go, so the scan reads them again from byte 0 as new files. Their retained usage (the ledger) goes too.
   * Also the rows of files read outside the agents' roots that are gone from disk (src/scan/cached.ts).
   */
  forget(rows: readonly FileRow[]): void {
    this.#writeRows(rows, () => {
      const deleteFile = this.#db.prepare('DELETE FROM files WHERE id = ?');
      for (const r of rows) {
        this.#s.deleteSegments.run(r.id);
        this.#s.clearChanges.run(r.id);
        deleteFile.run(r.id);
      }
    });
  }

  /** One IMMEDIATE write of `rows` (none: nothing), counted as a change, the row memo patched with them. */
  #writeRows(rows: readonly FileRow[], write: () => void): void {
    if (rows.length === 0) return;
    this.#memoGuard(() =>
      this.#db
        .transaction(() => {
          const memo = memoAtStart(this.#db, this.#s.changesCount.get() as number);
          this.#countChange();
          write();
          this.#memoPatch(memo, rows);
        })
        .immediate(),
    );
  }

  /** Apply finished parses in one IMMEDIATE transaction; returns, per result, the file's records or a conflict. */
  apply(results: readonly FileResult[]): ApplyOutcome[] {
    return this.#memoGuard(() => this.#applyTx.immediate(results));
  }

  /** A write that fails (rolled back) drops the row memo its transaction may have patched. */
  #memoGuard<T>(write: () => T): T {
    try {
      return write();
    } catch (e) {
      dropMemo(this.#db);
      throw e;
    }
  }

  /** Inside a write transaction, after its writes: the touched rows as they are now, and the new count. */
  #memoPatch(memo: RowMemo | undefined, touched: readonly { agent: string; path: string }[]): void {
    if (memo !== undefined) patchMemo(memo, touched, (agent, path) => this.#s.bulkByPath.get(agent, path) as BulkRow | undefined, this.#s.changesCount.get() as number);
  }

  #applyOne(r: FileResult): ApplyOutcome {
    const row = this.#s.byPath.get(r.agent, r.path) as FileRow | undefined;
    if ((row?.gen ?? null) !== r.baseGen) return { ok: false };
    const cwd = r.track.cwd ?? undefined;
    const newCount = r.segments.reduce((n, s) => n + segmentCount(s), 0);
    const out: UsageRecord[] = [];
    const values = {
      agent: r.agent,
      path: r.path,
      root: r.root,
      parser: r.parser,
      size: r.size,
      mtime_ms: r.mtimeMs,
      deps: r.deps,
      cursor: r.cursor,
      prefix_hash: r.prefixHash,
      session_events: r.track.events,
      cwd_index: r.track.cwdIndex,
      cwd: r.track.cwd,
      updated_at: Date.now(),
      skipped: r.skipped ?? 0,
    };

    const delta = r.delta === true && row !== undefined;
    const removed: UsageRecord[] = [];
    if (row === undefined || r.start.restarted) {
      const decoded = r.segments.map((s) => decodeSegment(s));
      let ledger: Uint8Array | null = null;
      let ledgerCount = 0;
      const before: UsageRecord[] = [];
      if (row !== undefined) {
        this.#pushFile(row, before);
        ({ ledger, ledgerCount } = this.#ledgerAfterRestart(row, r, decoded));
        this.#s.deleteSegments.run(row.id);
      }
      const fields = { ...values, live_count: newCount, segment_count: r.segments.length, ledger: ledger && toBuffer(ledger), ledger_count: ledgerCount };
      let id: number;
      if (row === undefined) id = (this.#s.insertFile.get(fields) as { id: number }).id;
      else {
        id = row.id;
        this.#s.updateFile.run({ ...fields, id });
      }
      r.segments.forEach((s, i) => this.#s.insertSegment.run(id, i, segmentCount(s), toBuffer(s)));
      for (const seg of decoded) pushRecords(seg, r.path, cwd, false, out);
      if (ledger !== null) pushRecords(decodeSegment(ledger), r.path, cwd, true, out);
      if (row === undefined) return { ok: true, records: out, retained: ledgerCount, id, gen: 1 };
      // A rewrite is logged as what it changed (most records of a rewritten file come back unchanged), unless
      // the session cwd changed: the log's records take the cwd of the row, so the log restarts here.
      const d = diffRecords(before, out);
      if ((row.cwd ?? null) === (r.track.cwd ?? null) && d.added.length + d.removed.length <= MAX_LOGGED_RECORDS) {
        this.#logChange(id, row.gen + 1, encodeRecords(d.removed), d.added.length > 0 ? [encodeRecords(d.added) as Buffer] : []);
      } else this.#s.clearChanges.run(id);
      if (delta) return { ok: true, records: d.added, retained: 0, removed: d.removed, id, gen: row.gen + 1 };
      return { ok: true, records: out, retained: ledgerCount, id, gen: row.gen + 1 };
    }

    // Resumed: drop the `replaced` tail, append, merge when fragmented, and log the change (file_changes).
    // When the session cwd changed, every record of the file changed with it; the log's records take the
    // cwd of the row, so the log restarts here (a delta gets the diff).
    const newGen = row.gen + 1;
    const whole = (row.cwd ?? null) !== (r.track.cwd ?? null);
    const before: UsageRecord[] = [];
    if (whole) this.#pushFile(row, before);
    const gone = whole ? undefined : new SegmentWriter();
    const dropped = Math.min(r.start.replaced.usage ?? 0, row.live_count);
    let segCount = row.segment_count - this.#dropTail(row.id, dropped, gone);
    let seq = ((this.#s.maxSeq.get(row.id) as number | null) ?? -1) + 1;
    for (const s of r.segments) this.#s.insertSegment.run(row.id, seq++, segmentCount(s), toBuffer(s));
    segCount += r.segments.length;
    if (segCount > MAX_SEGMENTS_PER_FILE) {
      segCount = this.#compact(row.id);
    }
    let ledger = row.ledger_count > 0 ? (this.#s.ledger.get(row.id) as Buffer | null) : null;
    let ledgerCount = row.ledger_count;
    if (ledger !== null && newCount > 0) {
      // A key that comes back in the file leaves the ledger.
      const keys = new Set<string>();
      for (const s of r.segments) {
        const seg = decodeSegment(s);
        for (let i = 0; i < seg.count; i++) keys.add(segmentKey(seg, i));
      }
      const old = decodeSegment(ledger);
      const w = new SegmentWriter();
      for (let i = 0; i < old.count; i++) {
        if (!keys.has(segmentKey(old, i))) w.addFrom(old, i);
        else gone?.addFrom(old, i);
      }
      ledgerCount = w.count;
      ledger = ledgerCount > 0 ? toBuffer(w.finish()) : null;
    }
    const live = row.live_count - dropped + newCount;
    this.#s.updateFile.run({ ...values, id: row.id, live_count: live, segment_count: segCount, ledger, ledger_count: ledgerCount });
    if (gone !== undefined) {
      const goneSeg = gone.count > 0 ? toBuffer(gone.finish()) : null;
      this.#logChange(row.id, newGen, goneSeg, r.segments);
      if (delta) {
        if (goneSeg !== null) pushRecords(decodeSegment(goneSeg), r.path, row.cwd ?? undefined, false, removed);
        for (const s of r.segments) pushRecords(decodeSegment(s), r.path, cwd, false, out);
        return { ok: true, records: out, retained: 0, removed, id: row.id, gen: newGen };
      }
    }
    for (const data of this.#s.segments.all(row.id) as Buffer[]) pushRecords(decodeSegment(data), r.path, cwd, false, out);
    if (ledger !== null) pushRecords(decodeSegment(ledger), r.path, cwd, true, out);
    if (whole) {
      this.#s.clearChanges.run(row.id);
      if (delta) {
        const d = diffRecords(before, out);
        return { ok: true, records: d.added, retained: 0, removed: d.removed, id: row.id, gen: newGen };
      }
    }
    return { ok: true, records: out, retained: ledgerCount, id: row.id, gen: newGen };
  }

  /** Log what an update to `gen` did to a file's records (file_changes), keeping the last MAX_CHANGES_PER_FILE. */
  #logChange(fileId: number, gen: number, removed: Buffer | null, added: readonly Uint8Array[]): void {
    let addedBlob: Buffer | null = null;
    if (added.length > 0) {
      addedBlob = Buffer.allocUnsafe(added.reduce((n, a) => n + 4 + a.byteLength, 0));
      let o = 0;
      for (const a of added) {
        addedBlob.writeUInt32LE(a.byteLength, o);
        addedBlob.set(a, o + 4);
        o += 4 + a.byteLength;
      }
    }
    this.#s.insertChange.run(fileId, gen, removed, addedBlob);
    this.#s.pruneChanges.run(fileId, gen - MAX_CHANGES_PER_FILE);
  }

  /**
   * What the updates of a file after `fromGen` up to its current gen did to its records, oldest first, from
   * the log; undefined when the log does not reach back that far (a rewrite, pruned entries).
   */
  changesSince(row: FileRow, fromGen: number): { added: UsageRecord[]; removed: UsageRecord[] }[] | undefined {
    if (fromGen >= row.gen || row.gen - fromGen > MAX_CHANGES_PER_FILE) return undefined;
    const rows = this.#s.changes.all(row.id, fromGen, row.gen) as { gen: number; removed: Buffer | null; added: Buffer | null }[];
    if (rows.length !== row.gen - fromGen) return undefined;
    const cwd = row.cwd ?? undefined;
    return rows.map((c) => {
      const removed: UsageRecord[] = [];
      const added: UsageRecord[] = [];
      if (c.removed !== null) pushRecords(decodeSegment(c.removed), row.path, cwd, false, removed);
      if (c.added !== null) {
        for (let o = 0; o + 4 <= c.added.length; ) {
          const n = c.added.readUInt32LE(o);
          pushRecords(decodeSegment(c.added.subarray(o + 4, o + 4 + n)), row.path, cwd, false, added);
          o += 4 + n;
        }
      }
      return { added, removed };
    });
  }

  /** Every record a row holds now (live, then ledger), as read by `readFiles`. */
  #pushFile(row: FileRow, out: UsageRecord[]): void {
    const cwd = row.cwd ?? undefined;
    for (const data of this.#s.segments.all(row.id) as Buffer[]) pushRecords(decodeSegment(data), row.path, cwd, row.deleted !== 0, out);
    const ledger = row.ledger_count > 0 ? (this.#s.ledger.get(row.id) as Buffer | null) : null;
    if (ledger !== null) pushRecords(decodeSegment(ledger), row.path, cwd, true, out);
  }

  /** The ledger after a read from byte 0: old ledger and (same parser) old live usage whose key is gone. */
  #ledgerAfterRestart(row: FileRow, r: FileResult, decoded: Segment[]): { ledger: Uint8Array | null; ledgerCount: number } {
    const sameParser = row.parser === r.parser;
    const carry = sameParser && row.live_count > 0;
    if (!carry && row.ledger_count === 0) return { ledger: null, ledgerCount: 0 };
    const newKeys = new Set<string>();
    for (const seg of decoded) for (let i = 0; i < seg.count; i++) newKeys.add(segmentKey(seg, i));
    // Per key, the latest version: old ledger first, old live usage over it.
    const pick = new Map<string, [Segment, number]>();
    const ledger = row.ledger_count > 0 ? (this.#s.ledger.get(row.id) as Buffer | null) : null;
    if (ledger !== null) {
      const seg = decodeSegment(ledger);
      for (let i = 0; i < seg.count; i++) pick.set(segmentKey(seg, i), [seg, i]);
    }
    if (carry) {
      for (const data of this.#s.segments.all(row.id) as Buffer[]) {
        const seg = decodeSegment(data);
        for (let i = 0; i < seg.count; i++) pick.set(segmentKey(seg, i), [seg, i]);
      }
    }
    const w = new SegmentWriter();
    for (const [key, [seg, i]] of pick) if (!newKeys.has(key)) w.addFrom(seg, i);
    const count = w.count;
    return count === 0 ? { ledger: null, ledgerCount: 0 } : { ledger: w.finish(), ledgerCount: count };
  }

  /** Remove the last `n` live events of a file (copying them to `collect`); returns how many segments were deleted. */
  #dropTail(fileId: number, n: number, collect?: SegmentWriter): number {
    let left = n;
    let removed = 0;
    if (left <= 0) return 0;
    // Segment sizes first (a long session has dozens of segments; only the last one or two are read).
    for (const s of this.#s.segmentCountsDesc.all(fileId) as { seq: number; count: number }[]) {
      if (left <= 0) break;
      const seg = s.count <= left && !collect ? undefined : decodeSegment(this.#s.segmentData.get(fileId, s.seq) as Buffer);
      if (s.count <= left) {
        if (collect && seg) for (let i = 0; i < seg.count; i++) collect.addFrom(seg, i);
        this.#s.deleteSegment.run(fileId, s.seq);
        left -= s.count;
        removed++;
      } else {
        const full = seg as Segment;
        const w = new SegmentWriter();
        for (let i = 0; i < full.count - left; i++) w.addFrom(full, i);
        if (collect) for (let i = full.count - left; i < full.count; i++) collect.addFrom(full, i);
        this.#s.replaceSegment.run(w.count, toBuffer(w.finish()), fileId, s.seq);
        left = 0;
      }
    }
    return removed;
  }

  /** Merge a file's segments into one; returns the segment count (0 or 1). */
  #compact(fileId: number): number {
    const w = new SegmentWriter();
    for (const data of this.#s.segments.all(fileId) as Buffer[]) {
      const seg = decodeSegment(data);
      for (let i = 0; i < seg.count; i++) w.addFrom(seg, i);
    }
    this.#s.deleteSegments.run(fileId);
    if (w.count === 0) return 0;
    this.#s.insertSegment.run(fileId, 0, w.count, toBuffer(w.finish()));
    return 1;
  }
}
