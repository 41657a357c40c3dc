/**
 * pi sessions through the event cache (in process, `runCli`): a warm report after lines are appended, a
 * branch, and a session_info name equals a report without the cache, and the session list follows.
 */
import { appendFile, copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import type { CostSummary } from '../src/cost/types.js';
import { sink } from './cost-history.js';
import { assistant, jsonl, PI_V1, PI_V3, user } from './pi-helpers.js';

let tmp: string;
let env: NodeJS.ProcessEnv;
let v3: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sf-pi-cache-'));
  const dir = join(tmp, 'pi-agent', 'sessions', '--tmp-as-agent-fixture-project--');
  await mkdir(dir, { recursive: true });
  v3 = join(dir, '2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl');
  await copyFile(PI_V3, v3);
  await copyFile(PI_V1, join(dir, '2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl'));
  env = { HOME: join(tmp, 'home'), PI_CODING_AGENT_DIR: join(tmp, 'pi-agent'), TZ: 'UTC', NO_COLOR: '1' };
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<string> {
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(args, { stdout, stderr, env });
  expect(stderr.text()).toBe('');
  expect(code).toBe(0);
  return stdout.text();
}

async function report(cache: boolean): Promise<CostSummary> {
  const args = ['cost', 'report', '--json', '--group-by', 'agent', '--agent', 'pi', ...(cache ? ['--cache', join(tmp, 'events.db')] : ['--no-cache'])];
  return JSON.parse(await cli(args)) as CostSummary;
}

describe('pi through the event cache', () => {
  it('a warm report after appended lines equals a cold one', async () => {
    const first = await report(true);
    expect(first).toEqual(await report(false));
    // The v3 fixture's last entry is 2c19d326: a new turn under it, then a branch back to its first answer.
    await appendFile(v3, jsonl([user('n1', '2c19d326', 'more'), assistant('n2', 'n1', 'ok', 1000, 200, 0.0123), user('n3', '22a2720e', 'other way'), assistant('n4', 'n3', 'fine', 2000, 300)]));
    const warm = await report(true);
    expect(warm).toEqual(await report(false));
    expect(warm.requestCount).toBe(first.requestCount + 2);
    expect(warm.inputTokens).toBe(first.inputTokens + 3000);
    expect(warm.totalUsd).toBeGreaterThan(first.totalUsd);
  });

  it('sessions show follows the new branch; the list takes a session_info name as the title', async () => {
    const shown = JSON.parse(await cli(['sessions', 'show', 'pi', '019e19b4-eb48-746a-aa6b-8dfcfa37954b', '--format', 'json'])) as { messages: { content: string }[] };
    expect(shown.messages.map((m) => m.content)).toEqual(['Read hello.py and summarize what it prints without editing files.', 'hello.py prints a fixture greeting.', 'other way', 'fine']);
    await appendFile(v3, jsonl([{ type: 'session_info', id: 'nm', parentId: 'n4', timestamp: '2026-06-01T00:00:00.000Z', name: 'Greeting check' }]));
    const list = JSON.parse(await cli(['sessions', 'list', 'pi', '--json'])) as { sessionId: string; title: string }[];
    expect(list.find((s) => s.sessionId === '019e19b4-eb48-746a-aa6b-8dfcfa37954b')?.title).toBe('Greeting check');
  });
});
