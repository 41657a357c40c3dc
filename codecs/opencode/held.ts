/**
 * The snapshot discovery listed a database in (listing.ts), kept open for the event cache's batch read of the
 * sessions that listing showed changed (db.ts `readDatabaseSessions`), in the same process: that read then runs
 * in the same snapshot and takes each session's row counts from the listing, made in it (so equal to a count
 * of its rows; listing.ts says what it takes on trust), instead of counting every row of both tables again.
 * Taken once; closed when taken, when another listing of the database replaces it, or after `HOLD_MS`, so a
 * long-running process never keeps a read transaction open for long.
 */
import type { PartitionCounts } from '../../cursors/sqlite-rows.js';
import type { OpenSnapshot } from '../../cursors/sqlite.js';
import type { ListingState } from './listing.js';

/** How long a listing's snapshot waits for the batch read before it is closed. */
const HOLD_MS = 10_000;

interface Held {
  snap: OpenSnapshot;
  listing: ListingState;
  timer: ReturnType<typeof setTimeout>;
}

const held = new Map<string, Held>();

function release(db: string): Held | undefined {
  const h = held.get(db);
  if (h === undefined) return undefined;
  held.delete(db);
  clearTimeout(h.timer);
  return h;
}

/** Keep `snap`, in which `listing` of the database at `db` was made, for `takeHeld`. */
export function holdListing(db: string, snap: OpenSnapshot, listing: ListingState): void {
  release(db)?.snap.close();
  const timer = setTimeout(() => release(db)?.snap.close(), HOLD_MS);
  timer.unref?.();
  held.set(db, { snap, listing, timer });
}

/** The snapshot kept for the database at `db` and the listing made in it (the caller closes it), if any. */
export function takeHeld(db: string): { snap: OpenSnapshot; listing: ListingState } | undefined {
  return release(db);
}

/** A listing's per-session row counts, by source name (`message`, `part`), as `readPartitionsSince` takes them. */
export function listingCounts(listing: ListingState): PartitionCounts {
  return new Map([
    ['message', new Map(listing.sessions.map((s) => [s[0], s[5]]))],
    ['part', new Map(listing.sessions.map((s) => [s[0], s[7]]))],
  ]);
}
