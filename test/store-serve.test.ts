/**
 * `serve` and the store: a served `sessions list store` and `cost report` see a session the moment `store
 * save` or `store archive` returns (counting nothing twice), and once the agent has deleted its own
 * transcript (its retention), the stored copy still counts every response, once.
 */
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { computeServed } from '../src/cli/served-compute.js';
import { runServedCommand } from '../src/cli/served.js';
import { startServer } from '../src/serve/server.js';
import { CLAUDE_COPIES, copyClaudeFixtures, makeHome, sink } from './sessions-helpers.js';

describe('serve sees the store', () => {
  it('a stored session in served lists and reports, archived or not, and after the agent deleted its original', async () => {
    const home = await makeHome();
    await copyClaudeFixtures(home);
    const env = { ...home.env, SESSIONFOLD_CACHE: join(home.dir, 'serve.db') };
    const socket = join(home.dir, 'store.sock');
    const server = await startServer({ socket, compute: computeServed, sweepMs: 0 });
    const served = async (args: string[]) => {
      const out = sink();
      const err = sink();
      const code = await runServedCommand(args, { stdout: out, stderr: err, env: { ...env, SESSIONFOLD_SOCKET: socket }, cwd: home.dir });
      expect([code, err.text()]).toEqual([0, '']);
      return JSON.parse(out.text()) as unknown;
    };
    const run = async (args: string[]) => {
      const code = await runCli(args, { stdout: sink(), stderr: sink(), env: { ...env, SESSIONFOLD_SOCKET: 'off' } });
      expect(code).toBe(0);
    };
    const requests = async () => ((await served(['cost', 'report', '--json', '--group-by', 'none', '--tz', 'UTC'])) as { requestCount: number }).requestCount;
    const ids = async () => ((await served(['sessions', 'list', 'store', '--json'])) as { sessionId: string }[]).map((s) => s.sessionId);
    try {
      const id = Object.values(CLAUDE_COPIES)[0]!;
      const before = await requests();
      expect(await ids()).toEqual([]);
      await run(['store', 'save', `claude:${id}`, '--name', 'kept']);
      expect(await ids()).toEqual(['kept']);
      expect(await requests()).toBe(before);
      await run(['store', 'archive', 'kept']);
      expect(await ids()).toEqual(['kept']);
      // the agent deletes its original (its retention): a fresh report still counts every response, once,
      // from the stored copy
      const local = async (agents: string) => {
        const out = sink();
        expect(await runCli(['cost', 'report', '--json', '--group-by', 'none', '--agent', agents, '--tz', 'UTC', '--no-cache'], { stdout: out, stderr: sink(), env: { ...env, SESSIONFOLD_SOCKET: 'off' } })).toBe(0);
        return (JSON.parse(out.text()) as { requestCount: number }).requestCount;
      };
      const own = await local('claude');
      rmSync(join(home.claude, 'projects', '-tmp-proj', `${id}.jsonl`));
      const stored = await local('store');
      expect(stored).toBeGreaterThan(0);
      expect(await local('claude')).toBe(own - stored);
      expect(await local('claude,store')).toBe(before);
    } finally {
      await server.close();
      await rm(home.dir, { recursive: true, force: true });
    }
  }, 60_000);
});
