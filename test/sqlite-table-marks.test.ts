/**
 * A batch read of a database's partitions (cursors/sqlite-batch.ts `readPartitionsSince`) that walks a table
 * keeps the table's marks (`TableMark`: its count, highest rowid and the id there) in each cursor, and the
 * next batch takes the counts of the partitions under a mark that still holds from their cursors instead of
 * counting every partition (the grouped `count(*)` over the `session_id` index). The rows, restarts and
 * counts are those of each partition read alone; a row deleted below the marks, or the row at the highest
 * rowid deleted (a new row may then take its rowid), sends the batch back to counting, and the partition
 * that lost a row starts over. And OpenCode's usage reads through the batch, round after round, equal cold
 * reads. A message deleted (its parts with it) and a whole session deleted send the batch back to counting
 * too. Real databases with OpenCode's tables.
 *
 * Where the trust ends: a mark takes on trust that an id once deleted never comes back. The last two parts
 * deleted, a new part inserted (into the rowid below the mark) and the last part's id inserted again (at the
 * mark) leave the count and the id at the mark as they were: the batch trusts that session's count and misses
 * the new part, which its read alone sees.
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { opencode } from '../codecs/opencode/index.js';
import { getParserString, type ReadCursor, type ResumeStart, type RowCursor } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { databaseIdentity, recordPath, withSqliteSnapshot } from '../cursors/sqlite.js';
import { readPartitionsSince, type PartitionRead } from '../cursors/sqlite-batch.js';
import { partitionSources, readRowsSince, type RowReadResult } from '../cursors/sqlite-rows.js';
import { buildSessionsDb, INSERT_PART, insertExchange, STEP_SOURCES, writeDb } from './helpers/opencode-db.js';
import { asAlone } from './helpers/row-cursor.js';
import { tempDirPerTest } from './helpers/sqlite-db.js';

let ocDb: string;
const SESSIONS = ['ses_main', 'ses_child', 'ses_3', 'ses_4', 'ses_5', 'ses_6'];
tempDirPerTest('sf-table-marks-', (d) => {
  ocDb = join(d, 'opencode', 'opencode.db');
  buildSessionsDb(ocDb, SESSIONS);
});

const SOURCES = STEP_SOURCES;

interface Batch {
  results: RowReadResult[];
  alone: RowReadResult[];
  /** The SQL the batch prepared. */
  sql: string[];
}


const tableMarkOf = (c: RowCursor | undefined, source: string): unknown => (c?.state as { sources: Record<string, { table?: unknown }> }).sources[source]?.table;

/** One batch of every session from `cursors` (walking every table), and each session read alone from the same cursors, in one snapshot. */
function batch(cursors: ReadonlyMap<string, RowCursor | undefined>): Batch {
  return batchOf(SESSIONS.map((key) => ({ key, from: cursors.get(key) })));
}

/** One batch of `reads` (walking every table), and each read alone from the same cursor, in one snapshot. */
function batchOf(reads: readonly PartitionRead[]): Batch {
  const parser = getParserString(opencode);
  const identity = databaseIdentity(ocDb) as NonNullable<ReturnType<typeof databaseIdentity>>;
  return withSqliteSnapshot(ocDb, (db: Database.Database) => {
    const sql: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((text: string) => (sql.push(text), prepare(text))) as typeof db.prepare;
    const results = readPartitionsSince(db, SOURCES, reads, parser, identity, { walkShare: 0 });
    db.prepare = prepare;
    const alone = reads.map((r) => readRowsSince(db, partitionSources(SOURCES, r.key), r.from, parser, identity));
    return { results, alone, sql };
  });
}

const grouped = (b: Batch): number => b.sql.filter((s) => /GROUP BY session_id/.test(s)).length;

/** The batch's reads equal the reads alone but for the marks; every cursor of it carries the table marks. */
function expectAsAlone(b: Batch): void {
  expect(b.results.map(asAlone)).toEqual(b.alone);
  for (const r of b.results) for (const s of ['message', 'part']) expect(tableMarkOf(r.cursor, s)).toMatchObject({ n: expect.any(Number), r: expect.any(Number), t: expect.any(String) });
}

