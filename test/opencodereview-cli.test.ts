/**
 * The opencodereview codec through the built CLI (dist/), as a subprocess, over a temporary HOME holding
 * fixtures/opencodereview at `~/.opencodereview/sessions/` and a raw HTTP capture at `~/.opencodereview/raw/`
 * (the same calls again, never to be counted): `sessions list opencodereview` (the killed run's usage
 * unknown), `sessions show`, `cost report --json --agent opencodereview` (tokens equal to the golden files) and a
 * session growing between two reports. The agent's tree is byte for byte the same after every command.
 */
import { appendFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeDigests } from './helpers/files.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';

const FIXTURES = new URL('../fixtures/opencodereview/sessions/', import.meta.url).pathname;
const EXPECTED = new URL('../fixtures/expected/opencodereview/', import.meta.url).pathname;
const DONE = '3f2c9a1e-7b4d-4e8a-9c51-0d6e2f8a4b17';
const KILLED = '8d1e5f3a-2c6b-4a9e-b7d0-4f1a9c3e6b25';

let home: string;
let before: string[];

beforeAll(async () => {
  await buildIfStale(['opencodereview']);
  home = await mkdtemp(join(tmpdir(), 'sf-opencodereview-cli-'));
  await cp(FIXTURES, join(home, '.opencodereview', 'sessions'), { recursive: true });
  // OCR's raw capture of the same calls (internal/session/raw_writer.go): another folder, never a session
  const raw = join(home, '.opencodereview', 'raw', 'home-dev-shop-api');
  await mkdir(raw, { recursive: true });
  await writeFile(join(raw, `${DONE}.jsonl`), `${JSON.stringify({ sessionId: DONE, timestamp: '2026-03-10T08:00:07Z', response: { usage: { prompt_tokens: 5230, completion_tokens: 88 } } })}\n`);
  before = await trees();
}, 300_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const trees = (): Promise<string[]> => treeDigests([join(home, '.opencodereview')]);
const cli = agentCli(() => home, trees, () => before);

type Report = AgentRow & { totalUsd: number; unpricedCount: number };

describe('sessionfold CLI over an Open Code Review tree', () => {
  it('sessions list opencodereview lists every review run with its repository; the killed one says its usage is unknown', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'opencodereview', '--json'])) as { sessionId: string; agent: string; cwd?: string; usageUnknown?: true }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual([DONE, KILLED]);
    expect(rows.every((r) => r.agent === 'opencodereview' && r.cwd === '/home/dev/shop-api')).toBe(true);
    expect(rows.filter((r) => r.usageUnknown === true).map((r) => r.sessionId)).toEqual([KILLED]);
  });

  it('sessions show prints the conversation', async () => {
    const out = await cli(['sessions', 'show', 'opencodereview', DONE]);
    expect(out).toContain('Review the diff of src/orders.ts');
    expect(out).toContain('Rounding after the sum hides cent drift');
  });

  it('cost report --json --agent opencodereview has the golden tokens, each response once and priced', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'opencodereview'])) as Report;
    const usage = await goldenUsage([DONE, KILLED].map((id) => join(EXPECTED, `${id}.events.jsonl`)));
    expectGoldenRow(report, 'opencodereview', usage);
    expect(report).toMatchObject({ inputTokens: 4348, cacheReadTokens: 6656, cacheWriteTokens: 4408, outputTokens: 571, requestCount: 5 });
    expect(report.unpricedCount).toBe(0);
    expect(report.totalUsd).toBeGreaterThan(0);
  });

  it('a response appended to a session is in the next report, and the earlier ones once', async () => {
    const file = join(home, '.opencodereview', 'sessions', 'home-dev-shop-api', `${KILLED}.jsonl`);
    const rec = { content: 'Done.', duration_ms: 900, filePath: 'src/cart.ts', model: 'gpt-4.1-mini', parentUuid: 'a1000000-0000-4000-8000-000000000019', sessionId: KILLED, taskType: 'review_filter_task', timestamp: '2026-03-10T09:30:09Z', tool_calls: [], type: 'llm_response', usage: { cache_read_tokens: 0, cache_write_tokens: 0, completion_tokens: 4, prompt_tokens: 300 }, uuid: 'a1000000-0000-4000-8000-000000000099' };
    await appendFile(file, JSON.stringify(rec) + '\n');
    before = await trees();
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'opencodereview'])) as Report;
    expect(report).toMatchObject({ inputTokens: 4648, cacheReadTokens: 6656, outputTokens: 575, requestCount: 6 });
  });
});
