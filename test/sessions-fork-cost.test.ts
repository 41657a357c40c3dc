/**
 * A session's cost is its own spend: the responses its file copied from another session (usage marked
 * `copied`: a Claude `--resume` copy keeping its origin's `sessionId`, a `/branch` copy stamped `forkedFrom`)
 * are in `copiedCost`, not in `cost`, as `cost report --group-by session` credits them to the session that
 * made them. So the costs `sessions list` shows add up to `cost report`'s total, row for row, on every read
 * path of `list` (whole folds, the usage-only read of a few lazy files, the scan engine's for many) cold,
 * warm and without the cache; `get()`, the exports and the status line agree. Library and built CLI.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusLine } from '../src/cost/statusline.js';
import { totalCost } from '../src/cost/total.js';
import type { CostRecord, CostSummary } from '../src/cost/types.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { FULL_PEEK_BYTES } from '../src/sessions/peek.js';
import type { Session, SessionSummary } from '../src/sessions/types.js';
import { SCAN_MIN_FILES } from '../src/sessions/usage-scan.js';
import { claudeLine, expectReqSums, type Req } from './claude-lines.js';
import { HAS_CLAUDE, makeHome, type Home } from './sessions-helpers.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const run = promisify(execFile);

const ORIGIN = 'cccccccc-0000-4000-8000-000000000000';
const RESUMED = 'aaaaaaaa-0000-4000-8000-000000000000';
const SUB = 'agent-a1';
const at = (h: number, m = 0): number => Date.UTC(2026, 1, 3, h, m);
const OLD: Req[] = [
  { id: 'o1', ms: at(9), inp: 10, out: 100, cr: 1000, cw: 5, usd: 0.5 },
  { id: 'o2', ms: at(10), inp: 20, out: 200, cr: 2000, cw: 7, usd: 0.25 },
];
const RESUMED_OWN: Req[] = [{ id: 'r1', ms: at(11), inp: 1, out: 2, cr: 3, cw: 4, usd: 0.125 }];
const SUB_OWN: Req[] = [{ id: 's1', ms: at(13), inp: 2, out: 3, cr: 4, cw: 5, usd: 2 }];
/** Enough branched forks, each too large to be read whole by the peek, for `list --sort cost` to scan them. */
const FORKS = SCAN_MIN_FILES + 1;
const forkId = (i: number): string => `bbbbbbbb-0000-4000-8000-${String(i).padStart(12, '0')}`;
const forkOwn = (i: number): Req[] => [{ id: `f${i}`, ms: at(12, i), inp: 5 + i, out: 6, cr: 7, cw: 8, usd: 1 + i / 64 }];
const PAD = 'lorem ipsum '.repeat(Math.ceil((FULL_PEEK_BYTES + 4096) / 12));

/** Each session's own responses, and those it copied. */
const OWN = new Map<string, Req[]>([[ORIGIN, OLD], [RESUMED, RESUMED_OWN], [SUB, SUB_OWN]]);
const COPIED = new Map<string, Req[]>([[RESUMED, OLD]]);
for (let i = 0; i < FORKS; i++) {
  OWN.set(forkId(i), forkOwn(i));
  COPIED.set(forkId(i), OLD);
}

/** A `/branch` copy's line: the new session's id, the origin in `forkedFrom`. */
function branchedLine(sid: string, r: Req): string {
  return JSON.stringify({ ...(JSON.parse(claudeLine(sid, r)) as Record<string, unknown>), forkedFrom: { sessionId: ORIGIN, messageUuid: `u-${r.id}` } });
}

function userLine(sid: string, ms: number, text: string): string {
  return JSON.stringify({ type: 'user', sessionId: sid, cwd: '/w', timestamp: new Date(ms).toISOString(), uuid: `u-${sid}-${ms}`, message: { role: 'user', content: text } });
}

/** A fork: the origin's responses copied, a long prompt (so the file is not read whole by a lazy list), its own response. */
function forkLines(i: number): string[] {
  const sid = forkId(i);
  return [userLine(sid, at(8), 'Start'), ...OLD.map((r) => branchedLine(sid, r)), userLine(sid, at(12), `Go on ${PAD}`), ...forkOwn(i).map((r) => claudeLine(sid, r))];
}

let home: Home;
/** A second root with two forks only: fewer than SCAN_MIN_FILES lazy files take the direct usage-only read. */
let small: string;
const dir = (): string => join(home.claude, 'projects', '-w');
const fileOf = (sid: string): string => join(dir(), `${sid}.jsonl`);

