/**
 * The database codecs that read a session as one snapshot of its database (Crush, grok-cli, Z Code, Zed) open
 * it once per state of the database for all its sessions, as Copilot's store does (copilot-store.test.ts): a
 * scan or a list reads every session of a changed database, and a snapshot per session would open a live
 * database (and rebuild its WAL index) as many times. Each database is built from the agent's fixture DDL and
 * rows (Zed's without the row whose blob is cut short, which has no events) and kept live by a writer
 * connection, as the agent keeps it; a commit is a new state, whose reads give the same events when no row
 * changed; what a snapshot read is let go once every session of it was taken. Crush's usage-only read selects
 * no `parts`, which it does not parse, and gives the full read's session and usage events.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { crush } from '../codecs/crush/index.js';
import { grokCli } from '../codecs/grok-cli/index.js';
import { zcode } from '../codecs/zcode/index.js';
import { zed } from '../codecs/zed/index.js';
import type { Codec, ReadOptions } from '../cursors/protocol/codec.js';
import { withSqliteSnapshot, type SqliteDatabase } from '../cursors/sqlite.js';
import { buildCrushDb } from './helpers/crush-db.js';
import { discoverAll, readEvents } from './helpers/codec-harness.js';
import { buildZcodeDb } from './helpers/zcode-db.js';
import { buildZedDb, insertZedRows, ZED_ROWS } from './helpers/zed-db.js';

/** The SQL each snapshot prepares, in order. */
const prepared: string[] = [];

// The snapshots the codecs open, counted, and the statements they prepare, noted: the real function, observed.
vi.mock('../cursors/sqlite.js', async (original) => {
  const m = await original<typeof import('../cursors/sqlite.js')>();
  const observe = (d: SqliteDatabase): SqliteDatabase =>
    new Proxy(d, {
      get(t, k) {
        if (k !== 'prepare') return Reflect.get(t, k, t) as unknown;
        return (sql: string) => {
          prepared.push(sql);
          return t.prepare(sql);
        };
      },
    });
  return { ...m, withSqliteSnapshot: vi.fn((path: string, fn: (d: SqliteDatabase) => unknown, o?: object) => m.withSqliteSnapshot(path, (d) => fn(observe(d)), o)) };
});

let home: string;
const writers: Database.Database[] = [];

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-db-snapshots-'));
});
afterAll(() => {
  for (const w of writers) w.close();
  rmSync(home, { recursive: true, force: true });
});

/** A live database: a writer connection stays open, as the agent's does. */
function live(path: string): Database.Database {
  const w = new Database(path);
  w.pragma('user_version = 1');
  writers.push(w);
  return w;
}

const CASES: [string, Codec, () => string][] = [
  ['crush', crush, () => buildCrushDb(join(home, 'crush', '.crush'))],
  [
    'grok-cli',
    grokCli,
    () => {
      const path = join(home, 'grok', 'grok.db');
      mkdirSync(join(home, 'grok'), { recursive: true });
      const db = new Database(path);
      db.pragma('journal_mode = WAL');
      db.exec(readFileSync(new URL('../fixtures/grok-cli/grok.sql', import.meta.url), 'utf8'));
      db.close();
      return path;
    },
  ],
  [
    'zcode',
    zcode,
    () => {
      mkdirSync(join(home, 'zcode'), { recursive: true });
      buildZcodeDb(join(home, 'zcode', 'db.sqlite'));
      return join(home, 'zcode', 'db.sqlite');
    },
  ],
  [
    'zed',
    zed,
    () => {
      const path = buildZedDb(join(home, 'zed'), { rows: false });
      const db = new Database(path);
      insertZedRows(db, ZED_ROWS.filter((r) => r.hex === undefined));
      db.close();
      return path;
    },
  ],
];

describe.each(CASES)('%s: one snapshot per database state for all its sessions', (_name, codec, build) => {
  it('reads every session from one snapshot, and again from one after a commit', async () => {
    const db = build();
    const writer = live(db);
    const sessions = (await discoverAll(codec, [db])).map((f) => f.path);
    expect(sessions.length).toBeGreaterThan(1);
    const snapshots = vi.mocked(withSqliteSnapshot);
    const readAll = async (options?: ReadOptions) => {
      const out = [];
      for (const s of sessions) out.push(await readEvents(codec, s, options));
      return out;
    };

    snapshots.mockClear();
    const first = await readAll();
    expect(snapshots).toHaveBeenCalledTimes(1);
    expect(first.every((events) => events.length > 0)).toBe(true);
    // let go once every session was taken (a long-lived process keeps no database's events between passes)
    expect(await readAll(), 'the same state, read again').toEqual(first);
    expect(snapshots, 'a second pass reads again').toHaveBeenCalledTimes(2);

    writer.pragma('user_version = 2');
    const after = await readAll();
    expect(snapshots, 'a commit is a new state').toHaveBeenCalledTimes(3);
    expect(after).toEqual(first);
  });
});

describe('crush: the columns of each kind of read', () => {
  it('a usage read selects no message parts; a conversation read does, and its sessions are read once', async () => {
    const db = buildCrushDb(join(home, 'crush-columns', '.crush'));
    const sessions = (await discoverAll(crush, [db])).map((f) => f.path);
    const snapshots = vi.mocked(withSqliteSnapshot);
    snapshots.mockClear();
    prepared.length = 0;
    const usage = [];
    for (const s of sessions) usage.push(await readEvents(crush, s, { kinds: ['session', 'usage'] }));
    const messagesSql = () => prepared.filter((q) => /\bFROM messages\b/.test(q));
    expect(messagesSql()).toHaveLength(1);
    expect(messagesSql()[0]).not.toMatch(/\*|\bparts\b/);
    expect(usage.flat().some((e) => e.type === 'usage')).toBe(true);

    prepared.length = 0;
    const full = [];
    for (const s of sessions) full.push(await readEvents(crush, s));
    expect(messagesSql()).toHaveLength(1);
    expect(messagesSql()[0]).toMatch(/\bparts\b/);
    expect(snapshots).toHaveBeenCalledTimes(2);
    // the usage read's events are the full read's of those kinds
    expect(usage).toEqual(full.map((events) => events.filter((e) => e.type === 'session' || e.type === 'usage')));
  });
});
