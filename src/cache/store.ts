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
 *
 * This file holds the rules (which rows a batch touches, when the ledger takes usage, when the log restarts);
 * the SQL is statements.ts and the work on one file's segments, ledger and log is file-segments.ts, so that
 * each of the three reads on its own.
 */
import { decodeSegment, pushRecords, SegmentWriter, segmentCount, segmentKey } from '../scan/segment.js';
import type { UsageRecord } from '../scan/types.js';
import { diffRecords } from '../scan/record-diff.js';
import { borrowCacheDb, isPooled, openCacheDb, releaseCacheDb, type Db } from './db.js';
import { bulkRow, currentMemo, dropMemo, memoAtStart, patchMemo, type BulkRow, type RowMemo } from './row-memo.js';
import { cacheInstance } from './folds.js';
import { compact, dropTail, encodeRecords, ledgerAfterRestart, logChange, changesSince, pushFile, toBuffer } from './file-segments.js';
import { failureStamp, fileKey, IO_RETRY_MS, type ApplyOutcome, type FileFailure, type FileResult, type FileRow } from './rows.js';
import { prepareStatements, type Statements } from './statements.js';

export { MAX_CHANGES_PER_FILE } from './file-segments.js';

/** A file's segments are merged into one when an append takes them past this. */
export const MAX_SEGMENTS_PER_FILE = 32;
/**
 * A rewrite whose diff changes more records than this is not logged (the log restarts): a compacted long
 * session shifts every offset, and 64 such diffs would store the file's usage many times over. A snapshot
 * that held the file before then folds from scratch once.
 */
export const MAX_LOGGED_RECORDS = 20_000;

export class EventCache {
  readonly path: string;
  /** A corrupt or foreign file was moved aside and this cache built fresh. */
  rebuilt: boolean;
  readonly #db: Db;
  /** The connection is another store's of the same run (`borrowCacheDb`): that store closes it. */
  readonly #borrowed: boolean;
  readonly #s: Statements;
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
        if (gen !== undefined) logChange(this.#s, r.id, gen, null, []);
      }
      this.#memoPatch(memo, rows);
    });
    this.#s = prepareStatements(db);
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

  /**
   * Record failed reads, in one IMMEDIATE transaction: the warning each gave, so that a warm run gives it
   * again. A failure of the file's bytes (not `retry`: a corrupt `.zst`) takes the file's identity, so the row
   * is served with its warning until the file changes; any other (an I/O error) keeps the row's identity (its
   * records are of the file as it was), notes the file's in `failed_as`, and is served with its warning while
   * the file stays so, for `IO_RETRY_MS`: the run after reads it again. A row's records stay (a new file's row
   * has none). Per failure, the row's id
   * and gen (a failure changes no record: the gen stays), or undefined when another process changed the row.
   */
  recordFailures(failures: readonly FileFailure[]): ({ id: number; gen: number } | undefined)[] {
    if (failures.length === 0) return [];
    return this.#memoGuard(() =>
      this.#db
        .transaction(() => {
          const memo = memoAtStart(this.#db, this.#s.changesCount.get() as number);
          let wrote = false;
          const out = failures.map((f) => this.#failOne(f, () => (wrote = true)));
          if (wrote) this.#countChange();
          this.#memoPatch(memo, failures);
          return out;
        })
        .immediate(),
    );
  }

  #failOne(f: FileFailure, wrote: () => void): { id: number; gen: number } | undefined {
    const row = this.#s.byPath.get(f.agent, f.path) as FileRow | undefined;
    if ((row?.gen ?? null) !== f.baseGen) return undefined;
    const time = Date.now();
    const retry = f.retry ? time + IO_RETRY_MS : 0;
    const now = { size: f.size, mtime_ms: f.mtimeMs, ino: f.ino, ctime_ms: f.ctimeMs, deps: f.deps };
    const note = { error: f.warning, retry, failed_as: f.retry ? failureStamp(f) : null, updated_at: time };
    if (row === undefined) {
      wrote();
      const { id } = this.#s.insertFailed.get({ agent: f.agent, path: f.path, root: f.root, parser: f.parser, ...now, ...note }) as { id: number };
      return { id, gen: 1 };
    }
    const at = f.retry ? { size: row.size, mtime_ms: row.mtime_ms, ino: row.ino, ctime_ms: row.ctime_ms, deps: row.deps } : now;
    const same = row.error === f.warning && row.retry === retry && row.size === at.size && row.mtime_ms === at.mtime_ms && row.ino === at.ino && row.ctime_ms === at.ctime_ms && row.deps === at.deps;
    if (!same) {
      wrote();
      this.#s.noteFailure.run({ id: row.id, ...at, ...note });
    }
    return { id: row.id, gen: row.gen };
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
      ino: r.ino,
      ctime_ms: r.ctimeMs,
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
        pushFile(this.#s, row, before);
        ({ ledger, ledgerCount } = ledgerAfterRestart(this.#s, row, r, decoded));
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
        logChange(this.#s, id, row.gen + 1, encodeRecords(d.removed), d.added.length > 0 ? [encodeRecords(d.added) as Buffer] : []);
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
    if (whole) pushFile(this.#s, row, before);
    const gone = whole ? undefined : new SegmentWriter();
    const dropped = Math.min(r.start.replaced.usage ?? 0, row.live_count);
    let segCount = row.segment_count - dropTail(this.#s, row.id, dropped, gone);
    let seq = ((this.#s.maxSeq.get(row.id) as number | null) ?? -1) + 1;
    for (const s of r.segments) this.#s.insertSegment.run(row.id, seq++, segmentCount(s), toBuffer(s));
    segCount += r.segments.length;
    if (segCount > MAX_SEGMENTS_PER_FILE) {
      segCount = compact(this.#s, row.id);
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
      logChange(this.#s, row.id, newGen, goneSeg, r.segments);
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

  /**
   * What the updates of a file after `fromGen` up to its current gen did to its records, oldest first, from
   * the log; undefined when the log does not reach back that far (a rewrite, pruned entries).
   */
  changesSince(row: FileRow, fromGen: number): { added: UsageRecord[]; removed: UsageRecord[] }[] | undefined {
    return changesSince(this.#s, row, fromGen);
  }
}
