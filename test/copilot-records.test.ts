/**
 * Sessions of Copilot CLI's `session-store.db` without a log (codecs/copilot/records.ts): calls recorded for a
 * session whose `session-state/<id>` folder is gone are read as a record path `<db>#<id>`, from the database
 * alone; a session with a log is read through its log, so every call counts once whichever way it is read.
 * Over a real WAL database with the CLI's writer connection open: the library, the built CLI, the per-session
 * stamp, and the agent's folder left as it was.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { copilot } from '../codecs/copilot/index.js';
import { recordPath } from '../cursors/record-path.js';
import type { SessionFile } from '../cursors/protocol/codec.js';
import { totalCost } from '../src/cost/total.js';
import { newScanStats } from '../src/scan/types.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { copilotHomeFixture, insertCalls, oneRun, type CallRow } from './helpers/copilot-store.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));

/** A session with a log and calls (a run still going). */
const LIVE = '11111111-aaaa-4aaa-8aaa-0000000000a1';
/** A session whose folder was deleted: its calls and its `sessions` row are all that is left. */
const GONE = '22222222-bbbb-4bbb-8bbb-0000000000b2';
/** A session whose folder is deleted during the tests. */
const LATER = '33333333-cccc-4ccc-8ccc-0000000000c3';

const call = (session: string, input: number, output: number, cacheRead: number, at: string): CallRow => [session, 'gpt-4.1', 'claude-sonnet-4.5', input, output, cacheRead, 0, 0, at];

const h = copilotHomeFixture(
  'sf-copilot-records-',
  () => [[LIVE, oneRun(LIVE, false, '2026-03-01')], [LATER, oneRun(LATER, false, '2026-03-03')]],
  (writer) => {
    insertCalls(writer, [call(LIVE, 1000, 100, 400, '2026-03-01 12:00:04'), call(GONE, 3000, 300, 1000, '2026-03-02 10:00:04'), call(GONE, 500, 50, 0, '2026-03-02 10:05:00'), call(LATER, 700, 70, 200, '2026-03-03 12:00:04')]);
    writer.prepare('INSERT INTO sessions (id, cwd, branch, summary, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(GONE, '/work/gone', 'main', 'Fix the parser', '2026-03-02T09:59:00.000Z', '2026-03-02T10:05:00.000Z');
    writer.prepare('INSERT INTO sessions (id, cwd, created_at) VALUES (?, ?, ?)').run(LIVE, '/work/b', '2026-03-01T12:00:00.000Z');
  },
);
const db = () => join(h.copilotHome, 'session-store.db');

async function listed(): Promise<SessionFile[]> {
  const out: SessionFile[] = [];
  for await (const f of copilot.discover([h.copilotHome])) out.push(f);
  return out;
}

const TOTALS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'requestCount'] as const;
const pick = (r: Record<string, unknown>) => Object.fromEntries(TOTALS.map((k) => [k, r[k]]));
const totals = async (cachePath?: string) => pick({ ...(await totalCost({ agents: ['copilot'] }, { env: h.env, ...(cachePath === undefined ? { cache: false } : { cachePath }), onWarning: () => undefined })) });

