/**
 * Copilot CLI's `session-store.db` is a parse dependency of every session of its home, and the CLI writes it
 * for one session at a time. The event cache stamps it per session by the calls that session reads
 * (`Codec.dependencyStamp`, codecs/copilot/store.ts `storeDependencyStamp`), so a row added or changed for
 * one session reads that session again, and no other (stamped by the database's stat, every session was read
 * again from byte 0). Over a real WAL database with a writer connection open, as a running CLI keeps it, and
 * three sessions: through the library (the scan's counters) and the built CLI (`cost report --json`; the
 * cache's generation of each file's row says which were read again), the totals equal a read without the
 * cache after every change.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { copilot, sessionCalls } from '../codecs/copilot/index.js';
import { withSqliteSnapshot } from '../cursors/sqlite.js';
import { totalCost } from '../src/cost/total.js';
import { newScanStats, type ScanStats } from '../src/scan/types.js';
import { COPILOT_STORE_SCHEMA, copilotHomeFixture, insertCalls, oneRun, type CallRow } from './helpers/copilot-store.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));

// The snapshots the store module opens, counted (a new process's first stamp reads the table; one from the
// listing memo does not): the real function, observed.
vi.mock('../cursors/sqlite.js', async (original) => {
  const m = await original<typeof import('../cursors/sqlite.js')>();
  return { ...m, withSqliteSnapshot: vi.fn(m.withSqliteSnapshot) };
});

const A = '11111111-aaaa-4aaa-8aaa-00000000000a';
const B = '22222222-bbbb-4bbb-8bbb-00000000000b';
const C = '33333333-cccc-4ccc-8ccc-00000000000c';
/** A session of the database with no log in this home: read as a record of the database (records.ts). */
const ELSEWHERE = '99999999-eeee-4eee-8eee-000000000009';

/** A call of a session: gross input (cache reads included), as the CLI records it. */
const call = (session: string, input: number, output: number, cacheRead: number, at: string): CallRow => [session, 'gpt-4.1', null, input, output, cacheRead, 0, 0, at];

const h = copilotHomeFixture(
  'sf-copilot-stamp-',
  // runs still going: their usage is their calls
  () => [[A, oneRun(A, false, '2026-03-01')], [B, oneRun(B, false, '2026-03-02')], [C, oneRun(C, false, '2026-03-03')]],
  (writer) => insertCalls(writer, [call(A, 1000, 100, 400, '2026-03-01 12:00:04'), call(A, 2000, 200, 1500, '2026-03-01 12:00:09'), call(B, 3000, 300, 1000, '2026-03-02 12:00:04'), call(ELSEWHERE, 5, 5, 0, '2026-03-01 08:00:00')]),
  true, // each test writes rows of its own: a home of its own
);
const sessionFile = (id: string) => h.sessionFile(id);

/** The generation of each session's row in the event cache at `cachePath`: it goes up with each read of the file. */
function gens(cachePath: string): Record<string, number> {
  const db = new Database(cachePath, { readonly: true });
  try {
    const rows = db.prepare("SELECT path, gen FROM files WHERE agent = 'copilot' AND deleted = 0").all() as { path: string; gen: number }[];
    return Object.fromEntries(rows.map((r) => [[A, B, C].find((id) => r.path === sessionFile(id)) ?? (r.path.endsWith(`#${ELSEWHERE}`) ? ELSEWHERE : r.path), r.gen]));
  } finally {
    db.close();
  }
}

const TOTALS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'requestCount'] as const;
const pick = (r: Record<string, unknown>) => Object.fromEntries(TOTALS.map((k) => [k, r[k]]));

/** The library's report through the cache at `cachePath`, with its scan's counters, and one without the cache. */
async function library(cachePath: string): Promise<{ totals: Record<string, unknown>; stats: ScanStats; uncached: Record<string, unknown> }> {
  const stats = newScanStats();
  const totals = pick({ ...(await totalCost({ agents: ['copilot'] }, { env: h.env, cachePath, stats, onWarning: () => undefined })) });
  const uncached = pick({ ...(await totalCost({ agents: ['copilot'] }, { env: h.env, cache: false, onWarning: () => undefined })) });
  return { totals, stats, uncached };
}

