/**
 * Cline, Roo Code and Kilo Code through the built CLI (dist/), as a subprocess, over a temporary HOME whose
 * `~/.config/<editor>/User/globalStorage/<extension id>/tasks/` holds every fixture task (Cline under VS Code,
 * Roo Code under Cursor, Kilo Code under VSCodium): `agents`, `sessions list|show` (Roo Code's work dir and title
 * from `history_item.json`, again after it changes; a subtask marked as its parent's subagent), `cost report --json
 * --group-by agent` (tokens equal to the golden files, again from the warm cache, and again after a task's
 * prompt history changes) and `read` with and without `--agent`. The agents' trees are the same after every
 * command.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kilo } from '../codecs/kilo/index.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
const FIXTURES = join(ROOT, 'fixtures');
const AGENTS = { cline: ['Code', 'saoudrizwan.claude-dev'], roo: ['Cursor', 'rooveterinaryinc.roo-cline'], kilo: ['VSCodium', 'kilocode.kilo-code'] } as const;
type Agent = keyof typeof AGENTS;

let home: string;
let before: string[];
const storage = (agent: Agent) => join(home, '.config', AGENTS[agent][0], 'User', 'globalStorage', AGENTS[agent][1]);

beforeAll(async () => {
  const built = join(ROOT, 'dist', 'codecs', 'cline', 'parse.js');
  const src = join(ROOT, 'codecs', 'cline', 'parse.ts');
  if (!existsSync(CLI) || !existsSync(built) || statSync(built).mtimeMs < statSync(src).mtimeMs) await run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT });
  home = await mkdtemp(join(tmpdir(), 'sf-cline-cli-'));
  for (const agent of Object.keys(AGENTS) as Agent[]) await cp(join(FIXTURES, agent), storage(agent), { recursive: true });
  before = await trees();
}, 300_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

async function trees(): Promise<string[]> {
  return treeListing(join(home, '.config'));
}

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await run(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    maxBuffer: 64 << 20,
    env: { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(home, '.cache'), XDG_CONFIG_HOME: join(home, '.config'), NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200', ...env },
  });
  expect(await trees(), `${args.join(' ')} leaves the agents' trees as they were`).toEqual(before);
  return r.stdout;
}

async function tasks(agent: Agent): Promise<string[]> {
  return (await readdir(join(FIXTURES, agent, 'tasks'), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

async function goldenUsage(agent: Agent): Promise<UsageEvent[]> {
  const out: UsageEvent[] = [];
  for (const id of await tasks(agent)) {
    for (const l of (await readFile(join(FIXTURES, 'expected', agent, `${id}.events.jsonl`), 'utf8')).split('\n').filter(Boolean)) {
      const e = JSON.parse(l) as SessionfoldEvent;
      if (e.type === 'usage') out.push(e);
    }
  }
  return out;
}

type Row = { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; requestCount: number };

describe('sessionfold CLI over Cline, Roo Code and Kilo Code storage', () => {
  it('agents lists the three with their roots, persistence and incremental reads', async () => {
    const rows = JSON.parse(await cli(['agents', '--json'])) as { id: string; persistence: string; incremental: boolean; roots: string[] }[];
    for (const agent of Object.keys(AGENTS) as Agent[]) {
      expect(rows.find((r) => r.id === agent), agent).toMatchObject({ persistence: 'json', incremental: true });
      expect(rows.find((r) => r.id === agent)!.roots).toContain(storage(agent));
    }
  });

  it.each(Object.keys(AGENTS) as Agent[])('sessions list %s lists every task', async (agent) => {
    const rows = JSON.parse(await cli(['sessions', 'list', agent, '--json'])) as { sessionId: string; agent: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(await tasks(agent));
    expect(rows.every((r) => r.agent === agent)).toBe(true);
  });

  it('sessions list roo takes the work dir and title from history_item.json, again when it alone changes', async () => {
    const id = '019c5114-2280-7c3a-9e1f-4b6d2a8c0f35';
    const row = async () => (JSON.parse(await cli(['sessions', 'list', 'roo', '--json'])) as { sessionId: string; cwd?: string; title?: string }[]).find((r) => r.sessionId === id);
    expect(await row()).toMatchObject({ cwd: '/home/dev/shop', title: 'Add a CSV export to the orders page' });
    const item = join(storage('roo'), 'tasks', id, 'history_item.json');
    const original = await readFile(item, 'utf8');
    try {
      await writeFile(item, JSON.stringify({ ...JSON.parse(original), workspace: '/home/dev/shop-renamed', title: 'CSV export' }));
      before = await trees();
      expect(await row(), 'a parse dependency: the warm cache reads the task again').toMatchObject({ cwd: '/home/dev/shop-renamed', title: 'CSV export' });
    } finally {
      await writeFile(item, original);
      before = await trees();
    }
  });

  it('sessions list roo marks a subtask as its parent\'s subagent; each row costs its own requests', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'roo', '--json'])) as { sessionId: string; forkedFrom?: string; subagent?: true; cost?: { totalUsd: number } }[];
    const by = new Map(rows.map((r) => [r.sessionId, r]));
    const [parent, child] = ['019c5dc9-4f00-7a41-8b52-6c7d8e9f0a1b', '019c5dc9-5ea0-7c63-9d74-0e1f2a3b4c5d'];
    expect(by.get(child)).toMatchObject({ forkedFrom: parent, subagent: true });
    expect(by.get(parent)!.subagent).toBeUndefined();
    expect(by.get(parent)!.forkedFrom).toBeUndefined();
    // Roo Code's own figure for each task (history_item.json totalCost, its own requests only), not parent plus child.
    for (const id of [parent, child]) {
      const own = (JSON.parse(await readFile(join(FIXTURES, 'roo', 'tasks', id, 'history_item.json'), 'utf8')) as { totalCost: number }).totalCost;
      expect(by.get(id)!.cost!.totalUsd, id).toBeCloseTo(own, 9);
    }
  });

  it('sessions show prints the task, its messages, tools and work dir', async () => {
    const c = await cli(['sessions', 'show', 'cline', '1767225600000']);
    expect(c).toContain('# Add a --verbose flag to the CLI');
    expect(c).toContain('Use the existing logger instead.');
    expect(c).toContain('mcp__github__search_issues');
    expect(c).toContain('/home/dev/proj');
    const r = await cli(['sessions', 'show', 'roo', '019ad6e0-1f00-7a00-8b00-0c0d0e0f1011']);
    expect(r).toContain('Add a dark mode toggle');
    expect(r).toContain('execute_command');
    expect(r).toContain('claude-sonnet-4-5');
  });

  it('cost report --json --group-by agent has a row per agent with the golden tokens, cold, warm and after a change', async () => {
    const report = async () => (JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent'])) as { breakdowns: Record<string, Row> }).breakdowns;
    const cold = await report();
    for (const agent of Object.keys(AGENTS) as Agent[]) {
      const usage = await goldenUsage(agent);
      expect(usage.length).toBeGreaterThanOrEqual(2);
      const sum = (f: (u: UsageEvent) => number) => usage.reduce((a, u) => a + f(u), 0);
      expect(cold[agent], agent).toMatchObject({ inputTokens: sum((u) => u.inputTokens), outputTokens: sum((u) => u.outputTokens), cacheReadTokens: sum((u) => u.cacheReadTokens), cacheWriteTokens: sum((u) => u.cacheWriteTokens), requestCount: usage.length });
    }
    expect(await report(), 'a second report from the warm cache').toEqual(cold);
    // Roo Code names the model in the prompt history: a change there alone is read again (a parse dependency).
    const history = join(storage('roo'), 'tasks', '0199f2a0-7c1e-7b2a-9d3e-5a1b2c3d4e5f', 'api_conversation_history.json');
    const original = await readFile(history, 'utf8');
    try {
      await writeFile(history, original.replaceAll('<model>gpt-5-mini</model>', '<model>unknown-model-x</model>'));
      before = await trees();
      const changed = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'model'])) as { breakdowns: Record<string, Row> };
      expect(changed.breakdowns['unknown-model-x']).toMatchObject({ requestCount: 1, inputTokens: 3000 });
    } finally {
      await writeFile(history, original);
      before = await trees();
    }
  });

  it("SESSIONFOLD_KILO_DIR names a fork's project dialogs folder (tasks without a tasks/ level) beside the storage folder", async () => {
    const dialogs = join(home, 'project', '.kilo', 'dialogs');
    const moved = '019af9d0-0000-7000-8000-0000000000fa';
    await cp(join(FIXTURES, 'kilo', 'tasks', moved), join(dialogs, moved), { recursive: true });
    await rm(join(storage('kilo'), 'tasks', moved), { recursive: true });
    before = await trees();
    try {
      const env = { SESSIONFOLD_KILO_DIR: `${storage('kilo')},${dialogs}` };
      const rows = JSON.parse(await cli(['sessions', 'list', 'kilo', '--json'], env)) as { sessionId: string }[];
      expect(rows.map((r) => r.sessionId).sort()).toEqual(await tasks('kilo'));
      const byAgent = (JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent'], env)) as { breakdowns: Record<string, Row> }).breakdowns;
      const usage = await goldenUsage('kilo');
      expect(byAgent.kilo).toMatchObject({ requestCount: usage.length, outputTokens: usage.reduce((a, u) => a + u.outputTokens, 0) });
    } finally {
      await cp(join(dialogs, moved), join(storage('kilo'), 'tasks', moved), { recursive: true });
      await rm(join(home, 'project'), { recursive: true, force: true });
      before = await trees();
    }
  });

  it('read streams the library events, with --agent and detected from the storage folder', async () => {
    const file = join(storage('kilo'), 'tasks', '019af0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b', 'ui_messages.json');
    const expected = await readEvents(kilo, file);
    for (const args of [['read', file, '--agent', 'kilo'], ['read', file]]) {
      const events = (await cli(args)).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
      expect(events, args.join(' ')).toEqual(expected);
    }
    expect(expected.some((e) => e.type === 'usage')).toBe(true);
  });
});
