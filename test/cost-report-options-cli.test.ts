/**
 * `sessionfold cost report` options ccusage users reach for: `--breakdown`, `--last N`, `--order`,
 * `--compact` and `--no-cost`, through the built CLI over an isolated HOME of generated Claude sessions with
 * recorded costs; rows are checked against a plain sum over the lines the test wrote.
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CostSummary } from '../src/cost/types.js';
import { expectReqSums, reqTokens, sumOf, writeClaudeSession, type Req } from './claude-lines.js';
import { HAS_CLAUDE, makeHome, type Home } from './sessions-helpers.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const run = promisify(execFile);
const DAY = 86_400_000;
const SONNET = 'claude-sonnet-4-5';
const OPUS = 'claude-opus-4-1-with-a-rather-long-model-name-for-the-compact-table';
const HAIKU = 'claude-haiku-4-5';

const today = Math.floor(Date.now() / DAY) * DAY;
const REQS: Req[] = [
  { id: 'a', ms: Date.UTC(2026, 0, 5, 9), inp: 100, out: 200, cr: 1000, cw: 50, usd: 0.5, model: SONNET },
  { id: 'b', ms: Date.UTC(2026, 0, 5, 10), inp: 300, out: 400, cr: 0, cw: 10, usd: 1.25, model: OPUS },
  { id: 'c', ms: Date.UTC(2026, 0, 5, 11), inp: 1, out: 2, cr: 3, cw: 4, usd: 0.0625, model: SONNET },
  { id: 'd', ms: Date.UTC(2026, 0, 6, 12), inp: 7, out: 8, cr: 9, cw: 0, usd: 0.25, model: SONNET },
  { id: 'e', ms: Date.UTC(2026, 1, 10, 12), inp: 5, out: 6, cr: 0, cw: 0, usd: 0.125, model: HAIKU },
  { id: 'f', ms: today - 12 * 3_600_000, inp: 11, out: 12, cr: 13, cw: 14, usd: 2, model: HAIKU },
  { id: 'g', ms: today + 60_000, inp: 21, out: 22, cr: 23, cw: 24, usd: 4, model: OPUS },
];
const dayOf = (r: Req) => new Date(r.ms).toISOString().slice(0, 10);

let home: Home;
beforeAll(async () => {
  home = await makeHome();
  await writeClaudeSession(home.claude, '33333333-3333-4333-8333-333333333333', REQS.slice(0, 3));
  await writeClaudeSession(home.claude, '44444444-4444-4444-8444-444444444444', REQS.slice(3));
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

async function report(args: string[]): Promise<string> {
  const r = await run(process.execPath, [CLI, 'cost', 'report', '--agent', 'claude', '--tz', 'UTC', ...args], { env: home.env });
  expect(r.stderr).toBe('');
  return r.stdout;
}
const json = async (args: string[]) => JSON.parse(await report(['--json', ...args])) as CostSummary;

const expectRow = expectReqSums;

describe.skipIf(!HAS_CLAUDE)('cost report options (built CLI)', () => {
  it('--breakdown lists each day\'s models, adding up to the day', async () => {
    const s = await json(['--breakdown', '--group-by', 'day']);
    const days = [...new Set(REQS.map(dayOf))].sort();
    expect(Object.keys(s.breakdowns ?? {})).toEqual(days);
    for (const d of days) {
      const row = s.breakdowns?.[d];
      const inDay = REQS.filter((r) => dayOf(r) === d);
      expectRow(row, inDay);
      const models = [...new Set(inDay.map((r) => r.model as string))];
      expect(row?.modelBreakdowns?.map((m) => m.key).sort()).toEqual(models.sort());
      for (const m of models) expectRow(row?.modelBreakdowns?.find((x) => x.key === m), inDay.filter((r) => r.model === m));
      // Highest cost first.
      const costs = row?.modelBreakdowns?.map((m) => m.totalUsd) ?? [];
      expect(costs).toEqual([...costs].sort((a, b) => b - a));
    }
    expect((await json(['--group-by', 'day'])).breakdowns?.['2026-01-05']?.modelBreakdowns).toBeUndefined();
  });

  it('--breakdown in the table: model rows indented under their group, and in CSV a model column', async () => {
    const table = await report(['--breakdown', '--group-by', 'month']);
    expect(table).toMatch(new RegExp(`^2026-01 +2 +4 +408 +610 +64 +1,012 +2,094 +\\$2\\.06$\\n^  ${OPUS} +1 +1 +300 +400 +10 +0 +710 +\\$1\\.25$`, 'm'));
    const csv = (await report(['--breakdown', '--group-by', 'agent', '--format', 'csv'])).trim().split('\n');
    expect(csv[0]).toMatch(/^group,model,sessions,/);
    expect(csv.slice(1).map((l) => l.split(',').slice(0, 2).join(','))).toEqual(['claude,', `claude,${OPUS}`, `claude,${HAIKU}`, `claude,${SONNET}`]);
  });

  it('--order reverses the default order', async () => {
    const days = [...new Set(REQS.map(dayOf))].sort();
    expect(Object.keys((await json(['--group-by', 'day', '--order', 'desc'])).breakdowns ?? {})).toEqual([...days].reverse());
    expect(Object.keys((await json(['--group-by', 'day', '--order', 'asc'])).breakdowns ?? {})).toEqual(days);
    const byCost = [OPUS, HAIKU, SONNET].sort((a, b) => sumOf(REQS.filter((r) => r.model === a), (r) => r.usd) - sumOf(REQS.filter((r) => r.model === b), (r) => r.usd));
    expect(Object.keys((await json(['--group-by', 'model', '--order', 'asc'])).breakdowns ?? {})).toEqual(byCost);
    expect(Object.keys((await json(['--group-by', 'model'])).breakdowns ?? {})).toEqual([...byCost].reverse());
  });

  it('--last N keeps the last N periods, the current one included, and totals only them', async () => {
    const s = await json(['--group-by', 'day', '--last', '2']);
    const recent = REQS.slice(5);
    expect(Object.keys(s.breakdowns ?? {})).toEqual([dayOf(REQS[5] as Req), dayOf(REQS[6] as Req)]);
    expectRow(s, recent);
    expectRow(await json(['--group-by', 'day', '--last', '1']), REQS.slice(6));
    expect(Object.keys((await json(['--group-by', 'month', '--last', '1000'])).breakdowns ?? {})).toHaveLength(new Set(REQS.map((r) => dayOf(r).slice(0, 7))).size);
  });

  it('--compact fits 80 columns, the long labels cut', async () => {
    const out = await report(['--compact', '--breakdown', '--group-by', 'session']);
    const lines = out.trimEnd().split('\n');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(out).toMatch(/^ {2}claude-opus-4-1-with-a-rather-long.*… /m);
    expect(out).toMatch(new RegExp(`^Total +${sumOf(REQS, (r) => r.inp).toLocaleString('en-US')} +${sumOf(REQS, (r) => r.out).toLocaleString('en-US')} +[\\d,]+ +${sumOf(REQS, reqTokens).toLocaleString('en-US')} +\\$8\\.19$`, 'm'));
  });

  it('--no-cost prints tokens only, in every format', async () => {
    const table = await report(['--no-cost', '--group-by', 'model']);
    expect(table).not.toMatch(/Cost \(USD\)|\$/);
    expect(table).toMatch(new RegExp(`^Total +2 +7 +${sumOf(REQS, (r) => r.inp)} +${sumOf(REQS, (r) => r.out)} +[\\d,]+ +[\\d,]+ +${sumOf(REQS, reqTokens).toLocaleString('en-US')}$`, 'm'));
    const s = (await json(['--no-cost', '--breakdown'])) as unknown as Record<string, unknown>;
    expect(JSON.stringify(s)).not.toMatch(/totalUsd|unpriced/);
    expect(s.inputTokens).toBe(sumOf(REQS, (r) => r.inp));
    expect((await report(['--no-cost', '--format', 'csv'])).split('\n')[0]).not.toMatch(/cost_usd/);
  });

  it.each([
    [['--last', '2', '--group-by', 'model'], /^error INVALID_OPTION: Invalid option --last: needs --group-by day, week or month/],
    [['--last', '0'], /^error INVALID_OPTION: Invalid option --last/],
    [['--order', 'up'], /^error INVALID_OPTION: Invalid option --order/],
  ])('rejects %j with a coded error', async (args, message) => {
    const e = await run(process.execPath, [CLI, 'cost', 'report', ...args], { env: home.env }).catch((x: { code: number; stderr: string }) => x);
    expect(e).toMatchObject({ code: 1 });
    expect((e as { stderr: string }).stderr).toMatch(message);
  });
});
