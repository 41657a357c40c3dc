/**
 * Copilot CLI's per-call usage in `session-store.db` (codecs/copilot/store.ts), read beside the session logs
 * of a temp Copilot home: a real SQLite file with the CLI's tables (README "Per-call usage" cites them), in
 * WAL mode with a writer connection open, as a running CLI keeps it. Checked: the precedence (a run's
 * recorded calls in place of its shutdown totals, a shutdown's totals where no call was recorded, the calls of
 * runs without a shutdown counted), hand-computed totals, skipped rows, every kind of read and chunking alike,
 * a resumed read equal to a full one, the agent's folder unchanged (bytes, mtimes, listing, no file added),
 * and the built CLI's `cost report` and `sessions list`.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { copilot } from '../codecs/copilot/index.js';
import { createdAtMs, sessionCalls } from '../codecs/copilot/store.js';
import type { ReadCursor } from '../cursors/protocol/codec.js';
import type { EventKind, SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { copilotHomeFixture, copilotLine as ev, insertCalls, oneRun, usage, type CallRow } from './helpers/copilot-store.js';
import { withSqliteSnapshot } from '../cursors/sqlite.js';

// The snapshots the codec opens, counted (each one reads the table): the real function, observed.
vi.mock('../cursors/sqlite.js', async (original) => {
  const m = await original<typeof import('../cursors/sqlite.js')>();
  return { ...m, withSqliteSnapshot: vi.fn(m.withSqliteSnapshot) };
});

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));

const A = '11111111-aaaa-4aaa-8aaa-000000000001';
const B = '22222222-bbbb-4bbb-8bbb-000000000002';
const C = '33333333-cccc-4ccc-8ccc-000000000003';
/** A's log again under another id, grown line by line for the resume test. */
const G = '44444444-dddd-4ddd-8ddd-000000000004';


/**
 * Three runs: the first before the database recorded calls (its shutdown totals count), the second with two
 * recorded calls (its shutdown totals, deliberately huge, must not count), the third with one recorded call
 * and no shutdown (the process died: the call counts, and its usage is not unknown).
 */
