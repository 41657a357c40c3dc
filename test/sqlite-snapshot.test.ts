/**
 * cursors/sqlite.ts and cursors/sqlite-rows.ts over real WAL databases written by another process: the
 * snapshot sees committed WAL content, stays consistent while the writer commits, never makes the writer
 * wait, and leaves the database, `-wal`, `-shm` (bytes and mtimes) and the folder's listing as they were.
 */
import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { databaseIdentity, enterScanCache, leaveScanCache, recordPath, SCAN_CACHE_KIB, splitRecordPath, sqliteDependencies, sqliteUriSupport, withSqliteSnapshot, type SnapshotStrategy } from '../cursors/sqlite.js';
import { readRowsSince, withCodecState, type RowSource } from '../cursors/sqlite-rows.js';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import { startWriter, tempDirPerTest, type Writer } from './helpers/sqlite-db.js';
import { snapshotTree } from './sessions-helpers.js';

let dir: string;
let db: string;
const writers = tempDirPerTest('sf-sqlite-', (d) => {
  dir = d;
  db = join(d, 'agent.db');
});

async function writer(): Promise<Writer> {
  const w = await startWriter(db);
  writers.push(w);
  await w.exec('CREATE TABLE IF NOT EXISTS a (id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE IF NOT EXISTS b (id INTEGER PRIMARY KEY, v TEXT)');
  return w;
}

/** A WAL database whose writer has closed it: only the database file is left. */
async function closedDatabase(rows: number): Promise<void> {
  const w = await writer();
  await w.run('INSERT INTO a (v) VALUES (?)', Array.from({ length: rows }, (_, i) => [`row ${i}`]));
  await w.close();
  writers.pop();
}

const countA = (d: Database.Database): number => (d.prepare('SELECT count(*) AS n FROM a').get() as { n: number }).n;

function strategies(): { list: SnapshotStrategy[]; onStrategy: (s: SnapshotStrategy) => void } {
  const list: SnapshotStrategy[] = [];
  return { list, onStrategy: (s) => list.push(s) };
}

const tempCopies = (): string[] => readdirSync(tmpdir()).filter((n) => n.startsWith('sessionfold-sqlite-'));

describe('a plain read-only open (why cursors/sqlite.ts exists)', () => {
  it('creates -wal and -shm beside a closed WAL database', async () => {
    await closedDatabase(3);
    expect(readdirSync(dir)).toEqual(['agent.db']);
    const plain = new Database(db, { readonly: true, fileMustExist: true });
    expect(countA(plain)).toBe(3);
    plain.close();
    expect(readdirSync(dir).sort()).toEqual(['agent.db', 'agent.db-shm', 'agent.db-wal']);
  });
});

