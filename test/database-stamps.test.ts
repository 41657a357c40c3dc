/**
 * Crush's project database, grok-cli's `grok.db`, Z Code's usage database and Kiro's `data.sqlite3` read again
 * one session at a time (cursors/record-stamps.ts):
 * each session's record has its own stat (its rows' count and `updated_at`) and the database is stamped per
 * session by the rows its read takes, so a write to one session (its totals, a message, a usage row) makes
 * that session alone read again, and a rewrite that keeps the counts and times is seen by the digest. Every
 * warm answer equals a cold one (each agent's own DDL and rows: test/helpers/crush-db.ts, fixtures/grok-cli,
 * fixtures/zcode, test/helpers/kiro-layout.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentReport, writeDb } from './helpers/warm-report.js';
import { layOutCrush } from './helpers/crush-db.js';
import { buildZcodeDb } from './helpers/zcode-db.js';
import { layOutKiro } from './helpers/kiro-layout.js';
import { kiro } from '../codecs/kiro/index.js';
import { discoverAll } from './helpers/codec-harness.js';

/** A home for `agent` laid out by `layOut` (which returns its database), with its reports. */
function stampedHome(agent: string, layOut: (home: string) => string) {
  const h = { home: '', db: '', env: {} as NodeJS.ProcessEnv, report: (cache: boolean) => agentReport(agent, h.home, h.env, cache) };
  beforeAll(() => {
    h.home = mkdtempSync(join(tmpdir(), `sf-${agent}-stamps-`));
    h.db = layOut(h.home);
    h.env = { HOME: h.home, XDG_DATA_HOME: join(h.home, '.local', 'share'), XDG_CACHE_HOME: join(h.home, 'cache'), TZ: 'UTC' };
  });
  afterAll(() => rmSync(h.home, { recursive: true, force: true }));
  return h;
}

describe('crush: one session of a project database read again, not every session', () => {
  const h = stampedHome('crush', layOutCrush);

  it('a session\u2019s totals written: that session read again, the answer a cold one\u2019s', async () => {
    const cold = await h.report(true);
    expect(cold.stats.fullReads).toBeGreaterThan(2);
    writeDb(h.db, 'UPDATE sessions SET cost = 0.05, prompt_tokens = 12500 WHERE id = ?', '0d9f8e7c-6b5a-4c3d-9e2f-112233445566');
    const after = await h.report(true);
    expect([after.stats.fullReads, after.stats.unchanged]).toEqual([1, cold.stats.fullReads - 1]);
    expect(after.summary).toEqual((await h.report(false)).summary);
    expect(after.summary).not.toEqual(cold.summary);
  });

  it('a message rewritten without touching its session\u2019s row (m-06, of the checkout session): seen by the rows\u2019 digest', async () => {
    await h.report(true);
    writeDb(h.db, "UPDATE messages SET model = 'claude-opus-4-1' WHERE id = 'm-06'");
    const after = await h.report(true);
    expect(after.stats.fullReads).toBe(1);
    expect(after.summary).toEqual((await h.report(false)).summary);
  });
});

describe('grok-cli: one session of grok.db read again, not every session', () => {
  const h = stampedHome('grok-cli', (home) => {
    mkdirSync(join(home, '.grok'));
    const path = join(home, '.grok', 'grok.db');
    const d = new Database(path);
    d.pragma('journal_mode = WAL');
    d.exec(readFileSync(new URL('../fixtures/grok-cli/grok.sql', import.meta.url), 'utf8'));
    d.close();
    return path;
  });

  it('a usage row added to one session: that session read again, the answer a cold one\u2019s', async () => {
    const cold = await h.report(true);
    expect(cold.stats.fullReads).toBeGreaterThan(1);
    writeDb(h.db, "INSERT INTO usage_events VALUES (99, 's_9b2c', 1, 'message', 'grok-4', 1000, 50, 1050, 0, '2026-01-08T12:00:04.000Z')");
    const after = await h.report(true);
    expect([after.stats.fullReads, after.stats.unchanged]).toEqual([1, cold.stats.fullReads - 1]);
    expect(after.summary).toEqual((await h.report(false)).summary);
    expect(after.summary).not.toEqual(cold.summary);
  });

  it('a usage row rewritten in place, counts and times kept: seen by the rows\u2019 digest', async () => {
    await h.report(true);
    writeDb(h.db, 'UPDATE usage_events SET output_tokens = 91 WHERE id = 2');
    const after = await h.report(true);
    expect(after.stats.fullReads).toBe(1);
    expect(after.summary).toEqual((await h.report(false)).summary);
  });
});

