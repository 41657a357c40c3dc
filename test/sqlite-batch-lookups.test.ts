/**
 * The per-partition lookups of a batch read (cursors/sqlite-batch.ts `readPartitionsSince`) taken together:
 * the row at each resumed partition's watermark is checked in one lookup of the table (`tailsAt`), not one
 * query per partition, and each partition's new highest row names itself from the rows read (sqlite-rows.ts
 * `tailInRows`), not from another query. The rows, restarts and cursors stay those of each partition read
 * alone; a watermark row that left its partition sends that partition back to its own check, and it starts
 * over. Real databases with OpenCode's tables.
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { opencode } from '../codecs/opencode/index.js';
import { getParserString, type RowCursor } from '../cursors/protocol/codec.js';
import { databaseIdentity, withSqliteSnapshot } from '../cursors/sqlite.js';
import { readPartitionsSince, type PartitionRead } from '../cursors/sqlite-batch.js';
import { partitionSources, readRowsSince, type RowReadResult } from '../cursors/sqlite-rows.js';
import { buildSessionsDb, insertExchange, STEP_SOURCES, writeDb } from './helpers/opencode-db.js';
import { asAlone } from './helpers/row-cursor.js';
import { tempDirPerTest } from './helpers/sqlite-db.js';

let ocDb: string;
const SESSIONS = ['ses_main', 'ses_child', 'ses_3', 'ses_4', 'ses_5'];
tempDirPerTest('sf-batch-lookups-', (d) => {
  ocDb = join(d, 'opencode', 'opencode.db');
  buildSessionsDb(ocDb, SESSIONS);
});

interface Batch {
  results: RowReadResult[];
  alone: RowReadResult[];
  /** Every statement the batch ran, by its SQL, as often as it ran. */
  runs: string[];
}

