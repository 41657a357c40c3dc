/**
 * Zed's threads read again one at a time (codecs/zed/stamps.ts): each thread's record carries its row's length
 * and `updated_at` as its stat, and the database is stamped per thread by its row's digest, so after a save the
 * event cache reads the saved thread alone, and its read decodes that thread alone (cursors/sqlite-events.ts:
 * rows kept undecoded until asked for). A rewrite that keeps the row's length and time is seen by the digest.
 * Every warm answer equals a cold one of the same database (real schema, the fixture rows).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentReport, writeDb } from './helpers/warm-report.js';
import { zed } from '../codecs/zed/index.js';
import { rowStamp } from '../cursors/record-stamps.js';
import { discoverAll } from './helpers/codec-harness.js';
import { buildZedDb, ZED_FIXTURES } from './helpers/zed-db.js';

const A = '3f1c9a52-7b2e-4d8a-9c61-0a1b2c3d4e5f';
const D = '1e2d3c4b-aaaa-4bbb-8ccc-0d0e0f101112';

let home = '';
let db = '';
let env: NodeJS.ProcessEnv = {};
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-zed-stamps-'));
  db = buildZedDb(join(home, '.local', 'share', 'zed'));
  env = { HOME: home, XDG_DATA_HOME: join(home, '.local', 'share'), XDG_CACHE_HOME: join(home, 'cache'), TZ: 'UTC' };
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** A cost report of the Zed history, with the event cache or without; its scan's counts. */
const report = (cache: boolean) => agentReport('zed', home, env, cache);
const write = (sql: string, ...args: unknown[]): void => writeDb(db, sql, ...args);

describe('zed: one saved thread read again, not every thread', () => {
  it('lists each thread with its own stat, not the database file\u2019s', async () => {
    const files = await discoverAll(zed, [join(home, '.local', 'share', 'zed')]);
    const a = files.find((f) => f.sessionId === A);
    expect(a).toMatchObject({ size: expect.any(Number), mtimeMs: Date.parse('2026-10-03T09:14:52.481Z') });
    expect(a?.ino).toBeUndefined();
  });

  it('a warm report after a save reads the saved thread alone, and answers as a cold one', async () => {
    const cold = await report(true);
    expect(cold.stats.fullReads).toBeGreaterThan(2);
    const warm = await report(true);
    expect(warm.stats.fullReads).toBe(0);

    // Zed saves thread A grown: its blob and its time rewritten in place
    write('UPDATE threads SET data = ?, updated_at = ? WHERE id = ?', readFileSync(join(ZED_FIXTURES, 'threads', `${A}.later.json.zst`)), '2026-10-03T09:40:00.000Z', A);
    const saved = await report(true);
    expect([saved.stats.fullReads, saved.stats.unchanged]).toEqual([1, cold.stats.fullReads - 1]);
    expect(saved.summary).toEqual((await report(false)).summary);
    expect(saved.summary).not.toEqual(cold.summary);
  });

  it('a rewrite that keeps the row\u2019s length and time is seen by the row\u2019s digest', async () => {
    const before = await report(true);
    const text = (new Database(db, { readonly: true }).prepare('SELECT data FROM threads WHERE id = ?').get(D) as { data: string }).data;
    expect(text).toContain('"input_tokens":4400');
    write('UPDATE threads SET data = ? WHERE id = ?', text.replace('"input_tokens":4400', '"input_tokens":4500'), D);
    const after = await report(true);
    expect(after.stats.fullReads).toBe(1);
    expect(after.summary).toEqual((await report(false)).summary);
    expect(after.summary).not.toEqual(before.summary);
  });

  it('a row\u2019s stamp follows each column, a blob by its bytes', () => {
    const row = { id: A, data: Buffer.from([1, 2, 3]), updated_at: 't', parent_id: null };
    const stamp = rowStamp(row);
    expect(rowStamp({ ...row })).toBe(stamp);
    expect(rowStamp({ ...row, data: Buffer.from([1, 2, 4]) })).not.toBe(stamp);
    expect(rowStamp({ ...row, parent_id: 'p' })).not.toBe(stamp);
    expect(rowStamp({ ...row, updated_at: 'u' })).not.toBe(stamp);
  });
});
