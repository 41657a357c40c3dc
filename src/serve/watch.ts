/**
 * `WatchedDiscovery`: the server's discovery cache. It keeps each source's last discovery (paths, stats,
 * dependency fingerprints) and watches every folder under the source's roots (`fs.watch`, inotify on Linux),
 * so a query re-stats only what the kernel said changed:
 *
 * - an event naming a known file (written, truncated, its attributes set, replaced by a rename) marks that
 *   file, and one naming a file's dependency (a subagent's sidecar) marks the files that depend on it: the
 *   next discovery re-stats them, and their dependencies;
 * - a `rename` event (a file or folder created, deleted or moved) also asks for a new listing: the codec lists
 *   its roots again (its order is kept), and only files that are new or marked are stat'ed; a new folder gets
 *   its watches (its whole tree) before it is listed;
 * - an event naming a database or its `-wal` marks the database's sessions (record paths `<db>#<key>`) and asks
 *   for a new listing: the codec fingerprints its sessions again (a session inside a database has no stat),
 *   so a session added to a database shows at the next query; a database that had no session yet is known
 *   by its SQLite header, so its first session shows too;
 * - a change of a known database's file or `-wal` whose stamp is the one recorded at the last event
 *   (cursors/listing-memo.ts `sqliteFileStamp`: the `-wal`'s without its ctime) is no change, nor is a change
 *   of its `-shm` (the wal-index, rebuilt from the `-wal`, which every commit writes): every read as root
 *   re-owns the `-wal` and `-shm` (their ctime moves, nothing else), so the server's own reads would
 *   otherwise start the refresh that reads again, forever. A recorded stamp vouches only when its mtime was
 *   RACY_MS old when it was taken (git's "racily clean" rule: a later write then has a later mtime); an
 *   equal stamp that does not vouch (a write in the same clock tick as the last one could hide behind it)
 *   marks the database's sessions as any change does, so the next query lists them again, but starts no
 *   refresh: a refresh's own read would be the next such event;
 * - what cannot be followed (a watch error, an event without a name, a root's own folder moved or deleted, a
 *   missing root that appears) marks the source stale: listed and stat'ed from scratch, watches renewed;
 * - a root that does not exist (Claude's `~/.config/claude/projects` often) is stat'ed at each discovery; a
 *   folder that cannot be watched (out of inotify watches) leaves the source stale: slower, never wrong.
 *
 * Exactness: an inotify event is queued when the write returns, before the writer can tell anyone, so a
 * request that arrives after a write finds its event already read once the event loop has polled (the server
 * waits one turn before each request). Notifications are local-kernel only: on a network file system, or if
 * the kernel's queue overflowed, the periodic `sweep()` bounds how long a missed change goes unseen.
 * docs/serve.md says when not to serve.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, join } from 'node:path';
import { settledBefore, sqliteFileStamp } from '../../cursors/listing-memo.js';
import type { Codec } from '../../cursors/protocol/codec.js';
import { isSqliteFile } from '../../cursors/sqlite.js';
import { discoverSource, statFound, type DiscoveryCache, type FoundFile } from '../scan/discover.js';

interface Source {
  codec: Codec;
  roots: readonly string[];
  files: FoundFile[];
  byPath: Map<string, FoundFile>;
  /** Dependency path → the files that depend on it. */
  dependents: Map<string, string[]>;
  /** Database path → its sessions' record paths (`<db>#<key>`, cursors/sqlite.ts). */
  records: Map<string, string[]>;
  /** Other files an event named that are SQLite databases (one with no session listed yet). */
  databases: Set<string>;
  /** A database's file or `-wal` → its stamp at the last event naming it, and whether that stamp vouches (see the header). */
  stamps: Map<string, { id: string; settled: boolean }>;
  /** Files to re-stat at the next discovery. */
  dirty: Set<string>;
  /** List the roots again at the next discovery (files came or went). */
  relist: boolean;
  /** Start over at the next discovery: list and stat everything, renew the watches. */
  stale: boolean;
  /** Watched folders. */
  watchers: Map<string, FSWatcher>;
  /** Roots that did not exist at the last full listing: one appearing makes the source stale. */
  missing: string[];
}

