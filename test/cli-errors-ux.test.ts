/**
 * What a user sees when a command cannot answer: the usage text only for a mistake in the command line, the
 * same code for a missing file (or a directory) however `read` finds its agent, every `--agent` name of a search checked (and
 * a list of them searched), and a date range that selects nothing refused by every command that takes one.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { writeClaudeSession } from './claude-lines.js';
import { sink } from './cost-history.js';
import { makeHome, type Home } from './sessions-helpers.js';

const SID = '66666666-6666-4666-8666-666666666666';
let home: Home;

beforeAll(async () => {
  home = await makeHome();
  await writeClaudeSession(home.claude, SID, [{ id: 'z1', ms: Date.parse('2026-02-01T10:00:00Z'), inp: 10, out: 5, cr: 0, cw: 0, usd: 0.01 }]);
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(args, { stdout, stderr, env: { ...home.env, SESSIONFOLD_SOCKET: 'off' } });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('errors as a user sees them', () => {
  it('prints the usage after a command-line mistake only, not after a session or a server that is not there', async () => {
    const missing = await cli('sessions', 'show', 'claude', 'no-such-session');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error SESSION_NOT_FOUND: /);
    expect(missing.stderr).not.toContain('Usage:');
    const noServer = await cli('serve', '--status', '--socket', join(home.dir, 'no-server.sock'));
    expect(noServer.code).toBe(1);
    expect(noServer.stderr).toMatch(/^error IO_ERROR: /);
    expect(noServer.stderr).not.toContain('Usage:');
    const mistake = await cli('sessions', 'list', '--sort', 'sideways');
    expect(mistake.code).toBe(1);
    expect(mistake.stderr).toMatch(/^error INVALID_OPTION: /);
    expect(mistake.stderr).toContain('Usage:');
  });

  it('read: a missing file is SESSION_NOT_FOUND with --agent and without', async () => {
    const file = join(home.dir, 'missing.jsonl');
    for (const args of [['read', file, '--agent', 'claude'], ['read', file]]) {
      const r = await cli(...args);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^error SESSION_NOT_FOUND: Cannot open .*missing\.jsonl: ENOENT/);
    }
  });

  it('read: a directory is IO_ERROR, not an agent it cannot tell, with --agent and without', async () => {
    for (const args of [['read', home.dir, '--agent', 'claude'], ['read', home.dir]]) {
      const r = await cli(...args);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^error IO_ERROR: Cannot read .*: it is a directory\n$/);
    }
  });

  it('sessions search --agent: an unknown name is AGENT_NOT_FOUND; a list searches each agent named', async () => {
    const unknown = await cli('sessions', 'search', 'x', '--agent', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error AGENT_NOT_FOUND: /);
    const ids = async (agent: string) => (JSON.parse((await cli('sessions', 'search', 'x', '--agent', agent, '--json')).stdout) as { sessionId: string }[]).map((s) => s.sessionId);
    expect(await ids('claude')).toEqual([SID]);
    expect(await ids('claude,codex')).toEqual([SID]);
    expect(await ids('codex')).toEqual([]);
  });

  it('a --since after --until is INVALID_OPTION for every command that takes a range', async () => {
    const range = ['--since', '2026-03-01', '--until', '2026-01-01'];
    for (const args of [['cost', 'report'], ['cost', 'blocks'], ['events', 'export'], ['sessions', 'list'], ['sessions', 'search', 'x']]) {
      const r = await cli(...args, ...range);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 1]);
      expect(r.stderr).toMatch(/^error INVALID_OPTION: --since .* is after --until/);
    }
    expect((await cli('cost', 'report', '--json', '--since', '2026-01-01', '--until', '2026-01-01')).code).toBe(0);
  });
});
