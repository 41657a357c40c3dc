/**
 * A whole-database read kept per database (cursors/sqlite-events.ts `databaseEvents`): sessions of two Crush
 * project databases (real schema and rows, test/helpers/crush-db.ts) taken in turn read each database once,
 * not once per turn; a database changed since is read again; at most KEPT_PER_AGENT databases of an agent
 * are kept, the least recently asked for let go first. The read counts itself.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { databaseEvents, KEPT_PER_AGENT, type DatabaseEvents } from '../cursors/sqlite-events.js';
import type { SqliteDatabase } from '../cursors/sqlite.js';
import { buildCrushDb } from './helpers/crush-db.js';
import { tempDirPerTest } from './helpers/sqlite-db.js';

let dir = '';
tempDirPerTest('sf-db-events-', (d) => (dir = d));

let reads: string[] = [];
/** Every session row of the database as a session with no events, the read counted under `db`. */
const readOf = (db: string) => (d: SqliteDatabase): DatabaseEvents => {
  reads.push(db);
  const ids = (d.prepare('SELECT id FROM sessions ORDER BY id').all() as { id: string }[]).map((r) => r.id);
  return { sessions: new Map(ids.map((id) => [id, { events: [], skipped: 0 }])), skipped: 0 };
};
const sessionsOf = (db: string): string[] => {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare('SELECT id FROM sessions ORDER BY id').all() as { id: string }[]).map((r) => r.id);
  } finally {
    d.close();
  }
};
/** One more session row, as Crush inserts one (a commit that moves the database's state). */
function addSession(db: string, id: string): void {
  const d = new Database(db);
  try {
    const row = d.prepare('SELECT * FROM sessions LIMIT 1').get() as Record<string, unknown>;
    const cols = Object.keys(row);
    d.prepare(`INSERT INTO sessions (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...cols.map((c) => (c === 'id' ? id : row[c])));
  } finally {
    d.close();
  }
}

beforeEach(() => {
  reads = [];
});

describe('databaseEvents keeps one read per database', () => {
  it('two databases of one agent taken in turn are each read once', () => {
    const a = buildCrushDb(join(dir, 'a'));
    const b = buildCrushDb(join(dir, 'b'));
    const ids = sessionsOf(a);
    expect(ids.length).toBeGreaterThan(1);
    // a's first session, b's first, a's second, b's second: a scan's order over two projects
    for (const id of ids) for (const db of [a, b]) expect(databaseEvents('probe-turns', db, 'v', id, readOf(db))).toEqual({ events: [], skipped: 0 });
    expect(reads).toEqual([a, b]);
  });

  it('a database changed since its read is read again', () => {
    const a = buildCrushDb(join(dir, 'a'));
    const [first, second] = sessionsOf(a) as [string, string];
    databaseEvents('probe-change', a, 'v', first, readOf(a));
    addSession(a, 'added-session');
    databaseEvents('probe-change', a, 'v', second, readOf(a));
    expect(reads).toEqual([a, a]);
  });

  it(`keeps at most ${KEPT_PER_AGENT} databases of an agent, the least recently asked for let go`, () => {
    const dbs = Array.from({ length: KEPT_PER_AGENT + 1 }, (_, i) => buildCrushDb(join(dir, `p${i}`)));
    const first = (sessionsOf(dbs[0] as string)[0]) as string;
    for (const db of dbs) databaseEvents('probe-bound', db, 'v', first, readOf(db));
    expect(reads).toEqual(dbs);
    // the last KEPT_PER_AGENT are still kept; the first, the least recently asked for, is read again
    for (const db of dbs.slice(1)) databaseEvents('probe-bound', db, 'v', first, readOf(db));
    expect(reads).toEqual(dbs);
    databaseEvents('probe-bound', dbs[0] as string, 'v', first, readOf(dbs[0] as string));
    expect(reads).toEqual([...dbs, dbs[0]]);
  });
});
