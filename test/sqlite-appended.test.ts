/**
 * `appendedOnly` (cursors/sqlite-rows.ts): the one rule by which a resumed row read and an OpenCode listing
 * brought up to date tell that a table lost no row since a mark, by its count and the row at the mark's rowid.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendedOnly, readRowsSince, type AppendMark, type RowSource } from '../cursors/sqlite-rows.js';

let db: Database.Database;
const count = (where = ''): number => (db.prepare(`SELECT count(*) AS n FROM t ${where}`).get() as { n: number }).n;
const above = (rowid: number, where = ''): number => (db.prepare(`SELECT count(*) AS n FROM t WHERE rowid > ? ${where}`).get(rowid) as { n: number }).n;
const add = (...ids: string[]): void => ids.forEach((id) => db.prepare('INSERT INTO t (id, part) VALUES (?, ?)').run(id, id.startsWith('q') ? 'q' : 'p'));
const TAILED = { table: 't', tail: 'id' };

beforeEach(() => {
  db = new Database(':memory:');
  db.exec('CREATE TABLE t (id text PRIMARY KEY, part text)');
  add('a', 'b', 'c');
});
afterEach(() => db.close());

describe('appendedOnly', () => {
  const mark: AppendMark = { count: 3, rowid: 3, top: 'c' };

  it('holds for rows only added, and for none', () => {
    expect(appendedOnly(db, TAILED, mark, count(), above(3))).toBe(true);
    add('d', 'e');
    expect(appendedOnly(db, TAILED, mark, count(), above(3))).toBe(true);
    expect(appendedOnly(db, TAILED, { count: 0, rowid: 0, top: null }, count(), above(0))).toBe(true);
  });

  it('fails for a row deleted below the mark, whatever was added', () => {
    db.prepare("DELETE FROM t WHERE id = 'b'").run();
    add('d');
    expect(appendedOnly(db, TAILED, mark, count(), above(3))).toBe(false);
    expect(appendedOnly(db, { table: 't' }, mark, count(), above(3))).toBe(false);
  });

  it('fails for the top row deleted and its rowid taken by a new row, which the count alone misses', () => {
    db.prepare("DELETE FROM t WHERE id = 'c'").run();
    add('x');
    expect(count()).toBe(3);
    expect(above(3)).toBe(0);
    expect(appendedOnly(db, TAILED, mark, count(), above(3))).toBe(false);
    // without a key for the top row (rows updated in place, read by update time): the count alone
    expect(appendedOnly(db, { table: 't' }, mark, count(), above(3))).toBe(true);
  });

  it('reads the top row within the source’s own rows (`where`)', () => {
    add('q1', 'q2');
    const q = { ...TAILED, where: 'part = ?', params: ['q'] };
    const qMark: AppendMark = { count: 2, rowid: 5, top: 'q2' };
    add('q3');
    expect(appendedOnly(db, q, qMark, count("WHERE part = 'q'"), above(5, "AND part = 'q'"))).toBe(true);
    // rowid 3 holds 'c', of another part: within the source there is no row there, so 'c' is not its top
    expect(appendedOnly(db, q, { count: 0, rowid: 3, top: 'c' }, count("WHERE part = 'q'"), above(3, "AND part = 'q'"))).toBe(false);
    expect(appendedOnly(db, q, { count: 0, rowid: 3, top: null }, count("WHERE part = 'q'"), above(3, "AND part = 'q'"))).toBe(true);
  });
});

describe('a resumed read whose top row went', () => {
  // rows read by rowid alone, rewritten in place until they settle (`open`): a changed row comes back by key
  const OPEN: RowSource = { name: 't', table: 't', columns: 'id', tail: 'id', open: { key: 'id', updated: 'upd', settled: 'done' } };
  const ID = { dev: 1, ino: 1 };

  it('starts over for the row deleted before it looks at rows changed or added (`row-deleted`)', () => {
    db.exec('ALTER TABLE t ADD COLUMN upd integer DEFAULT 0; ALTER TABLE t ADD COLUMN done integer DEFAULT 0');
    const first = readRowsSince(db, [OPEN], undefined, 'p', ID);
    expect(first.rows.t?.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    db.prepare("UPDATE t SET upd = 1 WHERE id = 'b'").run();
    db.prepare("DELETE FROM t WHERE id = 'c'").run();
    add('d');
    const next = readRowsSince(db, [OPEN], first.cursor, 'p', ID);
    expect(next.restarted).toBe(true);
    expect(next.reason).toBe('row-deleted');
    expect(next.rows.t?.map((r) => r.id)).toEqual(['a', 'b', 'd']);
    // the row changed alone, the top row still there: the changed row is what starts it over
    const again = readRowsSince(db, [OPEN], next.cursor, 'p', ID);
    db.prepare("UPDATE t SET upd = 2 WHERE id = 'a'").run();
    expect(readRowsSince(db, [OPEN], again.cursor, 'p', ID).reason).toBe('row-changed');
  });
});
