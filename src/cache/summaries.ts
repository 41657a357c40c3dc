/**
 * The `summaries` table of the event cache (schema in db.ts): what `list()` learned about each session file,
 * so a warm `list` stats files instead of reading their heads and tails again.
 *
 * A row holds up to three JSON levels of one file, all computed from the same file state:
 * - `peek`: the lazy summary (head + tail windows, or the whole file when small);
 * - `usage`: cost and models from a usage-only read of the whole file (`sort: 'cost'`, `model`);
 * - `whole`: the exact summary of a full fold (`sort: 'turns'`, `full`, `exactBytes`).
 * A row is valid for a file while its `parser`, `size`, `mtime_ms`, `ino`, `ctime_ms`, `deps` and `fold_key` match (the same
 * rules as the usage rows of `files`, plus the fold key: summary rules and price data). The JSON is opaque here.
 *
 * Concurrency: nothing is locked while files are read. All of a run's rows are written at the end in one
 * IMMEDIATE transaction of upserts. An upsert onto a row with the same validity key keeps the levels it does
 * not bring (another process may have added one meanwhile); onto a row of another key it replaces the row.
 * Two processes that race on one file write the same JSON for the same stat, and a row is only ever served to
 * a reader whose own stat matches it, so the last writer winning is harmless.
 */
import { isCorruptionError, moveAside, openCacheDb, releaseCacheDb, type Db } from './db.js';

/** The JSON levels of a row. */
export type SummaryLevel = 'peek' | 'usage' | 'whole';

/** The validity key of a row: a row serves a file only when every field is equal. */
export interface SummaryKey {
  parser: string;
  size: number;
  mtimeMs: number;
  ino: number;
  ctimeMs: number;
  deps: string;
  foldKey: string;
}

/**
 * A row as loaded for a warm run (only rows of the caller's parser and fold key are loaded): the rest of its
 * key and the `peek` level (the other levels are fetched by id on demand).
 */
export interface SummaryRow {
  id: number;
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
  ctimeMs: number;
  deps: string;
  peek: string | null;
}

/** One row to write: its key and the levels this run computed (absent levels are kept when the key is unchanged). */
export interface SummaryWrite {
  agent: string;
  path: string;
  key: SummaryKey;
  levels: Partial<Record<SummaryLevel, string>>;
}

/** True when a row loaded by `load(agent, parser, foldKey)` was written for exactly this file state. */
export function isCurrentRow(row: SummaryRow, key: SummaryKey): boolean {
  return sameFile(row, key) && row.deps === key.deps;
}

/** Equal size, mtime, ctime and inode. */
function sameFile(a: Pick<SummaryKey, 'size' | 'mtimeMs' | 'ino' | 'ctimeMs'>, b: Pick<SummaryKey, 'size' | 'mtimeMs' | 'ino' | 'ctimeMs'>): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

const SAME_KEY =
  'summaries.parser = excluded.parser AND summaries.size = excluded.size AND summaries.mtime_ms = excluded.mtime_ms AND summaries.ino = excluded.ino AND summaries.ctime_ms = excluded.ctime_ms AND summaries.deps = excluded.deps AND summaries.fold_key = excluded.fold_key';

/**
 * The `summaries` table over one connection (opened, migrated or rebuilt by db.ts's `openCacheDb`).
 * @example
 * const store = SummaryStore.open(getCachePath(), () => undefined);
 * const rows = store.load('claude', getParserString(claude), foldKey); // path → { id, size, mtimeMs, deps, peek }
 * store.write([{ agent: 'claude', path, key, levels: { peek: JSON.stringify(data) } }]);
 * store.close();
 */
export class SummaryStore {
  readonly path: string;
  readonly #db: Db;
  readonly #s;
  readonly #writeTx: { immediate: (rows: readonly SummaryWrite[], prune: readonly [string, string][], now: number) => void };

