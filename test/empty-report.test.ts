/**
 * `cost report` over a home with no agent history (src/cost/empty-report.ts): the roots' stats answer it
 * without the scan, the cache or the fold, and what the CLI prints is what the full path prints for the same
 * home, byte for byte, in every format and with the selection options, errors included
 * (`SESSIONFOLD_EMPTY_REPORT=0` takes the full path). A home with one session file, an unreadable root or
 * an event cache takes the full path. In process through `runCli`, with `costReport` counted, and once
 * through the built executable (`npx tsc -p . && node scripts/bundle-cli.mjs` first).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { emptyHistoryReport } from '../src/cost/empty-report.js';
import { writeClaudeSession } from './claude-lines.js';
import { sink } from './cost-history.js';

/** Calls of the full path's `costReport` (the CLI imports it only when the empty report does not answer). */
const full = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../src/cost/report.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../src/cost/report.js')>();
  return { ...m, costReport: (...a: Parameters<typeof m.costReport>) => (full.calls++, m.costReport(...a)) };
});

const exec = promisify(execFile);
const MAIN = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));

/** A home without any agent folder (made at once: the cases' tables name files in it). */
const dir = mkdtempSync(join(tmpdir(), 'sf-empty-'));
/** Its environment; CLAUDE_CONFIG_DIR names a folder that is not there (a root's variable). */
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  env = {
    HOME: dir,
    PATH: process.env.PATH,
    CLAUDE_CONFIG_DIR: join(dir, 'claude-config'),
    XDG_CONFIG_HOME: join(dir, '.config'),
    XDG_DATA_HOME: join(dir, '.local', 'share'),
    XDG_CACHE_HOME: join(dir, '.cache'),
    SESSIONFOLD_SOCKET: 'off',
    NO_COLOR: '1',
    TZ: 'UTC',
    COLUMNS: '200',
  };
  writeFileSync(join(dir, 'bad.json'), '{ not json');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string; full: number }> {
  const stdout = sink();
  const stderr = sink();
  const before = full.calls;
  const code = await runCli(['cost', 'report', ...args], { stdout, stderr, env: { ...env, ...extra } });
  return { code, stdout: stdout.text(), stderr: stderr.text(), full: full.calls - before };
}

/** The run both ways: what each printed and whether the full path ran. */
async function bothWays(args: string[], extra: NodeJS.ProcessEnv = {}) {
  const fast = await cli(args, extra);
  const slow = await cli(args, { ...extra, SESSIONFOLD_EMPTY_REPORT: '0' });
  expect(slow.full).toBe(1);
  return { fast, slow };
}

const at = (...p: string[]) => join(dir, ...p);

describe('an empty cost report without the fold', () => {
  const answered: string[][] = [
    [],
    ['--json'],
    ['--no-cache', '--json'],
    ['--no-cache'],
    ['--since', '2026-01-01', '--until', '2026-02-01', '--json'],
    ['-g', 'none', '--json'],
    ['-g', 'none'],
    ['-g', 'agent', '--breakdown'],
    ['-g', 'model', '--breakdown', '--json'],
    ['-g', 'week', '--order', 'desc', '--json'],
    ['-g', 'month', '--last', '3'],
    ['-g', 'session', '--compact'],
    ['-g', 'project', '--no-cost', '--json'],
    ['-g', 'tag', '--json'],
    ['--tag', 'work,home'],
    ['--format', 'csv'],
    ['--format', 'markdown', '-g', 'day'],
    ['--agent', 'claude,codex', '--json'],
    ['--agent', 'claude'],
    ['--agent', 'claude-code,claude', '-a', 'agy', '--format', 'csv'],
    ['--mode', 'calculate', '--json'],
    ['--mode', 'display'],
    ['--model', 'sonnet', '--cwd', '/tmp', '--tz', 'Europe/Paris'],
    ['--cache', join(tmpdir(), 'sf-empty-no-such-dir', 'events.db'), '--json'],
  ];
  it.each(answered.map((a) => [a.join(' ') || '(no options)', a] as const))('prints what the full path prints: %s', async (_, args) => {
    const { fast, slow } = await bothWays(args);
    expect(fast.full).toBe(0);
    expect(fast.code).toBe(0);
    expect(fast).toEqual({ ...slow, full: 0 });
  });

  it('counts nothing, names every root as missing, and creates no cache', async () => {
    const { fast } = await bothWays(['--json']);
    const s = JSON.parse(fast.stdout) as { requestCount: number; totalUsd: number; sources: { agent: string; root: string; status: string; variable?: string }[] };
    expect(s).toMatchObject({ requestCount: 0, totalUsd: 0, sessionCount: 0, unpriced: [], breakdowns: {} });
    expect(s.sources.length).toBeGreaterThan(20);
    expect(s.sources.every((x) => x.status === 'missing')).toBe(true);
    expect(s.sources.find((x) => x.agent === 'claude')).toMatchObject({ root: at('claude-config', 'projects'), variable: 'CLAUDE_CONFIG_DIR' });
    expect(() => mkdirSync(at('.cache'))).not.toThrow(); // no cache folder was made
    await rm(at('.cache'), { recursive: true });
  });

  const failing: [string, string[], NodeJS.ProcessEnv][] = [
    ['an unknown agent', ['--agent', 'nope'], {}],
    ['a prices file that is not there', ['--prices', at('missing.json')], {}],
    ['a prices file that is not JSON', ['--prices', at('bad.json')], {}],
    ['a bad prices file before an unknown agent', ['--prices', at('bad.json'), '--agent', 'nope'], {}],
    ['a tags file that is not JSON, with --tag', ['--tag', 'x'], { SESSIONFOLD_TAGS: at('bad.json') }],
    ['a tags file that is not JSON, by tag', ['-g', 'tag', '--agent', 'claude'], { SESSIONFOLD_TAGS: at('bad.json') }],
    ['an unknown agent before a bad tags file', ['--tag', 'x', '--agent', 'nope'], { SESSIONFOLD_TAGS: at('bad.json') }],
  ];
  it.each(failing)('fails as the full path fails: %s', async (_, args, extra) => {
    const { fast, slow } = await bothWays(args, extra);
    expect(fast.code).toBe(1);
    expect(fast.stderr).toMatch(/^error [A-Z_]+: /);
    expect({ ...fast, full: 0 }).toEqual({ ...slow, full: 0 });
  });

  it('leaves a cache path the scan refuses to the full path', async () => {
    const { fast, slow } = await bothWays(['--cache', '', '--json']);
    expect(fast.full).toBe(1);
    expect(fast).toEqual(slow);
  });
});

