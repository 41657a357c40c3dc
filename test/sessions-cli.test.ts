/**
 * The `sessions` CLI: golden outputs (test/snapshots/cli/sessions-<cmd>-<format>.txt, from the built CLI in a
 * subprocess with an isolated env), error lines and exit codes (in process, through runCli).
 * Build first: `npx tsc -p .`.
 */
import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { buildExportFixtures, CLAUDE_SUBAGENT_PARENT, copyClaudeFixtures, copyCodexFixtures, EXPORT_IDS, HAS_CLAUDE, makeHome, sink, type Home } from './sessions-helpers.js';

const run = promisify(execFile);
const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const SNAP = (name: string) => `./snapshots/cli/sessions-${name}.txt`;
const J = 'sessionfold-jsonl';
let home: Home;

beforeAll(async () => {
  process.env.TZ = 'UTC';
  home = await makeHome();
  await buildExportFixtures(home.exports);
  await copyClaudeFixtures(home);
  await copyCodexFixtures(home);
  await writeFile(home.env.SESSIONFOLD_TAGS as string, JSON.stringify({ [`${J}:${EXPORT_IDS.fork}`]: ['docs'] }));
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

/** Output with the temp home replaced by `$HOME`, so golden files do not depend on it. */
const clean = (s: string) => s.split(home.dir).join('$HOME');

async function spawnCli(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const r = await run(process.execPath, [CLI, 'sessions', ...args], { env: home.env, maxBuffer: 64 << 20 });
    return { stdout: clean(r.stdout), stderr: clean(r.stderr), code: 0 };
  } catch (e) {
    const x = e as { stdout: string; stderr: string; code: number };
    return { stdout: clean(x.stdout), stderr: clean(x.stderr), code: x.code };
  }
}

async function inProcess(args: string[], env: NodeJS.ProcessEnv = home.env): Promise<{ stdout: string; stderr: string; code: number }> {
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(['sessions', ...args], { stdout, stderr, env });
  return { stdout: clean(stdout.text()), stderr: clean(stderr.text()), code };
}

describe('sessions CLI golden output (subprocess)', () => {
  it('list: a table, newest first, the listed sessions read whole', async () => {
    const r = await spawnCli(['list', J]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Updated +Session +Model +Turns +Msgs +Cost +Title\n─+ +─/);
    expect(r.stdout).toMatch(/ big-1 +model-early +300 +600 /);
    expect(r.stdout).not.toContain('lower bounds');
    await expect(r.stdout).toMatchFileSnapshot(SNAP('list-table'));
  });

  it('list --lazy: counts of large files from their head and tail, marked as lower bounds', async () => {
    const r = await spawnCli(['list', J, '--lazy']);
    expect(r.stdout).toMatch(/ big-1 +model-late +0\+ +1\+ +- /);
    expect(r.stdout).toContain('+ counts from the head and tail of the file only (lower bounds)');
    await expect(r.stdout).toMatchFileSnapshot(SNAP('list-lazy-table'));
  });

  it('list --json: the documented summary shape', async () => {
    const r = await spawnCli(['list', J, '--json', '--sort', 'cost', '--limit', '3']);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows).toHaveLength(3);
    const fork = rows.find((x) => x.sessionId === EXPORT_IDS.fork) ?? {};
    expect(Object.keys(fork)).toEqual(['agent', 'sessionId', 'unifiedId', 'title', 'createdAt', 'updatedAt', 'turnCount', 'messageCount', 'exact', 'model', 'cost', 'copiedCost', 'tags', 'cwd', 'forkedFrom', 'file', 'sizeBytes']);
    await expect(r.stdout).toMatchFileSnapshot(SNAP('list-json'));
  });

  it('list without an agent: every agent with storage', async () => {
    const r = await spawnCli(['list', '--limit', '50']);
    expect(r.stdout).toMatch(/^Updated +Agent +Session/);
    expect(r.stdout).toContain(`  ${J}  `);
    if (HAS_CLAUDE) expect(r.stdout).toContain('  claude  ');
    await expect(r.stdout).toMatchFileSnapshot(SNAP('list-all-table'));
  });

  it('show: markdown by default, json and jsonl on request', async () => {
    const md = await spawnCli(['show', J, EXPORT_IDS.parent]);
    expect(md.stdout).toMatch(/^# Refactor the auth middleware\n/);
    await expect(md.stdout).toMatchFileSnapshot(SNAP('show-markdown'));
    const jsonl = await spawnCli(['show', `${J}:${EXPORT_IDS.parent}`, '--format', 'jsonl']);
    await expect(jsonl.stdout).toMatchFileSnapshot(SNAP('show-jsonl'));
    const json = await spawnCli(['show', J, EXPORT_IDS.parent, '-f', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ sessionId: EXPORT_IDS.parent, createdAt: '2026-01-01T10:00:00.000Z' });
    await expect(json.stdout).toMatchFileSnapshot(SNAP('show-json'));
  });

  it.runIf(HAS_CLAUDE)('show: a real Claude session', async () => {
    const r = await spawnCli(['show', 'claude', CLAUDE_SUBAGENT_PARENT]);
    expect(r.code).toBe(0);
    await expect(r.stdout).toMatchFileSnapshot(SNAP('show-claude-markdown'));
  });

  it('search: score, date, id, title and the snippet; --json with relevanceScore and snippet', async () => {
    const r = await spawnCli(['search', 'verifyToken', '--agent', J]);
    expect(r.stdout).toMatch(/^Score +Updated +Session +Cost +Title\n─+ +─/);
    expect(r.stdout).toContain('Done: extracted verifyToken().');
    await expect(r.stdout).toMatchFileSnapshot(SNAP('search-table'));
    const j = await spawnCli(['search', 'auth', 'tests', '--json']);
    const rows = JSON.parse(j.stdout) as { relevanceScore: number; snippet: string }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const x of rows) expect(x.relevanceScore).toBeGreaterThan(0);
    await expect(j.stdout).toMatchFileSnapshot(SNAP('search-json'));
  });

  it('export: jsonl by default, markdown and json on request', async () => {
    const jsonl = await spawnCli(['export', J, EXPORT_IDS.fork]);
    expect(jsonl.stdout.split('\n')[0]).toContain('"type":"sessionfold.session"');
    await expect(jsonl.stdout).toMatchFileSnapshot(SNAP('export-jsonl'));
    const md = await spawnCli(['export', J, EXPORT_IDS.fork, '--format', 'markdown']);
    await expect(md.stdout).toMatchFileSnapshot(SNAP('export-markdown'));
  });

  it('diff: the fork against its parent, as text and as JSON', async () => {
    const r = await spawnCli(['diff', `${J}:${EXPORT_IDS.parent}`, `${J}:${EXPORT_IDS.fork}`]);
    expect(r.stdout).not.toContain('\x1b['); // NO_COLOR and not a TTY
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('4 unchanged, 2 modified, 2 added, 0 removed');
    await expect(r.stdout).toMatchFileSnapshot(SNAP('diff-text'));
    const j = await spawnCli(['diff', `${J}:${EXPORT_IDS.parent}`, `${J}:${EXPORT_IDS.fork}`, '--json']);
    expect(JSON.parse(j.stdout).stats).toEqual({ removals: 0, additions: 2, modifications: 2, unchanged: 4 });
    await expect(j.stdout).toMatchFileSnapshot(SNAP('diff-json'));
  });

  it.runIf(HAS_CLAUDE)("resume: prints the agent's own command, run from the session's directory", async () => {
    const r = await spawnCli(['resume', 'claude', CLAUDE_SUBAGENT_PARENT]);
    expect(r.stdout).toBe(`cd /tmp && claude --resume ${CLAUDE_SUBAGENT_PARENT}\n`);
    await expect(r.stdout).toMatchFileSnapshot(SNAP('resume-text'));
  });

  it('errors: one line with the code, non-zero exit', async () => {
    const r = await spawnCli(['show', J, 'missing-id']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error SESSION_NOT_FOUND: No sessionfold-jsonl session "missing-id" under \$HOME\/exports\n$/);
  });
});

