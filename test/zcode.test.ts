/**
 * Z Code (`~/.zcode/cli/db/db.sqlite`) over a database built from fixtures/zcode/db.sql, shaped as
 * codecs/zcode/README.md documents it: golden events, token totals checked by a deliberately simple second
 * reader (SQL sums over an in-memory copy), per-session record paths, the database left byte-for-byte as it
 * was with no `-wal` or `-shm` beside it, a session whose usage Z Code pruned after 30 days read as unknown, and
 * the roots.
 * Regenerate the golden file with `UPDATE_GOLDEN=1 npx vitest run test/zcode.test.ts`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getZcodeRoots, zcode } from '../codecs/zcode/index.js';
import type { SessionEvent, SessionfoldEvent } from '../cursors/protocol/events.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { runCli } from '../src/cli/run.js';
import { sink } from './cost-history.js';
import { codecUsageTotals, type UsageTotals } from './helpers/usage-totals.js';
import { buildZcodeDb, ZCODE_SQL as SQL } from './helpers/zcode-db.js';

const EXPECTED_DIR = new URL('../fixtures/expected/zcode/', import.meta.url).pathname;

/**
 * The simple second reader, in SQL over an in-memory copy: a count that is not a non-negative integer is 0;
 * billed input is `input_tokens`, plus the cache columns when the row's total adds them or the input is
 * smaller than them; output is `output_tokens`, plus reasoning when the total adds it.
 */
