/**
 * Question: how fast does the pi codec read one large session (a generated version 3 tree of BENCH_BIG_MB,
 * default 100 MB, shaped as pi writes one: fixtures/generate/pi.ts) — a full read and a usage-only read —
 * against split + JSON.parse of every line, and with what peak RSS? omp and OpenClaw write the same format and
 * are read by the same engine, so this topic answers for them too. Every case first checks its usage totals
 * (tokens and the recorded dollars) against what the generator wrote.
 */
import { pi } from '../codecs/pi/index.js';
import { generatePiSession, type PiTotals } from '../fixtures/generate/pi.js';
import type { Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { keptFile, oneFileTopic, usageTotals } from './lib/one-file.js';

export const topic: Topic = oneFileTopic({
  name: 'pi',
  question: 'pi codec (also omp, OpenClaw) on one large v3 session: full and usage-only read vs split+JSON.parse, peak RSS',
  ensure: (env) => keptFile(env, 'pi', '.pi/agent/sessions/--home-dev-project--/2026-05-01T09-00-00-000Z_bench.jsonl', generatePiSession),
  read: (path, kinds) =>
    usageTotals(pi, path, kinds, { responses: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0, costMicroUsd: 0 } as PiTotals, (t, e) => {
      t.responses++;
      t.input += e.inputTokens;
      t.cacheRead += e.cacheReadTokens;
      t.cacheWrite += e.cacheWriteTokens;
      t.output += e.outputTokens;
      t.costMicroUsd += Math.round((e.costUsd ?? 0) * 1e6);
    }),
});

await runTopicMain(import.meta.url, topic);
