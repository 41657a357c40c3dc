/**
 * `sessions show` on a terminal when `$PAGER` fails (src/cli/pager.ts): a pager the shell cannot start (status
 * 126 or 127) leaves the text on stdout, whole, even past what the pipe holds; one that runs and exits with
 * another non-zero status is IO_ERROR and exit 1; one that quits early with 0 (q in less) stops the writing.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandContext } from '../src/cli/command.js';
import { runCli } from '../src/cli/run.js';
import { openSink, writePieces } from '../src/cli/stream-out.js';
import { CLAUDE_SUBAGENT_PARENT, copyClaudeFixtures, HAS_CLAUDE, makeHome, sink, type Home } from './sessions-helpers.js';

const tty = () => Object.assign(sink(), { isTTY: true });

/** Stream `pieces` through openSink on a simulated terminal with PAGER=`pager`. */
async function page(pager: string, pieces: string[]): Promise<{ stdout: string; stderr: string; error?: unknown }> {
  const stdout = tty();
  const stderr = sink();
  const ctx: CommandContext = { positionals: [], values: {}, stdout, stderr, env: { ...process.env, PAGER: pager } };
  let error: unknown;
  try {
    await writePieces(await openSink(ctx), (async function* () {
      yield* pieces;
    })());
  } catch (e) {
    error = e;
  }
  return { stdout: stdout.text(), stderr: stderr.text(), error };
}

describe('a pager that fails', () => {
  // larger than any pipe buffer, so the writes wait on a shell that never reads
  const big = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(4, '0')}${'x'.repeat(50_000)}\n`);

  it.each(['/nonexistent/pager', 'sleep 0.2; exit 127', 'exit 126'])('%s: not started, so every byte goes to stdout once', async (pager) => {
    const r = await page(pager, big);
    expect(r.error).toBeUndefined();
    expect(r.stdout).toBe(big.join(''));
    expect(r.stderr).toMatch(/^note: the pager ".+" could not start \(exit status 12[67]\); writing to stdout\n$/);
  });

  it('false: ran and failed, so the error is reported and the text is not written twice', async () => {
    const r = await page('false', ['hello\n']);
    expect(r.stdout).toBe('');
    expect(r.error).toMatchObject({ code: 'IO_ERROR', message: expect.stringContaining('the pager "false" exited with status 1') });
  });

  it('a pager that quits early with 0 stops the writing without an error', async () => {
    const r = await page('head -c 10 >/dev/null', big);
    expect(r.error).toBeUndefined();
    expect(r.stdout).toBe('');
  });
});

describe.runIf(HAS_CLAUDE)('sessions show with a broken PAGER', () => {
  let home: Home;
  beforeAll(async () => {
    home = await makeHome();
    await copyClaudeFixtures(home);
  });
  afterAll(async () => {
    await rm(home.dir, { recursive: true, force: true });
  });
  const show = async (pager: string) => {
    const stdout = tty();
    const stderr = sink();
    const code = await runCli(['sessions', 'show', 'claude', CLAUDE_SUBAGENT_PARENT], { stdout, stderr, env: { ...home.env, PAGER: pager } });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };

  it('PAGER=/nonexistent/pager prints the session on stdout, exit 0', async () => {
    const direct = tty();
    expect(await runCli(['sessions', 'show', 'claude', CLAUDE_SUBAGENT_PARENT, '--no-pager'], { stdout: direct, stderr: sink(), env: home.env })).toBe(0);
    const r = await show('/nonexistent/pager');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(direct.text());
    expect(r.stdout.length).toBeGreaterThan(0);
  });

  it('PAGER=false says so and exits 1', async () => {
    const r = await show('false');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error IO_ERROR: the pager "false" exited with status 1');
  });
});