  private constructor(path: string, db: Db) {
    this.path = path;
    this.#db = db;
    this.#s = {
      // Rows of another parser or fold key are stale for this caller: filtered here, never turned into objects.
      byAgent: db.prepare('SELECT id, path, size, mtime_ms, ino, ctime_ms, deps, peek FROM summaries WHERE agent = ? AND parser = ? AND fold_key = ?').raw(),
      // With the key: another process may have re-keyed a row (the file changed) since it was loaded.
      usage: db.prepare('SELECT id, parser, size, mtime_ms, ino, ctime_ms, deps, fold_key, usage FROM summaries WHERE id IN (SELECT value FROM json_each(?))').raw(),
      whole: db.prepare('SELECT id, parser, size, mtime_ms, ino, ctime_ms, deps, fold_key, whole FROM summaries WHERE id IN (SELECT value FROM json_each(?))').raw(),
      // In an UPDATE every right-hand side sees the old row, so SAME_KEY compares the stored key throughout.
      upsert: db.prepare(
        `INSERT INTO summaries (agent, path, parser, size, mtime_ms, ino, ctime_ms, deps, fold_key, updated_at, peek, usage, whole)
         VALUES (@agent, @path, @parser, @size, @mtime_ms, @ino, @ctime_ms, @deps, @fold_key, @updated_at, @peek, @usage, @whole)
         ON CONFLICT (agent, path) DO UPDATE SET
           peek = CASE WHEN ${SAME_KEY} THEN coalesce(excluded.peek, summaries.peek) ELSE excluded.peek END,
           usage = CASE WHEN ${SAME_KEY} THEN coalesce(excluded.usage, summaries.usage) ELSE excluded.usage END,
           whole = CASE WHEN ${SAME_KEY} THEN coalesce(excluded.whole, summaries.whole) ELSE excluded.whole END,
           parser = excluded.parser, size = excluded.size, mtime_ms = excluded.mtime_ms, ino = excluded.ino, ctime_ms = excluded.ctime_ms, deps = excluded.deps,
           fold_key = excluded.fold_key, updated_at = excluded.updated_at`,
      ),
      remove: db.prepare('DELETE FROM summaries WHERE agent = ? AND path = ?'),
    };
    this.#writeTx = db.transaction((rows: readonly SummaryWrite[], prune: readonly [string, string][], now: number) => {
      for (const r of rows) {
        this.#s.upsert.run({
          agent: r.agent,
          path: r.path,
          parser: r.key.parser,
          size: r.key.size,
          mtime_ms: r.key.mtimeMs,
          ino: r.key.ino,
          ctime_ms: r.key.ctimeMs,
          deps: r.key.deps,
          fold_key: r.key.foldKey,
          updated_at: now,
          peek: r.levels.peek ?? null,
          usage: r.levels.usage ?? null,
          whole: r.levels.whole ?? null,
        });
      }
      for (const [agent, path] of prune) this.#s.remove.run(agent, path);
    });
  }

  /** Open (or create, migrate, rebuild) the event cache at `path` for its summaries. */
  static open(path: string, warn: (message: string) => void): SummaryStore {
    return new SummaryStore(path, openCacheDb(path, warn).db);
  }

  close(): void {
    releaseCacheDb(this.#db);
  }

  /** The rows of an agent written under this parser string and fold key, keyed by path, with their `peek` level. */
  load(agent: string, parser: string, foldKey: string): Map<string, SummaryRow> {
    const out = new Map<string, SummaryRow>();
    for (const [id, path, size, mtimeMs, ino, ctimeMs, deps, peek] of this.#s.byAgent.all(agent, parser, foldKey) as [number, string, number, number, number, number, string, string | null][]) {
      out.set(path, { id, path, size, mtimeMs, ino, ctimeMs, deps, peek });
    }
    return out;
  }

  /**
   * The `usage` or `whole` level of rows loaded before, by id, where the row still has `keys.get(id)` (null
   * where it has no such level; rows gone or re-keyed since are absent).
   */
  level(level: 'usage' | 'whole', keys: ReadonlyMap<number, SummaryKey>): Map<number, string | null> {
    const out = new Map<number, string | null>();
    if (keys.size === 0) return out;
    for (const [id, parser, size, mtimeMs, ino, ctimeMs, deps, foldKey, v] of this.#s[level].all(JSON.stringify([...keys.keys()])) as [number, string, number, number, number, number, string, string, string | null][]) {
      const k = keys.get(id);
      if (k !== undefined && k.parser === parser && k.foldKey === foldKey && sameFile(k, { size, mtimeMs, ino, ctimeMs }) && k.deps === deps) out.set(id, v);
    }
    return out;
  }

  /** Write rows and delete the `[agent, path]` rows of `prune`, in one IMMEDIATE transaction. */
  write(rows: readonly SummaryWrite[], prune: readonly [string, string][] = []): void {
    if (rows.length === 0 && prune.length === 0) return;
    this.#writeTx.immediate(rows, prune, Date.now());
  }
}

/**
 * Run `fn` on the store; a failure of the cache never fails the caller. Corruption moves the file aside (the
 * next run rebuilds it) and closes the store; `undefined` is returned on any failure.
 */
export function guardSummaries<T>(store: SummaryStore, fn: (s: SummaryStore) => T): T | undefined {
  try {
    return fn(store);
  } catch (e) {
    if (isCorruptionError(e)) {
      store.close();
      moveAside(store.path);
    }
    return undefined;
  }
}
