/**
 * The reasonix codec through the built CLI (dist/), as a subprocess, over a temporary HOME holding
 * fixtures/reasonix/home (`~/.reasonix/stats`): `sessions list reasonix` (a session per day), `cost report
 * --json --agent reasonix` (tokens equal to the golden files) and a day file growing by a line between two
 * reports, then the same under `$REASONIX_STATE_HOME`. The agent's folder is the same, byte for byte, after
 * every command.
 */
import { mkdtempSync } from 'node:fs';
import { appendFile, cp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeDigests } from './helpers/files.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reasonix/', import.meta.url));
const EXPECTED = fileURLToPath(new URL('../fixtures/expected/reasonix/', import.meta.url));
const DAYS = ['2026-08-02', '2026-08-03'];

/** The temporary HOME, and the folder `$REASONIX_STATE_HOME` names once a test sets it. */
const tmp = mkdtempSync(join(tmpdir(), 'sf-reasonix-cli-'));
const home = join(tmp, 'home');
let state: string | undefined;
let before: string[] = [];

/** Every file and folder under the agent's folder, with a digest of each file's bytes. */
const trees = (): Promise<string[]> => treeDigests([state ?? join(home, '.reasonix')]);
const cli = agentCli(() => home, trees, () => before, (): Record<string, string> => (state === undefined ? {} : { REASONIX_STATE_HOME: state }));

beforeAll(async () => {
  await buildIfStale(['reasonix']);
  await cp(join(FIXTURES, 'home'), home, { recursive: true });
  before = await trees();
}, 300_000);

afterAll(() => rm(tmp, { recursive: true, force: true }));

type Report = AgentRow & { totalUsd: number };

describe('sessionfold CLI over Reasonix stats', () => {
  it('sessions list reasonix lists a session per day', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'reasonix', '--json'])) as { sessionId: string; agent: string; title?: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(DAYS);
    expect(rows.every((r) => r.agent === 'reasonix' && r.title?.startsWith('Reasonix usage on '))).toBe(true);
  });

  it('cost report --json --agent reasonix has the golden tokens, priced', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'reasonix'])) as Report;
    const usage = await goldenUsage(DAYS.map((d) => join(EXPECTED, `${d}.events.jsonl`)));
    expectGoldenRow(report, 'reasonix', usage);
    expect(report).toMatchObject({ requestCount: 5 });
  });

  it('a line appended to a day file is in the next report, and the earlier rows once', async () => {
    const prior = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'reasonix'])) as Report;
    const row = { ts: '2026-08-03T22:30:00.000000001+02:00', model: 'deepseek/deepseek-v4-flash', source: 'desktop', prompt: 900, completion: 40, cache_hit: 640, cache_miss: 260, total: 940, requests: 1 };
    await appendFile(join(home, '.reasonix', 'stats', '2026-08-03.jsonl'), JSON.stringify(row) + '\n');
    before = await trees();
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'reasonix'])) as Report;
    expect(report).toMatchObject({ inputTokens: prior.inputTokens + 260, cacheReadTokens: prior.cacheReadTokens + 640, outputTokens: prior.outputTokens + 40, requestCount: prior.requestCount + 1 });
  });

  it('REASONIX_STATE_HOME moves the folder it reads', async () => {
    state = join(tmp, 'state');
    await cp(join(FIXTURES, 'home', '.reasonix'), state, { recursive: true });
    before = await trees();
    const rows = JSON.parse(await cli(['sessions', 'list', 'reasonix', '--json'])) as { sessionId: string; path?: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(DAYS);
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'reasonix'])) as Report;
    expect(report.requestCount).toBe(5);
  });
});
