/**
 * The dsh codec through the built CLI (dist/), as a subprocess, over a temporary HOME holding fixtures/dsh/home
 * (`~/.dsh/sessions`, compressed, and Cherry Studio's dsh folder) and `$DSH_SESSION_ROOT` pointing at
 * fixtures/dsh/sdk-sessions (plain logs): `sessions list dsh` (the current generations alone, the sessions
 * whose usage is partly unrecorded said so), `sessions show`, `cost report --json --agent dsh` (tokens equal to
 * the golden files, a fork's inherited calls once) and a compressed log growing by a frame between two reports.
 * The agent's folders are the same, byte for byte, after every command.
 */
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashesReady } from '../cursors/ids.js';
import { treeDigests } from './helpers/files.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';
import { rawZstdFrame } from './helpers/zstd-raw.js';
import { CHERRY, CURRENT, DSH_EXPECTED as EXPECTED, DSH_FIXTURES as FIXTURES, MAIN, N3 } from './helpers/dsh-fixtures.js';

let tmp: string;
let home: string;
let sdk: string;
let before: string[];

/** Every file and folder under the agent's folders, with a digest of each file's bytes. */
const trees = (): Promise<string[]> => treeDigests([join(home, '.dsh'), join(home, '.config'), sdk]);

beforeAll(async () => {
  await buildIfStale(['dsh']);
  tmp = await mkdtemp(join(tmpdir(), 'sf-dsh-cli-'));
  home = join(tmp, 'home');
  sdk = join(tmp, 'sdk-sessions');
  await cp(join(FIXTURES, 'home'), home, { recursive: true });
  await cp(join(FIXTURES, 'sdk-sessions'), sdk, { recursive: true });
  before = await trees();
}, 300_000);

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const cli = agentCli(
  () => home,
  trees,
  () => before,
  () => ({ DSH_SESSION_ROOT: sdk }),
);

type Report = AgentRow & { totalUsd: number; unpricedCount: number };

describe('sessionfold CLI over DeepSeek Harness folders', () => {
  it('sessions list dsh lists each session\u2019s current generation once; those with unrecorded calls say so', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'dsh', '--json'])) as { sessionId: string; agent: string; cwd?: string; usageUnknown?: true }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual([...CURRENT].sort());
    expect(rows.every((r) => r.agent === 'dsh')).toBe(true);
    expect(rows.find((r) => r.sessionId === MAIN)).toMatchObject({ cwd: '/home/dev/shop-api' });
    expect(rows.find((r) => r.sessionId === CHERRY)).toMatchObject({ cwd: '/home/dev/site' });
    expect(rows.filter((r) => r.usageUnknown === true).map((r) => r.sessionId).sort()).toEqual([MAIN, N3].sort());
  });

  it('sessions show prints the conversation of a compressed log', async () => {
    const out = await cli(['sessions', 'show', 'dsh', MAIN]);
    expect(out).toContain('Why does GET /orders return 500');
    expect(out).toContain('has no initial value');
  });

  it('cost report --json --agent dsh has the golden tokens, a fork\u2019s inherited calls counted once', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'dsh'])) as Report;
    const usage = await goldenUsage(CURRENT.map((id) => join(EXPECTED, `${id}.events.jsonl`)));
    expectGoldenRow(report, 'dsh', usage);
    expect(report).toMatchObject({ requestCount: 11 });
  });

  it('a frame appended to a compressed log is in the next report, and the earlier calls once', async () => {
    await hashesReady();
    const file = join(home, '.dsh', 'sessions', '--home-dev-shop-api--', MAIN, 'session.v3.jsonl.zstd');
    const usage = { inputTokens: 700, outputTokens: 50, cacheReadTokens: 6400 };
    const lines = [
      { type: 'turn/start', data: { turn: 3 }, seq: 30, time: 1787900090000 },
      { type: 'step/start', data: { turn: 3, step: 1 }, seq: 31, time: 1787900090001 },
      { type: 'assistant/message', data: { turn: 3, step: 1, message: { id: 'msg-7c1e-0004', role: 'assistant', content: [{ type: 'text', text: 'Tests pass.' }], source: { kind: 'model', provider: 'deepseek-official', model: 'deepseek-v4-flash' } }, stream: [], usage }, surfaceOp: 'append', seq: 32, time: 1787900093000 },
    ];
    const prior = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'dsh'])) as Report;
    await appendFile(file, rawZstdFrame(Buffer.from(lines.map((l) => JSON.stringify(l) + '\n').join(''))));
    before = await trees();
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'dsh'])) as Report;
    expect(report).toMatchObject({ inputTokens: prior.inputTokens + 700, cacheReadTokens: prior.cacheReadTokens + 6400, outputTokens: prior.outputTokens + 50, requestCount: prior.requestCount + 1 });
  });
});
