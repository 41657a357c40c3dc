/**
 * Question: how long does the whole cost fold take — `totalCost({groupBy: 'day'})` over every agent's
 * history — cold (no cache: discover, parse on the worker pool, price, fold), building the event cache from
 * nothing, and warm (cache present, nothing changed: stat every file, then the stored fold snapshot's summary;
 * or, with snapshots off, serve every cached event from SQLite and fold them again)? And the built CLI, as a
 * status line calls it: a process per report (starting Node, loading the code, stat-ing every file), against
 * the same report answered by a running `sessionfold serve` (docs/serve.md). Each case checks its per-day
 * tokens and request counts against expected.json first.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { totalsByDay } from '../fixtures/generate/index.js';
import { totalCost } from '../src/cost/total.js';
import type { CostSummary } from '../src/cost/types.js';
import type { FoldRunInfo } from '../src/cost/incremental.js';
import { ensureCorpus, mainCorpusSpec, type Corpus } from './lib/corpus.js';
import { removeDb } from './lib/files.js';
import { nativeKernel } from '../cursors/native.js';
import { check, type BenchCase, type BenchEnv, type IterationResult, type Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { scanCorpus } from './lib/scan.js';
import { startServe, type ServeChild } from './lib/serve.js';

const MAIN_JS = fileURLToPath(new URL('../src/cli/main.cjs', import.meta.url));
const exec = promisify(execFile);

/** Throw unless the summary's day breakdowns carry exactly the expected tokens and request counts. */
export function checkDailySummary(corpus: Corpus, s: CostSummary): void {
  const want = totalsByDay(corpus.expected);
  const got = s.breakdowns ?? {};
  const days = new Set([...Object.keys(want), ...Object.keys(got)]);
  for (const day of days) {
    const w = want[day];
    const g = got[day];
    check(w !== undefined && g !== undefined, `day ${day}: expected ${w ? 'usage' : 'none'}, found ${g ? 'usage' : 'none'}`);
    const pairs: [string, number, number][] = [
      ['requests', w!.events, g!.requestCount],
      ['inputTokens', w!.inputTokens, g!.inputTokens],
      ['outputTokens', w!.outputTokens, g!.outputTokens],
      ['cacheReadTokens', w!.cacheReadTokens, g!.cacheReadTokens],
      ['cacheWriteTokens', w!.cacheWriteTokens, g!.cacheWriteTokens],
      ['thinkingTokens', w!.reasoningTokens, g!.thinkingTokens],
    ];
    for (const [name, a, b] of pairs) check(a === b, `day ${day} ${name}: expected ${a}, found ${b}`);
  }
  check(s.unpriced.length === 0, `unpriced models: ${s.unpriced.map((u) => u.model).join(', ')}`);
}

export const topic: Topic = {
  name: 'cost',
  question: 'totalCost by day over the whole history: cold (no cache), building the cache, warm cache',
  async prepare(env) {
    ensureCorpus(env.dir, mainCorpusSpec(env), { log: (s) => process.stderr.write(`${s}\n`) });
  },
  async cases(env: BenchEnv): Promise<BenchCase<any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const corpus = ensureCorpus(env.dir, mainCorpusSpec(env));
    const bytes = corpus.manifest.files.reduce((n, f) => n + f.bytes, 0);
    const cachePath = join(corpus.dir, '.cache', 'cost-bench.db');
    const cold = 'totalCost cold (--no-cache)';
    const base = { agents: ['claude', 'codex'], groupBy: 'day' as const, timeZone: 'UTC', env: corpus.env };
    const note = `${corpus.manifest.files.length} files, ${corpus.expected.totals.events} usage events`;
    const verify = (r: IterationResult) => checkDailySummary(corpus, r.summary as CostSummary);
    return [
      {
        name: cold,
        bytes,
        note,
        run: async () => {
          const summary = await totalCost({ ...base, cache: false });
          return { events: summary.requestCount, summary };
        },
        verify,
      },
      {
        name: 'scanUsage cold, default worker pool',
        bytes,
        baseline: cold,
        run: async () => {
          const r = await scanCorpus({ env: corpus.env, cache: false });
          return { events: r.usage.seen, run: r };
        },
        verify: (res) => {
          const r = res.run as Awaited<ReturnType<typeof scanCorpus>>;
          check(r.usage.size === corpus.expected.totals.events, `${r.usage.size} distinct usage events, generated ${corpus.expected.totals.events}`);
        },
        note: 'scan + dedup only, no pricing',
      },
      {
        name: 'scanUsage cold, main thread only (workers: 0)',
        bytes,
        baseline: cold,
        run: async () => {
          const r = await scanCorpus({ env: corpus.env, cache: false, workers: 0 });
          return { events: r.usage.seen, run: r };
        },
        verify: (res) => {
          const r = res.run as Awaited<ReturnType<typeof scanCorpus>>;
          check(r.usage.size === corpus.expected.totals.events, `${r.usage.size} distinct usage events, generated ${corpus.expected.totals.events}`);
        },
      },
      {
        name: 'totalCost building the cache (empty cache)',
        bytes,
        baseline: cold,
        beforeEach: () => removeDb(cachePath),
        run: async () => {
          const summary = await totalCost({ ...base, cache: true, cachePath });
          return { events: summary.requestCount, summary };
        },
        verify,
      },
      ...cliCases(corpus, bytes, verify),
      ...([true, false] as const).map((snapshots) => ({
        name: snapshots ? 'totalCost warm (cache, nothing changed)' : 'totalCost warm, snapshots off (re-fold every cached event)',
        bytes,
        baseline: cold,
        setup: async () => {
          removeDb(cachePath);
          await totalCost({ ...base, cache: true, cachePath, snapshots });
        },
        run: async () => {
          const info = {} as FoldRunInfo;
          const summary = await totalCost({ ...base, cache: true, cachePath, snapshots }, {}, info);
          return { events: summary.requestCount, summary, info };
        },
        verify: (r: { summary?: unknown; info?: unknown }) => {
          const info = r.info as FoldRunInfo;
          check(info.snapshot === (snapshots ? 'hit' : 'off'), `fold snapshot: ${info.snapshot}`);
          verify(r);
        },
      })),
    ];
  },
};