describe('copilot: sessions of session-store.db without a log', () => {
  it('lists a session with calls and no log as a record path of the database, and no session with a log', async () => {
    const files = await listed();
    expect(files.map((f) => f.sessionId)).toEqual([LIVE, LATER, GONE]);
    const gone = files.find((f) => f.sessionId === GONE);
    expect(gone).toMatchObject({ path: recordPath(db(), GONE), size: 2, mtimeMs: Date.parse('2026-03-02T10:05:00Z') });
    expect(copilot.getParseDependencies(gone?.path ?? '')).toEqual([db(), `${db()}-wal`]);
    expect(await copilot.locate?.([h.copilotHome], GONE)).toMatchObject({ path: recordPath(db(), GONE) });
  });

  it('reads it from the database: its sessions row and one usage event per call, keyed as a log read keys them', async () => {
    const events = await readEvents(copilot, recordPath(db(), GONE));
    const k = byKind(events);
    expect(k.session).toMatchObject([{ sessionId: GONE, cwd: '/work/gone', gitBranch: 'main', title: 'Fix the parser', startedAt: '2026-03-02T09:59:00.000Z' }]);
    expect(k.usage).toMatchObject([
      { model: 'claude-sonnet-4.5', inputTokens: 2000, cacheReadTokens: 1000, outputTokens: 300, singleRequest: true, timestamp: '2026-03-02T10:00:04.000Z', dedupKey: `copilot:${GONE}:call:2` },
      { inputTokens: 500, outputTokens: 50, dedupKey: `copilot:${GONE}:call:3` },
    ]);
    expect(copilot.lineCoreFor?.(recordPath(db(), GONE))).toBeUndefined();
  });

  it('stamps a record by its calls and sessions row; a log by its calls alone', () => {
    const stamp = (f: string) => copilot.dependencyStamp?.(f, db());
    const gone = recordPath(db(), GONE);
    const [g, live] = [stamp(gone), stamp(h.sessionFile(LIVE))];
    expect(g).toMatch(/^2:\d+:[0-9a-f]{32}$/);
    h.writer.prepare('UPDATE sessions SET updated_at = ?, summary = ? WHERE id = ?').run('2026-03-05T00:00:00.000Z', 'Renamed', LIVE);
    expect(stamp(h.sessionFile(LIVE)), 'a log reads no sessions row').toBe(live);
    h.writer.prepare('UPDATE sessions SET summary = ? WHERE id = ?').run('Fix the parser, again', GONE);
    expect(stamp(gone), 'the record\'s title changed').not.toBe(g);
    expect(stamp(h.sessionFile(LIVE))).toBe(live);
    h.writer.prepare('UPDATE sessions SET summary = ? WHERE id = ?').run('Fix the parser', GONE);
    expect(stamp(gone), 'changed back').toBe(g);
  });

  it('counts every call once: with the log, and as a record once the log is gone, the library and the built CLI', async () => {
    const expected = { inputTokens: 600 + 2000 + 500 + 500, outputTokens: 100 + 300 + 50 + 70, cacheReadTokens: 400 + 1000 + 200, requestCount: 4 };
    const cachePath = join(h.home, 'cache', 'events.db');
    expect(await totals()).toEqual(expected);
    expect(await totals(cachePath)).toEqual(expected);
    const cli = async (...args: string[]) => (await run(process.execPath, [CLI, ...args], { env: { ...h.env, SESSIONFOLD_CACHE: join(h.home, 'cli-cache', 'events.db') } })).stdout;
    const report = async (...extra: string[]) => pick(JSON.parse(await cli('cost', 'report', '--agent', 'copilot', '--json', '--tz', 'UTC', ...extra)) as Record<string, unknown>);
    expect(await report()).toEqual(expected);

    rmSync(join(h.copilotHome, 'session-state', LATER), { recursive: true });
    expect((await listed()).find((f) => f.sessionId === LATER)?.path).toBe(recordPath(db(), LATER));
    expect(await totals(), 'the same calls, read from the database').toEqual(expected);
    expect(await totals(cachePath)).toEqual(expected);
    expect(await report()).toEqual(expected);
    expect(await report('--no-cache')).toEqual(expected);

    const rows = JSON.parse(await cli('sessions', 'list', 'copilot', '--json')) as { sessionId: string; cwd?: string; title?: string; cost?: { requestCount: number } }[];
    expect(rows.filter((r) => r.sessionId === GONE)).toMatchObject([{ cwd: '/work/gone', title: 'Fix the parser', cost: { requestCount: 2 } }]);
    expect(rows.map((r) => r.sessionId).sort()).toEqual([GONE, LATER, LIVE].sort());
  }, 60_000);

  it('a row for a record reads that record again and no other session; the agent\'s folder stays as it was', async () => {
    const cachePath = join(h.home, 'cache2', 'events.db');
    const before = await treeListing(h.copilotHome);
    const dbBytes = readFileSync(db());
    const scan = async () => {
      const stats = newScanStats();
      const t = pick({ ...(await totalCost({ agents: ['copilot'] }, { env: h.env, cachePath, stats, onWarning: () => undefined })) });
      return { t, stats };
    };
    const cold = await scan();
    expect(cold.stats.fullReads).toBe(3);
    expect(await treeListing(h.copilotHome), 'no file added, changed or touched').toEqual(before);
    expect(readFileSync(db()).equals(dbBytes)).toBe(true);
    insertCalls(h.writer, [call(GONE, 10, 1, 0, '2026-03-02 10:06:00')]);
    const warm = await scan();
    expect([warm.stats.fullReads + warm.stats.resumed, warm.stats.unchanged], 'the record alone').toEqual([1, 2]);
    expect(warm.t).toEqual({ ...cold.t, inputTokens: (cold.t.inputTokens as number) + 10, outputTokens: (cold.t.outputTokens as number) + 1, requestCount: (cold.t.requestCount as number) + 1 });
    expect(warm.t).toEqual(await totals());
  });
});
