/**
 * The listings codecs keep between runs (cursors/protocol/codec.ts `ListingMemo`), in one file beside the
 * event cache (`<cache>.listings.json`), never in an agent's folders: OpenCode's listing of a database is a
 * pass over every message and part row (codecs/opencode/db.ts `listDatabaseSessions`), most of a warm report's
 * time on a large one; while the database's files are unchanged it is taken from here
 * (cursors/listing-memo.ts says when a listing is stored and when it is taken back).
 *
 * The file is read once per run, on the first `get`, and sealed as the answers beside the cache are
 * (src/cache/answer-memo.ts `sealSummary`): a damaged or edited file holds nothing. It is written whole (a
 * temporary file renamed over it) on each `set`, which happens only when a listing was made afresh. A run
 * without the cache (`--no-cache`) gets no memo at all.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ListingMemo } from '../../cursors/protocol/codec.js';
import { openSummary, sealSummary } from './answer-memo.js';

/** Listings kept (one per database), the most recently stored or used. */
export const MAX_LISTINGS = 16;
const VERSION = 1;

/** The file of the listings of the cache at `cachePath`. */
export function listingMemoFile(cachePath: string): string {
  return `${cachePath}.listings.json`;
}

interface Stored {
  v: number;
  /** Per key: when it was last stored or used (ms), and what was stored. */
  entries: Record<string, { t: number; value: unknown }>;
}

function load(file: string): Stored['entries'] {
  try {
    const json = openSummary(readFileSync(file, 'utf8'));
    if (json === undefined || json === 'legacy') return {};
    const s = JSON.parse(json) as Stored;
    if (s.v !== VERSION || s.entries === null || typeof s.entries !== 'object' || Array.isArray(s.entries)) return {};
    return s.entries;
  } catch {
    return {}; // none yet, or unreadable: every listing is made afresh
  }
}

/** The entries of both, each key's newer one kept. */
function newest(a: Stored['entries'], b: Stored['entries']): Stored['entries'] {
  const out = { ...a };
  for (const [k, e] of Object.entries(b)) {
    const had = out[k];
    if (had === undefined || (e !== null && typeof e === 'object' && typeof had === 'object' && had !== null && e.t >= had.t)) out[k] = e;
  }
  return out;
}

function save(file: string, entries: Stored['entries']): void {
  const kept = Object.entries(entries)
    .filter(([, e]) => e !== null && typeof e === 'object' && typeof e.t === 'number')
    .sort((a, b) => b[1].t - a[1].t)
    .slice(0, MAX_LISTINGS);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(tmp, sealSummary(JSON.stringify({ v: VERSION, entries: Object.fromEntries(kept) } satisfies Stored)));
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true }); // a cache folder that cannot be written keeps no listings
  }
}

/** The memo of the cache at `cachePath`: read on first use, written on each `set`. */
export function openListingMemo(cachePath: string): ListingMemo {
  const file = listingMemoFile(cachePath);
  let entries: Stored['entries'] | undefined;
  const all = (): Stored['entries'] => (entries ??= load(file));
  return {
    get(key) {
      const e = Object.hasOwn(all(), key) ? all()[key] : undefined;
      return e !== null && typeof e === 'object' ? e.value : undefined;
    },
    set(key, value) {
      // merged with the file as it is now: another memo of this cache in the process (a session manager's
      // beside the scans of `start` or `serve`) or another process may have stored listings since it was read
      entries = newest(load(file), all());
      entries[key] = { t: Date.now(), value };
      save(file, entries);
    },
  };
}
