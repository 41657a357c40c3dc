/**
 * The zed codec through the built CLI (dist/), as a subprocess, over a temporary HOME holding a `threads.db`
 * built from Zed's DDL at `~/.local/share/zed/threads/threads.db` (test/helpers/zed-db.ts): `sessions list
 * zed`, `cost report --json --agent zed` (the golden usage priced, the note that one thread's tokens are a
 * lower bound) and `read`. Zed's data folder is the same after every command.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zed } from '../codecs/zed/index.js';
import type { SessionFile } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { discoverAll, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { agentCli, agentCliOutput, buildIfStale, goldenUsage } from './helpers/agent-cli.js';
import { layOutZed, ZED_FIXTURES } from './helpers/zed-db.js';

const GOLDEN = new URL('../fixtures/expected/zed/zed.events.jsonl', import.meta.url).pathname;

let home: string;
let before: string[];
let files: SessionFile[];

beforeAll(async () => {
  await buildIfStale(['zed']);
  home = await mkdtemp(join(tmpdir(), 'sf-zed-cli-'));
  layOutZed(home);
  files = await discoverAll(zed, zed.defaultRoots({ HOME: home }));
  before = await trees();
}, 300_000);

const trees = (): Promise<string[]> => treeListing(join(home, '.local', 'share', 'zed'));

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const cli = agentCli(() => home, trees, () => before);
const cliBoth = agentCliOutput(() => home, trees, () => before);

describe('sessionfold CLI over a Zed data folder', () => {
  it('sessions list zed lists every top-level thread that decodes, with its title', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'zed', '--json'])) as { sessionId: string; agent: string; title?: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(['1e2d3c4b-aaaa-4bbb-8ccc-0d0e0f101112', '3f1c9a52-7b2e-4d8a-9c61-0a1b2c3d4e5f', '5b6c7d8e-0f1a-4b2c-9d3e-4f5a6b7c8d9e', '6e6e6e6e-1234-4abc-8def-aaaaaaaaaaaa']);
    expect(rows.every((r) => r.agent === 'zed')).toBe(true);
    expect(await cli(['sessions', 'list', 'zed'])).toContain('Fix the cart total rounding');
  });

  it('cost report --json --agent zed: the golden usage, every request priced, the lower bound noted', async () => {
    const { out, err } = await cliBoth(['cost', 'report', '--agent', 'zed', '--json']);
    const report = JSON.parse(out) as { totalUsd: number; requestCount: number; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; unpricedCount: number };
    const usage = await goldenUsage([GOLDEN]);
    const sum = (f: (u: (typeof usage)[number]) => number) => usage.reduce((a, u) => a + f(u), 0);
    expect(report).toMatchObject({
      requestCount: usage.length,
      inputTokens: sum((u) => u.inputTokens),
      outputTokens: sum((u) => u.outputTokens),
      cacheReadTokens: sum((u) => u.cacheReadTokens),
      cacheWriteTokens: sum((u) => u.cacheWriteTokens),
      unpricedCount: 0,
    });
    expect(report.totalUsd).toBeGreaterThan(0);
    expect(err).toContain('note: zed: 1 session has tokens the agent has not recorded');
  });

  it('read --agent zed streams the library events', async () => {
    const path = files.find((f) => f.sessionId === '3f1c9a52-7b2e-4d8a-9c61-0a1b2c3d4e5f')!.path;
    const events = (await cli(['read', path, '--agent', 'zed'])).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(events).toEqual(await readEvents(zed, path));
    expect(events.some((e) => e.type === 'message')).toBe(true);
  });
});

describe('a Zed thread saved again, through the event cache', () => {
  it('its new total replaces the one counted before: the thread counts once, at its latest total', async () => {
    const h = await mkdtemp(join(tmpdir(), 'sf-zed-resave-'));
    try {
      const path = layOutZed(h);
      const run = agentCliOutput(() => h, async () => [], () => []);
      const report = async () => JSON.parse((await run(['cost', 'report', '--agent', 'zed', '--json'])).out) as { requestCount: number; inputTokens: number; outputTokens: number; cacheReadTokens: number };
      const first = await report();
      expect(existsSync(join(h, '.cache', 'sessionfold', 'events.db')), 'the second report is a warm one').toBe(true);
      // Zed's next save of the thread: the row rewritten in place (`INSERT … ON CONFLICT(id) DO UPDATE`)
      const db = new Database(path);
      const blob = readFileSync(join(ZED_FIXTURES, 'threads', '3f1c9a52-7b2e-4d8a-9c61-0a1b2c3d4e5f.later.json.zst'));
      const rowid = (db.prepare('SELECT rowid AS r FROM threads WHERE id = ?').get('3f1c9a52-7b2e-4d8a-9c61-0a1b2c3d4e5f') as { r: number }).r;
      db.prepare('INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET summary = excluded.summary, updated_at = excluded.updated_at, data_type = excluded.data_type, data = excluded.data').run('3f1c9a52-7b2e-4d8a-9c61-0a1b2c3d4e5f', 'Fix the cart total rounding', '2026-10-04T08:02:11.905118220+00:00', 'zstd', blob);
      expect((db.prepare('SELECT rowid AS r FROM threads WHERE id = ?').get('3f1c9a52-7b2e-4d8a-9c61-0a1b2c3d4e5f') as { r: number }).r, 'the same rowid: no watermark would see it').toBe(rowid);
      db.close();
      const later = new Date(Date.now() + 5000);
      await utimes(path, later, later);
      const second = await report();
      expect(second).toEqual({ ...second, requestCount: first.requestCount, inputTokens: first.inputTokens + 2050, outputTokens: first.outputTokens + 330, cacheReadTokens: first.cacheReadTokens + 24100 });
    } finally {
      await rm(h, { recursive: true, force: true });
    }
  });
});
