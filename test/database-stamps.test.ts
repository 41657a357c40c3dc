/**
 * Crush's project database read again one session at a time (codecs/crush/index.ts, cursors/record-stamps.ts):
 * each session's record has its message count and `updated_at` as its stat, and the database is stamped per
 * session by its `sessions` and `messages` rows, so a write to one session (its totals, a message) makes that
 * session alone read again. Every warm answer equals a cold one (Crush's DDL and rows, test/helpers/crush-db.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentReport, writeDb } from './helpers/warm-report.js';
import { layOutCrush } from './helpers/crush-db.js';

const RENAME = '0d9f8e7c-6b5a-4c3d-9e2f-112233445566';

let home = '';
let db = '';
let env: NodeJS.ProcessEnv = {};
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-crush-stamps-'));
  db = layOutCrush(home);
  env = { HOME: home, XDG_DATA_HOME: join(home, '.local', 'share'), XDG_CACHE_HOME: join(home, 'cache'), TZ: 'UTC' };
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const report = (cache: boolean) => agentReport('crush', home, env, cache);

describe('crush: one session of a project database read again, not every session', () => {
  it('a session\u2019s totals written: that session read again, the answer a cold one\u2019s', async () => {
    const cold = await report(true);
    expect(cold.stats.fullReads).toBeGreaterThan(2);
    writeDb(db, 'UPDATE sessions SET cost = 0.05, prompt_tokens = 12500 WHERE id = ?', RENAME);
    const after = await report(true);
    expect([after.stats.fullReads, after.stats.unchanged]).toEqual([1, cold.stats.fullReads - 1]);
    expect(after.summary).toEqual((await report(false)).summary);
    expect(after.summary).not.toEqual(cold.summary);
  });

  it('a message rewritten without touching its session\u2019s row (m-06, of the checkout session): seen by the rows\u2019 digest', async () => {
    await report(true);
    writeDb(db, "UPDATE messages SET model = 'claude-opus-4-1' WHERE id = 'm-06'");
    const after = await report(true);
    expect(after.stats.fullReads).toBe(1);
    expect(after.summary).toEqual((await report(false)).summary);
  });
});
