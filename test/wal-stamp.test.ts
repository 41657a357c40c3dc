/**
 * A live WAL database whose log restarted: two commits in one mtime tick rewrite its first frames at the log's
 * old size, under the salts the restart drew. The `-wal`'s stamp and a session's dependency fingerprint must
 * still tell them apart (the WAL index's change counter in the `-shm`); a settled `-wal` is fingerprinted by its
 * stat alone, since a later commit moves its mtime.
 */
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { walStamp } from '../cursors/listing-memo.js';
import { recordDependencies } from '../cursors/record-path.js';
import { fingerprintDependencies } from '../src/scan/discover.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sf-wal-stamp-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The salts of a `-wal`'s header (bytes 16–24). */
const saltsOf = (id: string): string => id.split(':w')[1]!.slice(8, 24);

describe('walStamp', () => {
  it('tells apart two commits a restarted log wrote at one size within one mtime tick', () => {
    const db = join(dir, 'live.db');
    const agent = new Database(db);
    try {
      agent.pragma('journal_mode = WAL');
      agent.pragma('wal_autocheckpoint = 0');
      agent.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
      for (let i = 0; i < 20; i++) agent.prepare('INSERT INTO t (v) VALUES (?)').run('x'.repeat(500));
      agent.pragma('wal_checkpoint(RESTART)');
      const wal = `${db}-wal`;
      // one mtime for both commits, as one clock tick gives them: a recent one, as a live database's is
      const t = Date.now() / 1000;
      const commit = (v: string): void => {
        agent.prepare('UPDATE t SET v = ? WHERE id = 1').run(v);
        utimesSync(wal, t, t);
      };
      commit('first');
      const first = walStamp(wal);
      const { size, mtimeMs } = statSync(wal);
      const deps = recordDependencies(`${db}#k`);
      const codec = { getParseDependencies: () => deps };
      const fingerprint = fingerprintDependencies(codec, `${db}#k`);
      commit('second');
      // the file as it was to a stat and to the header: size, mtime, salts
      expect([statSync(wal).size, statSync(wal).mtimeMs]).toEqual([size, mtimeMs]);
      expect(saltsOf(walStamp(wal).id)).toBe(saltsOf(first.id));
      expect(walStamp(wal).id).not.toBe(first.id);
      expect(fingerprintDependencies(codec, `${db}#k`)).not.toBe(fingerprint);
      // and a read changes nothing: the same stamp twice
      expect(walStamp(wal)).toEqual(walStamp(wal));
      // settled, its stat alone: the fingerprint of a session's database as it was before this change
      const old = (Date.now() - 60_000) / 1000;
      utimesSync(wal, old, old);
      const wal0 = statSync(wal);
      expect(JSON.parse(fingerprintDependencies(codec, `${db}#k`))[1]).toEqual([wal, wal0.size, wal0.mtimeMs, wal0.ino]);
    } finally {
      agent.close();
    }
  });

  it('stamps the WAL index counters while the database is open, nothing once SQLite removed the log', () => {
    const db = join(dir, 'gone.db');
    const agent = new Database(db);
    agent.pragma('journal_mode = WAL');
    agent.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    const wal = `${db}-wal`;
    const id = walStamp(wal).id;
    expect(id).toMatch(/:s[0-9a-f]{24}$/);
    agent.close();
    expect(walStamp(wal).id).toBe('-');
  });
});