describe('what takes the full path', () => {
  it('a home with one session file', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sf-empty-one-'));
    try {
      const claude = join(home, 'claude-config');
      await writeClaudeSession(claude, '11111111-1111-4111-8111-111111111111', [{ id: 'm1', ms: Date.parse('2026-01-05T10:00:00Z'), inp: 10, out: 20, cr: 0, cw: 0, usd: 0.5 }]);
      const e = { HOME: home, CLAUDE_CONFIG_DIR: claude, XDG_CACHE_HOME: join(home, '.cache'), XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share') };
      expect(emptyHistoryReport({ env: { ...env, ...e } })).toBeUndefined();
      for (const args of [['--json'], ['--no-cache', '--json']]) {
        const r = await cli(args, e);
        expect(r.full).toBe(1);
        expect(JSON.parse(r.stdout)).toMatchObject({ requestCount: 1, totalUsd: 0.5 });
      }
      // an agent without files beside it answers from its own roots, when the report does not use the
      // cache (which the runs above made)
      expect((await cli(['--agent', 'codex', '--no-cache', '--json'], e)).full).toBe(0);
      expect((await cli(['--agent', 'codex', '--json'], e)).full).toBe(1);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('an agent root that is not a folder (not one under a file, which is missing)', async () => {
    mkdirSync(at('claude-config'));
    writeFileSync(at('claude-config', 'projects'), 'a file where the folder would be');
    try {
      const { fast, slow } = await bothWays(['--json']);
      expect(fast.full).toBe(1);
      expect(fast).toEqual(slow);
      expect(JSON.parse(fast.stdout).sources.find((x: { agent: string }) => x.agent === 'claude')).toMatchObject({ status: 'unreadable' });
    } finally {
      await rm(at('claude-config'), { recursive: true });
    }
    writeFileSync(at('claude-config'), 'a file where the folder named by the variable would be');
    try {
      const { fast, slow } = await bothWays(['--json']);
      expect(fast.full).toBe(0);
      expect(fast).toEqual({ ...slow, full: 0 });
    } finally {
      await rm(at('claude-config'));
    }
  });

  it('an event cache, which may hold the usage of deleted files; not with --no-cache', async () => {
    const cache = at('cache.db');
    writeFileSync(cache, '');
    try {
      expect(emptyHistoryReport({ env, cachePath: cache })).toBeUndefined();
      expect(emptyHistoryReport({ env, cachePath: cache, cache: false })).toBeDefined();
      expect(emptyHistoryReport({ env: { ...env, SESSIONFOLD_CACHE: cache } })).toBeUndefined();
      expect(emptyHistoryReport({ env })).toBeDefined();
      expect(emptyHistoryReport({ env, roots: { claude: [at('nowhere')] } })).toBeUndefined();
    } finally {
      await rm(cache);
    }
  });
});

describe('the built executable', () => {
  it('prints the same bytes both ways, JSON and the table', async () => {
    for (const args of [['--json'], []]) {
      const run = (extra: NodeJS.ProcessEnv) => exec(process.execPath, [MAIN, 'cost', 'report', ...args], { env: { ...env, ...extra } });
      const [fast, slow] = [await run({}), await run({ SESSIONFOLD_EMPTY_REPORT: '0' })];
      expect(fast.stdout.length).toBeGreaterThan(100);
      expect(fast).toEqual(slow);
    }
  }, 60_000);
});