export interface WatchStats {
  /** Discoveries answered from the cache alone (marked files re-stat'ed). */
  cached: number;
  /** Discoveries that listed the roots again but stat'ed only new or marked files. */
  relisted: number;
  /** Discoveries from scratch. */
  full: number;
  /** Files taken again (new or marked) by cached and relisted discoveries: stat'ed, or given the stat the listing took. */
  restats: number;
  /** Folders watched now. */
  watched: number;
}

/** Every folder under `dir` (itself included); none when it is not a readable folder. */
function foldersUnder(dir: string, out: string[] = []): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  out.push(dir);
  for (const e of entries) if (e.isDirectory()) foldersUnder(join(dir, e.name), out);
  return out;
}

export class WatchedDiscovery implements DiscoveryCache {
  readonly #sources = new Map<string, Source>();
  readonly #onChange: () => void;
  readonly stats: WatchStats = { cached: 0, relisted: 0, full: 0, restats: 0, watched: 0 };

  /** `onChange` is called (synchronously, from the watch callback) whenever a source gets marked. */
  constructor(onChange: () => void = () => {}) {
    this.#onChange = onChange;
  }

  async source(codec: Codec, roots: readonly string[], full: () => Promise<FoundFile[]>): Promise<FoundFile[]> {
    const key = `${codec.id}\0${roots.join('\0')}`;
    let s = this.#sources.get(key);
    if (s === undefined) {
      s = { codec, roots, files: [], byPath: new Map(), dependents: new Map(), records: new Map(), databases: new Set(), stamps: new Map(), dirty: new Set(), relist: false, stale: true, watchers: new Map(), missing: [] };
      this.#sources.set(key, s);
    }
    if (!s.stale && s.missing.some((r) => statSync(r, { throwIfNoEntry: false }) !== undefined)) s.stale = true;
    if (s.stale) {
      this.stats.full++;
      // Watch first, then list: a change made while listing is either seen by the listing or marks the source.
      s.stale = !this.#watchAll(s);
      s.relist = false;
      s.dirty.clear();
      this.#index(s, await full());
    } else if (s.relist) {
      this.stats.relisted++;
      s.relist = false;
      const dirty = s.dirty;
      s.dirty = new Set();
      const byPath = s.byPath;
      const files = await discoverSource(codec, roots, (f) => {
        const known = byPath.get(f.path);
        if (known !== undefined && !dirty.has(f.path) && known.root === f.root) return known;
        this.stats.restats++;
        return statFound(codec, f);
      });
      this.#index(s, files);
    } else {
      this.stats.cached++;
      for (const path of s.dirty) {
        const known = s.byPath.get(path);
        if (known === undefined) continue;
        this.stats.restats++;
        const now = statFound(codec, { agent: codec.id, path, root: known.root });
        if (now === undefined) {
          s.relist = true; // gone: its `rename` event may still be queued
          break;
        }
        known.size = now.size;
        known.mtimeMs = now.mtimeMs;
        known.ino = now.ino;
        known.ctimeMs = now.ctimeMs;
        known.deps = now.deps;
      }
      s.dirty.clear();
      if (s.relist) return this.source(codec, roots, full);
    }
    return s.files.map((f) => ({ ...f }));
  }