beforeAll(async () => {
  home = await makeHome();
  small = join(home.dir, 'small', 'projects');
  await mkdir(join(dir(), ORIGIN, 'subagents'), { recursive: true });
  await mkdir(join(small, '-w'), { recursive: true });
  const write = (path: string, lines: string[]) => writeFile(path, lines.join('\n') + '\n');
  await write(fileOf(ORIGIN), OLD.map((r) => claudeLine(ORIGIN, r)));
  await write(join(small, '-w', `${ORIGIN}.jsonl`), OLD.map((r) => claudeLine(ORIGIN, r)));
  await write(fileOf(RESUMED), [...OLD.map((r) => claudeLine(ORIGIN, r)), ...RESUMED_OWN.map((r) => claudeLine(RESUMED, r))]);
  await write(join(dir(), ORIGIN, 'subagents', `${SUB}.jsonl`), SUB_OWN.map((r) => claudeLine(ORIGIN, r)));
  for (let i = 0; i < FORKS; i++) await write(fileOf(forkId(i)), forkLines(i));
  for (let i = 0; i < 2; i++) await write(join(small, '-w', `${forkId(i)}.jsonl`), forkLines(i));
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

interface Costed {
  sessionId: string;
  cost?: CostRecord;
  copiedCost?: CostRecord;
}

/**
 * Every row costs its own responses and keeps its copies apart, and equals the report's row of its session;
 * rows of every session (`all`) add up to the report's total.
 */
function expectOwnSpend(rows: readonly Costed[], report: CostSummary, ids: readonly string[], all = true): void {
  expect(rows.map((r) => r.sessionId).sort()).toEqual([...ids].sort());
  let sum = 0;
  for (const r of rows) {
    expectReqSums(r.cost, OWN.get(r.sessionId) ?? []);
    const copied = COPIED.get(r.sessionId);
    if (copied === undefined) expect(r.copiedCost).toBeUndefined();
    else expectReqSums(r.copiedCost, copied);
    const row = report.breakdowns?.[`claude:${r.sessionId}`];
    expect(row?.requestCount).toBe(r.cost?.requestCount);
    expect(row?.totalUsd).toBeCloseTo(r.cost?.totalUsd ?? NaN, 9);
    sum += r.cost?.totalUsd ?? 0;
  }
  if (!all) return;
  expect(sum).toBeCloseTo(report.totalUsd, 9);
  expect(rows.reduce((n, r) => n + (r.cost?.requestCount ?? 0), 0)).toBe(report.requestCount);
}

const ALL = (): string[] => [...OWN.keys()];
const SMALL = [ORIGIN, forkId(0), forkId(1)];

describe.skipIf(!HAS_CLAUDE)('a session costs its own spend, not its copies of another session', () => {
  it('list: whole folds, the scan engine and the direct usage read, cold, warm and without the cache', async () => {
    const report = await totalCost({ agents: ['claude'], env: home.env, timeZone: 'UTC', groupBy: 'session', cache: false });
    for (const cache of [{ cache: false }, { cachePath: join(home.dir, 'lib.db') }, { cachePath: join(home.dir, 'lib.db') }]) {
      const sm = createSessionManager({ env: home.env, ...cache });
      const whole = await sm.list('claude', { full: true, subagents: true, limit: 1000 });
      expect(whole.every((r) => r.exact)).toBe(true);
      expectOwnSpend(whole, report, ALL());
      const byCost = await sm.list('claude', { sort: 'cost', subagents: true, limit: 1000 });
      expect(byCost.filter((r) => !r.exact).length).toBeGreaterThanOrEqual(SCAN_MIN_FILES);
      expectOwnSpend(byCost, report, ALL());
    }
    const roots = { claude: [small] };
    const smallReport = await totalCost({ agents: ['claude'], env: home.env, roots, timeZone: 'UTC', groupBy: 'session', cache: false });
    for (const cache of [{ cache: false }, { cachePath: join(home.dir, 'small.db') }, { cachePath: join(home.dir, 'small.db') }]) {
      const rows = await createSessionManager({ env: home.env, roots, ...cache }).list('claude', { sort: 'cost' });
      expect(rows.filter((r) => !r.exact).length).toBe(2);
      expectOwnSpend(rows, smallReport, SMALL);
    }
  });

  it('get, search, the exports and the status line count the same own spend', async () => {
    const sm = createSessionManager({ env: home.env, cache: false });
    const fork = forkId(3);
    const s = await sm.get('claude', fork);
    expectReqSums(s.cost, forkOwn(3));
    expectReqSums(s.copiedCost, OLD);
    expect(Object.values(s.costByModel ?? {}).reduce((n, c) => n + c.requestCount, 0)).toBe(1);
    // each copied message keeps its own cost, marked
    expect(s.messages.filter((m) => m.usage?.copied === true).map((m) => m.cost?.totalUsd)).toEqual(OLD.map((r) => r.usd));
    const json = JSON.parse(await sm.export('claude', fork, 'json')) as Session;
    expect(json.copiedCost?.totalUsd).toBeCloseTo(0.75, 9);
    expect(json.cost?.totalUsd).toBeCloseTo(forkOwn(3)[0]?.usd ?? NaN, 9);
    const header = JSON.parse((await sm.export('claude', fork, 'jsonl')).split('\n')[0] as string) as Costed;
    expect(header.cost?.requestCount).toBe(1);
    expect(header.copiedCost?.requestCount).toBe(2);
    const md = await sm.export('claude', fork, 'markdown');
    expect(md).toContain('- **Cost:** $1.05 (1 request)');
    expect(md).toContain('- **Copied from another session:** $0.75 (2 requests), not in the cost');
    const hits = await sm.search({ text: 'Go on', agent: 'claude', limit: 100 });
    expectOwnSpend(hits, await totalCost({ agents: ['claude'], env: home.env, timeZone: 'UTC', groupBy: 'session', cache: false }), ALL().filter((id) => id.startsWith('bbbbbbbb')), false);
  });

  it("the status line's session cost is the fork's own spend; its context, the last response it holds", async () => {
    const fork = forkId(3);
    for (const cache of [{ cache: false }, { cachePath: join(home.dir, 'status.db') }, { cachePath: join(home.dir, 'status.db') }]) {
      const st = await statusLine({ agent: 'claude', sessionId: fork, file: fileOf(fork), env: home.env, now: new Date(at(14)), timeZone: 'UTC', ...cache });
      expect(st.session).toMatchObject({ requests: 1 });
      expect(st.session?.costUsd).toBeCloseTo(forkOwn(3)[0]?.usd ?? NaN, 9);
      expect(st.context?.usedTokens).toBe(5 + 3 + 7 + 8);
    }
    // A fork with no response of its own yet: its copies give the context, not a cost.
    const fresh = join(dir(), 'dddddddd-0000-4000-8000-000000000000.jsonl');
    const sid = 'dddddddd-0000-4000-8000-000000000000';
    await writeFile(fresh, [userLine(sid, at(8), 'Start'), ...OLD.map((r) => branchedLine(sid, r))].join('\n') + '\n');
    try {
      const st = await statusLine({ agent: 'claude', sessionId: sid, file: fresh, env: home.env, now: new Date(at(14)), timeZone: 'UTC', cache: false });
      expect(st.session).toBeNull();
      expect(st.sessionFound).toBe(true);
      expect(st.context?.usedTokens).toBe(20 + 2000 + 7);
    } finally {
      await rm(fresh);
    }
  });

  for (const native of ['on', 'off'] as const) {
    it(`the CLI: list's costs add up to cost report's, cold, warm and --lazy (native addon ${native})`, async () => {
      const env = { ...home.env, ...(native === 'off' && { SESSIONFOLD_NATIVE: '0' }), SESSIONFOLD_CACHE: join(home.dir, `cli-${native}.db`) };
      const cli = async (args: string[]): Promise<unknown> => {
        const r = await run(process.execPath, [CLI, ...args], { env, maxBuffer: 64 << 20 });
        return JSON.parse(r.stdout) as unknown;
      };
      const report = (await cli(['cost', 'report', '--agent', 'claude', '--tz', 'UTC', '--group-by', 'session', '--json'])) as CostSummary;
      for (let pass = 0; pass < 2; pass++) {
        expectOwnSpend((await cli(['sessions', 'list', 'claude', '--subagents', '--limit', '1000', '--json'])) as SessionSummary[], report, ALL());
        expectOwnSpend((await cli(['sessions', 'list', 'claude', '--subagents', '--limit', '1000', '--sort', 'cost', '--lazy', '--json'])) as SessionSummary[], report, ALL());
      }
      const tokensOnly = (await cli(['sessions', 'list', 'claude', '--limit', '1000', '--json', '--no-cost'])) as Costed[];
      const row = tokensOnly.find((r) => r.sessionId === forkId(0));
      expect(row?.copiedCost).toMatchObject({ requestCount: 2 });
      expect(row?.copiedCost).not.toHaveProperty('totalUsd');
      const fork = forkId(5);
      const shown = (await cli(['sessions', 'show', 'claude', fork, '--format', 'json'])) as Session;
      expectReqSums(shown.cost, forkOwn(5));
      expectReqSums(shown.copiedCost, OLD);
      for (const args of [['--no-cache'], [], []]) {
        const st = (await cli(['statusline', '--agent', 'claude', '--session', fork, '--file', fileOf(fork), '--now', new Date(at(14)).toISOString(), '--tz', 'UTC', '--json', ...args])) as { session: { costUsd: number; requests: number } };
        expect(st.session.requests).toBe(1);
        expect(st.session.costUsd).toBeCloseTo(forkOwn(5)[0]?.usd ?? NaN, 9);
      }
    });
  }
});
