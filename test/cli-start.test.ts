/** `sessionfold start` (npm start): real folders when they exist, the bundled demo history otherwise. */
import { execFile } from 'node:child_process';
import { appendFile, cp } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from './helpers/child.js';

const run = promisify(execFile);
const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const REAL = new URL('../../shared/fixtures/real/', import.meta.url).pathname;

const temps = tempDirs('sf-start-');
afterAll(temps.remove);

async function startStreams(env: Record<string, string>, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const home = await temps.make();
  return run(process.execPath, [CLI, 'start', ...args], { env: { PATH: process.env.PATH, HOME: home, TZ: 'UTC', NO_COLOR: '1', COLUMNS: '200', ...env } });
}

async function start(env: Record<string, string>): Promise<string> {
  const r = await startStreams(env);
  return r.stderr + r.stdout; // as a terminal shows them: the folders read (stderr) first
}

describe('sessionfold start', () => {
  it('uses the bundled demo history when no agent folder exists, and says so', async () => {
    const streams = await startStreams({});
    const out = streams.stderr + streams.stdout;
    expect(out).toMatch(/no agent history found/);
    expect(out).toMatch(/bundled demo history/);
    // The folders looked in are counted, not listed (there are dozens): `agents` lists them.
    const agents = await run(process.execPath, [CLI, 'agents', '--json'], { env: { PATH: process.env.PATH, HOME: await temps.make() } });
    const listed = (JSON.parse(agents.stdout) as { id: string; roots: string[] }[]).filter((a) => a.id !== 'sessionfold-jsonl' && a.id !== 'store');
    const folders = listed.reduce((n, a) => n + a.roots.length, 0);
    expect(out).toContain(`in the ${folders} default folders of ${listed.length} agents`);
    expect(streams.stderr.split('\n').filter((l) => !l.startsWith('More:')).every((l) => l.length <= 100)).toBe(true);
    expect(out).toMatch(/Recent sessions/);
    expect(out).toMatch(/claude/);
    expect(out).toMatch(/codex/);
    const total = out.split('\n').find((l) => l.startsWith('Total'));
    expect(total).toMatch(/\$\d+\.\d\d/);
  });

  it('reads the real agent folders when they exist', async () => {
    const dir = await temps.make();
    await cp(join(REAL, 'claude', 'vibecodingtracker-real-session-v1.0.95-zh.jsonl'), join(dir, 'projects', '-w', '9f0c3b55-2a61-4d2e-9a43-3c1f00000001.jsonl'));
    const out = await start({ CLAUDE_CONFIG_DIR: dir });
    expect(out).toMatch(/^sessionfold: reading your agent history: claude \S+\/projects \(1 file\)\n/);
    expect(out).not.toMatch(/demo/);
    expect(out).toMatch(/claude-sonnet-4-20250514/);
  });

  it('says what it skipped as a warning of its own, once, not as a Node process warning', async () => {
    const dir = await temps.make();
    const file = join(dir, 'projects', '-w', '9f0c3b55-2a61-4d2e-9a43-3c1f00000001.jsonl');
    await cp(join(REAL, 'claude', 'vibecodingtracker-real-session-v1.0.95-zh.jsonl'), file);
    await appendFile(file, '{"type":"assistant","message":{"usage":\n');
    const r = await startStreams({ CLAUDE_CONFIG_DIR: dir });
    expect(r.stderr).not.toMatch(/SessionfoldWarning|trace-warnings/);
    expect(r.stderr.match(/^warning: skipped 1 line of \S+\.jsonl/gm)).toHaveLength(1);
  });

  it.each([[[]], [['--demo']]])('start %j: stdout is the report alone, the notices are on stderr', async (args) => {
    const r = await startStreams({}, ...args);
    expect(r.stdout).toMatch(/^Recent sessions\n/);
    expect(r.stdout).not.toMatch(/demo|sessionfold:|More:/);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^Total /);
    expect(r.stderr).toMatch(args.length === 0 ? /^sessionfold: no agent history found/ : /^sessionfold: showing the bundled demo history/);
    expect(r.stderr).toMatch(/More: sessionfold sessions list/);
  });
});