/** Cursors kept from round to round: `take` keeps a batch's. */
function rounds(): { cursors: Map<string, RowCursor | undefined>; take: (b: Batch) => void } {
  const cursors = new Map<string, RowCursor | undefined>();
  return { cursors, take: (b) => SESSIONS.forEach((s, i) => cursors.set(s, b.results[i]?.cursor)) };
}

/** Cursors that carry table marks: a batch from none, an exchange added to ses_3, a batch from those. */
function marked(): ReturnType<typeof rounds> {
  const r = rounds();
  r.take(batch(r.cursors));
  writeDb(ocDb, (d) => insertExchange(d, 'ses_3', 30));
  r.take(batch(r.cursors));
  return r;
}

/**
 * A round after the row `id` of `table` (of `session`, or the session itself) is deleted and an exchange `n`
 * is added to `other`, from `r`'s cursors: the batch reads as alone, counts the partitions again, and `session`
 * alone starts over, for the row deleted; `r` keeps the batch's cursors.
 */
function deletedRound(r: ReturnType<typeof rounds>, deleted: { table: 'part' | 'message' | 'session'; id: string; session: string }, other: string, n: number): Batch {
  writeDb(ocDb, (d) => {
    d.prepare(`DELETE FROM ${deleted.table} WHERE id = ?`).run(deleted.id);
    insertExchange(d, other, n);
  });
  const b = batch(r.cursors);
  expectAsAlone(b);
  expect(grouped(b)).toBeGreaterThan(0);
  expect(b.results.map((x) => [x.restarted, x.reason])).toEqual(SESSIONS.map((s) => (s === deleted.session ? [true, 'row-deleted'] : [false, undefined])));
  r.take(b);
  return b;
}