  /** Mark every source stale (the periodic safety net). */
  sweep(): void {
    for (const s of this.#sources.values()) s.stale = true;
  }

  /** Stop watching. */
  close(): void {
    for (const s of this.#sources.values()) for (const w of s.watchers.values()) w.close();
    this.#sources.clear();
    this.stats.watched = 0;
  }

  #index(s: Source, files: FoundFile[]): void {
    s.files = files;
    s.byPath = new Map(files.map((f) => [f.path, f]));
    s.dependents = new Map();
    s.records = new Map();
    for (const f of files) {
      const cut = f.path.lastIndexOf('#');
      if (cut > 0) {
        // a candidate database path: only an event naming it (or its -wal) looks it up
        const db = f.path.slice(0, cut);
        const list = s.records.get(db);
        if (list === undefined) s.records.set(db, [f.path]);
        else list.push(f.path);
      }
      for (const d of s.codec.getParseDependencies(f.path)) {
        const list = s.dependents.get(d);
        if (list === undefined) s.dependents.set(d, [f.path]);
        else list.push(f.path);
      }
    }
  }

  /** Watch every folder under the source's roots, afresh; false when some folder cannot be watched. */
  #watchAll(s: Source): boolean {
    for (const w of s.watchers.values()) w.close();
    this.stats.watched -= s.watchers.size;
    s.watchers.clear();
    s.missing = [];
    let complete = true;
    for (const root of s.roots) {
      const folders = foldersUnder(root);
      if (folders.length === 0) s.missing.push(root);
      for (const dir of folders) if (!this.#watchOne(s, dir)) complete = false;
    }
    return complete;
  }

  /** Watch `dir`, replacing a watch it had (a folder deleted and made again needs a new one). */
  #watchOne(s: Source, dir: string): boolean {
    this.#unwatch(s, dir, false);
    try {
      const w = watch(dir, { persistent: false }, (event, name) => this.#event(s, dir, event, name));
      w.on('error', () => this.#stale(s));
      s.watchers.set(dir, w);
      this.stats.watched++;
      return true;
    } catch {
      return false; // out of watches (ENOSPC), or the folder went away
    }
  }

  /** Stop watching `dir` (and, with `tree`, every folder under it). */
  #unwatch(s: Source, dir: string, tree: boolean): void {
    const prefix = `${dir}/`;
    for (const [d, w] of s.watchers) {
      if (d !== dir && !(tree && d.startsWith(prefix))) continue;
      w.close();
      s.watchers.delete(d);
      this.stats.watched--;
    }
  }

  #event(s: Source, dir: string, event: string, name: string | Buffer | null): void {
    if (s.stale) return;
    if (name === null) return this.#stale(s);
    const n = name.toString();
    // A watch reports its own folder moved or deleted under the folder's name.
    if (event === 'rename' && n === basename(dir) && statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) {
      if (s.roots.includes(dir)) return this.#stale(s);
      this.#unwatch(s, dir, true);
      s.relist = true;
      return this.#onChange();
    }
    const path = join(dir, n);
    const change = event === 'rename' ? 'changed' : this.#databaseChange(s, path);
    if (change === 'unchanged') return;
    if (s.byPath.has(path)) s.dirty.add(path);
    for (const f of s.dependents.get(path) ?? []) s.dirty.add(f);
    // A commit to a database (its file or its -wal) may change any of its sessions, and new ones may appear:
    // the codec lists them again with fresh fingerprints (a record path has no stat of its own).
    const db = path.replace(/-(wal|journal)$/, '');
    const records = s.records.get(db);
    if (records !== undefined) {
      for (const f of records) s.dirty.add(f);
      s.relist = true;
    } else if (!s.byPath.has(path) && this.#isDatabase(s, db)) s.relist = true; // its first sessions, maybe
    if (event === 'rename') {
      s.relist = true;
      if (statSync(path, { throwIfNoEntry: false })?.isDirectory() === true) {
        // A folder created or moved in: watch its tree before it is listed.
        for (const d of foldersUnder(path)) if (!this.#watchOne(s, d)) s.stale = true;
      } else this.#unwatch(s, path, true);
    }
    if (change === 'changed') this.#onChange();
  }

  /**
   * What a `change` event naming `path` says of a known database's contents (see the header): `unchanged`
   * for its `-shm`, or its file or `-wal` with the stamp recorded at the last event when that stamp vouches;
   * `maybe` when it is that stamp but the stamp does not vouch; else `changed` (so for any other file).
   * Records the stamp it finds.
   */
  #databaseChange(s: Source, path: string): 'unchanged' | 'maybe' | 'changed' {
    const m = /^(.+)-(wal|shm)$/.exec(path);
    const db = m?.[1] ?? path;
    if (!s.records.has(db) && !s.databases.has(db)) return 'changed';
    if (m?.[2] === 'shm') return 'unchanged';
    const started = Date.now();
    const now = sqliteFileStamp(path);
    const had = s.stamps.get(path);
    s.stamps.set(path, { id: now.id, settled: settledBefore(now.mtimeMs, started) });
    if (had === undefined || had.id !== now.id) return 'changed';
    return had.settled ? 'unchanged' : 'maybe';
  }

  /**
   * Whether `path`, a file no listing named, is a SQLite database (its header; a yes is kept, a no asked
   * again, since a database being made gets its header with its first commit).
   */
  #isDatabase(s: Source, path: string): boolean {
    if (s.databases.has(path)) return true;
    if (!isSqliteFile(path)) return false;
    s.databases.add(path);
    return true;
  }

  #stale(s: Source): void {
    s.stale = true;
    this.#onChange();
  }
}
