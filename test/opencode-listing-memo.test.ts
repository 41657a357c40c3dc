/**
 * OpenCode's database listing kept between runs (cursors/listing-memo.ts, src/cache/listing-memo.ts): while
 * the database and its `-wal` are unchanged a listing is taken from the memo and equals a fresh one; every
 * kind of change (rows added, updated, deleted; a new session; a vacuum; a database replaced; a `-wal`
 * appearing) lists afresh; a database written in the last two seconds is stored only to be brought up to date; through the CLI the
 * memo sits in the cache folder, a `--no-cache` run neither reads nor writes it, the answers equal
 * `--no-cache`'s, and the agent's folder is untouched. A database the agent keeps open is taken back too: its
 * `-wal`'s ctime, which every read as root moves, is not part of its stamp. Real WAL databases
 * (test/helpers/opencode-db.ts).
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ListingMemo, SessionFile } from '../cursors/protocol/codec.js';
import { kilo } from '../codecs/kilo/index.js';
import { discoverOpencode, OPENCODE_FLAVOR } from '../codecs/opencode/paths.js';
import { fileId, fullListing, nextListing, sessionsOf, type ListingState } from '../codecs/opencode/listing.js';
import { walStamp } from '../cursors/listing-memo.js';
import { withSqliteSnapshot } from '../cursors/sqlite.js';
import { listingMemoFile, openListingMemo } from '../src/cache/listing-memo.js';
import { getCachePath } from '../src/cache/paths.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { buildOpencodeDb, INSERT_MESSAGE, INSERT_SESSION, insertExchange, sessionRow, writeDb } from './helpers/opencode-db.js';
import { snapshotTree } from './sessions-helpers.js';

let dir: string;
let db: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sf-oc-listing-memo-'));
  db = join(dir, 'opencode.db');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A memo in memory that counts what is asked of it. */
class CountingMemo implements ListingMemo {
  readonly map = new Map<string, unknown>();
  sets = 0;
  get(key: string): unknown {
    return this.map.get(key);
  }
  set(key: string, value: unknown): void {
    this.sets++;
    this.map.set(key, JSON.parse(JSON.stringify(value)));
  }
}

let aged = 0;
/** Set the database's files' mtimes a minute back (each time a different instant), as if written long ago. */
function age(files = [db, `${db}-wal`]): void {
  const t = (Date.now() - 60_000 - 1_000 * ++aged) / 1000;
  for (const f of files) if (existsSync(f)) utimesSync(f, t, t);
}

const listed = (memo?: ListingMemo): SessionFile[] => [...discoverOpencode([dir], OPENCODE_FLAVOR, memo === undefined ? undefined : { listingMemo: memo })];

const write = (fn: (d: Database.Database) => void): void => writeDb(db, fn);