/**
 * The CLI, one process per report, with nothing changed: on its own (its event cache warm), and as a client
 * of `sessionfold serve` (the server started and primed untimed, on a cache of its own).
 */
function cliCases(corpus: Corpus, bytes: number, verify: (r: IterationResult) => void): BenchCase<ServeChild | undefined>[] {
  const args = [MAIN_JS, 'cost', 'report', '--json', '--group-by', 'day', '--tz', 'UTC', '--agent', 'claude,codex'];
  const socket = join(corpus.dir, '.cache', 'bench-serve.sock');
  const env = (served: boolean) => ({ PATH: process.env.PATH, ...corpus.env, TZ: 'UTC', SESSIONFOLD_CACHE: join(corpus.dir, '.cache', served ? 'cli-served.db' : 'cli.db'), SESSIONFOLD_SOCKET: served ? socket : 'off' });
  const report = async (served: boolean) => JSON.parse((await exec(process.execPath, args, { env: env(served), maxBuffer: 64 << 20 })).stdout) as CostSummary;
  const local = 'CLI cost report --json, a process per report (warm, nothing changed)';
  // The cold report with the native kernel (native/: its engines, line source and loops), with only the
  // engines off, and with all of it off: each part's share.
  const coldKernel = 'CLI cost report --json --no-cache (cold), native kernel';
  const cold = (name: string, off: Record<string, string> | undefined, baseline?: string): BenchCase<undefined> => ({
    name,
    bytes,
    ...(baseline !== undefined && { baseline }),
    run: async () => {
      const summary = JSON.parse((await exec(process.execPath, [...args, '--no-cache'], { env: { ...env(false), ...off }, maxBuffer: 64 << 20 })).stdout) as CostSummary;
      return { events: summary.requestCount, summary };
    },
    verify: (r) => {
      verify(r);
      check(off !== undefined || nativeKernel() !== undefined, 'the native kernel is not built (npm run build builds it where a C compiler is)');
    },
  });
  return [
    cold(coldKernel, undefined),
    cold('CLI cost report --json --no-cache (cold), engines off (SESSIONFOLD_NATIVE_ENGINES=0)', { SESSIONFOLD_NATIVE_ENGINES: '0' }, coldKernel),
    cold('CLI cost report --json --no-cache (cold), kernel off (SESSIONFOLD_NATIVE=0)', { SESSIONFOLD_NATIVE: '0' }, coldKernel),
    {
      name: local,
      bytes,
      setup: async () => {
        await report(false);
        return undefined;
      },
      run: async () => {
        const summary = await report(false);
        return { events: summary.requestCount, summary };
      },
      verify,
    },
    {
      name: 'CLI cost report --json, served by sessionfold serve (nothing changed)',
      bytes,
      baseline: local,
      setup: async () => {
        const server = await startServe(MAIN_JS, socket, { PATH: process.env.PATH, HOME: corpus.dir, TZ: 'UTC' });
        await report(true);
        return server;
      },
      run: async () => {
        const summary = await report(true);
        return { events: summary.requestCount, summary };
      },
      verify: (r, server) => {
        verify(r);
        check(server !== undefined && server.child.exitCode === null, 'the server is not running');
      },
      teardown: (server) => server?.stop(),
      note: 'client process; served results are checked like the rest',
    },
  ];
}

await runTopicMain(import.meta.url, topic);
