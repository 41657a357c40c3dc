/**
 * One connection per report: the event cache's scan borrows the fold snapshots' connection (src/cache/db.ts
 * `borrowCacheDb`) while it is open on the same file, never closes it, and opens its own when the file was
 * moved aside (rebuilt) or the connection closed. Reports through the shared connection equal fresh folds:
 * test/fold-snapshots.test.ts.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { borrowCacheDb, moveAside, openCacheDb } from '../src/cache/db.js';
import { FoldSnapshots } from '../src/cache/folds.js';
import { EventCache } from '../src/cache/store.js';
import { tempDir } from './scan-helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function cachePath(): Promise<string> {
  const dir = await tempDir('sf-borrow-');
  dirs.push(dir);
  return join(dir, 'events.db');
}

const warn = (m: string) => {
  throw new Error(`unexpected warning: ${m}`);
};

describe('event cache: a run borrows its open connection', () => {
  it('lends the open connection of the same file, and nothing for another, a closed or a moved one', async () => {
    const path = await cachePath();
    const { db } = openCacheDb(path, warn);
    expect(borrowCacheDb(path, db)?.db).toBe(db);
    expect(borrowCacheDb(path, db)?.rebuilt).toBe(false);
    const other = await cachePath();
    openCacheDb(other, warn).db.close();
    expect(borrowCacheDb(other, db)).toBeUndefined();
    const aside = moveAside(path);
    expect(aside).toBeDefined();
    expect(borrowCacheDb(path, db)).toBeUndefined(); // the path names no file, or a new one, now
    db.close();
    const again = openCacheDb(path, warn).db;
    expect(borrowCacheDb(path, again)?.db).toBe(again);
    again.close();
    expect(borrowCacheDb(path, again)).toBeUndefined();
  });

  it("the scan's store uses the fold snapshots' connection and leaves it open; without one it opens and closes its own", async () => {
    const path = await cachePath();
    const snaps = FoldSnapshots.open(path, warn);
    const cache = EventCache.open(path, warn, snaps.connection);
    expect(cache.instance()).toBe(snaps.instance);
    expect(cache.loadFiles(['claude']).size).toBe(0);
    cache.close();
    expect(snaps.connection.open).toBe(true);
    expect(snaps.changes()).toBe(0); // still usable
    const own = EventCache.open(path, warn);
    expect(own.instance()).toBe(snaps.instance);
    own.close();
    expect(snaps.connection.open).toBe(true);
    snaps.close();
    expect(snaps.connection.open).toBe(false);
    // A closed connection is not lent: the store opens its own.
    const after = EventCache.open(path, warn, snaps.connection);
    expect(after.instance()).toBe(snaps.instance);
    after.close();
  });
});
