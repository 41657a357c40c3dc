/**
 * The status line of a session whose transcript lies outside the agent's roots: Claude Code run with another
 * CLAUDE_CONFIG_DIR than the status line's, or a transcript copied elsewhere. The session's own file is read
 * wherever it lies when the agent's codec claims it (`ScanOptions.keep.unlisted`), for the session's figures
 * alone: today and the window stay those of the agent's roots, which `cost report` reads.
 *
 * The HOME: session FRESH under the roots (two responses today); session OUT under another config folder
 * (two responses today, before FRESH's: were they folded into the window, it would start an hour earlier);
 * COPY, FRESH's transcript copied outside the roots; PI, a pi session outside pi's roots; NOTES, a file no
 * agent wrote. Each figure is checked against plain sums of the generated responses and `cost report` over
 * today, through the built CLI fed Claude Code's JSON (cached cold and warm, and `--no-cache`), `--file`,
 * the library, and `serve`; the scan option under it on its own. The folders outside are never written.
 */
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusLine, type StatusLineData } from '../src/cost/statusline.js';
import type { CostSummary } from '../src/cost/types.js';
import { newScanStats, scanUsage, type KeepFiles } from '../src/scan/index.js';
import { promptOf, sumOf, writeClaudeSession, type Req } from './claude-lines.js';
import { cliWithStdin } from './helpers/cli-stdin.js';
import { treeListing } from './helpers/files.js';
import { serveDuringBlock } from './helpers/serve-process.js';
import { COUNTED } from './helpers/served-count.js';
import { HAS_CLAUDE, makeHome, type Home } from './sessions-helpers.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;

const NOW = '2026-03-10T12:00:00.000Z';
const TODAY = Date.parse('2026-03-10T00:00:00Z');
const MIN = 60_000;

const FRESH_SID = 'bbbbbbbb-2222-4222-8222-000000000001';
const OUT_SID = 'bbbbbbbb-2222-4222-8222-000000000002';
const FRESH: Req[] = [
  { id: 'fr0', ms: TODAY + 10 * 60 * MIN, inp: 20, out: 40, cr: 2_000, cw: 100, usd: 0.75 },
  { id: 'fr1', ms: TODAY + 11 * 60 * MIN, inp: 22, out: 60, cr: 3_000, cw: 150, usd: 0.125 },
];
const OUT: Req[] = [
  { id: 'out0', ms: TODAY + 9 * 60 * MIN, inp: 30, out: 10, cr: 500, cw: 40, usd: 2 },
  { id: 'out1', ms: TODAY + 9 * 60 * MIN + 30 * MIN, inp: 31, out: 11, cr: 600, cw: 0, usd: 4 },
];
const PI_SID = 'pi-outside-1';


let home: Home;
let outside: string;
const freshFile = (): string => join(home.claude, 'projects', '-w', `${FRESH_SID}.jsonl`);
const outFile = (): string => join(outside, 'other-config', 'projects', '-w', `${OUT_SID}.jsonl`);
const copyFile = (): string => join(outside, 'copies', 'fresh-copy.jsonl');
const piFile = (): string => join(outside, 'copies', `2026-03-10T08-00-00-000Z_${PI_SID}.jsonl`);
const notesFile = (): string => join(outside, 'copies', 'notes.jsonl');

