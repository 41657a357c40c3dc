/**
 * The codebuddy codec through the built CLI (dist/), as a subprocess, over a temporary HOME holding the
 * fixtures as CodeBuddy Code lays them out (`~/.codebuddy/projects/<cwd slug>/<id>.jsonl`): `sessions list`,
 * `cost report --json --agent codebuddy` (tokens equal to the golden files) and `read`. The agent's tree is
 * the same after every command.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codebuddy } from '../codecs/codebuddy/index.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage } from './helpers/agent-cli.js';

const OWN = fileURLToPath(new URL('../fixtures/codebuddy/projects/', import.meta.url));
const EXPECTED = fileURLToPath(new URL('../fixtures/expected/codebuddy/', import.meta.url));
const IDS = ['5b0d1f5c-2f7e-4c8a-9d55-3c1e0a7b9e21', '9c3e7a10-6b2d-4f0e-8a1c-2d4f6b8e0a13'];

let home: string;
let before: string[];
const tree = (): Promise<string[]> => treeListing(join(home, '.codebuddy'));

beforeAll(async () => {
  await buildIfStale(['codebuddy']);
  home = await mkdtemp(join(tmpdir(), 'sf-codebuddy-cli-'));
  await cp(OWN, join(home, '.codebuddy', 'projects'), { recursive: true });
  before = await tree();
}, 300_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const cli = agentCli(() => home, tree, () => before);

describe('sessionfold CLI over a CodeBuddy Code tree', () => {
  it('sessions list codebuddy lists every transcript with its title and cwd', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'codebuddy', '--json'])) as { sessionId: string; agent: string; title?: string; cwd?: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(IDS);
    expect(rows.every((r) => r.agent === 'codebuddy')).toBe(true);
    expect(rows.map((r) => [r.title, r.cwd]).sort()).toEqual([
      ['README summary', '/home/alice/admin-panel'],
      ['修复 add 测试', '/home/alice/repo'],
    ]);
  });

  it('cost report --json --agent codebuddy has the golden tokens, cold and from the warm cache', async () => {
    const usage = await goldenUsage(IDS.map((id) => join(EXPECTED, `${id}.jsonl.events.jsonl`)));
    expect(usage.length).toBe(5);
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'codebuddy', '--group-by', 'agent'])) as { breakdowns: Record<string, Parameters<typeof expectGoldenRow>[0]> };
    expectGoldenRow(report.breakdowns.codebuddy, 'codebuddy', usage);
    const total = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'codebuddy'])) as { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; outputTokens: number; requestCount: number };
    expect(total).toMatchObject({ inputTokens: 252 + 24903 + 64700 + 700, cacheReadTokens: 14720 + 24448 + 76032 + 140800, cacheWriteTokens: 9766, outputTokens: 60 + 85 + 20 + 635 + 40, requestCount: 5 });
    const warm = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'codebuddy'])) as typeof total;
    expect(warm, 'a second report from the warm cache').toEqual(total);
  });

  it('read --agent codebuddy streams the library events', async () => {
    const path = join(home, '.codebuddy', 'projects', 'home-alice-repo', `${IDS[0]}.jsonl`);
    const events = (await cli(['read', path, '--agent', 'codebuddy'])).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(events).toEqual(await readEvents(codebuddy, path));
    expect(events.filter((e) => e.type === 'usage').length).toBe(3);
  });
});
