/**
 * The commandcode codec through the built CLI (dist/), as a subprocess, over a temporary HOME holding
 * fixtures/commandcode at `~/.commandcode/projects/`: `sessions list commandcode` (the legacy transcript's
 * usage unknown, the checkpoint logs not listed), `sessions show`, `cost report --json --agent commandcode`
 * (tokens equal to the golden files, Command Code's recorded cost in auto mode) and a transcript growing
 * between two reports. The agent's tree is the same after every command.
 */
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeListing } from './helpers/files.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';

const FIXTURES = new URL('../fixtures/commandcode/projects/', import.meta.url).pathname;
const EXPECTED = new URL('../fixtures/expected/commandcode/', import.meta.url).pathname;
const MAIN = '5d7c1e2a-8b34-4f61-9c0d-2a6e4b8f1c03';
const LEGACY = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
const COSTS = [0.003771368, 0.003746204, 0.003852488];

let home: string;
let before: string[];

beforeAll(async () => {
  await buildIfStale(['commandcode']);
  home = await mkdtemp(join(tmpdir(), 'sf-commandcode-cli-'));
  await cp(FIXTURES, join(home, '.commandcode', 'projects'), { recursive: true });
  before = await trees();
}, 300_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const trees = (): Promise<string[]> => treeListing(join(home, '.commandcode'));
const cli = agentCli(() => home, trees, () => before);

type Report = AgentRow & { totalUsd: number; unpricedCount: number };

describe('sessionfold CLI over a Command Code tree', () => {
  it('sessions list commandcode lists the transcripts alone; the legacy one says its usage is unknown', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'commandcode', '--json'])) as { sessionId: string; agent: string; cwd?: string; usageUnknown?: true }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual([MAIN, LEGACY]);
    expect(rows.every((r) => r.agent === 'commandcode')).toBe(true);
    expect(rows.find((r) => r.sessionId === MAIN)).toMatchObject({ cwd: '/home/dev/shop-api' });
    expect(rows.filter((r) => r.usageUnknown === true).map((r) => r.sessionId)).toEqual([LEGACY]);
  });

  it('sessions show prints the conversation', async () => {
    const out = await cli(['sessions', 'show', 'commandcode', MAIN]);
    expect(out).toContain('Why does GET /orders return 500');
    expect(out).toContain('reduce() has no initial value');
  });

  it('cost report --json --agent commandcode has the golden tokens and the cost Command Code recorded', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'commandcode'])) as Report;
    const usage = await goldenUsage([MAIN, LEGACY].map((id) => join(EXPECTED, `${id}.events.jsonl`)));
    expectGoldenRow(report, 'commandcode', usage);
    expect(report).toMatchObject({ inputTokens: 8702, cacheReadTokens: 40640, outputTokens: 349, requestCount: 3, unpricedCount: 0 });
    expect(report.totalUsd).toBeCloseTo(COSTS.reduce((a, c) => a + c, 0), 9);
  });

  it('an entry appended to a transcript is in the next report, and the earlier ones once', async () => {
    const file = join(home, '.commandcode', 'projects', 'home-dev-shop-api', `${MAIN}.jsonl`);
    const entry = { type: 'message', id: '1b8e7d9c', parentId: '0a7d6c8b', timestamp: '2026-03-02T09:18:00.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'Tests pass.' }], meta: { source: 'model', createdAt: 1772443080000, messageId: '6e7f8091-a2b3-44c5-9667-e8f9a0b1c2d3' } }, usage: { inputTokens: 17000, outputTokens: 10, cacheReadTokens: 16640, cacheWriteTokens: 0, costUsd: 0.001 }, model: 'deepseek/deepseek-v4-flash' };
    await appendFile(file, JSON.stringify(entry) + '\n');
    before = await trees();
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'commandcode'])) as Report;
    expect(report).toMatchObject({ inputTokens: 9062, cacheReadTokens: 57280, outputTokens: 359, requestCount: 4 });
    expect(report.totalUsd).toBeCloseTo(COSTS.reduce((a, c) => a + c, 0.001), 9);
  });
});
