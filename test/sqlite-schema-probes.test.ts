/**
 * The schema probes every database codec asks before it reads (cursors/sqlite.ts `hasTable`, `tableNames`,
 * `columnsOf`): agents add tables and columns across versions, and a read must see which ones are there.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { columnsOf, hasTable, tableNames } from '../cursors/sqlite.js';

let db: Database.Database;
beforeEach(() => {
  db = new Database(':memory:');
  db.exec(`
    CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT, "task type" TEXT);
    CREATE TABLE "model-usage" (id INTEGER, tokens INTEGER);
    CREATE VIEW recent AS SELECT id FROM session;
    CREATE INDEX session_title ON session (title);
  `);
});
afterEach(() => db.close());

describe('schema probes', () => {
  it('finds tables, and views only when asked to', () => {
    expect(hasTable(db, 'session')).toBe(true);
    expect(hasTable(db, 'model-usage')).toBe(true);
    expect(hasTable(db, 'missing')).toBe(false);
    expect(hasTable(db, 'recent')).toBe(false);
    expect(hasTable(db, 'recent', { views: true })).toBe(true);
    expect(hasTable(db, 'session_title', { views: true })).toBe(false);
  });

  it('lists the tables, not the views or indexes', () => {
    expect(tableNames(db)).toEqual(new Set(['session', 'model-usage']));
  });

  it('lists a table’s columns in order, whatever its name, and none of a missing table', () => {
    expect([...columnsOf(db, 'session')]).toEqual(['id', 'title', 'task type']);
    expect([...columnsOf(db, 'model-usage')]).toEqual(['id', 'tokens']);
    expect(columnsOf(db, 'missing').size).toBe(0);
  });
});
