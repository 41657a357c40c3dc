/**
 * The `folds` and `fold_chunks` tables: snapshots of the totals fold (src/cost/incremental.ts). Each is one
 * query's fold state (src/cost/fold-state.ts: a header, pieces of slots by seq) with the cache rows it holds every
 * record of (`gens`: file id → gen, as pairs of little-endian u32). At most MAX_FOLD_SNAPSHOTS are kept, the
 * most recently used. `get` reads a snapshot in one transaction, `put` writes one in one IMMEDIATE
 * transaction, so a reader never sees pieces of two versions (a column piece read later checks the version).
 */
import { openSummary, sealSummary } from './answer-memo.js';
import { columnsOf } from '../../cursors/sqlite.js';
import { FOLDS_SCHEMA, openCacheDb, releaseCacheDb, type Db } from './db.js';

/** Snapshots kept (each is ~90 bytes per distinct response of the history it folds). */
export const MAX_FOLD_SNAPSHOTS = 8;

const USED_AT_GRAIN_MS = 60_000;

/** A stored snapshot, without its state (`state()` reads that, only when the fold has something to do). */
/** What the cached files of a report's sources warn about (`FoldSnapshots.notes`). */
export interface FileNotes {
  /** Lines skipped: how many, in how many files, the first file by path. */
  skipped: { lines: number; files: number; first: string | undefined };
  /** Files whose last read failed, by path, with the warning it gave. */
  failed: { agent: string; root: string; path: string; warning: string }[];
  /** A failure a scan would try again (not of the file's bytes). */
  retry: boolean;
  /** The earliest time (epoch ms) a failure of these files is to be tried again, when one is. */
  retryAt?: number;
}

export interface FoldSnapshot {
  gens: Map<number, number>;
  /** The fold's pricer resolutions (JSON of `Pricer.exportResolved()`). */
  prices: string;
  /** The summary the fold gave when it was stored (JSON): the answer when nothing changed since. */
  summary: string;
  /** Write count of this snapshot (a `put` of changed pieces only requires it unchanged). */
  version: number;
  /** `meta.changes` when the snapshot was taken, and now; and a digest of the files it saw and their stats. */
  changesThen: number | null;
  changesNow: number;
  stats: string | null;
}

/** A snapshot's fold state, as far as a restore reads it first: the header and the hash pieces (even seqs). */
export interface FoldSnapshotState {
  header: string;
  hashes: Buffer[];
}

/** What `put` writes. */
export type FoldSnapshotWrite =
  | {
      gens: ReadonlyMap<number, number>;
      header: string;
      prices: string;
      summary: string;
      /** The `meta.changes` this snapshot stands for, and the digest of the files it saw (see FoldSnapshot). */
      changes: number;
      stats: string;
      /** Pieces to write by seq (all of them, or the changed ones when `baseVersion` is given). */
      /** Encoders of the pieces, run one at a time as each is written. */
      pieces: ReadonlyMap<number, () => Uint8Array>;
      /** Pieces the whole state has (seqs 0 … seqCount - 1). */
      seqCount: number;
      /** Write only `pieces` over the stored snapshot, which must still be at this version. */
      baseVersion?: number;
    }
  | {
      /** New gens (and file stats) only, over the stored snapshot at `baseVersion` (its state stays). */
      gens: ReadonlyMap<number, number>;
      baseVersion: number;
      changes: number;
      stats: string;
      /** A new summary for the same state (its retained spend moved: src/cost/retained.ts); else it stays. */
      summary?: string;
    };

export function encodeGens(gens: ReadonlyMap<number, number>): Buffer {
  const out = Buffer.allocUnsafe(gens.size * 8);
  let o = 0;
  for (const [id, gen] of gens) {
    out.writeUInt32LE(id, o);
    out.writeUInt32LE(gen, o + 4);
    o += 8;
  }
  return out;
}

export function decodeGens(b: Buffer): Map<number, number> {
  if (b.length % 8 !== 0) throw new RangeError('not a gens list');
  const out = new Map<number, number>();
  for (let o = 0; o < b.length; o += 8) out.set(b.readUInt32LE(o), b.readUInt32LE(o + 4));
  return out;
}

/** The random id of a cache database (`meta.instance`). */
export function cacheInstance(db: Db): string {
  return (db.prepare("SELECT value FROM meta WHERE key = 'instance'").pluck().get() as string | undefined) ?? '';
}

export { openSummary, sealSummary };

export class FoldSnapshots {
  readonly instance: string;
  readonly #db: Db;
  #warn: (message: string) => void = () => undefined;

