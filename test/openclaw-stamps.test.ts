/**
 * OpenClaw's agent database read again one session at a time (codecs/openclaw/index.ts, cursors/record-stamps.ts):
 * each session's record has its own stat (its rows' count, last `seq` and time) and the database is stamped per
 * session by a digest of its rows and its index entry, so a row appended to one session, a row rewritten in
 * place, or one session's index entry changed makes that session alone read again. Every warm answer equals a
 * cold one of the same database (OpenClaw's schema, test/helpers/openclaw-db.ts; pi's real transcript rows).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentReport, writeDb } from './helpers/warm-report.js';
import { buildOpenclawAgentDb } from './helpers/openclaw-db.js';

const LINES = readFileSync(new URL('../../shared/fixtures/real/pi/agent-sessions-v3-tree.jsonl', import.meta.url), 'utf8').split('\n').filter((l) => l !== '');

let home = '';
let db = '';
let env: NodeJS.ProcessEnv = {};
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-openclaw-stamps-'));
  const dir = join(home, '.openclaw', 'agents', 'main', 'agent');
  mkdirSync(dir, { recursive: true });
  db = join(dir, 'openclaw-agent.sqlite');
  buildOpenclawAgentDb(db, ['s1', 's2', 's3'].map((id) => ({ id, key: `agent:main:${id}`, entry: { sessionId: id, label: `session ${id}` }, lines: LINES })));
  env = { HOME: home, XDG_CACHE_HOME: join(home, 'cache'), TZ: 'UTC' };
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const report = (cache: boolean) => agentReport('openclaw', home, env, cache);
const write = (sql: string, ...args: unknown[]): void => writeDb(db, sql, ...args);

describe('openclaw: one session of the agent database read again, not every session', () => {
  it('a row appended to one session: that session read again, the answer a cold one\u2019s', async () => {
    const cold = await report(true);
    expect(cold.stats.fullReads).toBe(3);
    // one more reply, after the compaction that ends the transcript
    const reply = JSON.parse(LINES.find((l) => l.includes('"usage"')) as string) as { id: string; parentId: string; message: { responseId: string } };
    const more = { ...reply, id: 'f00dcafe', parentId: '2c19d326', message: { ...reply.message, responseId: 'chatcmpl-more' } };
    write('INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)', 's2', 999, JSON.stringify(more), 1_778_547_800_000);
    const grown = await report(true);
    expect([grown.stats.fullReads, grown.stats.unchanged]).toEqual([1, 2]);
    expect(grown.summary).toEqual((await report(false)).summary);
    expect(grown.summary).not.toEqual(cold.summary);
  });

  it('a row rewritten in place, its length and the session\u2019s count kept: seen by the rows\u2019 digest', async () => {
    await report(true);
    const row = (new Database(db, { readonly: true }).prepare("SELECT seq, event_json AS json FROM transcript_events WHERE session_id = 's3' AND event_json LIKE '%\"output\":%' ORDER BY seq LIMIT 1").get() as { seq: number; json: string });
    const changed = row.json.replace(/"output":(\d)/, (_, d: string) => `"output":${(Number(d) + 1) % 10}`);
    expect(changed.length).toBe(row.json.length);
    expect(changed).not.toBe(row.json);
    write("UPDATE transcript_events SET event_json = ? WHERE session_id = 's3' AND seq = ?", changed, row.seq);
    const after = await report(true);
    expect(after.stats.fullReads).toBe(1);
    expect(after.summary).toEqual((await report(false)).summary);
  });

  it('one session\u2019s index entry changed: that session read again', async () => {
    await report(true);
    write("UPDATE session_nodes SET entry_json = ? WHERE session_key = 'agent:main:s1'", JSON.stringify({ sessionId: 's1', label: 'renamed' }));
    const after = await report(true);
    expect(after.stats.fullReads).toBe(1);
  });
});
