/**
 * Progress on stderr: the decision (a function of whether stderr is a terminal and of the env), the drawing
 * (delayed, rate-limited, cleared before the output) on a stream that says it is a terminal, and that the
 * commands which can take more than a second print nothing extra when stderr is piped.
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgress, progressEnabled, REDRAW_MS, withProgress } from '../src/cli/progress.js';
import { writeClaudeSession, type Req } from './claude-lines.js';
import { HAS_CLAUDE, makeHome, sink, type Home } from './sessions-helpers.js';

type Tty = ReturnType<typeof sink> & { isTTY?: boolean; columns?: number };
function tty(): Tty {
  const out = sink() as Tty;
  out.isTTY = true;
  out.columns = 80;
  return out;
}

describe('progressEnabled(isTTY, env)', () => {
  it('draws only on a terminal that can redraw, outside CI, unless turned off', () => {
    expect(progressEnabled(true, {})).toBe(true);
    expect(progressEnabled(true, { TERM: 'xterm-256color' })).toBe(true);
    expect(progressEnabled(false, {})).toBe(false);
    expect(progressEnabled(undefined, {})).toBe(false);
    expect(progressEnabled(true, { TERM: 'dumb' })).toBe(false);
    expect(progressEnabled(true, { CI: 'true' })).toBe(false);
    expect(progressEnabled(true, { CI: '1' })).toBe(false);
    expect(progressEnabled(true, { CI: 'false' })).toBe(true);
    expect(progressEnabled(true, { CI: '0' })).toBe(true);
    expect(progressEnabled(true, { SESSIONFOLD_PROGRESS: '0' })).toBe(false);
    expect(progressEnabled(true, { SESSIONFOLD_PROGRESS: '1' })).toBe(true);
  });
});

describe('createProgress', () => {
  it('waits for the delay, redraws at most every REDRAW_MS, and clears itself', () => {
    let t = 1000;
    const out = tty();
    const p = createProgress(out, {}, 'Reading', 400, () => t);
    p.onProgress(1, 10);
    expect(out.text()).toBe(''); // before the delay
    t += 400;
    p.onProgress(2, 10);
    const first = out.text();
    expect(first).toMatch(/^\r\[#+\.+\] {2}20% 0\/0 MB\x1b\[K$/);
    t += REDRAW_MS - 1;
    p.onProgress(5, 10);
    expect(out.text()).toBe(first); // too soon: not drawn
    t += 1;
    p.onProgress(5, 10);
    expect(out.text()).toMatch(/50% 0\/0 MB\x1b\[K$/);
    p.stop();
    expect(out.text().endsWith('\r\x1b[K')).toBe(true);
    const after = out.text();
    t += 10_000;
    p.onProgress(9, 10);
    expect(out.text()).toBe(after); // stopped: no more drawing
  });

  it('clear() before a warning, then drawing goes on', () => {
    let t = 0;
    const out = tty();
    const p = createProgress(out, {}, 'Reading', 0, () => t);
    t = 100;
    p.onProgress(1, 4);
    p.clear();
    expect(out.text().endsWith('\r\x1b[K')).toBe(true);
    t = 300;
    p.onProgress(2, 4);
    expect(out.text().endsWith(' 50% 0/0 MB\x1b[K')).toBe(true);
    p.stop();
  });

  it('a spinner with the elapsed time while the size is unknown, cleared before the result', async () => {
    const out = tty();
    const result = await withProgress({ stderr: out, env: {} }, 'Reading sessions', async () => {
      await new Promise((r) => setTimeout(r, 900));
      return 42;
    });
    expect(result).toBe(42);
    expect(out.text()).toMatch(/\r[|/\\-] Reading sessions… \d+\.\ds\x1b\[K/);
    expect(out.text().endsWith('\r\x1b[K')).toBe(true);
  });

  it('nothing at all when stderr is not a terminal, or the env turns it off', async () => {
    for (const [out, env] of [
      [sink(), {}],
      [tty(), { TERM: 'dumb' }],
      [tty(), { CI: 'true' }],
    ] as const) {
      await withProgress({ stderr: out, env }, 'Reading', async (p) => {
        p.onProgress(1, 2);
        await new Promise((r) => setTimeout(r, 600));
        p.onProgress(2, 2);
      });
      expect(out.text()).toBe('');
    }
  });
});

describe.skipIf(!HAS_CLAUDE)('piped commands print nothing extra on stderr (built CLI)', () => {
  const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
  const run = promisify(execFile);
  const SID = '88888888-8888-4888-8888-888888888888';
  const REQS: Req[] = [{ id: 'p1', ms: Date.UTC(2026, 0, 5, 9), inp: 1, out: 2, cr: 3, cw: 4, usd: 0.5 }];
  let home: Home;
  beforeAll(async () => {
    home = await makeHome();
    await writeClaudeSession(home.claude, SID, REQS);
  });
  afterAll(async () => {
    await rm(home.dir, { recursive: true, force: true });
  });

  it.each([
    [['cost', 'report', '--agent', 'claude']],
    [['cost', 'report', '--agent', 'claude', '--no-cache', '--json']],
    [['sessions', 'list', 'claude', '--breakdown']],
    [['sessions', 'search', 'x', '--agent', 'claude']],
    [['sessions', 'show', 'claude', SID, '--format', 'json']],
    [['sessions', 'export', 'claude', SID]],
    [['events', 'export', '--agent', 'claude']],
  ])('%j', async (args) => {
    // The env a terminal would have: only stderr being a pipe keeps progress off.
    const r = await run(process.execPath, [CLI, ...args], { env: { ...home.env, TERM: 'xterm-256color' } });
    expect(r.stderr).toBe('');
    expect(r.stdout.length).toBeGreaterThan(0);
    expect(r.stdout).not.toMatch(/\r|\x1b\[K/);
  });
});