describe('copilot: session-store.db stamped per session in the event cache', () => {
  it('stamps the database by the calls each session reads, and its -wal by the database', () => {
    const db = join(h.copilotHome, 'session-store.db');
    const a = copilot.dependencyStamp?.(sessionFile(A), db);
    expect(a).toMatch(/^2:2:[0-9a-f]{32}$/); // two calls, the last row id 2
    expect(copilot.dependencyStamp?.(sessionFile(C), db)).toBe('none');
    expect(copilot.dependencyStamp?.(sessionFile(A), `${db}-wal`)).toBe(copilot.dependencyStamp?.(sessionFile(C), `${db}-wal`));
    expect(copilot.dependencyStamp?.(sessionFile(A), join(h.home, 'other.db'))).toBeUndefined();
    insertCalls(h.writer, [call(ELSEWHERE, 1, 1, 0, '2026-03-01 08:00:01')]);
    expect(copilot.dependencyStamp?.(sessionFile(A), db), 'another session\'s row').toBe(a);
    h.writer.prepare('UPDATE assistant_usage_events SET output_tokens = 101 WHERE id = 1').run();
    expect(copilot.dependencyStamp?.(sessionFile(A), db), 'a changed row').not.toBe(a);
    h.writer.prepare('UPDATE assistant_usage_events SET output_tokens = 100 WHERE id = 1').run();
    expect(copilot.dependencyStamp?.(sessionFile(A), db), 'changed back').toBe(a);
  });

  it('a walk that fails (the database locked) is kept in no memo: the next stamp of the same state walks again', () => {
    const db = join(h.copilotHome, 'session-store.db');
    const a = copilot.dependencyStamp?.(sessionFile(A), db);
    insertCalls(h.writer, [call(ELSEWHERE, 2, 2, 0, '2026-03-01 08:00:02')]); // a new state, not yet walked
    vi.mocked(withSqliteSnapshot).mockImplementationOnce(() => {
      throw new Error('SQLITE_BUSY: database is locked');
    });
    expect(copilot.dependencyStamp?.(sessionFile(A), db), 'unreadable: as its read, no calls').toBe('none');
    expect(copilot.dependencyStamp?.(sessionFile(A), db), 'readable again, in the same state').toBe(a);
  });

  it('keeps the stamps in the listing memo: a new process takes them back without reading the database while it is as it was', async () => {
    const db = join(h.copilotHome, 'session-store.db');
    const stored = new Map<string, unknown>();
    const options = { listingMemo: { get: (k: string) => stored.get(k), set: (k: string, v: unknown) => void stored.set(k, v) } };
    const past = new Date(Date.now() - 60_000);
    for (const f of [db, `${db}-wal`]) utimesSync(f, past, past);
    /** The codec's store module as a new process has it (no walk in memory), and the snapshots it opens. */
    const fresh = async () => {
      vi.resetModules();
      const sqlite = await import('../cursors/sqlite.js');
      vi.mocked(sqlite.withSqliteSnapshot).mockClear();
      return { store: await import('../codecs/copilot/store.js'), snapshots: vi.mocked(sqlite.withSqliteSnapshot) };
    };
    const first = await fresh();
    const a = first.store.storeDependencyStamp(sessionFile(A), db, options);
    expect(first.snapshots).toHaveBeenCalledTimes(1);
    const second = await fresh();
    expect(second.store.storeDependencyStamp(sessionFile(A), db, options)).toBe(a);
    expect(second.store.storeDependencyStamp(sessionFile(B), db, options)).toBe(first.store.storeDependencyStamp(sessionFile(B), db, options));
    expect(second.snapshots, 'taken back').toHaveBeenCalledTimes(0);
    insertCalls(h.writer, [call(ELSEWHERE, 3, 3, 0, '2026-03-04 08:00:00')]);
    const third = await fresh();
    expect(third.store.storeDependencyStamp(sessionFile(A), db, options)).toBe(a);
    expect(third.snapshots, 'the database changed: read again').toHaveBeenCalledTimes(1);
  });

  it('the library: a row for one session reads that session again, and no other; totals equal a read without the cache', async () => {
    const cachePath = join(h.home, 'lib-cache', 'events.db');
    const cold = await library(cachePath);
    expect(cold.stats.fullReads).toBe(4);
    // A's two calls, B's one, ELSEWHERE's one; C has none recorded yet (usage unknown)
    expect(cold.totals).toEqual({ inputTokens: 600 + 500 + 2000 + 5, outputTokens: 605, cacheReadTokens: 2900, requestCount: 4 });
    expect(cold.uncached).toEqual(cold.totals);
    const g0 = gens(cachePath);

    insertCalls(h.writer, [call(ELSEWHERE, 7, 7, 0, '2026-03-05 08:00:00')]);
    const unrelated = await library(cachePath);
    expect([unrelated.stats.fullReads + unrelated.stats.resumed, unrelated.stats.unchanged], 'a row of a session without a log: its record alone').toEqual([1, 3]);
    expect(unrelated.totals).toEqual({ inputTokens: (cold.totals.inputTokens as number) + 7, outputTokens: (cold.totals.outputTokens as number) + 7, cacheReadTokens: 2900, requestCount: 5 });
    expect(unrelated.totals).toEqual(unrelated.uncached);
    const g1 = gens(cachePath);
    expect(g1).toEqual({ ...g0, [ELSEWHERE]: (g0[ELSEWHERE] ?? 0) + 1 });

    insertCalls(h.writer, [call(B, 4000, 40, 3000, '2026-03-02 12:00:08')]);
    const added = await library(cachePath);
    expect([added.stats.fullReads + added.stats.resumed, added.stats.unchanged], 'B alone is read again').toEqual([1, 3]);
    expect(gens(cachePath)).toEqual({ ...g1, [B]: (g1[B] ?? 0) + 1 });
    expect(added.totals).toEqual({ inputTokens: (unrelated.totals.inputTokens as number) + 1000, outputTokens: (unrelated.totals.outputTokens as number) + 40, cacheReadTokens: 5900, requestCount: 6 });
    expect(added.totals).toEqual(added.uncached);

    h.writer.prepare('UPDATE assistant_usage_events SET output_tokens = 150 WHERE session_id = ? AND id = 1').run(A);
    const changed = await library(cachePath);
    expect([changed.stats.fullReads + changed.stats.resumed, changed.stats.unchanged], 'A alone, for its changed row').toEqual([1, 3]);
    expect(gens(cachePath)).toEqual({ ...g1, [A]: (g1[A] ?? 0) + 1, [B]: (g1[B] ?? 0) + 1 });
    expect(changed.totals).toEqual({ ...added.totals, outputTokens: (added.totals.outputTokens as number) + 50 });
    expect(changed.totals).toEqual(changed.uncached);

    const again = await library(cachePath);
    expect([again.stats.fullReads, again.stats.resumed]).toEqual([0, 0]);
    expect(again.totals).toEqual(changed.totals);
  });

  it('the built CLI: cost report --json after a row for one session reads that session alone, with the totals of --no-cache', async () => {
    const cachePath = join(h.home, 'cli-cache', 'events.db');
    const cliEnv = { ...h.env, SESSIONFOLD_CACHE: cachePath };
    const report = async (...extra: string[]) => pick(JSON.parse((await run(process.execPath, [CLI, 'cost', 'report', '--agent', 'copilot', '--json', '--tz', 'UTC', ...extra], { env: cliEnv })).stdout) as Record<string, unknown>);
    // Written a minute ago: the stamps are kept beside the cache (cursors/listing-memo.ts takes back no state
    // written within its racy window), and the next run takes them back without reading the database.
    const db = join(h.copilotHome, 'session-store.db');
    const past = new Date(Date.now() - 60_000);
    for (const f of [db, `${db}-wal`]) utimesSync(f, past, past);
    const cold = await report();
    expect(cold).toEqual(await report('--no-cache'));
    const g0 = gens(cachePath);
    expect(Object.keys(g0).sort()).toEqual([A, B, C, ELSEWHERE].sort());
    const listings = JSON.parse(readFileSync(`${cachePath}.listings.json`, 'utf8').split('\n')[1] ?? '') as { entries: Record<string, { value: { stamp: string; value: unknown } }> };
    const kept = listings.entries[`copilot-calls:${db}`]?.value;
    expect(kept?.stamp, 'kept under the files\' stamps, not as racy').toMatch(/:w[0-9a-f]{24}:s([0-9a-f]{24}|-)$/);
    expect(kept?.value, 'the stamps, kept').toEqual({ [`c:${A}`]: expect.stringMatching(/^2:2:/), [`c:${B}`]: expect.stringMatching(/^1:3:/), [`c:${ELSEWHERE}`]: expect.stringMatching(/^1:4:/), [`r:${A}`]: expect.any(String), [`r:${B}`]: expect.any(String), [`r:${ELSEWHERE}`]: expect.any(String) });
    expect(await report(), 'the stamps taken back').toEqual(cold);
    expect(gens(cachePath)).toEqual(g0);

    insertCalls(h.writer, [call(ELSEWHERE, 9, 9, 0, '2026-03-06 08:00:00')]);
    const elsewhere = await report();
    expect(elsewhere).toEqual({ inputTokens: (cold.inputTokens as number) + 9, outputTokens: (cold.outputTokens as number) + 9, cacheReadTokens: cold.cacheReadTokens, requestCount: (cold.requestCount as number) + 1 });
    expect(elsewhere).toEqual(await report('--no-cache'));
    const g1 = gens(cachePath);
    expect(g1, 'a row of a session without a log reads its record alone').toEqual({ ...g0, [ELSEWHERE]: (g0[ELSEWHERE] ?? 0) + 1 });

    insertCalls(h.writer, [call(C, 800, 80, 300, '2026-03-03 12:00:04')]);
    const warm = await report();
    expect(gens(cachePath), 'C alone is read again').toEqual({ ...g1, [C]: (g1[C] ?? 0) + 1 });
    expect(warm).toEqual(await report('--no-cache'));
    expect(warm).toEqual({ inputTokens: (elsewhere.inputTokens as number) + 500, outputTokens: (elsewhere.outputTokens as number) + 80, cacheReadTokens: (elsewhere.cacheReadTokens as number) + 300, requestCount: (elsewhere.requestCount as number) + 1 });
  }, 60_000);
});

