/**
 * Discovery's listing of an OpenCode database and the event cache's batch read of the sessions it showed changed
 * share one snapshot in a process (codecs/opencode/held.ts): the batch takes each session's row counts from the
 * listing made in it instead of counting every row again. The reads equal each session's read alone and cold
 * reads; a listing's counts are what the batch judges deletions by (an edited one makes it start over); a
 * database written between the listing and the batch is read in a snapshot of the batch's own.
 */
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opencode } from '../codecs/opencode/index.js';
import type { ListingState } from '../codecs/opencode/listing.js';
import { takeHeld } from '../codecs/opencode/held.js';
import { newReadInfo, type ListingMemo, type ReadCursor, type ResumeStart } from '../cursors/protocol/codec.js';
import type { EventKind, SessionfoldEvent } from '../cursors/protocol/events.js';
import { recordPath } from '../cursors/sqlite.js';
import { buildOpencodeDb, exchange, INSERT_MESSAGE, INSERT_PART } from './helpers/opencode-db.js';

const USAGE: EventKind[] = ['session', 'usage'];
const SESSIONS = ['ses_main', 'ses_child'];

let dir: string;
let db: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sf-oc-held-'));
  db = join(dir, 'opencode.db');
  buildOpencodeDb(db, 3);
});
afterEach(() => {
  takeHeld(db)?.snap.close();
  rmSync(dir, { recursive: true, force: true });
});

class Memo implements ListingMemo {
  readonly map = new Map<string, unknown>();
  get(key: string): unknown {
    return this.map.get(key);
  }
  set(key: string, value: unknown): void {
    this.map.set(key, JSON.parse(JSON.stringify(value)));
  }
}

interface Read {
  events: SessionfoldEvent[];
  start: ResumeStart | undefined;
  cursor: ReadCursor | undefined;
  rows: number;
}

function optionsOf(r: Read, from: ReadCursor | undefined) {
  const info = newReadInfo();
  return { info, options: { kinds: USAGE, info, resume: { ...(from && { from }), onStart: (s: ResumeStart) => (r.start = s), onCursor: (u: { cursor: ReadCursor }) => (r.cursor = u.cursor) } } };
}

async function readOne(session: string, from?: ReadCursor): Promise<Read> {
  const r: Read = { events: [], start: undefined, cursor: undefined, rows: 0 };
  const { info, options } = optionsOf(r, from);
  for await (const e of opencode.read(recordPath(db, session), options)) r.events.push(e);
  r.rows = info.lines;
  return r;
}

async function readBatch(froms: readonly (ReadCursor | undefined)[]): Promise<Read[]> {
  const reads: Read[] = SESSIONS.map(() => ({ events: [], start: undefined, cursor: undefined, rows: 0 }));
  const opts = reads.map((r, i) => optionsOf(r, froms[i]));
  const its = await (opencode.readBatch as NonNullable<typeof opencode.readBatch>)(SESSIONS.map((s, i) => ({ file: recordPath(db, s), options: opts[i]?.options ?? {} })));
  for (const [i, it] of its.entries()) for await (const e of it) reads[i]?.events.push(e);
  reads.forEach((r, i) => (r.rows = opts[i]?.info.lines ?? 0));
  return reads;
}

function write(fn: (w: Database.Database) => void): void {
  const w = new Database(db);
  fn(w);
  w.close();
}

function append(session: string, n: number): void {
  write((w) => {
    const x = exchange(session, n);
    for (const r of x.messages) w.prepare(INSERT_MESSAGE).run(...r);
    for (const r of x.parts) w.prepare(INSERT_PART).run(...r);
  });
}

let aged = 0;
/** The database's mtime a minute back, so its listing is stored in the memo. */
const age = () => {
  const t = (Date.now() - 60_000 - 1_000 * ++aged) / 1000;
  utimesSync(db, t, t);
};

const discover = (memo: ListingMemo) => [...opencode.discoverSync!([dir], { listingMemo: memo })];

describe('the listing and the batch read share a snapshot', () => {
  it('a batch after discovery takes its counts from the listing: equal to reads alone and cold reads', async () => {
    const memo = new Memo();
    age();
    discover(memo);
    takeHeld(db)?.snap.close(); // nothing to read yet
    const cold = await readBatch([undefined, undefined]);
    append('ses_main', 4);
    append('ses_child', 4);
    age();
    discover(memo); // brought up to date from the stored listing, in a snapshot kept open
    const warm = await readBatch(cold.map((c) => c.cursor));
    expect(takeHeld(db)).toBeUndefined(); // taken by the batch
    for (const [i, s] of SESSIONS.entries()) {
      expect(warm[i]?.start).toMatchObject({ restarted: false });
      expect(warm[i]).toEqual(await readOne(s, cold[i]?.cursor));
      expect([...(cold[i]?.events ?? []), ...(warm[i]?.events ?? [])]).toEqual((await readOne(s)).events);
    }
  });

  it('the counts are the listing’s: a stored listing edited to count one more message makes that session start over', async () => {
    const memo = new Memo();
    age();
    discover(memo);
    takeHeld(db)?.snap.close();
    const cold = await readBatch([undefined, undefined]);
    const [key, entry] = [...memo.map][0] as [string, { stamp: string; value: ListingState }];
    memo.map.set(key, { ...entry, value: { ...entry.value, sessions: entry.value.sessions.map((s) => (s[0] === 'ses_main' ? [s[0], s[1], s[2], s[3], s[4], s[5] + 1, s[6], s[7]] : s)) } });
    append('ses_child', 4);
    age();
    discover(memo);
    const warm = await readBatch(cold.map((c) => c.cursor));
    expect(warm[0]?.start).toMatchObject({ restarted: true, reason: 'row-deleted' });
    expect(warm[1]?.start).toMatchObject({ restarted: false });
    // without a listing kept, the batch counts for itself: nothing starts over
    const own = await readBatch(cold.map((c) => c.cursor));
    for (const r of own) expect(r.start).toMatchObject({ restarted: false });
  });

  it('a database written between the listing and the batch: the batch reads it in a snapshot of its own', async () => {
    const memo = new Memo();
    age();
    discover(memo);
    takeHeld(db)?.snap.close();
    const cold = await readBatch([undefined, undefined]);
    append('ses_main', 4);
    age();
    discover(memo);
    const held = takeHeld(db);
    expect(held?.snap.current()).toBe(true);
    // put back for the batch, then the database written (closed: checkpointed into the file) before it reads
    if (held !== undefined) (await import('../codecs/opencode/held.js')).holdListing(db, held.snap, held.listing);
    append('ses_child', 4);
    const warm = await readBatch(cold.map((c) => c.cursor));
    for (const [i, s] of SESSIONS.entries()) {
      expect(warm[i]?.start).toMatchObject({ restarted: false });
      expect([...(cold[i]?.events ?? []), ...(warm[i]?.events ?? [])]).toEqual((await readOne(s)).events);
    }
    expect(warm[1]?.events.filter((e) => e.type === 'usage')).toHaveLength(1); // ses_child's new reply: the file as written after the listing
  });
});
