/**
 * `WatchedDiscovery`: the server's discovery cache. It keeps each source's last discovery (paths, stats,
 * dependency fingerprints) and watches every folder under the source's roots (`fs.watch`, inotify on Linux),
 * so a query re-stats only the files the kernel said were written:
 *
 * - a `change` event for a known file marks that file; the next discovery re-stats it (and its dependencies);
 * - anything else (a file created, deleted or renamed, a folder added, a dependency such as a subagent's
 *   sidecar written, a watch that failed, an event without a name) marks the whole source, which the next
 *   discovery lists again from scratch, adding watches for new folders first;
 * - a root that does not exist (Claude's `~/.config/claude/projects` often) is stat'ed at each discovery, and
 *   its appearing marks the source; a folder that cannot be watched (out of inotify watches) leaves the
 *   source listed from scratch every time: slower, never wrong.
 *
 * Exactness: an inotify event is queued when the write returns, before the writer can tell anyone, so a
 * request that arrives after a write finds its event already read once the event loop has polled (the server
 * waits one turn before each request). Notifications are local-kernel only: on a network file system, or if
 * the kernel's queue overflowed, the periodic `sweep()` (every few seconds while clients come) bounds how
 * long a missed change goes unseen. docs/serve.md says when not to serve.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { Codec } from '../codec.js';
import { fingerprintDependencies, type DiscoveryCache, type FoundFile } from '../scan/discover.js';

interface Source {
  codec: Codec;
  roots: readonly string[];
  files: FoundFile[];
  byPath: Map<string, FoundFile>;
  /** Files a `change` event named since the last discovery. */
  dirty: Set<string>;
  /** List again from scratch at the next discovery. */
  stale: boolean;
  /** Watched folders. */
  watchers: Map<string, FSWatcher>;
  /** Roots that did not exist at the last listing: one appearing means a listing from scratch. */
  missing: string[];
}

export interface WatchStats {
  /** Discoveries answered without listing (only marked files re-stat'ed). */
  cached: number;
  /** Discoveries that listed the roots again. */
  full: number;
  /** Files re-stat'ed after a change event. */
  restats: number;
  /** Folders watched now. */
  watched: number;
}

/** Every folder under `root` (itself included); none when it is missing. */
function foldersUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    out.push(dir);
    for (const e of entries) if (e.isDirectory()) walk(join(dir, e.name));
  };
  walk(root);
  return out;
}

export class WatchedDiscovery implements DiscoveryCache {
  readonly #sources = new Map<string, Source>();
  readonly #onChange: () => void;
  readonly stats: WatchStats = { cached: 0, full: 0, restats: 0, watched: 0 };

  /** `onChange` is called (synchronously, from the watch callback) whenever a source gets marked. */
  constructor(onChange: () => void = () => {}) {
    this.#onChange = onChange;
  }

  async source(codec: Codec, roots: readonly string[], full: () => Promise<FoundFile[]>): Promise<FoundFile[]> {
    const key = `${codec.id}\0${roots.join('\0')}`;
    let s = this.#sources.get(key);
    if (s === undefined) {
      s = { codec, roots, files: [], byPath: new Map(), dirty: new Set(), stale: true, watchers: new Map(), missing: [] };
      this.#sources.set(key, s);
    }
    if (!s.stale && s.missing.some((r) => statSync(r, { throwIfNoEntry: false }) !== undefined)) s.stale = true;
    if (!s.stale) {
      this.stats.cached++;
      for (const path of s.dirty) {
        const f = s.byPath.get(path);
        const st = statSync(path, { throwIfNoEntry: false });
        this.stats.restats++;
        if (f === undefined || st === undefined) {
          s.stale = true; // gone (its `rename` event may still be queued): list again
          break;
        }
        f.size = st.size;
        f.mtimeMs = st.mtimeMs;
        f.deps = fingerprintDependencies(codec, path);
      }
      s.dirty.clear();
      if (!s.stale) return s.files.map((f) => ({ ...f }));
      this.stats.cached--;
    }
    this.stats.full++;
    // Watch first, then list: a change made while listing is either seen by the listing or marks the source.
    s.stale = !this.#watch(s);
    s.dirty.clear();
    s.files = await full();
    s.byPath = new Map(s.files.map((f) => [f.path, f]));
    return s.files.map((f) => ({ ...f }));
  }

  /** Mark every source for a listing from scratch (the periodic safety net). */
  sweep(): void {
    for (const s of this.#sources.values()) s.stale = true;
  }

  /** Stop watching. */
  close(): void {
    for (const s of this.#sources.values()) {
      for (const w of s.watchers.values()) w.close();
      s.watchers.clear();
    }
    this.#sources.clear();
    this.stats.watched = 0;
  }

  /** Watch every folder under the source's roots; false when some folder cannot be watched. */
  #watch(s: Source): boolean {
    let complete = true;
    const want = new Set<string>();
    s.missing = [];
    for (const root of s.roots) {
      const folders = foldersUnder(root);
      if (folders.length === 0) s.missing.push(root);
      for (const f of folders) want.add(f);
    }
    for (const [dir, w] of s.watchers) {
      if (want.has(dir)) continue;
      w.close();
      s.watchers.delete(dir);
      this.stats.watched--;
    }
    for (const dir of want) {
      if (s.watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, (event, name) => this.#event(s, dir, event, name));
        w.on('error', () => this.#mark(s));
        s.watchers.set(dir, w);
        this.stats.watched++;
      } catch {
        complete = false; // out of watches (ENOSPC), or the folder went away
      }
    }
    return complete;
  }

  #event(s: Source, dir: string, event: string, name: string | Buffer | null): void {
    if (s.stale) return;
    const path = name === null ? undefined : join(dir, name.toString());
    if (event === 'change' && path !== undefined && s.byPath.has(path)) {
      s.dirty.add(path);
      this.#onChange();
      return;
    }
    this.#mark(s);
  }

  #mark(s: Source): void {
    s.stale = true;
    this.#onChange();
  }
}