beforeAll(async () => {
  home = await makeHome();
  outside = join(home.dir, 'outside');
  await writeClaudeSession(home.claude, FRESH_SID, FRESH);
  await writeClaudeSession(join(outside, 'other-config'), OUT_SID, OUT);
  await mkdir(join(outside, 'copies'), { recursive: true });
  await cp(freshFile(), copyFile());
  const piLines = [
    { type: 'session', version: 3, id: PI_SID, timestamp: '2026-03-10T08:00:00.000Z', cwd: '/w' },
    { type: 'message', id: 'u1', parentId: null, timestamp: '2026-03-10T08:00:01.000Z', message: { role: 'user', content: [{ type: 'text', text: 'q' }], timestamp: TODAY + 8 * 60 * MIN } },
    {
      type: 'message', id: 'a1', parentId: 'u1', timestamp: '2026-03-10T08:00:02.000Z',
      message: { role: 'assistant', content: [{ type: 'text', text: 'r' }], provider: 'anthropic', model: 'claude-sonnet-4-5', usage: { input: 7, output: 3, cacheRead: 90, cacheWrite: 5, totalTokens: 105, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 } }, stopReason: 'stop', timestamp: TODAY + 8 * 60 * MIN + 2000 },
    },
  ];
  await writeFile(piFile(), piLines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  await writeFile(notesFile(), '{"note":"not a transcript"}\n');
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

const cli = cliWithStdin(() => home.env);

/** Claude Code's status-line JSON for a session and its transcript. */
const stdinFor = (sid: string, file: string): string =>
  JSON.stringify({ hook_event_name: 'Status', session_id: sid, transcript_path: file, cwd: '/w', model: { id: 'claude-sonnet-4-5', display_name: 'Sonnet 4.5' } });

/** Today's row of `cost report` over the agent's roots. */
async function reportToday(): Promise<StatusLineData['today']> {
  const r = JSON.parse((await cli(['cost', 'report', '--json', '--agent', 'claude', '--since', '2026-03-10', '--until', '2026-03-10', '--tz', 'UTC', '--no-cache'], undefined)).stdout) as CostSummary;
  return { date: '2026-03-10', costUsd: r.totalUsd, requests: r.requestCount, unpricedCount: r.unpricedCount };
}

/** Today and the window: FRESH's alone, whichever session the line is for. */
async function expectRootsOnly(d: StatusLineData, label: string): Promise<void> {
  expect(d.today, label).toEqual({ date: '2026-03-10', costUsd: sumOf(FRESH, (r) => r.usd), requests: FRESH.length, unpricedCount: 0 });
  expect(d.today, label).toEqual(await reportToday());
  expect(d.block?.costUsd, label).toBeCloseTo(sumOf(FRESH, (r) => r.usd), 9);
  expect(d.block?.startTime, label).toBe('2026-03-10T10:00:00.000Z');
}

/** What the status line must say of session `sid` with responses `reqs`. */
async function expectStatus(d: StatusLineData, sid: string, reqs: readonly Req[], label: string): Promise<void> {
  expect(d.sessionId, label).toBe(sid);
  expect(d.session, label).toEqual({ costUsd: sumOf(reqs, (r) => r.usd), requests: reqs.length, unpricedCount: 0 });
  expect(d.context, label).toMatchObject({ usedTokens: promptOf(reqs[reqs.length - 1] as Req), windowSource: 'genai-prices' });
  await expectRootsOnly(d, label);
}

const statusArgs = ['statusline', '--json', '--now', NOW, '--tz', 'UTC'];

describe.skipIf(!HAS_CLAUDE)('the status line of a transcript outside the agent\'s roots', () => {
  it('shows its cost and context through the CLI, cached cold and warm and --no-cache, without writing there', async () => {
    const before = await treeListing(outside);
    const cache = join(home.dir, 'cli.db');
    for (const args of [['--cache', cache], ['--cache', cache], ['--no-cache']]) {
      const label = args.join(' ');
      const json = await cli([...statusArgs, ...args], stdinFor(OUT_SID, outFile()));
      expect(json.stderr, label).toBe('');
      await expectStatus(JSON.parse(json.stdout) as StatusLineData, OUT_SID, OUT, label);
      const line = (await cli(['statusline', '--now', NOW, '--tz', 'UTC', ...args], stdinFor(OUT_SID, outFile()))).stdout;
      expect(line, label).toContain(` · session $${sumOf(OUT, (r) => r.usd).toFixed(2)} · today $${sumOf(FRESH, (r) => r.usd).toFixed(2)} · `);
      expect(line, label).toContain(` · ctx ${promptOf(OUT[1] as Req).toLocaleString('en-US')}/`);
      // --file alone: the agent told from the file, the same session
      const byFile = JSON.parse((await cli([...statusArgs, '--file', outFile(), ...args], undefined)).stdout) as StatusLineData;
      await expectStatus(byFile, OUT_SID, OUT, `--file ${label}`);
      // A copy of a session under the roots: each response once, today unchanged.
      await expectStatus(JSON.parse((await cli([...statusArgs, ...args], stdinFor(FRESH_SID, copyFile()))).stdout) as StatusLineData, FRESH_SID, FRESH, `copy ${label}`);
    }
    expect(await treeListing(outside)).toEqual(before);
  }, 120_000);

  it('reads a file only as a codec that claims it', async () => {
    const before = await treeListing(outside);
    for (const args of [['--no-cache'], ['--cache', join(home.dir, 'claims.db')]]) {
      // Claude Code names a pi file or a file no agent wrote: claude claims neither, so no session figures.
      for (const file of [piFile(), notesFile()]) {
        const d = JSON.parse((await cli([...statusArgs, ...args], stdinFor(OUT_SID, file))).stdout) as StatusLineData;
        expect(d.session, file).toBeNull();
        expect(d.context, file).toBeNull();
        await expectRootsOnly(d, file);
      }
      // --file alone tells pi from the file, and pi claims it.
      const d = JSON.parse((await cli([...statusArgs, '--file', piFile(), ...args], undefined)).stdout) as StatusLineData;
      expect(d.agent).toBe('pi');
      expect(d.sessionId).toBe(PI_SID);
      expect(d.session?.requests).toBe(1);
      expect(d.context?.usedTokens).toBe(7 + 90 + 5);
      expect(d.today.requests, 'pi has no roots here: its today is empty').toBe(0);
    }
    expect(await treeListing(outside)).toEqual(before);
  }, 60_000);

  it('the library says the same, with and without the cache', async () => {
    for (const cache of [false, true]) {
      for (const [sid, file, reqs] of [[OUT_SID, outFile(), OUT], [FRESH_SID, copyFile(), FRESH], [FRESH_SID, freshFile(), FRESH]] as const) {
        const d = await statusLine({ agent: 'claude', sessionId: sid, file, env: home.env, cache, cachePath: join(home.dir, 'lib.db'), now: new Date(NOW), timeZone: 'UTC' });
        await expectStatus(d, sid, reqs, `library cache=${cache} ${file}`);
      }
    }
    // One scan reads the file outside with the files of the roots.
    const stats = newScanStats();
    await statusLine({ agent: 'claude', file: outFile(), env: home.env, cache: false, now: new Date(NOW), timeZone: 'UTC' }, { stats });
    expect({ files: stats.files, fullReads: stats.fullReads }).toEqual({ files: 2, fullReads: 2 });
  }, 60_000);

  it('the scan\'s keep.unlisted: a kept file outside the roots is read when a selected codec claims it, and noted', async () => {
    const files = async (keep: KeepFiles | undefined, cache: boolean): Promise<string[]> => {
      const seen = new Set<string>();
      for await (const r of scanUsage({ agents: ['claude'], env: home.env, cache, cachePath: join(home.dir, 'scan.db'), ...(keep !== undefined && { keep }) })) seen.add(r.file);
      return [...seen].sort();
    };
    for (const cache of [false, true]) {
      expect(await files(undefined, cache)).toEqual([freshFile()]);
      // Without `unlisted`, keep reads only what the roots list, as before.
      expect(await files({ paths: [outFile()], beforeSince: new Set() }, cache)).toEqual([freshFile()]);
      const keep: KeepFiles = { paths: [outFile(), freshFile(), piFile(), notesFile(), join(outside, 'missing.jsonl'), outside, 'relative.jsonl'], beforeSince: new Set(), unlisted: new Set() };
      expect(await files(keep, cache)).toEqual([freshFile(), outFile()].sort());
      expect([...(keep.unlisted as Set<string>)]).toEqual([outFile()]);
      // A later scan of the roots alone does not take the file outside for one of theirs.
      expect(await files(undefined, cache)).toEqual([freshFile()]);
    }
    const bad = scanUsage({ agents: ['claude'], env: home.env, keep: { paths: [], beforeSince: new Set(), unlisted: [] } as unknown as KeepFiles });
    await expect(bad.next()).rejects.toMatchObject({ code: 'INVALID_OPTION' });
  }, 60_000);

  describe('served', () => {
    const server = serveDuringBlock(CLI, () => home.dir, () => home.env);

    it('a running serve answers it with the local run\'s output', async () => {
      const before = await treeListing(outside);
      for (const [sid, file] of [[OUT_SID, outFile()], [FRESH_SID, copyFile()]] as const) {
        for (const extra of [['--json'], []]) {
          const args = ['statusline', '--now', NOW, '--tz', 'UTC', ...extra];
          const local = await cli(args, stdinFor(sid, file));
          const served = await cli(args, stdinFor(sid, file), { SESSIONFOLD_SOCKET: server.socket() });
          expect(served, `${sid} ${extra.join(' ')}`).toEqual(local);
          if (sid === OUT_SID && extra.length > 0) await expectStatus(JSON.parse(served.stdout) as StatusLineData, OUT_SID, OUT, 'served');
        }
      }
      // A second time from the server's warm state, then --file alone.
      const again = await cli(statusArgs, stdinFor(OUT_SID, outFile()), { SESSIONFOLD_SOCKET: server.socket() });
      await expectStatus(JSON.parse(again.stdout) as StatusLineData, OUT_SID, OUT, 'served again');
      const byFile = await cli([...statusArgs, '--file', outFile()], undefined, { SESSIONFOLD_SOCKET: server.socket() });
      await expectStatus(JSON.parse(byFile.stdout) as StatusLineData, OUT_SID, OUT, 'served --file');
      await expect.poll(server.served, COUNTED).toBe(6);
      expect(await treeListing(outside)).toEqual(before);
    }, 90_000);
  });
});
