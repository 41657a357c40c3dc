/**
 * The junie codec through the built CLI (dist/), as a subprocess, over a temporary HOME holding fixtures/junie
 * at `~/.junie/sessions/`: `sessions list junie`, `sessions show`, `cost report --json --agent junie` (tokens
 * equal to the golden files, Junie's own cost in auto mode) and a session log growing between two reports.
 * The agent's tree is the same after every command.
 */
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeListing } from './helpers/files.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';

const FIXTURES = new URL('../fixtures/junie/sessions/', import.meta.url).pathname;
const EXPECTED = new URL('../fixtures/expected/junie/', import.meta.url).pathname;
const IDS = ['session-260824-172944-kgus', 'session-260824-174155-sm5c', 'session-260825-151015-1bxv'];
const COSTS = [0.00317, 0.2388975, 9.360000000000001e-5, 0.092276, 3.2720000000000004e-4];

let home: string;
let before: string[];

beforeAll(async () => {
  await buildIfStale(['junie']);
  home = await mkdtemp(join(tmpdir(), 'sf-junie-cli-'));
  await cp(FIXTURES, join(home, '.junie', 'sessions'), { recursive: true });
  before = await trees();
}, 300_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const trees = (): Promise<string[]> => treeListing(join(home, '.junie'));
const cli = agentCli(() => home, trees, () => before);

type Report = AgentRow & { totalUsd: number; unpricedCount: number; breakdowns?: Record<string, AgentRow> };

describe('sessionfold CLI over a Junie tree', () => {
  it('sessions list junie lists every session folder, with its prompt as the title and its folder', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'junie', '--json'])) as { sessionId: string; agent: string; title: string; cwd?: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(IDS);
    expect(rows.every((r) => r.agent === 'junie')).toBe(true);
    const metrics = rows.find((r) => r.sessionId === IDS[2])!;
    expect(metrics.title).toMatch(/^I want to add the ability to schedule visits/);
    expect(metrics.cwd).toBe('/home/dev/Workspace/spring-petclinic-reactive');
  });

  it('sessions show prints the prompt and the task\u2019s result', async () => {
    const out = await cli(['sessions', 'show', 'junie', IDS[1]!]);
    expect(out).toContain('test');
    expect(out).toContain('Test received! I am up and running');
  });

  it('cost report --json --agent junie has the golden tokens and the cost Junie recorded per call', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'junie'])) as Report;
    const usage = await goldenUsage(IDS.map((id) => join(EXPECTED, `${id}.events.jsonl`)));
    expectGoldenRow(report, 'junie', usage);
    expect(report).toMatchObject({ inputTokens: 4108, cacheReadTokens: 18631, cacheWriteTokens: 23457, outputTokens: 413, requestCount: 5, unpricedCount: 0 });
    expect(report.totalUsd).toBeCloseTo(COSTS.reduce((a, c) => a + c, 0), 9);
    const byAgent = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent'])) as Report;
    expectGoldenRow(byAgent.breakdowns?.junie, 'junie', usage);
  });

  it('a call appended to a session log is in the next report, and the earlier calls once', async () => {
    const file = join(home, '.junie', 'sessions', IDS[0]!, 'events.jsonl');
    const call = { kind: 'SessionA2uxEvent', event: { state: 'IN_PROGRESS', agentEvent: { kind: 'LlmResponseMetadataEvent', agent: { kind: 'MainAgent', id: 'main', name: 'main', type: 'LINEAR' }, modelUsage: [{ model: 'gpt-4.1-mini-2025-04-14', cost: 0.001, inputTokens: 1000, cacheInputTokens: 0, cacheCreateTokens: 0, outputTokens: 7, time: 0 }] } }, taskId: 'task-260824-172944-5ien', timestampMs: 1787585390000 };
    await appendFile(file, JSON.stringify(call) + '\n');
    before = await trees();
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'junie'])) as Report;
    expect(report).toMatchObject({ inputTokens: 5108, outputTokens: 420, requestCount: 6 });
    expect(report.totalUsd).toBeCloseTo(COSTS.reduce((a, c) => a + c, 0.001), 9);
  });
});