describe('OpenCode listing memo', () => {
  it('takes an unchanged database’s listing from the memo, equal to a fresh one', () => {
    buildOpencodeDb(db, 3);
    age();
    const memo = new CountingMemo();
    const fresh = listed();
    expect(fresh.map((f) => f.sessionId).sort()).toEqual(['ses_child', 'ses_main']);
    expect(listed(memo)).toEqual(fresh);
    expect(memo.sets).toBe(1);
    expect(listed(memo)).toEqual(fresh);
    expect(listed(memo)).toEqual(listed());
    expect(memo.sets).toBe(1);
    // what a hit yields is the memo's: an edited listing shows (so no pass over the rows made it)
    const [key, entry] = [...memo.map][0] as [string, { stamp: string; value: ListingState }];
    memo.map.set(key, { ...entry, value: { ...entry.value, sessions: entry.value.sessions.filter((s) => s[0] !== 'ses_child') } });
    expect(listed(memo).map((f) => f.sessionId)).toEqual(['ses_main']);
    // a stored value of another shape is not taken
    memo.map.set(key, { ...entry, value: [{ id: 5 }] });
    expect(listed(memo)).toEqual(fresh);
    expect(memo.sets).toBe(2);
  });

  it('lists afresh after every kind of change', () => {
    buildOpencodeDb(db, 3);
    age();
    const memo = new CountingMemo();
    let before = listed(memo);
    const changes: [string, () => void, boolean][] = [
      ['rows appended', () => write((d) => insertExchange(d, 'ses_main', 4)), true],
      ['a reply not completed', () => write((d) => insertExchange(d, 'ses_child', 4, { open: true })), true],
      ['that reply updated in place (its next step)', () => write((d) => d.prepare('UPDATE message SET time_updated = time_updated + 900000 WHERE id = ?').run('msg_ses_child_0004b')), true],
      [
        'that reply completed',
        () => write((d) => d.prepare(`UPDATE message SET data = json_set(data, '$.time.completed', 5), time_updated = time_updated + 1800000 WHERE id = ?`).run('msg_ses_child_0004b')),
        true,
      ],
      ['a part deleted', () => write((d) => d.prepare('DELETE FROM part WHERE rowid = (SELECT max(rowid) FROM part WHERE session_id = ?)').run('ses_child')), true],
      ['a message deleted', () => write((d) => d.prepare('DELETE FROM message WHERE id = ?').run('msg_ses_main_0001a')), true],
      ['a new session', () => write((d) => d.prepare(INSERT_SESSION).run(...sessionRow('ses_new', 7))), true],
      ['rows of the new session', () => write((d) => insertExchange(d, 'ses_new', 1)), true],
      [
        'a session whose rows were written before it',
        () =>
          write((d) => {
            d.pragma('foreign_keys = OFF');
            insertExchange(d, 'ses_late', 1);
            insertExchange(d, 'ses_main', 6);
          }),
        true,
      ],
      ['…and then the session', () => write((d) => d.prepare(INSERT_SESSION).run(...sessionRow('ses_late', 8))), true],
      [
        'a session deleted with its rows',
        () =>
          write((d) => {
            for (const t of ['part', 'message']) d.prepare(`DELETE FROM ${t} WHERE session_id = ?`).run('ses_new');
            d.prepare('DELETE FROM session WHERE id = ?').run('ses_new');
          }),
        true,
      ],
      ['a message without parts', () => write((d) => d.prepare(INSERT_MESSAGE).run('msg_lone', 'ses_child', 2, Date.now() * 10, JSON.stringify({ role: 'user', time: { created: 2 } }))), true],
      [
        'the highest message deleted and its rowid taken again, in another session',
        () =>
          write((d) => {
            d.prepare('DELETE FROM message WHERE id = ?').run('msg_lone');
            d.prepare(INSERT_MESSAGE).run('msg_reuse', 'ses_main', 1, 1, JSON.stringify({ role: 'user', time: { created: 1 } }));
            const r = d.prepare('SELECT rowid AS r FROM message WHERE id = ?').get('msg_reuse') as { r: number };
            expect(r.r).toBe((d.prepare('SELECT max(rowid) AS r FROM message').get() as { r: number }).r);
          }),
        true,
      ],
      ['a vacuum', () => write((d) => d.exec('VACUUM')), false],
      [
        'the database replaced',
        () => {
          const other = join(dir, 'other', 'opencode.db');
          mkdirSync(join(dir, 'other'));
          buildOpencodeDb(other, 5);
          renameSync(other, db);
        },
        true,
      ],
      [
        'a -wal written by a writer still open',
        () => {
          const d = new Database(db);
          d.pragma('wal_autocheckpoint = 0');
          insertExchange(d, 'ses_child', 9);
          expect(existsSync(`${db}-wal`)).toBe(true);
          // the database file itself as the memo has it: only the -wal tells the change
          age([`${db}-wal`]);
          expect(listed(memo)).toEqual(listed());
          expect(listed(memo)).not.toEqual(before);
          d.close();
        },
        true,
      ],
    ];
    for (const [what, change, moves] of changes) {
      const sets = memo.sets;
      change();
      age();
      const fresh = listed();
      expect(listed(memo), what).toEqual(fresh);
      expect(memo.sets, what).toBeGreaterThan(sets);
      if (moves) expect(fresh, what).not.toEqual(before);
      before = fresh;
      expect(listed(memo), what).toEqual(fresh);
    }
  });

  it('brings an earlier listing up to date from the rows added only, equal to a full listing', () => {
    buildOpencodeDb(db, 3);
    const full = (): ListingState => withSqliteSnapshot(db, (d) => fullListing(d, fileId(db)));
    const next = (old: ListingState): ListingState => withSqliteSnapshot(db, (d) => nextListing(d, fileId(db), old));
    // a reply not completed: the listing keeps it, and looks for its update by id
    write((d) => d.prepare(`UPDATE message SET data = json_remove(data, '$.time.completed') WHERE id = ?`).run('msg_ses_child_0001b'));
    const old = full();
    expect(Object.keys(old.message.open)).toEqual(['msg_ses_child_0001b']);
    write((d) => {
      insertExchange(d, 'ses_main', 4);
      insertExchange(d, 'ses_main', 5, { open: true });
      d.prepare(`UPDATE message SET data = json_set(data, '$.time.completed', 5), time_updated = ? WHERE id = ?`).run(Date.now() * 10, 'msg_ses_child_0001b');
    });
    const now = full();
    expect(now).not.toEqual(old);
    expect(Object.keys(now.message.open)).toEqual(['msg_ses_main_0005b']);
    expect(next(old)).toEqual(now);
    // settled messages written again: OpenCode rewrites the user message's summary after every step, and
    // may set an error on a completed reply, neither of which a read sees. Not looked for (no row is walked),
    // and the same state gets the same listing, and the same fingerprints, either way
    write((d) => {
      d.prepare(`UPDATE message SET data = json_set(data, '$.summary', json('{"diffs":[]}')), time_updated = ? WHERE id = ?`).run(Date.now() * 20, 'msg_ses_main_0005a');
      d.prepare(`UPDATE message SET data = json_set(data, '$.error', json('{"name":"x"}')), time_updated = ? WHERE id = ?`).run(Date.now() * 20, 'msg_ses_main_0002b');
    });
    expect(next(now)).toEqual(full());
    expect(full()).toEqual(now);
    expect(sessionsOf(next(now))).toEqual(sessionsOf(full()));
    // the open reply written again moves its session's time, in both
    const streamed = Date.now() * 30;
    write((d) => d.prepare('UPDATE message SET time_updated = ? WHERE id = ?').run(streamed, 'msg_ses_main_0005b'));
    const moved = next(now);
    expect(moved).toEqual(full());
    expect(sessionsOf(moved)).toEqual(sessionsOf(full()));
    expect(sessionsOf(moved).find((x) => x.id === 'ses_main')?.mtimeMs).toBe(streamed);
    expect(sessionsOf(now).find((x) => x.id === 'ses_main')?.mtimeMs).toBeLessThan(streamed);
    // and settling it: its time from then on is its time.completed, whatever its row's update time
    write((d) => d.prepare(`UPDATE message SET data = json_set(data, '$.time.completed', 77), time_updated = ? WHERE id = ?`).run(streamed + 1, 'msg_ses_main_0005b'));
    const done = next(moved);
    expect(done).toEqual(full());
    expect(done.message.open).toEqual({});
    expect(sessionsOf(done)).toEqual(sessionsOf(full()));
    // the rows below the watermarks are not read again: a figure of an old listing carries over as it was
    const edited: ListingState = { ...old, sessions: old.sessions.map((s) => (s[0] === 'ses_main' ? [s[0], s[1], s[2], s[3], s[4], s[5] + 100, s[6], s[7]] : s)) };
    expect(next(edited).sessions.find((s) => s[0] === 'ses_main')?.[5]).toBe((now.sessions.find((s) => s[0] === 'ses_main')?.[5] as number) + 100);
    // a row deleted: the full passes
    write((d) => d.prepare('DELETE FROM part WHERE rowid = 1').run());
    expect(next(edited)).toEqual(full());
  });

  it('takes back the listing of a database the agent keeps open, whatever its -wal’s ctime', () => {
    buildOpencodeDb(db, 2);
    const agent = new Database(db); // never checkpoints: its commits stay in the -wal, which stays
    agent.pragma('wal_autocheckpoint = 0');
    try {
      insertExchange(agent, 'ses_main', 3);
      expect(existsSync(`${db}-wal`) && existsSync(`${db}-shm`)).toBe(true);
      age();
      const memo = new CountingMemo();
      const fresh = listed();
      expect(listed(memo)).toEqual(fresh);
      expect(memo.sets).toBe(1);
      // as root, each read above re-owned the -wal (its ctime moved); for any user, the same mode again does
      for (const f of [`${db}-wal`, `${db}-shm`]) chmodSync(f, statSync(f).mode & 0o7777);
      expect(listed(memo)).toEqual(fresh);
      expect(listed(memo)).toEqual(fresh);
      expect(memo.sets).toBe(1);
      // a commit of the agent's is a change
      insertExchange(agent, 'ses_main', 4);
      age();
      const next = listed();
      expect(next).not.toEqual(fresh);
      expect(listed(memo)).toEqual(next);
      expect(memo.sets).toBe(2);
    } finally {
      agent.close();
    }
  });

  it('stamps a -wal rewritten from its start, at its size and mtime, as changed: its salts', () => {
    buildOpencodeDb(db, 2);
    const agent = new Database(db);
    agent.pragma('wal_autocheckpoint = 0');
    try {
      insertExchange(agent, 'ses_main', 3);
      insertExchange(agent, 'ses_main', 4);
      const wal = `${db}-wal`;
      const t = (Date.now() - 60_000) / 1000;
      utimesSync(wal, t, t);
      const before = walStamp(wal);
      const { size, mtimeMs } = statSync(wal);
      // a checkpoint, then a commit smaller than the log: written over its first frames, the file as long
      agent.pragma('wal_checkpoint(RESTART)');
      agent.prepare('UPDATE session SET title = ? WHERE id = ?').run('renamed', 'ses_main');
      utimesSync(wal, t, t);
      expect([statSync(wal).size, statSync(wal).mtimeMs]).toEqual([size, mtimeMs]);
      expect(walStamp(wal).id).not.toBe(before.id);
      // and nothing but the ctime moved: the same stamp
      const now = walStamp(wal);
      chmodSync(wal, statSync(wal).mode & 0o7777);
      expect(walStamp(wal)).toEqual(now);
    } finally {
      agent.close();
    }
  });

  it('keeps Kilo CLI’s kilo.db listing the same way', () => {
    const folder = join(dir, 'kilo');
    mkdirSync(folder);
    const kdb = join(folder, 'kilo.db');
    buildOpencodeDb(kdb, 2);
    age([kdb]);
    const memo = new CountingMemo();
    const fresh = [...kilo.discoverSync!([folder])];
    expect(fresh.map((f) => f.sessionId).sort()).toEqual(['ses_child', 'ses_main']);
    expect([...kilo.discoverSync!([folder], { listingMemo: memo })]).toEqual(fresh);
    expect([...memo.map.keys()]).toEqual([`opencode-db:${kdb}`]);
    expect([...kilo.discoverSync!([folder], { listingMemo: memo })]).toEqual(fresh);
    expect(memo.sets).toBe(1);
  });

  it('is kept by the session manager beside its cache, and not without the cache', async () => {
    buildOpencodeDb(db, 2);
    age();
    const list = async (cache: boolean, cachePath: string) =>
      (await createSessionManager({ env: { HOME: dir }, roots: { opencode: [dir] }, cache, cachePath }).list('opencode', { subagents: true })).map((s) => s.sessionId).sort();
    const off = join(dir, 'off', 'events.db');
    expect(await list(false, off)).toEqual(['ses_child', 'ses_main']);
    expect(existsSync(listingMemoFile(off))).toBe(false);
    const on = join(dir, 'on', 'events.db');
    expect(await list(true, on)).toEqual(['ses_child', 'ses_main']);
    expect(Object.keys(JSON.parse(readFileSync(listingMemoFile(on), 'utf8').split('\n')[1] as string).entries)).toEqual([`opencode-db:${db}`]);
    expect(await list(true, on)).toEqual(['ses_child', 'ses_main']);
  });

  it('keeps a listing of a database written in the last two seconds only to bring it up to date', () => {
    buildOpencodeDb(db, 2);
    const memo = new CountingMemo();
    expect(listed(memo)).toEqual(listed());
    expect(memo.sets).toBe(1);
    const racy = memo.map.get(`opencode-db:${db}`) as { stamp: string };
    expect(racy.stamp).toMatch(/\|racy$/);
    // never taken as it is: listed again (and stored again), brought up to date through the rows written since
    expect(listed(memo)).toEqual(listed());
    expect(memo.sets).toBe(2);
    write((d) => insertExchange(d, 'ses_main', 3));
    expect(listed(memo)).toEqual(listed());
    write((d) => d.prepare('DELETE FROM message WHERE id = ?').run('msg_ses_main_0001a'));
    expect(listed(memo)).toEqual(listed());
    age();
    expect(listed(memo)).toEqual(listed());
    const sets = memo.sets;
    expect((memo.map.get(`opencode-db:${db}`) as { stamp: string }).stamp).not.toMatch(/\|racy$/);
    expect(listed(memo)).toEqual(listed());
    expect(memo.sets).toBe(sets); // old enough: taken back as it is
  });

  it('keeps listings in one sealed file, written whole; a damaged one holds nothing', () => {
    const cache = join(dir, 'cache', 'events.db');
    const a = openListingMemo(cache);
    expect(a.get('k')).toBeUndefined();
    a.set('k', [{ id: 'x', size: 1, mtimeMs: 2 }]);
    expect(readdirSync(join(dir, 'cache'))).toEqual(['events.db.listings.json']);
    expect(openListingMemo(cache).get('k')).toEqual([{ id: 'x', size: 1, mtimeMs: 2 }]);
    const file = listingMemoFile(cache);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"x"', '"y"'));
    expect(openListingMemo(cache).get('k')).toBeUndefined();
  });

  it('two memos of one cache in a process keep each other\'s listings', () => {
    const cache = join(dir, 'cache', 'events.db');
    const a = openListingMemo(cache);
    const b = openListingMemo(cache);
    expect(a.get('one')).toBeUndefined(); // each has read the file before the other writes
    expect(b.get('two')).toBeUndefined();
    a.set('one', [1]);
    b.set('two', [2]);
    a.set('one', [3]);
    const fresh = openListingMemo(cache);
    expect(fresh.get('one')).toEqual([3]);
    expect(fresh.get('two')).toEqual([2]);
  });
});

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const run = promisify(execFile);