describe('zcode: one session of the usage database read again, not every session', () => {
  const h = stampedHome('zcode', (home) => {
    mkdirSync(join(home, '.zcode', 'cli', 'db'), { recursive: true });
    const path = join(home, '.zcode', 'cli', 'db', 'db.sqlite');
    buildZcodeDb(path);
    return path;
  });

  it('a request of one session: that session read again, the answer a cold one\u2019s', async () => {
    const cold = await h.report(true);
    expect(cold.stats.fullReads).toBeGreaterThan(1);
    writeDb(h.db, "INSERT INTO model_usage (id, session_id, turn_id, attempt_index, provider_id, model_id, status, started_at, completed_at, input_tokens, output_tokens) VALUES ('mu_new', 'sess_02JAPI', 'turn_9', 0, 'builtin:glm-coding-plan', 'glm-4.6', 'completed', 1767700000000, 1767700010000, 2000, 100)");
    const after = await h.report(true);
    // and the session without requests (sess_03JIDLE), which keeps the database's stat for its dates
    expect([after.stats.fullReads, after.stats.unchanged]).toEqual([2, cold.stats.fullReads - 2]);
    expect(after.summary).toEqual((await h.report(false)).summary);
    expect(after.summary).not.toEqual(cold.summary);
  });

  it('a request rewritten in place, its time kept: seen by the rows\u2019 digest', async () => {
    await h.report(true);
    writeDb(h.db, "UPDATE model_usage SET output_tokens = 901 WHERE id = 'mu_001'");
    const after = await h.report(true);
    expect(after.stats.fullReads).toBe(2);
    expect(after.summary).toEqual((await h.report(false)).summary);
  });
});

describe('kiro: one conversation of data.sqlite3 stamped apart from the others', () => {
  // Kiro records no tokens (no cost report reads it): what a warm list reads again is what the stamps say
  const h = stampedHome('kiro', (home) => layOutKiro(home).db);
  const stamps = async () => {
    const files = (await discoverAll(kiro, kiro.defaultRoots(h.env))).filter((f) => f.path.includes('#'));
    return new Map(files.map((f) => [f.sessionId, [f.size, f.mtimeMs, kiro.dependencyStamp?.(f.path, h.db)]]));
  };

  it('a turn saved to one conversation changes its stat and stamp alone', async () => {
    const before = await stamps();
    expect(before.size).toBeGreaterThan(1);
    const [first, second] = [...before.keys()] as [string, string];
    writeDb(h.db, 'UPDATE conversations_v2 SET value = value, updated_at = updated_at + 1000 WHERE conversation_id = ?', first);
    const after = await stamps();
    expect(after.get(second)).toEqual(before.get(second));
    expect(after.get(first)?.[1]).not.toEqual(before.get(first)?.[1]);
    expect(after.get(first)?.[2]).not.toEqual(before.get(first)?.[2]);
  });

  it('a row rewritten with its time kept: its stamp moves, the stat does not', async () => {
    const before = await stamps();
    const first = [...before.keys()][0] as string;
    writeDb(h.db, "UPDATE conversations_v2 SET key = key || '/' WHERE conversation_id = ?", first);
    const after = await stamps();
    expect(after.get(first)?.slice(0, 2)).toEqual(before.get(first)?.slice(0, 2));
    expect(after.get(first)?.[2]).not.toEqual(before.get(first)?.[2]);
  });
});