describe('withSqliteSnapshot', () => {
  it('takes URI file names in this process', () => {
    expect(sqliteUriSupport()).toBe(true);
  });

  it('reads a closed WAL database immutably and writes nothing', async () => {
    await closedDatabase(5);
    const before = await snapshotTree(dir);
    const s = strategies();
    expect(withSqliteSnapshot(db, countA, { onStrategy: s.onStrategy })).toBe(5);
    expect(s.list).toEqual(['immutable']);
    expect(await snapshotTree(dir)).toEqual(before);
    expect(readdirSync(dir)).toEqual(['agent.db']);
  });

  it('reads the committed WAL content of a live database through a read-only -shm, writing nothing', async () => {
    const w = await writer();
    await w.run('INSERT INTO a (v) VALUES (?)', [['one'], ['two'], ['three']]);
    const before = await snapshotTree(dir);
    expect([...before.keys()].map((p) => p.slice(dir.length + 1)).sort()).toEqual(['agent.db', 'agent.db-shm', 'agent.db-wal']);
    expect(before.get(`${db}-wal`)?.size).toBeGreaterThan(0);
    const s = strategies();
    for (let i = 0; i < 3; i++) expect(withSqliteSnapshot(db, countA, { onStrategy: s.onStrategy })).toBe(3);
    expect(s.list).toEqual(['shared', 'shared', 'shared']);
    expect(await snapshotTree(dir)).toEqual(before);
    // table and rows are in the -wal only: the database file alone (immutable, bypassing the -wal) lacks them
    const bare = new Database(`file:${db}?mode=ro&immutable=1`, { readonly: true, fileMustExist: true });
    expect(() => countA(bare)).toThrow(/no such table/);
    bare.close();
  });

  it('reads a crash leftover (a -wal without -shm) through a private copy, and removes the copy', async () => {
    const w = await writer();
    await w.run('INSERT INTO a (v) VALUES (?)', [['x'], ['y']]);
    await w.kill();
    writers.pop();
    rmSync(`${db}-shm`);
    const before = await snapshotTree(dir);
    const copies = tempCopies();
    const s = strategies();
    expect(withSqliteSnapshot(db, countA, { onStrategy: s.onStrategy })).toBe(2);
    expect(s.list).toEqual(['copy']);
    expect(await snapshotTree(dir)).toEqual(before);
    expect(tempCopies()).toEqual(copies);
  });

  it('reads the same rows through a copy when asked to, live writer or not', async () => {
    const w = await writer();
    await w.run('INSERT INTO a (v) VALUES (?)', [['x'], ['y'], ['z']]);
    const before = await snapshotTree(dir);
    expect(withSqliteSnapshot(db, countA, { prefer: 'copy' })).toBe(3);
    expect(await snapshotTree(dir)).toEqual(before);
  });

  it('sees one consistent snapshot while a writer commits, and the writer never waits', async () => {
    const w = await writer();
    await w.loop(["INSERT INTO a (v) VALUES ('a')", "INSERT INTO b (v) VALUES ('b')"]);
    const seen: number[] = [];
    const wait = new Int32Array(new SharedArrayBuffer(4));
    for (let i = 0; i < 15; i++) {
      const [na, nb] = withSqliteSnapshot(db, (d) => {
        const na = countA(d);
        Atomics.wait(wait, 0, 0, 20); // hold the read transaction while the writer commits
        return [na, (d.prepare('SELECT count(*) AS n FROM b').get() as { n: number }).n];
      });
      expect(nb).toBe(na);
      seen.push(na);
      await new Promise((r) => setTimeout(r, 5));
    }
    const result = await w.stop();
    expect(result.errors).toBe(0);
    expect(result.commits).toBeGreaterThan(15);
    expect(seen.at(-1)).toBeGreaterThan(seen[0] as number);
    // idle writer: a read now changes nothing
    const before = await snapshotTree(dir);
    expect(withSqliteSnapshot(db, countA)).toBe(result.commits);
    expect(await snapshotTree(dir)).toEqual(before);
  });

  it('opens with the page cache asked for, by every strategy; a scan runs with the small cache and leaves it as it was', async () => {
    const cacheOf = (d: Database.Database): number => d.pragma('cache_size', { simple: true }) as number;
    await closedDatabase(3);
    const asked = { cacheKiB: SCAN_CACHE_KIB };
    expect(withSqliteSnapshot(db, cacheOf)).toBe(-16000); // better-sqlite3's own, unless asked
    expect(withSqliteSnapshot(db, cacheOf, asked)).toBe(-SCAN_CACHE_KIB);
    expect(withSqliteSnapshot(db, cacheOf, { ...asked, prefer: 'copy' })).toBe(-SCAN_CACHE_KIB);
    const w = await writer();
    await w.run('INSERT INTO a (v) VALUES (?)', [['live']]);
    const s = strategies();
    expect(withSqliteSnapshot(db, cacheOf, { ...asked, onStrategy: s.onStrategy })).toBe(-SCAN_CACHE_KIB);
    expect(s.list).toEqual(['shared']);
    const during = withSqliteSnapshot(db, (d) => {
      const before = enterScanCache(d);
      const inside = [cacheOf(d), countA(d)];
      leaveScanCache(d, before);
      return [before, inside, cacheOf(d)];
    });
    expect(during).toEqual([-16000, [-SCAN_CACHE_KIB, 4], -16000]);
  });

  it('throws SESSION_NOT_FOUND for a missing database and creates nothing', () => {
    let error: unknown;
    try {
      withSqliteSnapshot(join(dir, 'missing.db'), countA);
    } catch (e) {
      error = e;
    }
    expect(isSessionfoldError(error, 'SESSION_NOT_FOUND')).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('names the -wal as the parse dependency', () => {
    expect(sqliteDependencies(db)).toEqual([`${db}-wal`]);
  });
});

describe('readRowsSince', () => {
  const sources = (session: string): RowSource[] => [{ name: 'a', table: 'a', columns: 'id, v', where: 'v LIKE ?', params: [`${session}%`] }];
  const read = (from: Parameters<typeof readRowsSince>[2], parser = 'p@1') =>
    withSqliteSnapshot(db, (d) => readRowsSince(d, sources('s1'), from, parser, databaseIdentity(db)!));

  it('reads everything first, then only the rows added, and restarts when a read row changed or went', async () => {
    const w = await writer();
    await w.run('INSERT INTO a (v) VALUES (?)', [['s1 one'], ['s2 other'], ['s1 two']]);
    const first = read(undefined);
    expect(first).toMatchObject({ restarted: true, reason: 'no-cursor' });
    expect(first.rows.a?.map((r) => r.v)).toEqual(['s1 one', 's1 two']);
    expect(first.cursor.watermark).toEqual({ a: 3 });

    const none = read(first.cursor);
    expect(none).toMatchObject({ restarted: false, rows: { a: [] } });

    await w.run('INSERT INTO a (v) VALUES (?)', [['s1 three'], ['s2 more']]);
    const added = read(withCodecState(none.cursor, { kept: 1 }));
    expect(added.restarted).toBe(false);
    expect(added.codecState).toEqual({ kept: 1 });
    expect(added.rows.a?.map((r) => r.v)).toEqual(['s1 three']);

    await w.exec('DELETE FROM a WHERE id = 3');
    expect(read(added.cursor)).toMatchObject({ restarted: true, reason: 'row-deleted' });
    expect(read(added.cursor, 'p@2')).toMatchObject({ restarted: true, reason: 'parser-changed' });
  });

  it('sees a row updated in place through its update column', async () => {
    const w = await writer();
    await w.exec('CREATE TABLE u (id INTEGER PRIMARY KEY, v TEXT, t INTEGER)');
    await w.run('INSERT INTO u (v, t) VALUES (?, ?)', [['one', 10], ['two', 20]]);
    const src: RowSource[] = [{ name: 'u', table: 'u', columns: 'v', updated: 't' }];
    const go = (from?: Parameters<typeof readRowsSince>[2]) => withSqliteSnapshot(db, (d) => readRowsSince(d, src, from, 'p', databaseIdentity(db)!));
    const first = go();
    await w.run('INSERT INTO u (v, t) VALUES (?, ?)', [['three', 30]]);
    const second = go(first.cursor);
    expect(second).toMatchObject({ restarted: false, rows: { u: [{ v: 'three', _updated: 30 }] } });
    await w.exec("UPDATE u SET v = 'one!', t = 40 WHERE id = 1");
    const third = go(second.cursor);
    expect(third).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(third.rows.u?.map((r) => r.v)).toEqual(['one!', 'two', 'three']);
  });

  it('restarts when the database file was replaced', async () => {
    await closedDatabase(2);
    const src: RowSource[] = [{ name: 'a', table: 'a', columns: 'v' }];
    const go = (from?: Parameters<typeof readRowsSince>[2]) => withSqliteSnapshot(db, (d) => readRowsSince(d, src, from, 'p', databaseIdentity(db)!));
    const first = go();
    // a new database at the same path (a new inode)
    const other = join(dir, 'other.db');
    const o = new Database(other);
    o.exec("CREATE TABLE a (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO a (v) VALUES ('new')");
    o.close();
    renameSync(other, db);
    const again = go(first.cursor);
    expect(again).toMatchObject({ restarted: true, reason: 'database-replaced' });
    expect(again.rows.a?.map((r) => r.v)).toEqual(['new']);
  });
});

describe('record paths', () => {
  it('names a session inside a database and splits it back', () => {
    const p = recordPath('/data/opencode.db', 'ses_1/x#y');
    expect(p).toBe('/data/opencode.db#ses_1%2Fx%23y');
    expect(splitRecordPath(p)).toEqual({ db: '/data/opencode.db', key: 'ses_1/x#y' });
    expect(splitRecordPath('/data/opencode.db')).toEqual({ db: '/data/opencode.db', key: undefined });
    expect(splitRecordPath('/data/a#b/opencode.db')).toEqual({ db: '/data/a#b/opencode.db', key: undefined });
  });

  it('keeps a real file whose name holds a #', () => {
    const p = join(dir, 'odd#name.db');
    writeFileSync(p, '');
    expect(existsSync(p)).toBe(true);
    expect(splitRecordPath(p)).toEqual({ db: p, key: undefined });
  });
});
