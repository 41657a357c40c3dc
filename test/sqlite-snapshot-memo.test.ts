/**
 * What a snapshot of an unchanging database computed is kept for the next snapshot of the same file state
 * (cursors/sqlite.ts `snapshotMemo`): a warm run's discovery and its batch read count the same tables. Kept
 * only for an `immutable` snapshot (no `-wal`), named by the file's stat to the nanosecond and its header's
 * change counter, and only once the file held still through the read. A write between two snapshots (a
 * rollback-journal delete that leaves the file's size as it was, a WAL writer's checkpoint) is seen; a live
 * WAL database (`shared`) and a call outside a snapshot compute every time. Nothing is kept of a file
 * written within RACY_MS of the snapshot (git's "racily clean" rule); the tests that keep something run with
 * the clock moved past that (`later`).
 */
import { existsSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { RACY_MS } from '../cursors/listing-memo.js';
import { snapshotMemo, withSqliteSnapshot, type SnapshotStrategy } from '../cursors/sqlite.js';
import { countRows } from '../cursors/sqlite-rows.js';
import { later, startWriter, tempDirPerTest } from './helpers/sqlite-db.js';

let dir: string;
const writers = tempDirPerTest('sf-snapshot-memo-', (d) => (dir = d));

/** A database of `rows` rows in table `t`, in the journal mode given; closed. */
function makeDb(name: string, rows: number, journal: 'delete' | 'wal'): string {
  const path = join(dir, name);
  const db = new Database(path);
  db.pragma(`journal_mode = ${journal}`);
  db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT)');
  const insert = db.prepare('INSERT INTO t (id, v) VALUES (?, ?)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(`r${i}`, 'x'.repeat(100));
  })();
  db.close();
  return path;
}

/** `countRows` of `t` in a snapshot of `path`, with how often the count ran and the strategy taken. */
function counted(path: string, key = 'test'): { n: number; computed: number; strategy: SnapshotStrategy | undefined } {
  let computed = 0;
  let strategy: SnapshotStrategy | undefined;
  const n = withSqliteSnapshot(
    path,
    (db) =>
      snapshotMemo(db, `${key} ${path}`, () => {
        computed++;
        return countRows(db, { table: 't' });
      }),
    { onStrategy: (s) => (strategy = s) },
  );
  return { n, computed, strategy };
}

describe('a snapshot keeps what it computed for the next snapshot of the same file state', () => {
  it('an unchanged file: computed once over several snapshots; countRows of a whole table likewise', () => {
    const path = makeDb('still.db', 50, 'wal');
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(later(() => [counted(path), counted(path), counted(path)])).toEqual([
      { n: 50, computed: 1, strategy: 'immutable' },
      { n: 50, computed: 0, strategy: 'immutable' },
      { n: 50, computed: 0, strategy: 'immutable' },
    ]);
    // countRows of a whole table is memoized under its own key (the counts above were too): on another file,
    // the second snapshot runs no count(*)
    const other = makeDb('still-2.db', 40, 'wal');
    const runs: number[] = [];
    for (let i = 0; i < 2; i++) {
      later(() => withSqliteSnapshot(other, (db) => {
        let n = 0;
        const prepare = db.prepare.bind(db);
        db.prepare = ((sql: string) => (/count\(\*\)/.test(sql) && n++, prepare(sql))) as typeof db.prepare;
        expect(countRows(db, { table: 't' })).toBe(40);
        db.prepare = prepare;
        runs.push(n);
      }));
    }
    expect(runs).toEqual([1, 0]);
  });

  it('a rollback-journal delete that keeps the file size: computed again, the new count', () => {
    const path = makeDb('journal.db', 50, 'delete');
    const size = statSync(path).size;
    expect(later(() => [counted(path).computed, counted(path).computed])).toEqual([1, 0]);
    const w = new Database(path);
    w.prepare("DELETE FROM t WHERE id = 'r7'").run();
    w.close();
    expect(statSync(path).size).toBe(size);
    expect(later(() => [counted(path), counted(path).computed])).toEqual([{ n: 49, computed: 1, strategy: 'immutable' }, 0]);
  });

  it('a file written within RACY_MS of the snapshot: nothing kept, each snapshot computes', () => {
    const path = makeDb('fresh.db', 50, 'wal');
    const st = statSync(path);
    expect(Math.max(st.mtimeMs, st.ctimeMs)).toBeGreaterThan(Date.now() - RACY_MS);
    expect([counted(path), counted(path)]).toEqual([
      { n: 50, computed: 1, strategy: 'immutable' },
      { n: 50, computed: 1, strategy: 'immutable' },
    ]);
    // the same file once its stamp is older than RACY_MS: kept
    expect(later(() => [counted(path).computed, counted(path).computed])).toEqual([1, 0]);
  });

  it('a WAL writer that deleted a row and closed (its checkpoint into the file): computed again', () => {
    // A checkpoint leaves the size and the header's change counter as they were: only mtime and ctime move, and
    // a delete within the clock tick of the count would leave them too. Nothing of the file is kept while it
    // is that fresh, so the count after the delete is new whether the clock ticked between them or not.
    const path = makeDb('checkpoint.db', 50, 'wal');
    const header = (): string => readFileSync(path).subarray(24, 32).toString('hex');
    const { size } = statSync(path);
    const counter = header();
    expect([counted(path).computed, counted(path).computed]).toEqual([1, 1]);
    const w = new Database(path);
    w.prepare("DELETE FROM t WHERE id = 'r8'").run();
    w.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect([statSync(path).size, header()]).toEqual([size, counter]);
    expect(counted(path)).toEqual({ n: 49, computed: 1, strategy: 'immutable' });
    // settled, the count is kept; a checkpoint after that has a later mtime than the kept stamp: computed again
    expect(later(() => [counted(path).computed, counted(path).computed])).toEqual([1, 0]);
    utimesSync(path, new Date(Date.now() - 10 * RACY_MS), new Date(Date.now() - 10 * RACY_MS));
    expect(later(() => [counted(path).computed, counted(path).computed])).toEqual([1, 0]);
    const w2 = new Database(path);
    w2.prepare("DELETE FROM t WHERE id = 'r9'").run();
    w2.close();
    expect([statSync(path).size, header()]).toEqual([size, counter]);
    expect(later(() => counted(path))).toEqual({ n: 48, computed: 1, strategy: 'immutable' });
  });

  it('a live WAL database (shared) and a call outside a snapshot compute every time', async () => {
    const path = makeDb('live.db', 50, 'wal');
    const w = await startWriter(path);
    writers.push(w);
    await w.exec("INSERT INTO t (id, v) VALUES ('new', 'y')");
    expect(counted(path)).toEqual({ n: 51, computed: 1, strategy: 'shared' });
    expect(counted(path)).toEqual({ n: 51, computed: 1, strategy: 'shared' });
    const db = new Database(path, { readonly: true });
    let computed = 0;
    for (let i = 0; i < 2; i++) snapshotMemo(db, 'outside', () => computed++);
    db.close();
    expect(computed).toBe(2);
  });
});