describe('copilot: a session-store.db in rollback-journal mode', () => {
  it('a commit that leaves the file its size and mtime changes the calls read and the stamp', () => {
    const home = mkdtempSync(join(tmpdir(), 'sf-copilot-journal-'));
    try {
      const file = join(home, 'session-state', A, 'events.jsonl');
      mkdirSync(join(home, 'session-state', A), { recursive: true });
      writeFileSync(file, oneRun(A, false, '2026-03-01'));
      const path = join(home, 'session-store.db');
      const writer = new Database(path);
      try {
        writer.pragma('journal_mode = DELETE');
        writer.exec(COPILOT_STORE_SCHEMA);
        insertCalls(writer, [call(A, 1000, 100, 400, '2026-03-01 12:00:04')]);
        // the mtime set as a clock of coarse ticks leaves it: the commit below lands within the same tick
        const tick = new Date('2026-03-01T12:00:10Z');
        utimesSync(path, tick, tick);
        const size = statSync(path).size;
        const stamp = copilot.dependencyStamp?.(file, path);
        expect(sessionCalls(file, A).calls.map((c) => c.tokens.output)).toEqual([100]);
        writer.prepare('UPDATE assistant_usage_events SET output_tokens = 999 WHERE session_id = ?').run(A);
        utimesSync(path, tick, tick);
        expect(statSync(path).size, 'the same size').toBe(size);
        expect(sessionCalls(file, A).calls.map((c) => c.tokens.output)).toEqual([999]);
        expect(copilot.dependencyStamp?.(file, path)).not.toBe(stamp);
      } finally {
        writer.close();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
