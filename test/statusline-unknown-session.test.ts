/**
 * The status line's session cost when the session has no usage to show. Two cases look alike and are not:
 * - a session that exists but has spent nothing yet (Claude Code runs the status line as a session starts,
 *   before its first response, and names the transcript path before writing the file): `session $0.00`;
 * - a session id that matches no transcript of the agent at all (a typo, another agent's id, another config
 *   folder): nothing is known of its spend, so `session n/a`, with a note on stderr saying why.
 */
import { appendFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { writeClaudeSession } from './claude-lines.js';
import { makeHome, sink, type Home } from './sessions-helpers.js';

const NOW = '2026-03-02T12:00:00.000Z';
const SPENT = '11111111-1111-4111-8111-111111111111';
const FRESH = '22222222-2222-4222-8222-222222222222';
const NOT_WRITTEN = '33333333-3333-4333-8333-333333333333';
const UNKNOWN = '99999999-9999-4999-8999-999999999999';
let home: Home;

beforeAll(async () => {
  home = await makeHome();
  await writeClaudeSession(home.claude, SPENT, [{ id: 's1', ms: Date.parse('2026-03-02T11:00:00Z'), inp: 100, out: 50, cr: 0, cw: 0, usd: 0.4 }]);
  // A session started a moment ago: the user's prompt is written, no response (no usage) yet.
  const dir = join(home.claude, 'projects', '-w');
  await mkdir(dir, { recursive: true });
  await appendFile(join(dir, `${FRESH}.jsonl`), `${JSON.stringify({ type: 'user', sessionId: FRESH, cwd: '/w', timestamp: '2026-03-02T11:59:00.000Z', uuid: 'u1', message: { role: 'user', content: 'hello' } })}\n`);
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

async function statusline(args: string[], stdin?: object): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  // Claude Code's JSON becomes these flags in the executable before the command runs (statusline-input.ts).
  const fromStdin = stdin === undefined ? [] : (await import('../src/cli/statusline-input.js')).statusLineArgs(JSON.stringify(stdin));
  const code = await runCli(['statusline', ...fromStdin, ...args, '--now', NOW, '--tz', 'UTC', '--no-cache'], { stdout, stderr, env: { ...home.env, SESSIONFOLD_SOCKET: 'off' } });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('statusline: a session with no usage to show', () => {
  it('a session id that matches no transcript is n/a, not $0.00, and stderr says why', async () => {
    const r = await statusline(['--agent', 'claude', '--session', UNKNOWN]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^claude · session n\/a · today \$0\.40 · /);
    expect(r.stderr).toContain(`note: no claude session "${UNKNOWN}" found`);
    const json = JSON.parse((await statusline(['--agent', 'claude', '--session', UNKNOWN, '--json'])).stdout) as { session: unknown; sessionFound: boolean };
    expect(json).toMatchObject({ session: null, sessionFound: false });
  });

  it('a session that exists and has spent nothing yet is $0.00', async () => {
    const r = await statusline(['--agent', 'claude', '--session', FRESH]);
    expect(r.stdout).toMatch(/^claude · session \$0\.00 · today \$0\.40 · /);
    expect(r.stderr).toBe('');
  });

  it("Claude Code's JSON for a transcript not written yet is a new session: $0.00", async () => {
    const transcript = join(home.claude, 'projects', '-w', `${NOT_WRITTEN}.jsonl`);
    const r = await statusline([], { session_id: NOT_WRITTEN, transcript_path: transcript, model: { id: 'claude-opus-4-5', display_name: 'Opus 4.5' } });
    expect(r.stdout).toMatch(/^Opus 4\.5 · session \$0\.00 · today \$0\.40 · /);
    expect(r.stderr).toBe('');
  });

  it('a session with usage shows its cost, found', async () => {
    const r = await statusline(['--agent', 'claude', '--session', SPENT, '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ session: { requests: 1, costUsd: 0.4 }, sessionFound: true });
  });
});