function naiveTotals(): UsageTotals {
  const db = new Database(':memory:');
  db.exec(SQL);
  const n = (c: string) => `(CASE WHEN typeof(${c}) = 'integer' AND ${c} >= 0 AND ${c} < 1000000000000 THEN ${c} ELSE 0 END)`;
  const [i, o, r, cr, cw, t] = ['input_tokens', 'output_tokens', 'reasoning_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'computed_total_tokens'].map(n);
  const apart = `(${cr} + ${cw} > 0 AND (${t} IN (${i} + ${o} + ${cr} + ${cw}, ${i} + ${o} + ${cr} + ${cw} + ${r}) OR ${i} < ${cr} + ${cw}))`;
  const rApart = `(${r} > 0 AND ${t} IN (${i} + ${o} + ${r}, ${i} + ${o} + ${cr} + ${cw} + ${r}))`;
  const row = db
    .prepare(
      `SELECT sum(CASE WHEN ${apart} THEN ${i} + ${cr} + ${cw} ELSE ${i} END) AS input, sum(${cr}) AS cached,
              sum(CASE WHEN ${rApart} THEN ${o} + ${r} ELSE ${o} END) AS output, sum(${r}) AS reasoning, count(*) AS responses
       FROM model_usage WHERE ${i} + ${o} + ${cr} + ${cw} > 0`,
    )
    .get() as UsageTotals;
  db.close();
  return row;
}

let home: string;
let dbPath: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-zcode-'));
  mkdirSync(join(home, '.zcode', 'cli', 'db'), { recursive: true });
  dbPath = join(home, '.zcode', 'cli', 'db', 'db.sqlite');
  buildZcodeDb(dbPath);
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

async function discovered() {
  const out = [];
  for await (const f of zcode.discover(zcode.defaultRoots({ HOME: home }))) out.push(f);
  return out;
}

describe('zcode golden events', () => {
  it('a read of the database equals the checked-in events, with totals of the simple reader', async () => {
    const before = await treeListing(join(home, '.zcode'));
    const events = await readEvents(zcode, dbPath);
    await expectGolden(EXPECTED_DIR, 'db', events);
    expect(codecUsageTotals(events)).toEqual(naiveTotals());
    expect(await treeListing(join(home, '.zcode')), 'the database folder is as it was').toEqual(before);
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', () => {
    expect(naiveTotals()).toEqual({ input: 36400, cached: 25500, output: 1530, reasoning: 350, responses: 6 });
  });

  it('reads the overlap of the columns from each row\'s own total', async () => {
    const usage = byKind(await readEvents(zcode, dbPath, { kinds: ['usage'] })).usage as SessionfoldEvent[];
    const pick = (id: string) => usage.find((u) => (u as { messageId?: string }).messageId === id);
    expect(pick('mu_001')).toMatchObject({ model: 'glm-4.6', inputTokens: 3000, cacheReadTokens: 8000, cacheWriteTokens: 1000, outputTokens: 900, reasoningTokens: 300 });
    expect(pick('mu_002')).toMatchObject({ model: 'glm-4.6', inputTokens: 4000, cacheReadTokens: 11000 });
    expect(pick('mu_006')).toMatchObject({ inputTokens: 2000, cacheReadTokens: 6000, outputTokens: 200, reasoningTokens: 50 });
    expect(pick('mu_008')).toMatchObject({ inputTokens: 100, cacheReadTokens: 500 });
    expect(pick('mu_004')).toBeUndefined();
    expect(pick('mu_007')).toBeUndefined();
  });
});

describe('zcode sessions', () => {
  it('discovers every session as a record path, the idle one included', async () => {
    expect((await discovered()).map((f) => f.sessionId)).toEqual(['sess_01JSHOP', 'sess_02JAPI', 'sess_03JIDLE']);
  });

  it('a record path reads its own session; one without requests says its usage is unknown', async () => {
    const files = await discovered();
    const shop = await readEvents(zcode, files[0]!.path);
    expect(shop[0]).toMatchObject({ type: 'session', sessionId: 'sess_01JSHOP', cwd: '/Users/li/work/shop', startedAt: '2026-01-05T09:00:00.000Z' });
    expect(shop.every((e) => e.sessionId === 'sess_01JSHOP')).toBe(true);
    expect(byKind(shop).usage).toHaveLength(4);
    const idle = await readEvents(zcode, files[2]!.path);
    expect(idle).toEqual([{ type: 'session', agent: 'zcode', sessionId: 'sess_03JIDLE', offset: 0, nativeId: 'sess_03JIDLE', cwd: '/home/wang/notes', usageUnknown: true } satisfies SessionEvent]);
  });
});

describe('zcode usage older than its 30 days', () => {
  const DAY = 86_400_000;

  /** Z Code's database after `pruneUsage`: an old session's rows gone, its `session` row kept; a recent one's kept. */
  function buildPrunedDb(path: string, now: number): void {
    const db = new Database(path);
    db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT, title TEXT, time_created INTEGER, time_updated INTEGER);
      CREATE TABLE model_usage (id TEXT PRIMARY KEY, session_id TEXT, model_id TEXT, started_at INTEGER, completed_at INTEGER,
        input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER, cache_creation_input_tokens INTEGER,
        cache_read_input_tokens INTEGER, computed_total_tokens INTEGER);`);
    const session = db.prepare('INSERT INTO session VALUES (?, ?, ?, ?, ?)');
    const row = db.prepare('INSERT INTO model_usage VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?)');
    session.run('sess_old', '/w/old', 'Old', now - 60 * DAY, now - 59 * DAY);
    session.run('sess_new', '/w/new', 'New', now - 2 * DAY, now - DAY);
    row.run('r_old', 'sess_old', 'GLM-5.3', now - 60 * DAY, now - 60 * DAY + 1000, 1000, 100, 1100);
    row.run('r_new', 'sess_new', 'GLM-5.3', now - DAY, now - DAY + 1000, 2000, 200, 2200);
    // pruneUsage: the rows that started more than USAGE_RETENTION_DAYS ago
    db.prepare('DELETE FROM model_usage WHERE started_at < ?').run(now - 30 * DAY);
    db.close();
  }

  it('reads an older session as usage unknown, never as $0, and the recent one as counted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-zcode-pruned-'));
    try {
      mkdirSync(join(dir, '.zcode', 'cli', 'db'), { recursive: true });
      buildPrunedDb(join(dir, '.zcode', 'cli', 'db', 'db.sqlite'), Date.now());
      const files = [];
      for await (const f of zcode.discover(zcode.defaultRoots({ HOME: dir }))) files.push(f);
      const bySession = new Map(await Promise.all(files.map(async (f) => [f.sessionId, await readEvents(zcode, f.path)] as const)));
      expect([...bySession.keys()].sort()).toEqual(['sess_new', 'sess_old']);
      expect(bySession.get('sess_old')).toEqual([expect.objectContaining({ type: 'session', sessionId: 'sess_old', usageUnknown: true })]);
      expect(byKind(bySession.get('sess_new')!).usage).toHaveLength(1);
      expect(bySession.get('sess_new')!.some((e) => e.type === 'session' && e.usageUnknown === true)).toBe(false);
      const out = sink();
      expect(await runCli(['sessions', 'list', 'zcode', '--json'], { stdout: out, stderr: sink(), env: { HOME: dir } })).toBe(0);
      const rows = JSON.parse(out.text()) as { sessionId: string; usageUnknown?: true; cost?: Record<string, number> }[];
      expect(rows.map((r) => [r.sessionId, r.usageUnknown === true]).sort()).toEqual([['sess_new', false], ['sess_old', true]]);
      // no cost at all for the old one (not a cost of $0); the recent one's priced
      expect(rows.find((r) => r.sessionId === 'sess_old')!.cost).toBeUndefined();
      expect(rows.find((r) => r.sessionId === 'sess_new')!.cost).toMatchObject({ inputTokens: 2000, outputTokens: 200, requestCount: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * A database with the `session` columns Z Code writes (zai-org/ZCode migrations `0001_base_session_store`,
 * `0007_workflow_script_runtime`): a main session, the subagent it started (`task_type` `subagent_child`,
 * `parent_id` the main one), a fork of it (`parent_id` set, `interactive`) and an older session without
 * `task_type` whose id names a subagent.
 */
function buildTreeDb(path: string): void {
  const db = new Database(path);
  db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, slug TEXT, directory TEXT, path TEXT,
      title TEXT, version TEXT, time_created INTEGER, time_updated INTEGER, task_type TEXT);
    CREATE TABLE model_usage (id TEXT PRIMARY KEY, session_id TEXT, query_source TEXT, model_id TEXT, started_at INTEGER,
      completed_at INTEGER, input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER,
      cache_creation_input_tokens INTEGER, cache_read_input_tokens INTEGER, computed_total_tokens INTEGER);
    INSERT INTO session VALUES ('sess_main', 'p1', NULL, 's', '/w', '/w', 'Main', '0.16.9', 1767603500000, 1767603700000, 'interactive');
    INSERT INTO session VALUES ('sess_subagent_agent_1', 'p1', 'sess_main', 's', '/w', '/w', 'Explore', '0.16.9', 1767603610000, 1767603650000, 'subagent_child');
    INSERT INTO session VALUES ('sess_fork', 'p1', 'sess_main', 's', '/w', '/w', 'Fork', '0.16.9', 1767603800000, 1767603800000, 'interactive');
    INSERT INTO model_usage VALUES ('r1', 'sess_main', 'main_turn', 'GLM-5.3', 1767603600000, 1767603601000, 1000, 100, 0, 0, 800, 1100);
    INSERT INTO model_usage VALUES ('r2', 'sess_subagent_agent_1', 'subagent', 'GLM-5.3', 1767603620000, 1767603621000, 500, 50, 0, 0, 0, 550);`);
  db.close();
}

describe('zcode subagents and forks', () => {
  it('marks a subagent session and names the session a subagent or a fork came from', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-zcode-tree-'));
    try {
      mkdirSync(join(dir, 'cli', 'db'), { recursive: true });
      const path = join(dir, 'cli', 'db', 'db.sqlite');
      buildTreeDb(path);
      const files = [];
      for await (const f of zcode.discover([dir])) files.push(f);
      expect(files.map((f) => [f.sessionId, f.subagent === true])).toEqual([
        ['sess_main', false],
        ['sess_subagent_agent_1', true],
        ['sess_fork', false],
      ]);
      const sessions = byKind(await readEvents(zcode, path)).session as SessionEvent[];
      expect(sessions.map((s) => [s.sessionId, s.subagent, s.forkedFrom, s.version, s.startedAt])).toEqual([
        ['sess_main', undefined, undefined, '0.16.9', '2026-01-05T08:58:20.000Z'],
        ['sess_subagent_agent_1', true, 'sess_main', '0.16.9', '2026-01-05T09:00:10.000Z'],
        ['sess_fork', undefined, 'sess_main', '0.16.9', '2026-01-05T09:03:20.000Z'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes a session id that names a subagent as one when the row has no task type', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-zcode-old-'));
    try {
      const path = join(dir, 'db.sqlite');
      const db = new Database(path);
      db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT);
        CREATE TABLE model_usage (id TEXT PRIMARY KEY, session_id TEXT, started_at INTEGER, completed_at INTEGER, input_tokens INTEGER, output_tokens INTEGER);
        INSERT INTO session VALUES ('sess_subagent_agent_2', 'sess_a', '/w');
        INSERT INTO model_usage VALUES ('r1', 'sess_subagent_agent_2', 1767603600000, 1767603601000, 10, 5);`);
      db.close();
      const files = [];
      for await (const f of zcode.discover([dir])) files.push(f);
      expect(files.map((f) => f.subagent)).toEqual([true]);
      const [session] = byKind(await readEvents(zcode, path)).session as SessionEvent[];
      expect(session).toMatchObject({ subagent: true, forkedFrom: 'sess_a' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('zcode roots', () => {
  it('is $ZCODE_HOME, else ~/.zcode', () => {
    expect(getZcodeRoots({ HOME: '/h' })).toEqual(['/h/.zcode']);
    expect(getZcodeRoots({ HOME: '/h', ZCODE_HOME: '/z' })).toEqual(['/z']);
    expect(getZcodeRoots({ HOME: '/h', ZCODE_HOME: '~/zc' })).toEqual(['/h/zc']);
  });

  it("follows Z Code's data base directory, ZCODE_DATA_BASE_DIR, to its .zcode", () => {
    expect(getZcodeRoots({ HOME: '/h', ZCODE_DATA_BASE_DIR: '/data' })).toEqual(['/data/.zcode']);
    expect(getZcodeRoots({ HOME: '/h', ZCODE_DATA_BASE_DIR: ' ~/portable ' })).toEqual(['/h/portable/.zcode']);
    expect(getZcodeRoots({ HOME: '/h', ZCODE_DATA_BASE_DIR: '/data', ZCODE_HOME: '/z' })).toEqual(['/z']);
    expect(zcode.rootVariables).toContain('ZCODE_DATA_BASE_DIR');
  });
});