describe('a batch takes the counts of partitions under a table mark that holds', () => {
  it('counts no partition after appends; counts again after a row deleted below the marks or at the highest rowid', () => {
    const r = rounds();
    const { cursors, take } = r;
    // no cursors: every session read whole, no mark taken (nothing was walked)
    let b = batch(cursors);
    expect(b.results.map((r) => r.reason)).toEqual(SESSIONS.map(() => 'no-cursor'));
    expect(b.results.map(asAlone)).toEqual(b.alone);
    take(b);
    // resumed, walked: counted (no marks yet), and the marks taken
    writeDb(ocDb, (d) => insertExchange(d, 'ses_3', 30));
    b = batch(cursors);
    expectAsAlone(b);
    expect(grouped(b)).toBe(2);
    expect(b.results.every((r) => !r.restarted)).toBe(true);
    take(b);

    // appends into most sessions: no count of any partition, the same rows as alone
    writeDb(ocDb, (d) => {
      for (const s of SESSIONS.slice(0, 4)) insertExchange(d, s, 40);
    });
    b = batch(cursors);
    expectAsAlone(b);
    expect(grouped(b)).toBe(0);
    expect(b.results.map((r) => [r.restarted, r.rows.message?.length, r.rows.part?.length])).toEqual(SESSIONS.map((_, i) => (i < 4 ? [false, 2, 6] : [false, 0, 0])));
    take(b);

    // a part of ses_5 deleted (below every mark), one exchange added elsewhere: counted, ses_5 starts over
    deletedRound(r, { table: 'part', id: 'prt_msg_ses_5_0001a_1', session: 'ses_5' }, 'ses_6', 41);

    // the table's last part deleted and a new one added: it takes the freed rowid, which only the id at the
    // mark tells apart; counted, and the session that lost its part starts over
    const [lastPart, owner] = withSqliteSnapshot(ocDb, (d) => d.prepare('SELECT id, session_id FROM part ORDER BY rowid DESC LIMIT 1').raw().get() as [string, string]);
    const lastRowid = withSqliteSnapshot(ocDb, (d) => (d.prepare('SELECT max(rowid) AS r FROM part').get() as { r: number }).r);
    writeDb(ocDb, (d) => {
      d.prepare('DELETE FROM part WHERE id = ?').run(lastPart);
      d.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run('prt_late', 'msg_ses_4_0040b', 'ses_4', 1, 1, '{"type":"text","text":"late"}');
    });
    expect(withSqliteSnapshot(ocDb, (d) => (d.prepare("SELECT rowid AS r FROM part WHERE id = 'prt_late'").get() as { r: number }).r)).toBe(lastRowid);
    b = batch(cursors);
    expectAsAlone(b);
    expect(grouped(b)).toBeGreaterThan(0);
    expect(b.results[SESSIONS.indexOf(owner)]?.reason).toBe('row-deleted');
    take(b);

    // a session read alone meanwhile has no table mark: it is counted, the others are not
    const parser = getParserString(opencode);
    const identity = databaseIdentity(ocDb) as NonNullable<ReturnType<typeof databaseIdentity>>;
    writeDb(ocDb, (d) => insertExchange(d, 'ses_main', 50));
    cursors.set('ses_main', withSqliteSnapshot(ocDb, (d) => readRowsSince(d, partitionSources(SOURCES, 'ses_main'), cursors.get('ses_main'), parser, identity).cursor));
    expect(tableMarkOf(cursors.get('ses_main'), 'part')).toBeUndefined();
    writeDb(ocDb, (d) => insertExchange(d, 'ses_child', 50));
    b = batch(cursors);
    expectAsAlone(b);
    expect(b.results.every((r) => !r.restarted)).toBe(true);
  });

  it('counts again after a message deleted, and after a whole session deleted', () => {
    const r = marked();
    // a message of ses_4 deleted (its parts with it, by OpenCode's foreign key), appends elsewhere
    deletedRound(r, { table: 'message', id: 'msg_ses_4_0002b', session: 'ses_4' }, 'ses_3', 31);
    expect(withSqliteSnapshot(ocDb, (d) => d.prepare("SELECT count(*) AS n FROM part WHERE message_id = 'msg_ses_4_0002b'").get())).toEqual({ n: 0 });
    // the marks hold again after appends alone
    writeDb(ocDb, (d) => insertExchange(d, 'ses_3', 32));
    const b = batch(r.cursors);
    expectAsAlone(b);
    expect(grouped(b)).toBe(0);
    r.take(b);
    // ses_5 deleted whole (its messages and parts with it): counted, ses_5 starts over with no rows
    const gone = deletedRound(r, { table: 'session', id: 'ses_5', session: 'ses_5' }, 'ses_6', 33).results[SESSIONS.indexOf('ses_5')] as RowReadResult;
    expect([gone.rows.message, gone.rows.part]).toEqual([[], []]);
  });

  it('takes on trust that a deleted id never comes back: the last rows deleted and the last id inserted again', () => {
    const { cursors, take } = rounds();
    take(batch(cursors));
    // the marks taken with ses_5 owning part r-1 and ses_6 owning part r (prt_q)
    const part = (d: Database.Database, id: string, session: string) =>
      d.prepare(INSERT_PART).run(id, `msg_${session}_0001b`, session, 1, 1, '{"type":"text","text":"q"}');
    writeDb(ocDb, (d) => {
      part(d, 'prt_a', 'ses_5');
      part(d, 'prt_q', 'ses_6');
    });
    take(batch(cursors));
    const partsOf = (session: string) => withSqliteSnapshot(ocDb, (d) => (d.prepare('SELECT count(*) AS n FROM part WHERE session_id = ?').get(session) as { n: number }).n);
    const before = partsOf('ses_6');
    // both deleted; prt_x for ses_6 takes rowid r-1, prt_q comes back at r
    writeDb(ocDb, (d) => {
      d.prepare("DELETE FROM part WHERE id IN ('prt_a', 'prt_q')").run();
      part(d, 'prt_x', 'ses_6');
      part(d, 'prt_q', 'ses_6');
    });
    expect(partsOf('ses_6')).toBe(before + 1);
    const b = batch(cursors);
    const inBatch = b.results[SESSIONS.indexOf('ses_6')] as RowReadResult;
    const alone = b.alone[SESSIONS.indexOf('ses_6')] as RowReadResult;
    // read alone, ses_6's own count sees prt_x and starts over; ses_5 lost its row at its watermark in both
    expect(alone.reason).toBe('row-deleted');
    expect(b.results[SESSIONS.indexOf('ses_5')]?.reason).toBe('row-deleted');
    // in the batch the table mark holds (same count, prt_q at r): ses_6 is trusted, its count stays, prt_x unseen
    expect(grouped(b)).toBe(0);
    expect(inBatch.restarted).toBe(false);
    expect(inBatch.rows.part).toEqual([]);
    expect((inBatch.cursor.state as { sources: Record<string, { count: number }> }).sources.part?.count).toBe(before);
  });

  it('reads a session twice in one batch, from different cursors, each as alone', () => {
    const { cursors, take } = marked();
    const older = cursors.get('ses_3');
    // ses_3 loses a part and gains an exchange: its newer cursor restarts here and holds the table marks after
    writeDb(ocDb, (d) => {
      d.prepare('DELETE FROM part WHERE id = ?').run('prt_msg_ses_3_0001a_1');
      insertExchange(d, 'ses_3', 31);
    });
    let b = batch(cursors);
    expect(b.results[SESSIONS.indexOf('ses_3')]?.reason).toBe('row-deleted');
    take(b);
    writeDb(ocDb, (d) => insertExchange(d, 'ses_3', 32));
    // the older cursor first, the newer second, and the other way round: neither read takes the other's marks
    for (const twice of [
      [older, cursors.get('ses_3')],
      [cursors.get('ses_3'), older],
    ]) {
      b = batchOf([...SESSIONS.map((key) => ({ key, from: cursors.get(key) })), ...twice.map((from) => ({ key: 'ses_3', from }))]);
      expectAsAlone(b);
      const [first, second] = b.results.slice(SESSIONS.length);
      expect([first?.reason, second?.reason]).toEqual(twice[0] === older ? ['row-deleted', undefined] : [undefined, 'row-deleted']);
    }
  });

  it('OpenCode usage reads through batches equal cold reads, round after round, a deletion among them', async () => {
    const cursors = new Map<string, ReadCursor | undefined>();
    const stored = new Map<string, SessionfoldEvent[]>();
    const kinds: SessionfoldEvent['type'][] = ['session', 'usage'];
    const cold = async (s: string): Promise<SessionfoldEvent[]> => {
      const out: SessionfoldEvent[] = [];
      for await (const e of opencode.read(recordPath(ocDb, s), { kinds })) out.push(e);
      return out;
    };
    const round = async (): Promise<ResumeStart[]> => {
      const starts: ResumeStart[] = [];
      const events = SESSIONS.map((): SessionfoldEvent[] => []);
      const its = await (opencode.readBatch as NonNullable<typeof opencode.readBatch>)(
        SESSIONS.map((s, i) => ({
          file: recordPath(ocDb, s),
          options: { kinds, resume: { from: cursors.get(s), onStart: (st: ResumeStart) => (starts[i] = st), onCursor: (u: { cursor: ReadCursor }) => cursors.set(s, u.cursor) } },
        })),
      );
      for (const [i, it] of its.entries()) for await (const e of it) events[i]?.push(e);
      for (const [i, s] of SESSIONS.entries()) {
        const start = starts[i] as ResumeStart;
        const kept = [...(stored.get(s) ?? [])];
        for (let k = kept.length - 1, n = start.replaced.usage ?? 0; k >= 0 && n > 0; k--) if (kept[k]?.type === 'usage' && n-- > 0) kept.splice(k, 1);
        stored.set(s, start.restarted ? (events[i] as SessionfoldEvent[]) : [...kept, ...(events[i] as SessionfoldEvent[])]);
        expect(stored.get(s)).toEqual(await cold(s));
      }
      return starts;
    };
    await round();
    for (let n = 60; n < 64; n++) {
      writeDb(ocDb, (d) => {
        for (const s of SESSIONS) insertExchange(d, s, n);
      });
      expect((await round()).every((s) => !s.restarted)).toBe(true);
    }
    expect(SESSIONS.every((s) => tableMarkOf(cursors.get(s) as RowCursor, 'part') !== undefined)).toBe(true);
    writeDb(ocDb, (d) => {
      d.prepare('DELETE FROM part WHERE id = ?').run('prt_msg_ses_4_0060b_4');
      for (const s of SESSIONS) insertExchange(d, s, 70);
    });
    const starts = await round();
    expect(starts.map((s) => s.restarted)).toEqual(SESSIONS.map((s) => s === 'ses_4'));
  });
});