describe('sessions CLI (in process)', () => {
  it('reports unknown agents, sessions, unreadable files and bad options as one coded line', async () => {
    const cases: [string[], RegExp][] = [
      [['list', 'nope'], /^error AGENT_NOT_FOUND: Unknown agent "nope"/],
      [['show', 'nope', 'x'], /^error AGENT_NOT_FOUND: Unknown agent "nope"/],
      [['show', J, EXPORT_IDS.broken], /^error PARSE_ERROR: .*broken-1\.jsonl is not a sessionfold JSONL export session/],
      [['export', J, 'gone'], /^error SESSION_NOT_FOUND: /],
      [['list', J, '--limit', '0'], /^error INVALID_OPTION: Invalid option --limit: expected a positive integer, got "0"/],
      [['list', J, '--sort', 'size'], /^error INVALID_OPTION: Invalid option --sort: expected date\|cost\|turns, got "size"/],
      [['list', J, '--since', 'yesterday-ish'], /^error INVALID_OPTION: Invalid option --since/],
      [['show', J, EXPORT_IDS.parent, '--format', 'html'], /^error INVALID_OPTION: Invalid option --format/],
      [['diff', 'no-colon', `${J}:x`], /^error USAGE_ERROR: expected <agent>:<session-id>, got "no-colon"/],
      [['diff', 'nope:x', `${J}:x`], /^error AGENT_NOT_FOUND: Unknown agent "nope" in "nope:x"/],
      [['diff', `${J}:x`], /^error USAGE_ERROR: diff needs two sessions/],
      [['resume', J, EXPORT_IDS.parent], /^error USAGE_ERROR: sessionfold JSONL export \(sessionfold-jsonl\) has no resume command/],
      [['search'], /^error USAGE_ERROR: search needs a text/],
    ];
    for (const [args, re] of cases) {
      const r = await inProcess(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(re);
    }
  });

  it('lists nothing, politely, for an agent without storage', async () => {
    const r = await inProcess(['list', J], { ...home.env, SESSIONFOLD_EXPORT_DIR: `${home.dir}/none` });
    expect(r).toMatchObject({ code: 0, stdout: `No sessions for ${J}.\n` });
    const j = await inProcess(['list', J, '--json'], { ...home.env, SESSIONFOLD_EXPORT_DIR: `${home.dir}/none` });
    expect(j.stdout).toBe('[]\n');
  });

  it('filters the list by date (a date includes its whole day), cwd, tag and model', async () => {
    const ids = async (...args: string[]) => (JSON.parse((await inProcess(['list', J, '--json', ...args])).stdout) as { sessionId: string }[]).map((r) => r.sessionId);
    expect(await ids('--since', '2026-01-02', '--until', '2026-01-02')).toEqual([EXPORT_IDS.fork]);
    expect(await ids('--until', '20260101')).toEqual([EXPORT_IDS.parent]);
    expect(await ids('--cwd', '/work/app', '--direction', 'asc')).toEqual([EXPORT_IDS.parent, EXPORT_IDS.fork]);
    expect(await ids('--tag', 'x,docs')).toEqual([EXPORT_IDS.fork]);
    expect(await ids('--model', 'free')).toEqual([EXPORT_IDS.other]);
  });

  it('colors the diff when asked, and folds long unchanged runs', async () => {
    const r = await inProcess(['diff', `${J}:${EXPORT_IDS.parent}`, `${J}:${EXPORT_IDS.fork}`, '--color', '--context', '1']);
    expect(r.stdout).toContain('\x1b[33m~ ');
    expect(r.stdout).toContain('\x1b[32m+ ');
    expect(r.stdout).toContain('… 3 unchanged messages …');
    const plain = await inProcess(['diff', `${J}:${EXPORT_IDS.parent}`, `${J}:${EXPORT_IDS.parent}`, '--context', '0']);
    expect(plain.stdout).toBe(`--- ${J}:${EXPORT_IDS.parent}\n+++ ${J}:${EXPORT_IDS.parent}\n  … 6 unchanged messages …\n6 unchanged, 0 modified, 0 added, 0 removed\n`);
  });

  it('cuts long tool blocks in show, keeps them in export', async () => {
    const big = 'line\n'.repeat(100);
    const { writeExportSession } = await import('./sessions-helpers.js');
    await writeExportSession(home.exports, { agent: 'x', sessionId: 'long-1' }, [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [{ toolCallId: 'c', toolName: 'Write', input: big }] },
    ]);
    expect((await inProcess(['show', J, 'long-1'])).stdout).toContain('… 61 more lines (sessionfold sessions export shows everything)');
    expect((await inProcess(['show', J, 'long-1', '--full'])).stdout).not.toContain('more lines');
    expect((await inProcess(['export', J, 'long-1', '-f', 'markdown'])).stdout).not.toContain('more lines');
  });
});
