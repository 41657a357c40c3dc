/**
 * The store on the command line (in process, through runCli, with an isolated home): `store save` of
 * Claude and Codex sessions, `cost report` over the agents' folders plus the store counting every response
 * once, the store agent through `sessions list|show`, `read` and `events export`, and `store
 * list|show|fork|rename|archive|prune|delete` and `sessions fork`, which never change an agent's folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { CLAUDE_COPIES, CLAUDE_SUBAGENT_PARENT, copyClaudeFixtures, copyCodexFixtures, type Home, makeHome, sink, snapshotTree } from './sessions-helpers.js';

let home: Home;
let codexIds: string[];
let store: string;

beforeAll(async () => {
  home = await makeHome();
  await copyClaudeFixtures(home);
  codexIds = await copyCodexFixtures(home);
  store = join(home.dir, '.local', 'share', 'sessionfold', 'sessions');
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(args, { stdout, stderr, env: home.env });
  return { stdout: stdout.text(), stderr: stderr.text(), code };
}

async function json<T>(args: string[]): Promise<T> {
  const r = await cli(args);
  expect(r.stderr, args.join(' ')).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as T;
}

interface Report {
  requestCount: number;
  totalUsd: number;
  inputTokens: number;
  outputTokens: number;
  breakdowns?: Record<string, { requestCount: number; totalUsd: number }>;
}

const report = (agents: string) => json<Report>(['cost', 'report', '--json', '--group-by', 'agent', '--agent', agents, '--no-cache', '--tz', 'UTC']);

describe('store CLI', () => {
  it('store save copies sessions of any agent; the agents\' folders are left as they were', async () => {
    const before = await snapshotTree(join(home.dir, '.claude'));
    const beforeCodex = await snapshotTree(join(home.dir, '.codex'));
    for (const id of [...Object.values(CLAUDE_COPIES), CLAUDE_SUBAGENT_PARENT]) expect((await cli(['store', 'save', `claude:${id}`])).code).toBe(0);
    for (const id of codexIds) expect((await cli(['store', 'save', 'codex', id])).code).toBe(0);
    const saved = await json<{ name: string; subagents: string[] }>(['store', 'save', `claude:${CLAUDE_SUBAGENT_PARENT}`, '--name', 'with-child', '--json']);
    expect(saved.subagents).toEqual(['agent-a0ad4f44468bdf20d']);
    expect((await cli(['store', 'save', `claude:${CLAUDE_SUBAGENT_PARENT}`, '--name', 'with-child'])).stderr).toMatch(/^error INVALID_OPTION: /);
    expect(await snapshotTree(join(home.dir, '.claude'))).toEqual(before);
    expect(await snapshotTree(join(home.dir, '.codex'))).toEqual(beforeCodex);
  });

  it('cost report over the agents\' folders plus the store counts every response once', async () => {
    const agents = await report('claude,codex');
    const stored = await report('store');
    const both = await report('claude,codex,store');
    expect(agents.requestCount).toBeGreaterThan(30);
    expect(stored.requestCount).toBe(agents.requestCount);
    expect(stored.totalUsd).toBeCloseTo(agents.totalUsd, 9);
    expect([both.requestCount, both.inputTokens, both.outputTokens]).toEqual([agents.requestCount, agents.inputTokens, agents.outputTokens]);
    expect(both.totalUsd).toBeCloseTo(agents.totalUsd, 9);
    // every response once: the store's copies add nothing beside their sources
    expect(both.breakdowns?.store?.requestCount ?? 0).toBe(0);
    // and with the cache, twice (cold, then warm)
    for (let i = 0; i < 2; i++) {
      const cached = await json<Report>(['cost', 'report', '--json', '--group-by', 'none', '--agent', 'claude,codex,store', '--tz', 'UTC']);
      expect(cached.requestCount).toBe(agents.requestCount);
    }
  });

  it('the store agent in sessions list|show, read and events export', async () => {
    const listed = await json<{ sessionId: string; agent: string; subagent?: boolean }[]>(['sessions', 'list', 'store', '--json', '--subagents']);
    expect(listed.map((s) => s.sessionId)).toContain(`with-child/agent-a0ad4f44468bdf20d`);
    expect(listed.length).toBe(Object.keys(CLAUDE_COPIES).length + 1 + codexIds.length + 1 + 2);
    const id = Object.values(CLAUDE_COPIES)[0]!;
    const shown = await json<{ agent: string; sessionId: string; messages: unknown[] }>(['sessions', 'show', `store:${id}`, '--format', 'json']);
    const original = await json<{ messages: unknown[] }>(['sessions', 'show', `claude:${id}`, '--format', 'json']);
    expect([shown.agent, shown.sessionId, shown.messages.length]).toEqual(['store', id, original.messages.length]);
    const read = await cli(['read', join(store, `${id}.jsonl`), '--agent', 'store', '--kinds', 'usage']);
    const usage = read.stdout.trim().split('\n').map((l) => JSON.parse(l) as { agent: string; sessionId: string; dedupKey: string });
    expect(usage.length).toBeGreaterThan(0);
    expect(usage.every((u) => u.agent === 'store' && u.sessionId === id && u.dedupKey.startsWith('claude:'))).toBe(true);
    const exported = await cli(['events', 'export', '--agent', 'store', '--no-cache']);
    expect(exported.code).toBe(0);
    expect(exported.stdout.split('\n').filter(Boolean).length).toBe((await report('store')).requestCount);
  });

  it('store list, show, fork, rename, archive, prune, delete; sessions fork', async () => {
    const id = Object.values(CLAUDE_COPIES)[0]!;
    const fork = await json<{ from: string; to: string; messagesKept: number }>(['sessions', 'fork', `claude:${id}`, '--at', '4', '--name', 'early', '--json']);
    expect(fork).toMatchObject({ from: `claude:${id}`, to: 'early', messagesKept: 4 });
    const viaSessions = await json<{ from: string; to: string; messagesKept: number }>(['sessions', 'fork', 'store:early', '--at', '1', '--name', 'first', '--json']);
    expect(viaSessions).toMatchObject({ from: 'early', to: 'first', messagesKept: 1 });
    const f2 = await json<{ from: string; messagesKept: number }>(['store', 'fork', 'early', 'earlier', '--at', '2', '--json']);
    expect(f2).toMatchObject({ from: 'early', messagesKept: 2 });
    expect((await cli(['store', 'fork', 'early', 'whole'])).code).toBe(0); // without --at: the seed's byte-identical copy
    expect(readFileSync(join(store, 'whole.jsonl')).equals(readFileSync(join(store, 'early.jsonl')))).toBe(true);
    expect((await cli(['store', 'rename', 'earlier', 'Two', 'messages'])).code).toBe(0);
    const shown = await json<{ meta: { title: string }; fork: { from: string }; archived: boolean }>(['store', 'show', 'earlier', '--json']);
    expect([shown.meta.title, shown.fork.from, shown.archived]).toEqual(['Two messages', 'early', false]);
    expect((await cli(['store', 'archive', 'earlier'])).code).toBe(0);
    const rows = await json<{ name: string; archived: boolean }[]>(['store', 'list', '--archived', '--json']);
    expect(rows.map((r) => r.name)).toEqual(['earlier']);
    expect(await json(['store', 'prune', '--days', '0', '--json'])).toEqual({ pruned: [] });
    expect((await cli(['store', 'list'])).stdout).toMatch(/store:earlier +archived/);
    expect((await cli(['store', 'delete', 'store:earlier'])).code).toBe(0);
    expect((await cli(['store', 'show', 'earlier'])).stderr).toMatch(/^error SESSION_NOT_FOUND: /);
    expect((await cli(['store', 'archive', '../x'])).stderr).toMatch(/^error INVALID_OPTION: /);
    expect((await cli(['store', 'prune'])).stderr).toMatch(/^error USAGE_ERROR: /);
  });

  it('--store names another store; a read of a missing one, or a change of a missing session, creates nothing', async () => {
    const other = join(home.dir, 'other-store');
    expect(await json(['store', 'list', '--store', other, '--json'])).toEqual([]);
    expect((await snapshotTree(other)).size).toBe(0);
    const typo = join(home.dir, 'typo', 'deep', 'dir');
    for (const args of [['delete', 'nosuch'], ['archive', 'nosuch'], ['rename', 'nosuch', 'T'], ['fork', 'nosuch', 'b'], ['save', 'codex:nosuch']]) {
      expect((await cli(['store', ...args, '--store', typo])).stderr, args.join(' ')).toMatch(/^error SESSION_NOT_FOUND: /);
    }
    expect((await cli(['sessions', 'fork', 'store:nosuch', '--name', 'b', '--store', typo])).stderr).toMatch(/^error SESSION_NOT_FOUND: /);
    expect(existsSync(join(home.dir, 'typo'))).toBe(false);
    expect((await cli(['store', 'save', `codex:${codexIds[0]}`, '--store', other])).code).toBe(0);
    expect((await json<{ name: string }[]>(['store', 'list', '--store', other, '--json'])).map((r) => r.name)).toEqual([codexIds[0]]);
  });
});