/** One batch of every session from `cursors` (walking every table, `walkShare` 0) with its statements counted, and each session read alone. */
function batch(cursors: ReadonlyMap<string, RowCursor | undefined>, walkShare = 0): Batch {
  const reads: PartitionRead[] = SESSIONS.map((key) => ({ key, from: cursors.get(key) }));
  const parser = getParserString(opencode);
  const identity = databaseIdentity(ocDb) as NonNullable<ReturnType<typeof databaseIdentity>>;
  return withSqliteSnapshot(ocDb, (db: Database.Database) => {
    const runs: string[] = [];
    // statements are kept per connection (sqlite-rows.ts `stmt`): the reads alone below reuse some, uncounted
    let counting = true;
    const prepare = db.prepare.bind(db);
    db.prepare = ((text: string) => {
      const st = prepare(text);
      for (const m of ['get', 'all', 'run', 'iterate'] as const) {
        const f = st[m].bind(st) as (...a: unknown[]) => unknown;
        (st as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => (counting && runs.push(text), f(...a));
      }
      return st;
    }) as typeof db.prepare;
    const results = readPartitionsSince(db, STEP_SOURCES, reads, parser, identity, { walkShare });
    db.prepare = prepare;
    counting = false;
    const alone = reads.map((r) => readRowsSince(db, partitionSources(STEP_SOURCES, r.key), r.from, parser, identity));
    return { results, alone, runs };
  });
}

/** The queries that ask for one partition's row at one rowid (`topOf`). */
const topQueries = (b: Batch): number => b.runs.filter((s) => /\(session_id = \?\) AND \(rowid = \?\)/.test(s)).length;
const lookups = (b: Batch): number => b.runs.filter((s) => /AS p, id AS t FROM/.test(s)).length;

function cursorsOf(b: Batch): Map<string, RowCursor | undefined> {
  return new Map(SESSIONS.map((s, i) => [s, b.results[i]?.cursor]));
}

describe('a batch checks and takes its partitions’ watermark rows together', () => {
  for (const walkShare of [0, Number.POSITIVE_INFINITY]) {
    it(`asks no partition for its row at a watermark, old or new (${walkShare === 0 ? 'walked' : 'by each index'})`, () => {
      const first = batch(new Map());
      expect(first.results.map((r) => r.reason)).toEqual(SESSIONS.map(() => 'no-cursor'));
      // a cold read takes its new top from its rows too
      expect(topQueries(first)).toBe(0);
      writeDb(ocDb, (d) => {
        for (const s of SESSIONS.slice(0, 4)) insertExchange(d, s, 40);
      });
      const b = batch(cursorsOf(first), walkShare);
      expect(b.results.map(asAlone)).toEqual(b.alone);
      expect(b.results.every((r) => !r.restarted)).toBe(true);
      expect(b.results.map((r) => r.rows.part?.length)).toEqual([6, 6, 6, 6, 0]);
      // one lookup per table for the old watermarks, no query per partition for the old or the new
      expect(lookups(b)).toBe(2);
      expect(topQueries(b)).toBe(0);
    });
  }

  it('a watermark row moved to another partition: that partition asks on its own and starts over, as alone', () => {
    const first = batch(new Map());
    const [top] = withSqliteSnapshot(ocDb, (d) => d.prepare("SELECT rowid FROM part WHERE session_id = 'ses_3' ORDER BY rowid DESC LIMIT 1").raw().get() as [number]);
    writeDb(ocDb, (d) => {
      d.prepare("UPDATE part SET session_id = 'ses_4' WHERE rowid = ?").run(top);
      insertExchange(d, 'ses_5', 41);
    });
    const b = batch(cursorsOf(first));
    expect(b.results.map(asAlone)).toEqual(b.alone);
    expect(b.results[SESSIONS.indexOf('ses_3')]?.reason).toBe('row-deleted');
    expect(b.results[SESSIONS.indexOf('ses_5')]?.restarted).toBe(false);
    // ses_3's own check of its row, and no other partition's
    expect(topQueries(b)).toBe(1);
  });

  it('a watermark row deleted: the lookup finds none there, and that partition starts over, as alone', () => {
    const first = batch(new Map());
    writeDb(ocDb, (d) => {
      d.prepare("DELETE FROM part WHERE rowid = (SELECT max(rowid) FROM part WHERE session_id = 'ses_4')").run();
      insertExchange(d, 'ses_main', 42);
    });
    const b = batch(cursorsOf(first));
    expect(b.results.map(asAlone)).toEqual(b.alone);
    expect(b.results[SESSIONS.indexOf('ses_4')]?.reason).toBe('row-deleted');
    expect(b.results.filter((r) => r.restarted)).toHaveLength(1);
  });
});

describe('a batch that walks sets the small page cache once', () => {
  it('one read and one set of cache_size before the first walk, one restore after the last, the same rows; whole rows with the own cache', () => {
    const first = batch(new Map());
    writeDb(ocDb, (d) => {
      for (const s of SESSIONS) insertExchange(d, s, 50);
    });
    const parser = getParserString(opencode);
    const identity = databaseIdentity(ocDb) as NonNullable<ReturnType<typeof databaseIdentity>>;
    const reads: PartitionRead[] = SESSIONS.map((key) => ({ key, from: cursorsOf(first).get(key) }));
    const { pragmas, results, after, alone } = withSqliteSnapshot(ocDb, (db: Database.Database) => {
      const pragmas: string[] = [];
      const pragma = db.pragma.bind(db);
      db.pragma = ((text: string, o?: Database.PragmaOptions) => (pragmas.push(text), pragma(text, o))) as typeof db.pragma;
      // the cache each walk's whole rows by rowid are read with
      const prepare = db.prepare.bind(db);
      db.prepare = ((sql: string) => (/WHERE rowid IN \(SELECT value FROM json_each\(\?\)\) ORDER BY rowid/.test(sql) && pragmas.push(`rows at ${String(pragma('cache_size', { simple: true }))}`), prepare(sql))) as typeof db.prepare;
      const results = readPartitionsSince(db, STEP_SOURCES, reads, parser, identity, { walkShare: 0 });
      db.pragma = pragma;
      db.prepare = prepare;
      const after = pragma('cache_size', { simple: true });
      return { pragmas, results, after, alone: reads.map((r) => readRowsSince(db, partitionSources(STEP_SOURCES, r.key), r.from, parser, identity)) };
    });
    // both tables walked: the cache set once around both walks (read, set, restore), and each walk's whole rows
    // read with the connection's own cache (restore, then read and set again)
    const own = ['cache_size = -16000', 'rows at -16000', 'cache_size', 'cache_size = -2000'];
    expect(pragmas).toEqual(['cache_size', 'cache_size = -2000', ...own, ...own, 'cache_size = -16000']);
    expect(after).toBe(-16000);
    expect(results.map(asAlone)).toEqual(alone);
    expect(results.every((r) => !r.restarted && r.rows.part?.length === 6)).toBe(true);
  });
});
