/**
 * The event cache's statements are prepared on first use (src/cache/statements.ts): a store prepares only
 * what its run asks for, each statement once.
 */
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { lazyStatements } from '../src/cache/statements.js';

describe('statements prepared on first use', () => {
  const db = new Database(':memory:');
  afterEach(() => db.exec('DROP TABLE IF EXISTS t'));
  afterAll(() => db.close());

  it('prepares a statement when it is first read, once, and never the ones not read', () => {
    db.exec('CREATE TABLE t (v INTEGER)');
    const made: string[] = [];
    const prepare = (name: string, sql: string) => () => (made.push(name), db.prepare(sql));
    const s = lazyStatements({ insert: prepare('insert', 'INSERT INTO t VALUES (?)'), count: prepare('count', 'SELECT count(*) FROM t'), drop: prepare('drop', 'DELETE FROM t') });
    expect(made).toEqual([]);
    s.insert.run(1);
    s.insert.run(2);
    expect(s.count.pluck().get()).toBe(2);
    expect(s.count).toBe(s.count);
    expect(made).toEqual(['insert', 'count']);
    expect(Object.keys(s)).toEqual(['insert', 'count', 'drop']);
  });

  it('reports a statement that does not prepare when it is used, not before', () => {
    const s = lazyStatements({ missing: () => db.prepare('SELECT v FROM no_such_table') });
    expect(() => s.missing).toThrow(/no such table/);
  });
});
