/**
 * The zed codec through the built CLI (dist/), as a subprocess, over a temporary HOME holding a `threads.db`
 * built from Zed's DDL at `~/.local/share/zed/threads/threads.db` (test/helpers/zed-db.ts): `sessions list
 * zed`, `cost report --json --agent zed` (the golden usage priced, the note that one thread's tokens are a
 * lower bound) and `read`. Zed's data folder is the same after every command.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zed } from '../codecs/zed/index.js';
import type { SessionFile } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { discoverAll, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { agentCli, agentCliOutput, buildIfStale, goldenUsage } from './helpers/agent-cli.js';
import { layOutZed } from './helpers/zed-db.js';

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