describe('OpenCode listing memo through the CLI', () => {
  it('answers as --no-cache does; --no-cache neither reads nor writes it; the agent folder untouched', async () => {
    const data = join(dir, 'data');
    const folder = join(data, 'opencode');
    mkdirSync(folder, { recursive: true });
    db = join(folder, 'opencode.db');
    buildOpencodeDb(db, 3);
    age();
    const env = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: data, XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config'), TZ: 'UTC', SESSIONFOLD_SOCKET: 'off' };
    const cli = async (...args: string[]): Promise<string> => (await run(process.execPath, [CLI, ...args], { env, maxBuffer: 64 << 20 })).stdout;
    const report = ['cost', 'report', '--json', '--group-by', 'agent', '--agent', 'opencode'];
    const before = await snapshotTree(folder);
    const file = listingMemoFile(getCachePath(env));

    const uncached = await cli(...report, '--no-cache');
    expect(existsSync(file)).toBe(false);
    expect(JSON.parse(uncached).breakdowns.opencode.inputTokens).toBeGreaterThan(0);
    expect(await cli(...report)).toBe(uncached);
    expect(existsSync(file)).toBe(true);
    expect(await cli(...report)).toBe(uncached);

    // an edited listing that leaves a session out: a --no-cache run does not take it
    const memo = openListingMemo(getCachePath(env));
    const key = `opencode-db:${db}`;
    const entry = memo.get(key) as { stamp: string; value: ListingState };
    expect(entry.value.sessions.map((s) => s[0]).sort()).toEqual(['ses_child', 'ses_main']);
    memo.set(key, { ...entry, value: { ...entry.value, sessions: entry.value.sessions.filter((s) => s[0] !== 'ses_child') } });
    const forged = readFileSync(file, 'utf8');
    expect(await cli(...report, '--no-cache')).toBe(uncached);
    expect(readFileSync(file, 'utf8')).toBe(forged);

    // a change after the memo: the cached run lists afresh and still answers as --no-cache
    expect(await snapshotTree(folder)).toEqual(before);
    write((d) => insertExchange(d, 'ses_main', 4));
    age();
    const written = await snapshotTree(folder);
    const changed = await cli(...report, '--no-cache');
    expect(changed).not.toBe(uncached);
    expect(await cli(...report)).toBe(changed);
    expect(await cli(...report)).toBe(changed);
    expect(await snapshotTree(folder)).toEqual(written);
    expect(readdirSync(folder)).toEqual(['opencode.db']);
  });
});
