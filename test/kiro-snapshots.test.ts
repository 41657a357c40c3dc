/**
 * Kiro's `data.sqlite3` is read once per state of the database for all its conversations, as the other
 * database codecs are (database-snapshots.test.ts): a scan reads every conversation of a changed database, and
 * a snapshot per conversation would open a live database (and rebuild its WAL index) as many times. The
 * database is built from the CLI's DDL and rows (helpers/kiro-layout.ts) and kept live by a writer connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { kiro } from '../codecs/kiro/index.js';
import type { ReadOptions } from '../cursors/protocol/codec.js';
import { withSqliteSnapshot } from '../cursors/sqlite.js';
import { discoverAll, readEvents } from './helpers/codec-harness.js';
import { buildKiroDb } from './helpers/kiro-layout.js';

// The snapshots the codec opens, counted: the real function, observed.
vi.mock('../cursors/sqlite.js', async (original) => {
  const m = await original<typeof import('../cursors/sqlite.js')>();
  return { ...m, withSqliteSnapshot: vi.fn(m.withSqliteSnapshot) };
});

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-kiro-snapshots-'));
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('kiro: one snapshot per database state for all its conversations', () => {
  it('reads every conversation from one snapshot a pass, again after a commit, and per kind of read', async () => {
    const db = buildKiroDb(join(home, 'kiro-cli'), { wal: true });
    const writer = new Database(db);
    try {
      const records = (await discoverAll(kiro, [db])).map((f) => f.path);
      expect(records.length).toBeGreaterThan(1);
      const snapshots = vi.mocked(withSqliteSnapshot);
      const readAll = async (options?: ReadOptions) => {
        const out = [];
        for (const r of records) out.push(await readEvents(kiro, r, options));
        return out;
      };

      snapshots.mockClear();
      const first = await readAll();
      expect(snapshots, 'one pass over every conversation').toHaveBeenCalledTimes(1);
      // once every conversation was taken the events are let go: a second pass reads again
      expect(await readAll(), 'the same state, read again').toEqual(first);
      expect(snapshots, 'a second pass reads again').toHaveBeenCalledTimes(2);
      expect(first.every((events) => events.some((e) => e.type === 'message'))).toBe(true);
      // the whole database's read is its conversations' events, in order
      expect(await readEvents(kiro, db)).toEqual(first.flat());
      expect(snapshots).toHaveBeenCalledTimes(3);

      writer.pragma('user_version = 2');
      expect(await readAll(), 'a commit is a new state').toEqual(first);
      expect(snapshots).toHaveBeenCalledTimes(4);

      // a session-only read is another kind of read: one snapshot for it, its events the full read's sessions
      const sessions = await readAll({ kinds: ['session'] });
      expect(snapshots).toHaveBeenCalledTimes(5);
      expect(sessions).toEqual(first.map((events) => events.filter((e) => e.type === 'session')));
    } finally {
      writer.close();
    }
  });
});
