/**
 * `sessionfold cost blocks` end to end: the built CLI spawned over an isolated HOME holding generated Claude
 * and Codex sessions, with windows, gaps, a duplicated response and an active window placed by hand; each
 * window's requests, tokens and cost are checked against a plain sum over the lines the test wrote; a second
 * home holds copies of responses without a usable timestamp.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlocksReport, UsageBlock } from '../src/cost/blocks.js';
import type { CostSummary } from '../src/cost/types.js';
import { claudeLine, reqTokens, sumOf, writeClaudeSession, type Req } from './claude-lines.js';
import { HAS_CLAUDE, HAS_CODEX, makeHome, type Home } from './sessions-helpers.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const run = promisify(execFile);
const H = 3_600_000;
const M = 60_000;

const T0 = Date.UTC(2026, 0, 10, 10, 20);
const now = Date.now();
// Window 1 starts at 10:00 (floored) and holds 10:20, 11:00 and 14:59; 16:30 is past 15:00, so window 2 starts
// at 16:00 without a gap (1.5 h of silence); 02:00 next day follows 9.5 h of silence: a gap, then window 3.
const OLD: Req[] = [
  { id: 'a', ms: T0, inp: 100, out: 200, cr: 1000, cw: 50, usd: 0.5 },
  { id: 'b', ms: T0 + 40 * M, inp: 10, out: 20, cr: 0, cw: 0, usd: 0.25 },
  { id: 'c', ms: Date.UTC(2026, 0, 10, 14, 59), inp: 7, out: 9, cr: 300, cw: 0, usd: 0.125 },
  { id: 'd', ms: Date.UTC(2026, 0, 10, 16, 30), inp: 1, out: 2, cr: 3, cw: 4, usd: 1 },
  { id: 'e', ms: Date.UTC(2026, 0, 11, 2, 0), inp: 5, out: 5, cr: 5, cw: 5, usd: 2 },
];
// The active window: two requests an hour apart, the last 20 minutes ago.
const RECENT: Req[] = [
  { id: 'f', ms: now - 80 * M, inp: 1000, out: 500, cr: 20_000, cw: 3000, usd: 0.75 },
  { id: 'g', ms: now - 20 * M, inp: 2000, out: 700, cr: 40_000, cw: 0, usd: 1.5 },
];
const WINDOWS: Req[][] = [OLD.slice(0, 3), OLD.slice(3, 4), OLD.slice(4, 5), RECENT];

let home: Home;
beforeAll(async () => {
  home = await makeHome();
  await writeClaudeSession(home.claude, '11111111-1111-4111-8111-111111111111', [...OLD, ...RECENT]);
  // A resumed session repeats response `b`: it counts once.
  await writeClaudeSession(home.claude, '22222222-2222-4222-8222-222222222222', [OLD[1] as Req]);
  const day = join(home.codex, 'sessions', '2026', '01', '10');
  await mkdir(day, { recursive: true });
  const cid = '0199a000-0000-7000-8000-000000000042';
  const tu = (i: number, c: number, o: number) => ({ input_tokens: i, cached_input_tokens: c, output_tokens: o, reasoning_output_tokens: 0, total_tokens: i + o });
  const rows = [
    { timestamp: '2026-01-10T12:00:00.000Z', type: 'session_meta', payload: { id: cid, timestamp: '2026-01-10T12:00:00.000Z', cwd: '/w', cli_version: '0.50.0', source: 'cli', model_provider: 'openai' } },
    { timestamp: '2026-01-10T12:00:01.000Z', type: 'turn_context', payload: { cwd: '/w', model: 'gpt-5' } },
    { timestamp: '2026-01-10T12:05:00.000Z', type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: tu(1000, 400, 100), last_token_usage: tu(1000, 400, 100) } } },
    { timestamp: '2026-01-10T12:10:00.000Z', type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: tu(3000, 1400, 300), last_token_usage: tu(2000, 1000, 200) } } },
  ];
  await writeFile(join(day, `rollout-2026-01-10T12-00-00-${cid}.jsonl`), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, ...args], { env: home.env });
}
async function blocks(args: string[]): Promise<BlocksReport> {
  const r = await cli(['cost', 'blocks', '--json', ...args]);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as BlocksReport;
}

const sum = sumOf;
const tokens = reqTokens;

describe.skipIf(!HAS_CLAUDE || !HAS_CODEX)('cost blocks (built CLI)', () => {
  it('cuts Claude usage into windows and gaps with ccusage rules, each window adding up', async () => {
    const before = Date.now();
    const report = await blocks(['--agent', 'claude']);
    const after = Date.now();
    const windows = report.blocks.filter((b) => !b.isGap);
    expect(report.blocks.map((b) => b.isGap)).toEqual([false, false, true, false, true, false]);
    expect(windows.map((b) => b.startTime)).toEqual([
      '2026-01-10T10:00:00.000Z',
      '2026-01-10T16:00:00.000Z',
      '2026-01-11T02:00:00.000Z',
      new Date(Math.floor((RECENT[0] as Req).ms / H) * H).toISOString(),
    ]);
    // The first gap runs from 5 h after window 2's last request to window 3's first.
    expect(report.blocks[2]).toMatchObject({ startTime: '2026-01-10T21:30:00.000Z', endTime: '2026-01-11T02:00:00.000Z', entries: 0 });
    windows.forEach((b, i) => {
      const rs = WINDOWS[i] as Req[];
      expect(b.agent).toBe('claude');
      expect(b.entries).toBe(rs.length);
      expect(b.tokenCounts).toEqual({ inputTokens: sum(rs, (r) => r.inp), outputTokens: sum(rs, (r) => r.out), cacheCreationInputTokens: sum(rs, (r) => r.cw), cacheReadInputTokens: sum(rs, (r) => r.cr) });
      expect(b.totalTokens).toBe(sum(rs, tokens));
      expect(b.costUSD).toBeCloseTo(sum(rs, (r) => r.usd), 9);
      expect(b.actualEndTime).toBe(new Date((rs[rs.length - 1] as Req).ms).toISOString());
      expect(Date.parse(b.endTime) - Date.parse(b.startTime)).toBe(5 * H);
      expect(b.isActive).toBe(i === 3);
    });
    // Burn rate between first and last request (60 minutes apart), projection to the window's end.
    const active = windows[3] as UsageBlock;
    expect(active.burnRate?.tokensPerMinute).toBeCloseTo(sum(RECENT, tokens) / 60, 6);
    expect(active.burnRate?.tokensPerMinuteForIndicator).toBeCloseTo(sum(RECENT, (r) => r.inp + r.out) / 60, 6);
    expect(active.burnRate?.costPerHour).toBeCloseTo(sum(RECENT, (r) => r.usd), 9);
    const end = Date.parse(active.endTime);
    const p = active.projection as NonNullable<UsageBlock['projection']>;
    // as ccusage's projectBlockUsage: the rate over the exact minutes from now to the end, those minutes rounded
    expect(p.remainingMinutes).toBeGreaterThanOrEqual(Math.round((end - after) / M));
    expect(p.remainingMinutes).toBeLessThanOrEqual(Math.round((end - before) / M));
    const projected = (minutes: number) => ({ tokens: Math.round(sum(RECENT, tokens) + (sum(RECENT, tokens) / 60) * minutes), usd: Math.round((sum(RECENT, (r) => r.usd) + (sum(RECENT, (r) => r.usd) / 60) * minutes) * 100) / 100 });
    const [low, high] = [projected((end - after) / M), projected((end - before) / M)];
    expect(p.totalTokens).toBeGreaterThanOrEqual(low.tokens);
    expect(p.totalTokens).toBeLessThanOrEqual(high.tokens);
    expect(p.totalCost).toBeGreaterThanOrEqual(low.usd);
    expect(p.totalCost).toBeLessThanOrEqual(high.usd);
    // Only the active window has a burn rate and a projection (as in ccusage); a gap has no last request.
    expect(report.blocks.filter((b) => b.burnRate !== null || b.projection !== null)).toEqual([active]);
    expect(report.blocks[2]?.actualEndTime).toBeNull();
  });

  it('keeps each agent to its own windows, and adds up to `cost report`', async () => {
    const report = await blocks([]);
    const codex = report.blocks.filter((b) => b.agent === 'codex');
    expect(codex).toHaveLength(1);
    // Codex input counts cached tokens; the window shows them as cache reads.
    expect(codex[0]).toMatchObject({ startTime: '2026-01-10T12:00:00.000Z', entries: 2, tokenCounts: { inputTokens: 3000 - 1400, outputTokens: 300, cacheCreationInputTokens: 0, cacheReadInputTokens: 1400 }, totalTokens: 3300, models: ['gpt-5'] });
    const r = await cli(['cost', 'report', '--json', '--group-by', 'agent']);
    const s = JSON.parse(r.stdout) as CostSummary;
    for (const agent of ['claude', 'codex']) {
      const mine = report.blocks.filter((b) => b.agent === agent);
      expect(mine.reduce((a, b) => a + b.entries, 0)).toBe(s.breakdowns?.[agent]?.requestCount);
      expect(mine.reduce((a, b) => a + b.costUSD, 0)).toBeCloseTo(s.breakdowns?.[agent]?.totalUsd as number, 9);
    }
    expect(s.breakdowns?.claude?.totalUsd).toBeCloseTo(sum([...OLD, ...RECENT], (r) => r.usd), 9);
  });

  it('--active keeps the active window; --since and --until select requests before windows are cut', async () => {
    const active = await blocks(['--active']);
    expect(active.blocks.map((b) => [b.agent, b.entries])).toEqual([['claude', 2]]);
    const day = await blocks(['--agent', 'claude', '--since', '2026-01-10', '--until', '2026-01-10', '--tz', 'UTC']);
    expect(day.blocks.map((b) => b.entries)).toEqual([3, 1]);
  });

  it('prints a table with the active window, its burn rate and projection', async () => {
    const r = await cli(['cost', 'blocks', '--agent', 'claude', '--tz', 'UTC']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^claude +2026-01-10 10:00 +4h 59m +claude-sonnet-4-5 +3 +117 +229 +50 +1,300 +1,696 +\$0\.88$/m);
    expect(r.stdout).toMatch(/^claude +2026-01-10 21:30 +gap 4h 30m$/m);
    expect(r.stdout).toMatch(/^claude +\d{4}-\d\d-\d\d \d\d:00 +ACTIVE \dh \d\dm left /m);
    expect(r.stdout).toMatch(new RegExp(`burn rate: +${Math.round(sum(RECENT, tokens) / 60).toLocaleString('en-US')} tokens/min, \\$2\\.25/h`));
    expect(r.stdout).toMatch(/projection: [\d,]+ tokens, \$[\d.]+ by the window's end \(\d+ min left\)/);
  });

  it('rejects an unknown format with a coded error', async () => {
    const e = await cli(['cost', 'blocks', '--format', 'xml']).catch((x: { code: number; stderr: string }) => x);
    expect(e).toMatchObject({ code: 1 });
    expect((e as { stderr: string }).stderr.split('\n')[0]).toMatch(/^error INVALID_OPTION: Invalid option --format/);
  });
});

describe.skipIf(!HAS_CLAUDE)('cost blocks (built CLI): copies without a timestamp', () => {
  const x: Req = { id: 'x', ms: T0, inp: 100, out: 10, cr: 0, cw: 0, usd: 0.5 };
  const y: Req = { id: 'y', ms: T0, inp: 30, out: 3, cr: 0, cw: 0, usd: 0.25 };
  const z: Req = { id: 'z', ms: T0 + 30 * M, inp: 7, out: 7, cr: 0, cw: 0, usd: 1 };
  /** A copy of `r`'s response whose line has `timestamp` (undefined: none). */
  const untimedLine = (sid: string, r: Req, timestamp: string | undefined): string => JSON.stringify({ ...(JSON.parse(claudeLine(sid, r)) as object), timestamp });
  let untimedHome: Home;
  beforeAll(async () => {
    untimedHome = await makeHome();
    await writeClaudeSession(untimedHome.claude, '33333333-3333-4333-8333-333333333333', [x, z]);
    const dir = join(untimedHome.claude, 'projects', '-w');
    // A larger copy of x without a usable timestamp: the copy the totals count.
    const s4 = '44444444-4444-4444-8444-444444444444';
    await writeFile(join(dir, `${s4}.jsonl`), [untimedLine(s4, { ...x, out: 20, usd: 0.75 }, 'garbage'), untimedLine(s4, y, 'garbage')].join('\n') + '\n');
    const s5 = '55555555-5555-4555-8555-555555555555';
    await writeFile(join(dir, `${s5}.jsonl`), untimedLine(s5, y, undefined) + '\n');
  });
  afterAll(async () => {
    await rm(untimedHome.dir, { recursive: true, force: true });
  });

  it('counts the copy `cost report` counts: an untimed winner leaves the windows, once per response', async () => {
    const b = await run(process.execPath, [CLI, 'cost', 'blocks', '--json'], { env: untimedHome.env });
    expect(b.stderr).toBe('');
    const report = JSON.parse(b.stdout) as BlocksReport;
    expect(report.blocks.map((w) => [w.entries, w.tokenCounts.outputTokens])).toEqual([[1, z.out]]);
    expect(report.untimedCount).toBe(2);
    const r = await run(process.execPath, [CLI, 'cost', 'report', '--json'], { env: untimedHome.env });
    const s = JSON.parse(r.stdout) as CostSummary;
    expect(s.requestCount).toBe((report.blocks[0]?.entries ?? NaN) + report.untimedCount);
    expect(s.outputTokens).toBe(z.out + 20 + y.out);
  });
});