function threeRuns(id: string): string {
  const lines = [
    ev('session.start', '2026-03-01T10:00:00.000Z', { sessionId: id, copilotVersion: '1.0.80', startTime: '2026-03-01T10:00:00.000Z', selectedModel: 'gpt-5-mini', context: { cwd: '/work/a' } }, 0),
    ev('user.message', '2026-03-01T10:00:01.000Z', { content: 'first' }, 1),
    ev('assistant.turn_start', '2026-03-01T10:00:02.000Z', { turnId: '0' }, 2),
    ev('assistant.message', '2026-03-01T10:00:05.000Z', { messageId: 'm1', content: 'one', model: 'gpt-5-mini' }, 3),
    ev('session.shutdown', '2026-03-01T10:10:00.000Z', { shutdownType: 'routine', modelMetrics: { 'gpt-5-mini': usage(1000, 100, 600, 200) } }, 4),
    ev('session.resume', '2026-03-02T09:00:00.000Z', { selectedModel: 'claude-sonnet-4.5', context: { cwd: '/work/a' } }, 5),
    ev('user.message', '2026-03-02T09:00:01.000Z', { content: 'second' }, 6),
    ev('assistant.turn_start', '2026-03-02T09:00:02.000Z', { turnId: '1' }, 7),
    ev('assistant.message', '2026-03-02T09:10:30.000Z', { messageId: 'm2', content: 'two', model: 'claude-sonnet-4.5' }, 8),
    ev('session.shutdown', '2026-03-02T09:30:00.000Z', { shutdownType: 'routine', modelMetrics: { 'claude-sonnet-4.5': usage(999999, 99999, 0, 0) } }, 9),
    ev('session.resume', '2026-03-03T08:00:00.000Z', { selectedModel: 'gpt-5-mini', context: { cwd: '/work/a' } }, 10),
    ev('user.message', '2026-03-03T08:00:01.000Z', { content: 'third — ünïcödé' }, 11),
    ev('assistant.turn_start', '2026-03-03T08:00:02.000Z', { turnId: '2' }, 12),
    ev('assistant.message', '2026-03-03T08:05:30.000Z', { messageId: 'm3', content: 'three', model: 'gpt-5-mini' }, 13),
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** A's calls: gross input (cache reads and writes included), as the CLI records it. */
const rowsOf = (id: string): CallRow[] => [
  [id, 'claude-sonnet-4.5', null, 5000, 400, 3000, 1000, 100, '2026-03-02 09:05:00'],
  [id, 'claude-sonnet-4.5', null, 6000, 300, 4000, 500, 0, '2026-03-02 09:10:00'],
  [id, 'auto', 'gpt-5-mini', 2000, 50, null, null, null, '2026-03-03T08:05:00.000Z'],
  [id, 'gpt-5-mini', null, 77, 7, 0, 0, 0, 'not a time'],
];

/** A's usage, counted by hand: run 1's shutdown totals, then the three calls with a time. */
const A_TOTALS = {
  inputTokens: 1000 - 600 - 200 + (5000 - 3000 - 1000) + (6000 - 4000 - 500) + 2000,
  outputTokens: 100 + 400 + 300 + 50,
  cacheReadTokens: 600 + 3000 + 4000,
  cacheWriteTokens: 200 + 1000 + 500,
};

const h = copilotHomeFixture(
  'sf-copilot-store-',
  () => [[A, threeRuns(A)], [B, oneRun(B, true)], [C, oneRun(C, false)], [G, '']],
  (writer) => {
    insertCalls(writer, rowsOf(A));
    insertCalls(writer, rowsOf(G));
    // Another session's call: never counted in A's.
    insertCalls(writer, [['99999999-eeee-4eee-8eee-000000000009', 'gpt-5', null, 10, 1, 0, 0, 0, '2026-03-02 09:06:00']]);
  },
);
const sessionFile = (id: string) => h.sessionFile(id);

function totals(events: readonly SessionfoldEvent[]) {
  const u = events.filter((e): e is UsageEvent => e.type === 'usage');
  return {
    inputTokens: u.reduce((n, e) => n + e.inputTokens, 0),
    outputTokens: u.reduce((n, e) => n + e.outputTokens, 0),
    cacheReadTokens: u.reduce((n, e) => n + e.cacheReadTokens, 0),
    cacheWriteTokens: u.reduce((n, e) => n + e.cacheWriteTokens, 0),
  };
}

describe('copilot: per-call usage from session-store.db', () => {
  it('takes a run\'s recorded calls in place of its shutdown totals, and a shutdown\'s totals where none was recorded', async () => {
    const events = await readEvents(copilot, sessionFile(A));
    const u = byKind(events).usage as UsageEvent[];
    expect(u.map((e) => [e.model, e.singleRequest, e.dedupKey, e.timestamp])).toEqual([
      ['gpt-5-mini', false, `copilot:${A}:e-4:gpt-5-mini`, '2026-03-01T10:10:00.000Z'],
      ['claude-sonnet-4.5', true, `copilot:${A}:call:1`, '2026-03-02T09:05:00.000Z'],
      ['claude-sonnet-4.5', true, `copilot:${A}:call:2`, '2026-03-02T09:10:00.000Z'],
      ['gpt-5-mini', true, `copilot:${A}:call:3`, '2026-03-03T08:05:00.000Z'],
    ]);
    expect(totals(events)).toEqual(A_TOTALS);
    expect(A_TOTALS).toEqual({ inputTokens: 4700, outputTokens: 850, cacheReadTokens: 7600, cacheWriteTokens: 1700 });
    expect(u[1]).toMatchObject({ inputTokens: 1000, cacheReadTokens: 3000, cacheWriteTokens: 1000, outputTokens: 400, reasoningTokens: 100 });
    // the third run's call is recorded: its usage is known although it has no shutdown
    expect(events.some((e) => e.type === 'session' && e.usageUnknown === true)).toBe(false);
  });

  it('leaves a row without a usable time out, and counts it', () => {
    expect(sessionCalls(sessionFile(A), A)).toMatchObject({ skipped: 1 });
    expect(sessionCalls(sessionFile(A), A).calls.map((c) => c.id)).toEqual([1, 2, 3]);
    expect(createdAtMs('2026-03-02 09:05:00')).toBe(Date.parse('2026-03-02T09:05:00Z'));
    expect(createdAtMs('not a time')).toBeUndefined();
  });

  it('a session without recorded calls reads as before: shutdown totals, or usage unknown', async () => {
    expect(byKind(await readEvents(copilot, sessionFile(B))).usage).toMatchObject([{ model: 'gpt-4.1', inputTokens: 400, cacheReadTokens: 100, outputTokens: 40, singleRequest: false }]);
    const c = await readEvents(copilot, sessionFile(C));
    expect(byKind(c).usage).toEqual([]);
    expect(c.some((e) => e.type === 'session' && e.usageUnknown === true)).toBe(true);
  });

  it('every kind of read gives the same usage, whole and in chunks of 1, 2, 3, 7 and 64 bytes', async () => {
    const all = byKind(await readEvents(copilot, sessionFile(A))).usage;
    for (const kinds of [['usage'], ['usage', 'session']] as EventKind[][]) {
      expect(byKind(await readEvents(copilot, sessionFile(A), { kinds })).usage, kinds.join()).toEqual(all);
      expect(byKind(await expectChunkInvariant(copilot, sessionFile(A), { kinds })).usage).toEqual(all);
    }
    await expectChunkInvariant(copilot, sessionFile(A));
  });

  it('a log read as it grows, each read resumed from the last cursor, ends with the events of one full read', async () => {
    const text = Buffer.from(threeRuns(G));
    const ends = [...text.entries()].filter(([, b]) => b === 0x0a).map(([i]) => i + 1);
    for (const kinds of [undefined, ['usage'], ['usage', 'session']] as (EventKind[] | undefined)[]) {
      writeFileSync(sessionFile(G), '');
      const kept: SessionfoldEvent[] = [];
      let cursor: ReadCursor | undefined;
      let written = 0;
      // cut inside lines too: a read that ends mid-line must leave the tail for the next one
      for (const cut of [...ends.flatMap((e) => [e - 3, e]), text.length]) {
        if (cut <= written) continue;
        appendFileSync(sessionFile(G), text.subarray(written, cut));
        written = cut;
        const fresh: SessionfoldEvent[] = [];
        for await (const e of copilot.read(sessionFile(G), {
          kinds,
          resume: {
            from: cursor,
            onStart(s) {
              if (s.restarted) kept.length = 0;
              else
                for (const [k, n] of Object.entries(s.replaced) as [EventKind, number][]) {
                  for (let i = 0; i < n; i++) kept.splice(kept.map((x) => x.type).lastIndexOf(k), 1);
                }
            },
            onCursor(c) {
              cursor = JSON.parse(JSON.stringify(c.cursor)) as ReadCursor;
            },
          },
        }))
          fresh.push(e);
        kept.push(...fresh);
      }
      const full = await readEvents(copilot, sessionFile(G), { kinds });
      const sortKey = (e: SessionfoldEvent) => `${e.type}:${e.offset}:${JSON.stringify(e)}`;
      expect(kept.map(sortKey).sort(), String(kinds)).toEqual(full.map(sortKey).sort());
      expect(totals(kept)).toEqual(A_TOTALS);
    }
  });

  it('names the database and its -wal as the parse dependencies of a session beside it', () => {
    const db = join(h.copilotHome, 'session-store.db');
    expect(copilot.getParseDependencies(sessionFile(A))).toEqual([db, `${db}-wal`]);
    expect(copilot.getParseDependencies(join(h.home, 'elsewhere.jsonl'))).toEqual([]);
  });

  it('the built CLI: cost report and sessions list count the calls once, and leave the agent\'s folder as it was', async () => {
    writeFileSync(sessionFile(G), threeRuns(G));
    const before = await treeListing(h.copilotHome);
    const dbBytes = readFileSync(join(h.copilotHome, 'session-store.db'));
    const cli = async (args: string[]) => (await run(process.execPath, [CLI, ...args], { env: h.env })).stdout;
    const report = JSON.parse(await cli(['cost', 'report', '--agent', 'copilot', '--json', '--tz', 'UTC', '--no-cache'])) as Record<string, number>;
    // A and G (A's log and calls under another id: by hand above), B's shutdown, nothing of C, and the one
    // call of the session without a log (read from the database: test/copilot-records.test.ts)
    expect(report).toMatchObject({
      inputTokens: 2 * A_TOTALS.inputTokens + 400 + 10,
      outputTokens: 2 * A_TOTALS.outputTokens + 40 + 1,
      cacheReadTokens: 2 * A_TOTALS.cacheReadTokens + 100,
      cacheWriteTokens: 2 * A_TOTALS.cacheWriteTokens,
      requestCount: 4 + 4 + 1 + 1,
    });
    const rows = JSON.parse(await cli(['sessions', 'list', 'copilot', '--json'])) as { sessionId: string; usageUnknown?: boolean; cost?: { inputTokens: number; requestCount: number } }[];
    const a = rows.filter((r) => r.sessionId === A);
    expect(a, 'the session is listed once').toHaveLength(1);
    expect(a[0]?.cost).toMatchObject({ inputTokens: A_TOTALS.inputTokens, requestCount: 4 });
    expect(a[0]?.usageUnknown).toBeUndefined();
    expect(rows.find((r) => r.sessionId === C)?.usageUnknown).toBe(true);
    const text = await cli(['sessions', 'list', 'copilot']);
    expect(text.split('\n').find((l) => l.includes(A.slice(0, 8))) ?? '').toMatch(/\$\d+\.\d\d(?!\+)/);
    expect(await treeListing(h.copilotHome), 'no file added, changed or touched').toEqual(before);
    expect(readFileSync(join(h.copilotHome, 'session-store.db')).equals(dbBytes)).toBe(true);
  });
  it('reads the database once per state, not once per session', async () => {
    const snapshots = vi.mocked(withSqliteSnapshot);
    insertCalls(h.writer, [['99999999-eeee-4eee-8eee-000000000009', 'gpt-5', null, 1, 1, 0, 0, 0, '2026-03-05 09:00:00']]);
    snapshots.mockClear();
    for (const id of [A, B, C, G, A]) await readEvents(copilot, sessionFile(id));
    expect(snapshots).toHaveBeenCalledTimes(1);
    insertCalls(h.writer, [['99999999-eeee-4eee-8eee-000000000009', 'gpt-5', null, 1, 1, 0, 0, 0, '2026-03-05 09:01:00']]);
    for (const id of [A, B]) await readEvents(copilot, sessionFile(id));
    expect(snapshots, 'a commit is a new state').toHaveBeenCalledTimes(2);
  });

  it('a call recorded while the process runs reaches the next read of a session with no shutdown', async () => {
    expect((await readEvents(copilot, sessionFile(C))).some((e) => e.type === 'session' && e.usageUnknown === true)).toBe(true);
    insertCalls(h.writer, [[C, 'gpt-4.1', null, 300, 30, 200, 0, 0, '2026-03-04 12:00:04']]);
    const c = await readEvents(copilot, sessionFile(C));
    expect(byKind(c).usage).toMatchObject([{ model: 'gpt-4.1', inputTokens: 100, cacheReadTokens: 200, outputTokens: 30, singleRequest: true }]);
    expect(c.some((e) => e.type === 'session' && e.usageUnknown === true)).toBe(false);
  });
});
