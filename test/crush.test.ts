/**
 * Crush (`<project>/.crush/crush.db`, found through `projects.json` of its global data folder) over databases
 * built with Crush's own DDL (fixtures/crush/schema.sql and later.sql, from its migrations) and the rows of
 * fixtures/crush/rows.sql: golden events, the recorded cost checked by a deliberately simple second reader (SQL
 * over an in-memory copy), per-session record paths, skipped records counted, the registry-driven discovery,
 * and the database folder left as it was (bytes, mtimes, listing; no `-wal` or `-shm` beside it).
 * Regenerate the golden file with `UPDATE_GOLDEN=1 npx vitest run test/crush.test.ts`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crush, getCrushRoots, projectDataDirs } from '../codecs/crush/index.js';
import { newReadInfo, type SessionFile } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, discoverAll, readEvents } from './helpers/codec-harness.js';
import { buildCrushDb, CRUSH_LATER, CRUSH_ROWS, CRUSH_SCHEMA, layOutCrush, writeCrushProjects } from './helpers/crush-db.js';
import { treeListing } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';

const EXPECTED_DIR = new URL('../fixtures/expected/crush/', import.meta.url).pathname;

/** The simple second reader: the cost of the top-level sessions that have one, and how many they are. */
function naiveCost(): { cost: number; sessions: number; messages: number } {
  const db = new Database(':memory:');
  db.exec(CRUSH_SCHEMA + CRUSH_LATER + CRUSH_ROWS);
  const row = db.prepare('SELECT sum(cost) AS cost, count(*) AS sessions, (SELECT count(*) FROM messages) AS messages FROM sessions WHERE parent_session_id IS NULL AND cost > 0').get() as { cost: number; sessions: number; messages: number };
  db.close();
  return row;
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

let home: string;
let dbPath: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-crush-'));
  dbPath = layOutCrush(home);
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

const discovered = (roots: readonly string[]): Promise<SessionFile[]> => discoverAll(crush, roots);

describe('crush golden events', () => {
  it('a read of the database equals the checked-in events; its cost is the simple reader\'s; nothing changes on disk', async () => {
    const dir = join(home, 'work', 'shop', '.crush');
    const before = await treeListing(dir);
    const bytes = sha(dbPath);
    const info = newReadInfo();
    const events = await readEvents(crush, dbPath, { info });
    await expectGolden(EXPECTED_DIR, 'crush', events.map((e) => (e.type === 'session' && e.cwd !== undefined ? { ...e, cwd: '<project>' } : e)));
    const usage = byKind(events).usage as UsageEvent[];
    const want = naiveCost();
    expect(usage.reduce((a, u) => a + u.costUsd!, 0)).toBeCloseTo(want.cost, 10);
    expect(usage).toHaveLength(want.sessions);
    expect(info.skippedLines, 'the message whose parts are not JSON').toBe(1);
    const skips: unknown[] = [];
    await readEvents(crush, dbPath, { onSkip: (e) => skips.push(e) });
    expect(skips, 'onSkip hears of it').toHaveLength(1);
    await expect(readEvents(crush, dbPath, { strict: true }), 'a strict read refuses it').rejects.toMatchObject({ code: 'PARSE_ERROR' });
    expect(await treeListing(dir), 'the data folder: same files, sizes and mtimes, no -wal or -shm').toEqual(before);
    expect(sha(dbPath), 'the database bytes').toBe(bytes);
  });

  it('a usage or session read parses no message parts: same events, no parts counted as skipped', async () => {
    const full = (await readEvents(crush, dbPath)).filter((e) => e.type === 'session' || e.type === 'usage');
    const info = newReadInfo();
    const only = await readEvents(crush, dbPath, { kinds: ['session', 'usage'], info });
    expect(only).toEqual(full);
    expect(byKind(only).usage.length).toBeGreaterThan(0);
    expect(info.skippedLines, 'the message whose parts are not JSON is not parsed').toBe(0);
  });

  it('the simple reader sees real cost (the comparison is not vacuous)', () => {
    expect(naiveCost()).toEqual({ cost: 0.4213 + 0.1875, sessions: 2, messages: 13 });
  });

  it('books the session cost once: no tokens (Crush keeps no total), nothing for the sub-agent whose cost is in its parent\'s', async () => {
    const events = await readEvents(crush, dbPath);
    const usage = byKind(events).usage as UsageEvent[];
    expect(usage.map((u) => [u.sessionId, u.model, u.costUsd, u.inputTokens + u.outputTokens + u.cacheReadTokens])).toEqual([
      ['7c1e5a90-1b2c-4d3e-8f40-a1b2c3d4e5f6', 'claude-sonnet-4-5', 0.4213, 0],
      ['b2b2b2b2-3c3c-4d4d-8e8e-5f5f5f5f5f5f', 'gpt-5', 0.1875, 0],
    ]);
    const sessions = events.filter((e) => e.type === 'session');
    expect(sessions.every((s) => s.usageUnknown === true)).toBe(true);
    expect(sessions.find((s) => s.sessionId === 'toolu_01TaskA')).toMatchObject({ subagent: true, forkedFrom: '7c1e5a90-1b2c-4d3e-8f40-a1b2c3d4e5f6' });
  });

  it('skips and counts a cost that is not a sane amount, and reads the rest', async () => {
    const dir = join(home, 'absurd', '.crush');
    const path = buildCrushDb(dir);
    const db = new Database(path);
    db.prepare("UPDATE sessions SET cost = 1e9 WHERE id = 'b2b2b2b2-3c3c-4d4d-8e8e-5f5f5f5f5f5f'").run();
    db.close();
    const info = newReadInfo();
    const events = await readEvents(crush, path, { info });
    expect((byKind(events).usage as UsageEvent[]).map((u) => u.costUsd)).toEqual([0.4213]);
    expect(info.skippedLines).toBe(2);
    expect(byKind(events).message.length).toBeGreaterThan(5);
  });

  it('reads a database of the first migration alone (no provider or summary columns)', async () => {
    const path = buildCrushDb(join(home, 'old', '.crush'), { later: false, rows: false });
    const db = new Database(path);
    db.exec("INSERT INTO sessions (id, title, cost, updated_at, created_at) VALUES ('s1', 'Old', 0.02, 1750000100, 1750000000)");
    db.exec(`INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES ('a', 's1', 'assistant', '[{"type":"text","data":{"text":"hi"}}]', 'gpt-4.1', 1750000050, 1750000050)`);
    db.close();
    const events = await readEvents(crush, path);
    expect(events.map((e) => e.type)).toEqual(['session', 'message', 'usage']);
    expect(events[2]).toMatchObject({ model: 'gpt-4.1', costUsd: 0.02, timestamp: '2025-06-15T15:07:30.000Z' });
  });
});

describe('crush sessions', () => {
  it('finds the databases through projects.json and lists every session as a record path', async () => {
    const files = await discovered(getCrushRoots({ HOME: home }));
    expect(files.map((f) => [f.sessionId, f.subagent ?? false])).toEqual([
      ['7c1e5a90-1b2c-4d3e-8f40-a1b2c3d4e5f6', false],
      ['toolu_01TaskA', true],
      ['0d9f8e7c-6b5a-4c3d-9e2f-112233445566', false],
      ['5a5a5a5a-0000-4000-8000-000000000001', false],
      ['b2b2b2b2-3c3c-4d4d-8e8e-5f5f5f5f5f5f', false],
    ]);
    expect(new Set(files.map((f) => f.path.split('#')[0]))).toEqual(new Set([dbPath]));
  });

  it('a record path reads its own session only', async () => {
    const files = await discovered(getCrushRoots({ HOME: home }));
    const one = await readEvents(crush, files[2]!.path);
    expect(one.every((e: SessionfoldEvent) => e.sessionId === '0d9f8e7c-6b5a-4c3d-9e2f-112233445566')).toBe(true);
    expect(one[0]).toMatchObject({ type: 'session', title: 'Rename the cart module', cwd: join(home, 'work', 'shop'), model: 'gpt-5', provider: 'copilot' });
    expect(byKind(one).usage, 'a cost of 0 (a flat-rate model) books nothing').toHaveLength(0);
  });

  it('follows a data_dir the config moved, relative to its project, and walks nothing else', async () => {
    const data = join(home, 'moved-global');
    const project = join(home, 'elsewhere', 'app');
    buildCrushDb(join(project, 'state'));
    buildCrushDb(join(home, 'unregistered', '.crush'));
    writeCrushProjects(data, [{ path: project, data_dir: 'state' }]);
    const files = await discovered(getCrushRoots({ HOME: home, CRUSH_GLOBAL_DATA: data }));
    expect(new Set(files.map((f) => f.path.split('#')[0]))).toEqual(new Set([join(project, 'state', 'crush.db')]));
  });

  it('takes a project, a data folder or a database as a root', async () => {
    const project = join(home, 'work', 'shop');
    for (const root of [project, join(project, '.crush'), dbPath]) expect((await discovered([root])).length, root).toBe(5);
  });

  it('a projects.json that is not Crush\'s names no project', () => {
    expect(projectDataDirs('{"projects":[{"path":"/p","data_dir":"/p/.crush"},{"data_dir":"/x"},3]}')).toEqual([{ path: '/p', dataDir: '/p/.crush' }]);
    expect(projectDataDirs('[')).toEqual([]);
    expect(projectDataDirs('{"projects":{}}')).toEqual([]);
    const bad = join(home, 'bad-global');
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, 'projects.json'), 'not json');
    return expect(discovered([bad])).resolves.toEqual([]);
  });

  it('a crush.db that is not Crush\'s gives no session in discovery, and a PARSE_ERROR when read', async () => {
    const dir = join(home, 'foreign', '.crush');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'crush.db'), 'not a database');
    const other = join(home, 'other-app', '.crush');
    mkdirSync(other, { recursive: true });
    new Database(join(other, 'crush.db')).exec('CREATE TABLE notes (id TEXT)').close();
    for (const d of [dir, other]) {
      expect(await discovered([d]), d).toEqual([]);
      await expect(readEvents(crush, join(d, 'crush.db'))).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    }
    expect((await discovered([join(home, 'work', 'shop'), dir])).length, 'the good database beside it still lists').toBe(5);
  });
});

describe('crush roots', () => {
  it('is $CRUSH_GLOBAL_DATA, else $XDG_DATA_HOME/crush, else ~/.local/share/crush (and %LOCALAPPDATA%\\crush)', () => {
    expect(getCrushRoots({ HOME: '/h' })).toEqual(['/h/.local/share/crush']);
    expect(getCrushRoots({ HOME: '/h', XDG_DATA_HOME: '/x' })).toEqual(['/x/crush']);
    expect(getCrushRoots({ HOME: '/h', XDG_DATA_HOME: '/x', CRUSH_GLOBAL_DATA: '/g' })).toEqual(['/g']);
    expect(getCrushRoots({ HOME: '/h', LOCALAPPDATA: '/l' })).toEqual(['/h/.local/share/crush', '/l/crush']);
  });
});