  private constructor(db: Db) {
    this.#db = db;
    FoldSnapshots.#heal(db);
    this.instance = cacheInstance(db);
  }

  /** The columns `folds` must have; a table of another shape (a development build's) is dropped and made anew. */
  static readonly #COLUMNS = ['key', 'version', 'chunk_count', 'used_at', 'gens', 'prices', 'summary', 'header', 'changes', 'stats'];

  /** Snapshots are disposable: fold tables of another shape are replaced (their snapshots lost, nothing else). */
  static #heal(db: Db): void {
    const columns = () => [...columnsOf(db, 'folds')].join(',');
    if (columns() === FoldSnapshots.#COLUMNS.join(',')) return;
    db.transaction(() => {
      if (columns() === FoldSnapshots.#COLUMNS.join(',')) return;
      db.exec('DROP TABLE IF EXISTS folds; DROP TABLE IF EXISTS fold_chunks;');
      db.exec(FOLDS_SCHEMA);
    }).immediate();
  }

  /** The connection, which the run's scan of the event cache borrows (src/cache/db.ts `borrowCacheDb`). */
  get connection(): Db {
    return this.#db;
  }

  static open(path: string, warn: (message: string) => void): FoldSnapshots {
    const s = new FoldSnapshots(openCacheDb(path, warn).db);
    s.#warn = warn;
    return s;
  }

  /**
   * What a scan of `sources` would warn about from the cached files (live rows under their roots), for a run
   * answered from a snapshot without a scan: the lines skipped (as its SkipTally counts them), the failed
   * reads (each row's warning, by path), whether any failure is one a scan would try again now (`retry`: an
   * I/O failure whose time came, src/cache/rows.ts; then the snapshot must not answer alone), and else the
   * earliest time one will be (`retryAt`).
   */
  notes(sources: readonly { agent: string; roots: readonly string[] }[]): FileNotes {
    const q = this.#db.prepare('SELECT path, root, skipped, error, retry FROM files WHERE agent = ? AND deleted = 0 AND (skipped > 0 OR error IS NOT NULL)');
    const out: FileNotes = { skipped: { lines: 0, files: 0, first: undefined }, failed: [], retry: false };
    const now = Date.now();
    for (const s of sources) {
      for (const r of q.all(s.agent) as { path: string; root: string; skipped: number; error: string | null; retry: number }[]) {
        if (!s.roots.includes(r.root)) continue;
        if (r.error !== null) out.failed.push({ agent: s.agent, root: r.root, path: r.path, warning: r.error });
        if (r.retry !== 0 && r.retry <= now) out.retry = true;
        else if (r.retry !== 0) out.retryAt = Math.min(out.retryAt ?? r.retry, r.retry);
        if (r.skipped === 0) continue;
        out.skipped.lines += r.skipped;
        out.skipped.files++;
        if (out.skipped.first === undefined || r.path < out.skipped.first) out.skipped.first = r.path;
      }
    }
    out.failed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return out;
  }

  /** The version the last `put` stored, once it has returned true. */
  putVersion: number | undefined;

  /** Whether `other` reads through this one's connection (a reused one, db.ts), which is still open. */
  sameConnection(other: FoldSnapshots): boolean {
    return other.#db === this.#db && this.#db.open;
  }

  /** The snapshot stored under `key`, if any (its use time is refreshed). */
  get(key: string): FoldSnapshot | undefined {
    const snap = this.#db.transaction((): (FoldSnapshot & { usedAt: number }) | undefined => {
      const row = this.#db.prepare('SELECT version, used_at, gens, prices, summary, changes, stats FROM folds WHERE key = ?').get(key) as
        | { version: number; used_at: number; gens: Buffer; prices: string; summary: string; changes: number | null; stats: string | null }
        | undefined;
      if (row === undefined) return undefined;
      return {
        gens: decodeGens(row.gens),
        prices: row.prices,
        summary: row.summary,
        version: row.version,
        changesThen: row.changes,
        changesNow: this.changes(),
        stats: row.stats,
        usedAt: row.used_at,
      };
    })();
    if (snap === undefined) return undefined;
    // A summary whose check fails is dropped with its snapshot (they are derived data): the run folds anew and
    // stores a good one. One from before seals goes quietly the same way.
    const json = openSummary(snap.summary);
    if (json === undefined || json === 'legacy') {
      if (json === undefined) this.#warn(`The stored report for one query failed its check (damaged or edited): dropped it and folded the report again.`);
      try {
        this.delete(key);
      } catch {
        // read-only or busy: the next put replaces it
      }
      return undefined;
    }
    snap.summary = json;
    // The use time only orders snapshots for pruning: refreshed once a minute, not written by every run (and
    // outside the read, which a writer's commit would otherwise make fail to upgrade).
    const now = Date.now();
    if (now - snap.usedAt > USED_AT_GRAIN_MS) {
      try {
        this.#db.prepare('UPDATE folds SET used_at = ? WHERE key = ?').run(now, key);
      } catch {
        // busy or read-only: the order of pruning is all it affects
      }
    }
    const { usedAt: _, ...out } = snap;
    return out;
  }

  /** `meta.changes`: the writes to the event cache's `files` so far. */
  changes(): number {
    return Number(this.#db.prepare("SELECT value FROM meta WHERE key = 'changes'").pluck().get() ?? -1);
  }

  /** The header and hash pieces of `key` at `version`; undefined when another process stored a newer one meanwhile. */
  state(key: string, version: number): FoldSnapshotState | undefined {
    return this.#db.transaction((): FoldSnapshotState | undefined => {
      const row = this.#db.prepare('SELECT chunk_count, header FROM folds WHERE key = ? AND version = ?').get(key, version) as { chunk_count: number; header: string } | undefined;
      if (row === undefined) return undefined;
      const hashes = this.#db.prepare('SELECT data FROM fold_chunks WHERE key = ? AND seq < ? AND seq % 2 = 0 ORDER BY seq').pluck().all(key, row.chunk_count) as Buffer[];
      return { header: row.header, hashes };
    })();
  }

  /** The piece `seq` of `key` at `version`; undefined when another process stored a newer one meanwhile. */
  piece(key: string, version: number, seq: number): Buffer | undefined {
    return this.#db
      .prepare('SELECT c.data FROM fold_chunks c JOIN folds f ON f.key = c.key WHERE c.key = ? AND c.seq = ? AND f.version = ?')
      .pluck()
      .get(key, seq, version) as Buffer | undefined;
  }

  /**
   * Store the snapshot of `key` (all pieces, or with `baseVersion` the changed ones) and drop the least
   * recently used beyond MAX_FOLD_SNAPSHOTS. False when `baseVersion` no longer matches (another process
   * stored one meanwhile): nothing is written, the caller writes the whole state instead.
   */
  put(key: string, w: FoldSnapshotWrite): boolean {
    this.putVersion = undefined;
    return this.#db
      .transaction((): boolean => {
        const current = this.#db.prepare('SELECT version FROM folds WHERE key = ?').pluck().get(key) as number | undefined;
        if (w.baseVersion !== undefined && current !== w.baseVersion) return false;
        const now = Date.now();
        this.putVersion = (current ?? 0) + 1;
        if (!('header' in w)) {
          this.#db.prepare('UPDATE folds SET version = version + 1, used_at = ?, gens = ?, changes = ?, stats = ? WHERE key = ?').run(now, encodeGens(w.gens), w.changes, w.stats, key);
          if (w.summary !== undefined) this.#db.prepare('UPDATE folds SET summary = ? WHERE key = ?').run(sealSummary(w.summary), key);
          return true;
        }
        if (w.baseVersion === undefined) this.#db.prepare('DELETE FROM fold_chunks WHERE key = ?').run(key);
        else this.#db.prepare('DELETE FROM fold_chunks WHERE key = ? AND seq >= ?').run(key, w.seqCount);
        const insert = this.#db.prepare('INSERT OR REPLACE INTO fold_chunks (key, seq, data) VALUES (?, ?, ?)');
        for (const [seq, encode] of w.pieces) insert.run(key, seq, encode());
        this.#db
          .prepare('INSERT OR REPLACE INTO folds (key, version, chunk_count, used_at, gens, prices, summary, header, changes, stats) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
          .run(key, (current ?? 0) + 1, w.seqCount, now, encodeGens(w.gens), w.prices, sealSummary(w.summary), w.header, w.changes, w.stats);
        const stale = this.#db.prepare('SELECT key FROM folds ORDER BY used_at DESC, key LIMIT -1 OFFSET ?').pluck().all(MAX_FOLD_SNAPSHOTS) as string[];
        for (const k of stale) this.#deleteKey(k);
        return true;
      })
      .immediate();
  }

  #deleteKey(key: string): void {
    this.#db.prepare('DELETE FROM folds WHERE key = ?').run(key);
    this.#db.prepare('DELETE FROM fold_chunks WHERE key = ?').run(key);
  }

  /** Drop the snapshot of `key` (it did not decode). */
  delete(key: string): void {
    this.#db.transaction(() => this.#deleteKey(key)).immediate();
  }

  close(): void {
    releaseCacheDb(this.#db);
  }
}
