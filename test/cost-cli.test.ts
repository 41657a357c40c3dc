/**
 * `sessionfold cost report` end to end, over a small fixture history (test/cost-history.ts): golden output
 * per format (test/snapshots/cli/cost-report-<format>.txt, sessionfold-jsonl only so it does not move with
 * the Claude/Codex codecs), every option, and a run over whatever agents are registered. Most cases call
 * `runCli` in process; the last ones spawn the built CLI (`npx tsc -p .` first).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { createProgress } from '../src/cli/progress.js';
import type { CostSummary } from '../src/cost/types.js';
import { listCodecs } from '../src/registry.js';
import { makeHistory, sink, type History } from './cost-history.js';

let h: History;
let real: History;
beforeAll(() => {
  h = makeHistory();
  real = makeHistory({ real: true });
});

async function cli(args: string[], history: History = h, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(args, { stdout, stderr, env: { ...history.env, ...env } });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const JSONL = ['--agent', 'sessionfold-jsonl', '--tz', 'UTC'];

async function summary(args: string[], history: History = h, env: NodeJS.ProcessEnv = {}): Promise<CostSummary> {
  const r = await cli(['cost', 'report', '--json', ...args], history, env);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as CostSummary;
}

// Hand-computed from the genai-prices rates (USD per 1M tokens), see test/cost-history.ts:
// a1 sonnet-4: 120×3 + 850×15 + 15,000×0.3 + 2,000×3.75 + 1,000×6 (1h) = 31,110
// a2 gpt-5: 4,000×1.25 + 2,048×0.125 + 600×10 = 11,256
// b1 sonnet-4.5, one request of 211,000 prompt tokens > 200k: 1,000×6 + 210,000×0.6 + 2,000×22.5 = 177,000
// b2 opus-4.1: recorded $0.42 (mode auto)
// g1 gemini-2.5-pro, a span (not tiered): 300,000×1.25 + 400×10 = 379,000
// g2 gpt-5.2-codex: 1,500×1.75 + 6,000×0.175 + 300×14 = 7,875
const TOTAL_USD = (31_110 + 11_256 + 177_000 + 379_000 + 7_875) / 1e6 + 0.42;

describe('cost report: golden output', () => {
  it.each(['table', 'json', 'csv', 'markdown'])('--format %s', async (format) => {
    const r = await cli(['cost', 'report', ...JSONL, '--format', format]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // JSON names the roots read (`sources`), under this run's temp HOME
    await expect(r.stdout.replaceAll(h.home, '<home>')).toMatchFileSnapshot(`snapshots/cli/cost-report-${format}.txt`);
  });

  it('--json prints the CostSummary object and nothing else', async () => {
    const r = await cli(['cost', 'report', ...JSONL, '--json', '--group-by', 'none']);
    const s = JSON.parse(r.stdout) as CostSummary;
    expect(s.totalUsd).toBeCloseTo(TOTAL_USD, 9);
    expect(s).toMatchObject({ requestCount: 7, unpricedCount: 1, sessionCount: 3, runCount: 3, thinkingTokens: 256, cacheWrite1hTokens: 1_000 });
    expect(s.unpriced).toEqual([{ model: 'mystery-model-x', count: 1, inputTokens: 50, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 }]);
    expect(s.breakdowns).toBeUndefined();
    expect((await cli(['cost', 'report', ...JSONL, '--format', 'json', '--group-by', 'none'])).stdout).toBe(r.stdout);
  });

  it('the table lists unpriced models under it and marks partial costs', async () => {
    const r = await cli(['cost', 'report', ...JSONL, '--group-by', 'model']);
    expect(r.stdout).toMatch(/^mystery-model-x .* n\/a\*$/m);
    expect(r.stdout).toMatch(/^Total .*\$1\.03\*$/m);
    expect(r.stdout).toMatch(/Unpriced usage, not included in the cost \(1 request\):\n {2}mystery-model-x +1 req {2}50 input, 20 output/);
  });
});

describe('cost report: options', () => {
  it.each([
    ['agent', ['sessionfold-jsonl']],
    ['model', ['claude-opus-4-1-20250805', 'gemini-2.5-pro', 'claude-sonnet-4-5-20250929', 'claude-sonnet-4-20250514', 'gpt-5', 'gpt-5.2-codex', 'mystery-model-x']],
    ['day', ['2026-01-05', '2026-01-06', '2026-01-12', '2026-02-01', '2026-02-02', '2026-02-03']],
    ['week', ['2026-W02', '2026-W03', '2026-W05', '2026-W06']],
    ['month', ['2026-01', '2026-02']],
    ['session', ['sessionfold-jsonl:beta', 'sessionfold-jsonl:gamma', 'sessionfold-jsonl:alpha']],
    ['project', ['/work/app/sub', '/work/site', '/work/app']],
  ])('--group-by %s', async (g, keys) => {
    const s = await summary([...JSONL, '--group-by', g]);
    expect(Object.keys(s.breakdowns ?? {})).toEqual(keys);
    const rows = Object.values(s.breakdowns ?? {});
    expect(rows.reduce((a, r) => a + r.requestCount, 0)).toBe(7);
  });

  it('--group-by tag, and --tag, read the tags file', async () => {
    const dir = join(h.home, '.config', 'sessionfold');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'tags.json'), JSON.stringify({ 'sessionfold-jsonl:gamma': ['client'], 'cwd:/work/app': ['internal'] }));
    const s = await summary([...JSONL, '--group-by', 'tag']);
    expect(Object.fromEntries(Object.entries(s.breakdowns ?? {}).map(([k, v]) => [k, v.requestCount]))).toEqual({ client: 2, internal: 5 });
    expect((await summary([...JSONL, '--tag', 'client', '--group-by', 'none'])).requestCount).toBe(2);
    expect((await summary([...JSONL, '--tag', 'nope', '--group-by', 'none'])).requestCount).toBe(0);
  });

  it('--since / --until take dates in --tz, --until inclusive', async () => {
    // a2 is at 2026-01-05T23:30Z: before 2026-01-06 in UTC, on 2026-01-06 in Tokyo.
    expect((await summary(['--agent', 'sessionfold-jsonl', '--tz', 'UTC', '--since', '2026-01-06', '--group-by', 'none'])).requestCount).toBe(5);
    expect((await summary(['--agent', 'sessionfold-jsonl', '--tz', 'Asia/Tokyo', '--since', '2026-01-06', '--group-by', 'none'])).requestCount).toBe(6);
    expect((await summary([...JSONL, '--since', '2026-01-06', '--until', '2026-02-01', '--group-by', 'none'])).requestCount).toBe(3);
    expect((await summary([...JSONL, '--since', '2026-01-12T12:00:00Z', '--until', '20260202', '--group-by', 'none'])).requestCount).toBe(3);
  });

  it('--tz buckets days in that zone', async () => {
    const s = await summary(['--agent', 'sessionfold-jsonl', '--tz', 'Asia/Tokyo', '--group-by', 'day']);
    expect(Object.keys(s.breakdowns ?? {})).toEqual(['2026-01-05', '2026-01-06', '2026-01-12', '2026-02-01', '2026-02-02', '2026-02-03']);
    expect(s.breakdowns?.['2026-01-06']?.requestCount).toBe(2);
  });

  it('--model, --cwd', async () => {
    expect((await summary([...JSONL, '--model', 'GPT', '--group-by', 'none'])).requestCount).toBe(2);
    expect((await summary([...JSONL, '--cwd', '/work/app', '--group-by', 'none'])).requestCount).toBe(5);
    // Filters apply before dedup: the fork's copy of a1 counts when the original's directory is not selected.
    expect((await summary([...JSONL, '--cwd', '/work/app/sub/', '--group-by', 'none'])).requestCount).toBe(3);
  });

  it('--mode calculate ignores recorded costs; --mode display uses only them', async () => {
    const calc = await summary([...JSONL, '--mode', 'calculate', '--group-by', 'none']);
    expect(calc.totalUsd).toBeCloseTo(TOTAL_USD - 0.42 + (10 * 15 + 100 * 75) / 1e6, 9);
    const display = await summary([...JSONL, '--mode', 'display', '--group-by', 'none']);
    expect(display.totalUsd).toBeCloseTo(0.42, 9);
    expect(display.unpricedCount).toBe(6);
  });

  it('--prices prices a model the data lacks', async () => {
    const file = join(h.home, 'my-prices.json');
    writeFileSync(file, JSON.stringify({ models: { 'mystery-model-*': { input_mtok: 1000, output_mtok: 1000 } } }));
    const s = await summary([...JSONL, '--prices', file, '--group-by', 'none']);
    expect(s.unpriced).toEqual([]);
    expect(s.totalUsd).toBeCloseTo(TOTAL_USD + 0.07, 9);
    expect((await summary([...JSONL, '--group-by', 'none'], h, { SESSIONFOLD_PRICES: file })).unpriced).toEqual([]);
  });

  it('--no-cache folds the same totals as the cached scan, and --cache picks the database', async () => {
    const cached = await summary([...JSONL, '--group-by', 'day']);
    expect(await summary([...JSONL, '--group-by', 'day', '--no-cache'])).toEqual(cached);
    expect(await summary([...JSONL, '--group-by', 'day', '--cache', join(h.home, 'other.db')])).toEqual(cached);
  });

  it('a selection without usage folds to zeros', async () => {
    const s = await summary([...JSONL, '--since', '2030-01-01']);
    expect(s).toMatchObject({ totalUsd: 0, requestCount: 0, sessionCount: 0, runCount: 0, unpriced: [], breakdowns: {} });
    const table = await cli(['cost', 'report', ...JSONL, '--since', '2030-01-01']);
    expect(table.stdout).toMatch(/^Total +0 +0 +0 +0 +0 +0 +0 +\$0\.00$/m);
  });

  it.each([
    [['--group-by', 'year'], /error INVALID_OPTION: Invalid option --group-by/],
    [['--format', 'xml'], /error INVALID_OPTION: Invalid option --format/],
    [['--since', 'last week'], /error INVALID_OPTION: Invalid option --since/],
    [['--tz', 'Mars/Base'], /error INVALID_OPTION: Invalid option --tz/],
    [['--mode', 'cheap'], /error INVALID_OPTION: Invalid option --mode/],
    [['--agent', 'nope'], /error AGENT_NOT_FOUND/],
  ])('rejects %j with a coded error and exit 1', async (args, message) => {
    const r = await cli(['cost', 'report', ...args]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });
});

describe('cost report over every registered agent', () => {
  it('reports each agent that has history, and the groups add up to the total', async () => {
    const s = await summary(['--tz', 'UTC', '--group-by', 'agent'], real);
    const ids = listCodecs().map((c) => c.id);
    const keys = Object.keys(s.breakdowns ?? {});
    expect(keys).toContain('sessionfold-jsonl');
    for (const k of keys) expect(ids).toContain(k);
    for (const agent of ['claude', 'codex']) if (ids.includes(agent)) expect(keys).toContain(agent);
    const rows = Object.values(s.breakdowns ?? {});
    expect(rows.reduce((a, r) => a + r.requestCount, 0)).toBe(s.requestCount);
    expect(rows.reduce((a, r) => a + r.totalUsd, 0)).toBeCloseTo(s.totalUsd, 6);
    expect(s.breakdowns?.['sessionfold-jsonl']?.totalUsd).toBeCloseTo(TOTAL_USD, 9);
  });

  it('--agent filters to one agent and matches its own row', async () => {
    const all = await summary(['--tz', 'UTC', '--group-by', 'agent'], real);
    for (const [agent, row] of Object.entries(all.breakdowns ?? {})) {
      const one = await summary(['--tz', 'UTC', '--group-by', 'none', '--agent', agent], real);
      expect(one.requestCount).toBe(row.requestCount);
      expect(one.totalUsd).toBeCloseTo(row.totalUsd, 9);
    }
  });
});

describe('progress bar', () => {
  it('draws on a TTY once reading takes a moment, and clears itself', () => {
    const out = sink() as ReturnType<typeof sink> & { isTTY?: boolean; columns?: number };
    out.isTTY = true;
    out.columns = 80;
    const bar = createProgress(out, {}, 'Reading', 0);
    bar.onProgress(50 * 1048576, 100 * 1048576);
    bar.stop();
    expect(out.text()).toMatch(/^\r\[#+\.+\] {2}50% 50\/100 MB\x1b\[K\r\x1b\[K$/);
  });

  it('stays silent when stderr is not a terminal', () => {
    const out = sink();
    const bar = createProgress(out, {}, 'Reading', 0);
    bar.onProgress(1, 2);
    bar.stop();
    expect(out.text()).toBe('');
  });
});

describe('cost report as a subprocess (built CLI)', () => {
  const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
  const run = promisify(execFile);

  it('prints the same table and JSON as in process', async () => {
    for (const format of ['table', 'json']) {
      const r = await run(process.execPath, [CLI, 'cost', 'report', ...JSONL, '--format', format], { env: h.env });
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe((await cli(['cost', 'report', ...JSONL, '--format', format])).stdout);
    }
  });

  it('exits 1 with a one-line coded error on a bad option', async () => {
    const r = await run(process.execPath, [CLI, 'cost', 'report', '--group-by', 'year'], { env: h.env }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr.split('\n')[0]).toBe('error INVALID_OPTION: Invalid option --group-by: expected agent|model|day|week|month|session|project|tag|none, got "year"');
  });
});
