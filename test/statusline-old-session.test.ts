/**
 * The status line of a session whose transcript was last written before the status line's look-back (a
 * resumed old session, until its first new line lands). The status line scans the files written since the
 * earlier of today's start and its window look-back, and the scan skips older files unopened; the session's
 * own file is read whatever its mtime, for the session's figures alone: today and the window stay those of
 * the bounded scan.
 *
 * The HOME: session OLD, whose two responses and mtime are two days old; session FRESH, two responses today;
 * session SKEW, whose mtime is two days old though its last line is stamped today (a clock that jumped):
 * were a kept file's records folded into today, that line would show there, while `cost report` over today
 * leaves the file out. Each figure is checked against plain sums of the generated responses, against
 * `sessions show` (cost, and the last response's prompt for the context) and `cost report` over today, through
 * the built CLI fed Claude Code's JSON (cached cold and warm, and `--no-cache`), the library, and `serve`;
 * the scan's `keep` option under it is checked on its own.
 */
import { rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusLine, type StatusLineData } from '../src/cost/statusline.js';
import type { CostSummary } from '../src/cost/types.js';
import { newScanStats, scanUsage, type KeepFiles } from '../src/scan/index.js';
import { isServed } from '../src/serve/protocol.js';
import { promptOf, sumOf, writeClaudeSession, type Req } from './claude-lines.js';
import { cliWithStdin } from './helpers/cli-stdin.js';
import { serveDuringBlock } from './helpers/serve-process.js';
import { COUNTED } from './helpers/served-count.js';
import { HAS_CLAUDE, makeHome, type Home } from './sessions-helpers.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;

const NOW = '2026-03-10T12:00:00.000Z';
const TWO_DAYS_AGO = Date.parse('2026-03-08T09:00:00Z');
const TODAY = Date.parse('2026-03-10T00:00:00Z');
const MIN = 60_000;

const OLD_SID = 'aaaaaaaa-1111-4111-8111-000000000001';
const FRESH_SID = 'aaaaaaaa-1111-4111-8111-000000000002';
const SKEW_SID = 'aaaaaaaa-1111-4111-8111-000000000003';
const OLD: Req[] = [
  { id: 'old0', ms: TWO_DAYS_AGO, inp: 10, out: 50, cr: 1_000, cw: 200, usd: 1.25 },
  { id: 'old1', ms: TWO_DAYS_AGO + 20 * MIN, inp: 12, out: 70, cr: 4_000, cw: 300, usd: 0.5 },
];
const FRESH: Req[] = [
  { id: 'fr0', ms: TODAY + 10 * 60 * MIN, inp: 20, out: 40, cr: 2_000, cw: 100, usd: 0.75 },
  { id: 'fr1', ms: TODAY + 11 * 60 * MIN, inp: 22, out: 60, cr: 3_000, cw: 150, usd: 0.125 },
];
const SKEW: Req[] = [
  { id: 'sk0', ms: TWO_DAYS_AGO - 60 * MIN, inp: 30, out: 10, cr: 500, cw: 0, usd: 2 },
  { id: 'sk1', ms: TODAY + 9 * 60 * MIN, inp: 31, out: 11, cr: 600, cw: 0, usd: 4 },
];


let home: Home;
const fileOf = (sid: string): string => join(home.claude, 'projects', '-w', `${sid}.jsonl`);

