/**
 * Question: what does it cost to pick up 1 MB appended to a 100 MB session file? Three ways: read the whole
 * file again (the baseline every stateless tool pays), resume the codec from its byte cursor (sha256 of the
 * 100 MB prefix + parse 1 MB), a warm `scanUsage` through the event cache (stat every file, verify the
 * grown one with the cache's own fingerprint, parse the tail, yield the whole corpus), and the warm report
 * `totalCost` with and without its fold snapshot (restore the last run's fold state and fold only the new
 * records, or re-fold every cached event). Issue 4's goal: the warm run at least 25x (goal 50x) faster than
 * ccusage re-reading everything.
 *
 * Each iteration sees the identical append: the file is cut back to its old size and the same block is
 * written again (and the cache restored to its pre-append snapshot). These are the benchmark's own scratch
 * files under BENCH_DIR, regenerated on every run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendToCorpus, assertTotals, emptyTotals, type UsageTotals } from '../fixtures/generate/index.js';
import type { ReadCursor } from '../cursors/protocol/codec.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { bigFileSpec, ensureCorpus, largestFile, type Corpus } from './lib/corpus.js';
import { readRange, regrow, removeDb, restoreDb, snapshotDb } from './lib/files.js';
import { check, type BenchCase, type BenchEnv, type Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { codecOrReason } from './lib/read.js';
import { scanCorpus } from './lib/scan.js';
import { totalCost } from '../src/cost/total.js';
import type { FoldRunInfo } from '../src/cost/incremental.js';
import type { CostSummary } from '../src/cost/types.js';
import { checkDailySummary } from './cost.bench.js';

const APPEND_BYTES = 1_000_000;

interface ResumePlan {
  path: string;
  s0: number;
  s1: number;
  added: UsageTotals;
  usageEventsAfter: number;
}

function resumeBase(env: BenchEnv): string {
  return join(env.dir, 'resume');
}

function loadPlan(env: BenchEnv): { corpus: Corpus; plan: ResumePlan; block: Buffer } {
  const corpus = ensureCorpus(resumeBase(env), bigFileSpec(env));
  const plan = JSON.parse(readFileSync(join(corpus.dir, 'resume-plan.json'), 'utf8')) as ResumePlan;
  return { corpus, plan, block: readFileSync(join(corpus.dir, 'append-block.bin')) };
}

function addUsage(t: UsageTotals, e: UsageEvent, sign = 1): void {
  t.events += sign;
  t.inputTokens += sign * e.inputTokens;
  t.outputTokens += sign * e.outputTokens;
  t.reasoningTokens += sign * e.reasoningTokens;
  t.cacheReadTokens += sign * e.cacheReadTokens;
  t.cacheWriteTokens += sign * e.cacheWriteTokens;
  t.cacheWrite1hTokens += sign * e.cacheWrite1hTokens;
}

export const topic: Topic = {
  name: 'resume',
  question: 'Reading 1 MB appended to a 100 MB file: full re-read vs codec cursor resume vs warm event cache',
  async prepare(env) {
    // A fresh copy every run: appends change the corpus.
    const corpus = ensureCorpus(resumeBase(env), bigFileSpec(env), { fresh: true, log: (s) => process.stderr.write(`${s}\n`) });
    const big = largestFile(corpus);
    const rel = big.path.slice(corpus.dir.length + 1);
    const r = appendToCorpus({ dir: corpus.dir, bytes: APPEND_BYTES, paths: [rel] });
    const f = r.files[0];
    if (!f) throw new Error('append wrote nothing');
    writeFileSync(join(corpus.dir, 'append-block.bin'), readRange(big.path, f.fromBytes, f.toBytes));
    const after = r.manifest.files.find((x) => x.path === rel);
    const plan: ResumePlan = { path: big.path, s0: f.fromBytes, s1: f.toBytes, added: f.usage, usageEventsAfter: after?.usageEvents ?? 0 };
    writeFileSync(join(corpus.dir, 'resume-plan.json'), JSON.stringify(plan));
  },
  async cases(env: BenchEnv): Promise<BenchCase<any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const { corpus, plan, block } = loadPlan(env);
    const { codec, reason } = codecOrReason('claude');
    const full = 'full usage re-read of the grown file';
    const note = `${(plan.s0 / 1e6).toFixed(0)} MB + ${((plan.s1 - plan.s0) / 1e6).toFixed(2)} MB, ${plan.added.events} new usage events`;
    const cachePath = join(corpus.dir, '.cache', 'events.db');
    const snapshot = join(corpus.dir, '.cache', 'before-append.db');
    return [
      {
        name: full,
        bytes: plan.s1,
        note,
        ...(reason !== undefined && { skip: reason }),
        run: async () => {
          let events = 0;
          for await (const _ of codec!.read(plan.path, { kinds: ['usage'] })) events++;
          return { events };
        },
        verify: (r) => check(r.events === plan.usageEventsAfter, `${String(r.events)} usage events, generated ${plan.usageEventsAfter}`),
      },
      {
        name: 'codec resume from cursor (+1 MB)',
        bytes: plan.s1 - plan.s0,
        baseline: full,
        ...(reason !== undefined && { skip: reason }),
        setup: async () => {
          regrow(plan.path, plan.s0, Buffer.alloc(0));
          let cursor: ReadCursor | undefined;
          // The last usage events of the first read: a resumed read may yield some of them again (`replaced`).
          const tail: UsageEvent[] = [];
          for await (const e of codec!.read(plan.path, { kinds: ['usage'], resume: { onCursor: (u) => (cursor = u.cursor) } })) {
            if (e.type !== 'usage') continue;
            tail.push(e);
            if (tail.length > 64) tail.shift();
          }
          regrow(plan.path, plan.s0, block);
          if (!cursor) throw new Error('no cursor');
          return { cursor, tail };
        },
        beforeEach: () => regrow(plan.path, plan.s0, block),
        run: async (s: { cursor: ReadCursor; tail: UsageEvent[] }) => {
          const got = emptyTotals();
          let restarted: boolean | undefined;
          let replaced = 0;
          for await (const e of codec!.read(plan.path, {
            kinds: ['usage'],
            resume: { from: s.cursor, onStart: (st) => ((restarted = st.restarted), (replaced = st.replaced.usage ?? 0)) },
          })) {
            if (e.type === 'usage') addUsage(got, e);
          }
          // The previous read's last events that this read yields again are dropped, as consumers do.
          for (const e of s.tail.slice(s.tail.length - replaced)) addUsage(got, e, -1);
          return { events: got.events + replaced, got, restarted, replaced };
        },
        verify: (r) => {
          check(r.restarted === false, 'the resume restarted from byte 0');
          check((r.replaced as number) <= 64, `replaced ${String(r.replaced)} usage events`);
          const got = r.got as UsageTotals;
          for (const k of Object.keys(plan.added) as (keyof UsageTotals)[]) check(got[k] === plan.added[k], `${k}: resumed ${got[k]}, appended ${plan.added[k]}`);
        },
      },
      {
        name: 'full scan, no cache (whole corpus)',
        bytes: corpus.manifest.files.reduce((n, f) => n + f.bytes, 0),
        baseline: full,
        run: async () => {
          const r = await scanCorpus({ env: corpus.env, cache: false });
          return { events: r.usage.seen, run: r };
        },
        verify: (r) => assertTotals(corpus.expected, (r.run as Awaited<ReturnType<typeof scanCorpus>>).usage.totals()),
      },
      {
        name: 'warm scanUsage after +1 MB (event cache)',
        bytes: plan.s1 - plan.s0,
        baseline: full,
        setup: async () => {
          removeDb(cachePath);
          regrow(plan.path, plan.s0, Buffer.alloc(0));
          await scanCorpus({ env: corpus.env, cache: true, cachePath });
          snapshotDb(cachePath, snapshot);
          regrow(plan.path, plan.s0, block);
        },
        beforeEach: () => {
          restoreDb(snapshot, cachePath);
          regrow(plan.path, plan.s0, block);
        },
        run: async () => {
          const r = await scanCorpus({ env: corpus.env, cache: true, cachePath });
          return { events: r.usage.seen, run: r };
        },
        verify: (res) => {
          const r = res.run as Awaited<ReturnType<typeof scanCorpus>>;
          check(r.stats.resumed === 1, `${r.stats.resumed} files resumed (expected 1), ${r.stats.fullReads} full reads`);
          check(r.stats.bytesRead <= plan.s1 - plan.s0 + 1_000_000, `read ${r.stats.bytesRead} bytes for a ${plan.s1 - plan.s0}-byte append`);
          assertTotals(corpus.expected, r.usage.totals());
        },
      },
      ...(['snapshot', 'no-snapshot'] as const).map((mode): BenchCase<any> => { // eslint-disable-line @typescript-eslint/no-explicit-any
        const db = join(corpus.dir, '.cache', `report-${mode}.db`);
        const before = join(corpus.dir, '.cache', `report-${mode}-before.db`);
        const report = (info?: FoldRunInfo) =>
          totalCost({ agents: ['claude', 'codex'], groupBy: 'day', timeZone: 'UTC', env: corpus.env, cachePath: db, snapshots: mode === 'snapshot' }, {}, info);
        return {
          name: mode === 'snapshot' ? 'warm totalCost after +1 MB (fold snapshot)' : 'warm totalCost after +1 MB (snapshots off: re-fold all)',
          bytes: plan.s1 - plan.s0,
          baseline: full,
          setup: async () => {
            removeDb(db);
            regrow(plan.path, plan.s0, Buffer.alloc(0));
            await report();
            snapshotDb(db, before);
            regrow(plan.path, plan.s0, block);
          },
          beforeEach: () => {
            restoreDb(before, db);
            regrow(plan.path, plan.s0, block);
          },
          run: async () => {
            const info = {} as FoldRunInfo;
            const summary = await report(info);
            return { events: summary.requestCount, summary, info };
          },
          verify: (r) => {
            const info = r.info as FoldRunInfo;
            check(info.snapshot === (mode === 'snapshot' ? 'hit' : 'off'), `fold snapshot: ${info.snapshot}`);
            if (mode === 'snapshot') check(info.folded < 1000, `${info.folded} records folded for a 1 MB append`);
            checkDailySummary(corpus, r.summary as CostSummary);
          },
        };
      }),
    ];
  },
};

await runTopicMain(import.meta.url, topic);
