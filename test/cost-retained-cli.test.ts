/**
 * Retained spend: a cached report keeps usage whose lines left their file (the event cache's ledger) and says
 * how much, under the table and as `retained` in JSON; `--no-cache` counts only what the files hold now and
 * says why it is lower. Through the built CLI over an isolated HOME: a session is reported, truncated,
 * deleted and written back, and every figure is checked against a plain sum over the lines the test wrote.
 */
import { execFile } from 'node:child_process';
import { rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CostSummary } from '../src/cost/types.js';
import { totalCost } from '../src/cost/total.js';
import { createPricer } from '../src/cost/pricing.js';
import { claudeLine, expectReqSums, reqTokens, sumOf, writeClaudeSession, type Req } from './claude-lines.js';
import { HAS_CLAUDE, makeHome, type Home } from './sessions-helpers.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const run = promisify(execFile);
const SID = '66666666-6666-4666-8666-666666666666';
const OTHER = '77777777-7777-4777-8777-777777777777';
const REQS: Req[] = [
  { id: 'r1', ms: Date.UTC(2026, 0, 5, 9), inp: 10, out: 100, cr: 1000, cw: 5, usd: 0.5 },
  { id: 'r2', ms: Date.UTC(2026, 0, 5, 10), inp: 20, out: 200, cr: 2000, cw: 7, usd: 0.25 },
  { id: 'r3', ms: Date.UTC(2026, 0, 6, 11), inp: 30, out: 300, cr: 0, cw: 0, usd: 1 },
];
const STAY: Req[] = [{ id: 's1', ms: Date.UTC(2026, 0, 7, 9), inp: 1, out: 2, cr: 3, cw: 4, usd: 0.125 }];

let home: Home;
let file: string;
beforeAll(async () => {
  home = await makeHome();
  await writeClaudeSession(home.claude, SID, REQS);
  await writeClaudeSession(home.claude, OTHER, STAY);
  file = join(home.claude, 'projects', '-w', `${SID}.jsonl`);
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

async function report(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, 'cost', 'report', '--agent', 'claude', '--tz', 'UTC', ...args], { env: home.env });
}
async function json(args: string[]): Promise<CostSummary> {
  const r = await report(['--json', ...args]);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as CostSummary;
}

const expectSums = expectReqSums;

describe.skipIf(!HAS_CLAUDE)('retained spend (built CLI)', () => {
  it('is absent while every counted line is in its file', async () => {
    const s = await json(['--group-by', 'none']);
    expectSums(s, [...REQS, ...STAY]);
    expect(s.retained).toBeUndefined();
    expect((await report(['--group-by', 'none'])).stdout).not.toMatch(/Retained/);
  });

  it('a truncated file: the cached total stands, `retained` names what left; --no-cache is lower by exactly that', async () => {
    await writeFile(file, claudeLine(SID, REQS[0] as Req) + '\n');
    const gone = REQS.slice(1);
    for (const g of ['none', 'day', 'model']) {
      const s = await json(['--group-by', g]);
      expectSums(s, [...REQS, ...STAY]);
      expectSums(s.retained, gone);
      const none = await json(['--group-by', g, '--no-cache']);
      expectSums(none, [REQS[0] as Req, ...STAY]);
      expect(none.retained).toBeUndefined();
      expect(none.totalUsd).toBeCloseTo(s.totalUsd - (s.retained?.totalUsd ?? 0), 9);
      expect(none.requestCount).toBe(s.requestCount - (s.retained?.requestCount ?? 0));
    }
    const table = (await report(['--group-by', 'none'])).stdout;
    const usd = `$${sumOf(gone, (q) => q.usd).toFixed(2)}`;
    expect(table).toContain(`Retained: ${usd} (${gone.length} requests, ${sumOf(gone, reqTokens).toLocaleString('en-US')} tokens)`);
    expect(table).toMatch(/--no-cache report counts only what\s+the files hold now/);
    const md = (await report(['--group-by', 'none', '--format', 'markdown'])).stdout;
    expect(md).toContain(`Retained: ${usd}`);
    // --no-cost: tokens only, no dollars, and no money fields in JSON.
    const tokensOnly = (await report(['--group-by', 'none', '--no-cost'])).stdout;
    expect(tokensOnly).toContain(`Retained: ${gone.length} requests`);
    expect(tokensOnly).not.toMatch(/\$/);
    const j = await json(['--group-by', 'none', '--no-cost']);
    expect(j.retained).not.toHaveProperty('totalUsd');
    expect(j.retained?.outputTokens).toBe(sumOf(gone, (q) => q.out));
    // CSV keeps its rows; the note goes to stderr.
    const csv = await report(['--group-by', 'none', '--format', 'csv']);
    expect(csv.stdout).not.toMatch(/Retained/);
    expect(csv.stderr).toMatch(new RegExp(`^note: Retained: \\${usd}`));
  });

  it('--no-cache explains under the table why its total can be lower', async () => {
    const r = await report(['--group-by', 'none', '--no-cache']);
    expect(r.stdout).toMatch(/Without the event cache: only what the files hold now is counted/);
    expect(r.stdout).not.toMatch(/^Retained/m);
    expect(r.stdout).toContain(`$${sumOf([REQS[0] as Req, ...STAY], (q) => q.usd).toFixed(2)}`);
  });

  it('the library agrees with and without fold snapshots', async () => {
    const pricer = createPricer({ env: home.env });
    const base = { agents: ['claude'], env: home.env, pricer, timeZone: 'UTC' };
    const a = await totalCost({ ...base, groupBy: 'day' });
    const b = await totalCost({ ...base, groupBy: 'day', snapshots: false });
    expect(b).toEqual(a);
    expectSums(a.retained, REQS.slice(1));
  });

  it('a deleted file: all of it retained; written back whole: none', async () => {
    await unlink(file);
    const s = await json(['--group-by', 'none']);
    expectSums(s, [...REQS, ...STAY]);
    expectSums(s.retained, REQS);
    expectSums(await json(['--group-by', 'none', '--no-cache']), STAY);
    // Only the part of the selection: --since leaves out the first day's requests.
    const since = await json(['--group-by', 'none', '--since', '2026-01-06']);
    expectSums(since.retained, REQS.slice(2));

    await writeClaudeSession(home.claude, SID, REQS);
    const back = await json(['--group-by', 'none']);
    expectSums(back, [...REQS, ...STAY]);
    expect(back.retained).toBeUndefined();
  });
});