beforeAll(async () => {
  home = await makeHome();
  for (const [sid, reqs, mtime] of [
    [OLD_SID, OLD, TWO_DAYS_AGO + 21 * MIN],
    [FRESH_SID, FRESH, TODAY + 11 * 60 * MIN + MIN],
    [SKEW_SID, SKEW, TWO_DAYS_AGO - 30 * MIN],
  ] as const) {
    await writeClaudeSession(home.claude, sid, reqs);
    await utimes(fileOf(sid), new Date(mtime), new Date(mtime));
  }
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

const cli = cliWithStdin(() => home.env);

/** Claude Code's status-line JSON for a session (no window size stated: the price data's applies). */
const stdinFor = (sid: string): string =>
  JSON.stringify({ hook_event_name: 'Status', session_id: sid, transcript_path: fileOf(sid), cwd: '/w', model: { id: 'claude-sonnet-4-5', display_name: 'Sonnet 4.5' } });

/** `sessions show --format json`'s cost and its last response's prompt, read from its messages. */
async function shown(sid: string): Promise<{ costUsd: number; requests: number; lastPrompt: number }> {
  type Usage = { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
  const s = JSON.parse((await cli(['sessions', 'show', 'claude', sid, '--format', 'json'], undefined)).stdout) as {
    cost: { totalUsd: number; requestCount: number };
    messages: { usage?: Usage }[];
  };
  const usages = s.messages.flatMap((m) => (m.usage === undefined ? [] : [m.usage]));
  const u = usages[usages.length - 1] as Usage;
  return { costUsd: s.cost.totalUsd, requests: s.cost.requestCount, lastPrompt: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens };
}

/** Today's row of `cost report`, as the status line's `today`. */
async function reportToday(): Promise<StatusLineData['today']> {
  const r = JSON.parse((await cli(['cost', 'report', '--json', '--agent', 'claude', '--since', '2026-03-10', '--until', '2026-03-10', '--tz', 'UTC', '--no-cache'], undefined)).stdout) as CostSummary;
  return { date: '2026-03-10', costUsd: r.totalUsd, requests: r.requestCount, unpricedCount: r.unpricedCount };
}

/** What the status line must say of session `sid` with responses `reqs`, whatever path computed it. */
async function expectStatus(d: StatusLineData, sid: string, reqs: readonly Req[], label: string): Promise<void> {
  const show = await shown(sid);
  expect(d.sessionId, label).toBe(sid);
  expect(d.session, label).toEqual({ costUsd: sumOf(reqs, (r) => r.usd), requests: reqs.length, unpricedCount: 0 });
  expect(d.session?.requests, label).toBe(show.requests);
  expect(d.session?.costUsd, label).toBeCloseTo(show.costUsd, 9);
  expect(d.context?.usedTokens, label).toBe(promptOf(reqs[reqs.length - 1] as Req));
  expect(d.context?.usedTokens, label).toBe(show.lastPrompt);
  // Today and the window hold FRESH alone: neither OLD's responses nor SKEW's line stamped today.
  expect(d.today, label).toEqual({ date: '2026-03-10', costUsd: sumOf(FRESH, (r) => r.usd), requests: FRESH.length, unpricedCount: 0 });
  expect(d.today, label).toEqual(await reportToday());
  expect(d.block?.costUsd, label).toBeCloseTo(sumOf(FRESH, (r) => r.usd), 9);
  expect(d.block?.startTime, label).toBe('2026-03-10T10:00:00.000Z');
}

describe.skipIf(!HAS_CLAUDE)('the status line of a session last written before its look-back', () => {
  it('shows the old session\'s cost and context through the CLI, cached cold and warm and --no-cache', async () => {
    const before = await stat(fileOf(OLD_SID));
    const cache = join(home.dir, 'cli.db');
    for (const args of [['--cache', cache], ['--cache', cache], ['--no-cache']]) {
      const label = args.join(' ');
      const json = await cli(['statusline', '--json', '--now', NOW, '--tz', 'UTC', ...args], stdinFor(OLD_SID));
      expect(json.stderr, label).toBe('');
      const d = JSON.parse(json.stdout) as StatusLineData;
      await expectStatus(d, OLD_SID, OLD, label);
      const used = promptOf(OLD[1] as Req);
      expect(d.context, label).toMatchObject({ usedTokens: used, windowSource: 'genai-prices' });
      const window = d.context?.windowTokens as number;
      const line = (await cli(['statusline', '--now', NOW, '--tz', 'UTC', ...args], stdinFor(OLD_SID))).stdout;
      expect(line, label).toContain(` · session $${sumOf(OLD, (r) => r.usd).toFixed(2)} · today $${sumOf(FRESH, (r) => r.usd).toFixed(2)} · `);
      expect(line, label).toMatch(new RegExp(` · ctx ${used.toLocaleString('en-US')}/${window.toLocaleString('en-US')} \\(\\d+%\\)\\n$`));
      // --file names the same session
      const byFile = JSON.parse((await cli(['statusline', '--json', '--now', NOW, '--tz', 'UTC', '--file', fileOf(OLD_SID), ...args], undefined)).stdout) as StatusLineData;
      expect(byFile.session, label).toEqual(d.session);
      expect(byFile.context, label).toEqual(d.context);
    }
    // The agent's folder is not written.
    expect((await stat(fileOf(OLD_SID))).mtimeMs).toBe(before.mtimeMs);
  }, 90_000);

  it('keeps a kept file\'s records out of today even when one is stamped today (SKEW)', async () => {
    const d = JSON.parse((await cli(['statusline', '--json', '--now', NOW, '--tz', 'UTC', '--no-cache'], stdinFor(SKEW_SID))).stdout) as StatusLineData;
    await expectStatus(d, SKEW_SID, SKEW, 'skew');
  }, 30_000);

  it('a fresh session is unchanged', async () => {
    for (const args of [['--no-cache'], ['--cache', join(home.dir, 'fresh.db')]]) {
      const d = JSON.parse((await cli(['statusline', '--json', '--now', NOW, '--tz', 'UTC', ...args], stdinFor(FRESH_SID))).stdout) as StatusLineData;
      await expectStatus(d, FRESH_SID, FRESH, `fresh ${args.join(' ')}`);
    }
  }, 30_000);

  it('the library says the same, with and without the cache', async () => {
    for (const cache of [false, true]) {
      for (const [sid, reqs] of [[OLD_SID, OLD], [FRESH_SID, FRESH], [SKEW_SID, SKEW]] as const) {
        const d = await statusLine({ agent: 'claude', sessionId: sid, file: fileOf(sid), env: home.env, cache, cachePath: join(home.dir, 'lib.db'), now: new Date(NOW), timeZone: 'UTC' });
        await expectStatus(d, sid, reqs, `library cache=${cache} ${sid}`);
      }
    }
    // One scan reads the old file once, with the files of the look-back; SKEW stays unopened.
    const stats = newScanStats();
    await statusLine({ agent: 'claude', file: fileOf(OLD_SID), env: home.env, cache: false, now: new Date(NOW), timeZone: 'UTC' }, { stats });
    expect({ files: stats.files, skippedSince: stats.skippedSince, fullReads: stats.fullReads }).toEqual({ files: 3, skippedSince: 1, fullReads: 2 });
    // Named by id alone, the old session's file is left to the look-back, as before.
    const byId = await statusLine({ agent: 'claude', sessionId: OLD_SID, env: home.env, cache: false, now: new Date(NOW), timeZone: 'UTC' });
    expect(byId.session).toBeNull();
    expect(byId.today.costUsd).toBe(sumOf(FRESH, (r) => r.usd));
  }, 60_000);

  it('the scan\'s keep: a kept file is read whatever its mtime and noted when since would skip it', async () => {
    const since = new Date(TODAY - 24 * 60 * MIN);
    const files = async (keep?: KeepFiles, cache = false): Promise<string[]> => {
      const seen = new Set<string>();
      for await (const r of scanUsage({ agents: ['claude'], env: home.env, since, cache, cachePath: join(home.dir, 'scan.db'), ...(keep !== undefined && { keep }) })) seen.add(r.file);
      return [...seen].sort();
    };
    expect(await files()).toEqual([fileOf(FRESH_SID)]);
    for (const cache of [false, true]) {
      const keep: KeepFiles = { paths: [fileOf(OLD_SID), fileOf(FRESH_SID)], beforeSince: new Set() };
      expect(await files(keep, cache)).toEqual([fileOf(OLD_SID), fileOf(FRESH_SID)].sort());
      expect([...keep.beforeSince]).toEqual([fileOf(OLD_SID)]);
    }
    const bad = scanUsage({ agents: ['claude'], env: home.env, keep: { paths: 'x' } as unknown as KeepFiles });
    await expect(bad.next()).rejects.toMatchObject({ code: 'INVALID_OPTION' });
  }, 30_000);

  describe('served', () => {
    const server = serveDuringBlock(CLI, () => home.dir, () => home.env);

    it('a running serve answers it with the local run\'s output', async () => {
      expect(isServed(['statusline', '--agent', 'claude', '--session', OLD_SID])).toBe(true);
      for (const sid of [OLD_SID, FRESH_SID]) {
        for (const extra of [['--json'], []]) {
          const args = ['statusline', '--now', NOW, '--tz', 'UTC', ...extra];
          const local = await cli(args, stdinFor(sid));
          const served = await cli(args, stdinFor(sid), { SESSIONFOLD_SOCKET: server.socket() });
          expect(served, `${sid} ${extra.join(' ')}`).toEqual(local);
          if (sid === OLD_SID && extra.length > 0) await expectStatus(JSON.parse(served.stdout) as StatusLineData, OLD_SID, OLD, 'served');
        }
      }
      await expect.poll(server.served, COUNTED).toBe(4);
    }, 60_000);
  });
});
