/**
 * Question: how fast does the codebuddy codec read one large CodeBuddy Code transcript (BENCH_BIG_MB, default
 * 100 MB, fixtures/generate/codebuddy.ts: tool results up to megabytes, usage on a response's first call and
 * its final message) — a full read, and a usage-only read that parses only the lines holding a usage or model
 * marker (codecs/codebuddy/filter.ts) — against split + JSON.parse of every line, and with what peak RSS?
 * Every case first checks its usage totals against what the generator wrote.
 */
import { codebuddy } from '../codecs/codebuddy/index.js';
import { generateCodeBuddySession, type CodeBuddyTotals } from '../fixtures/generate/codebuddy.js';
import type { Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { keptFile, oneFileTopic, usageTotals } from './lib/one-file.js';

export const topic: Topic = oneFileTopic({
  name: 'codebuddy',
  question: 'codebuddy codec on one large transcript: full and usage-only (marker-filtered) read vs split+JSON.parse, peak RSS',
  ensure: (env) => keptFile(env, 'codebuddy', '.codebuddy/projects/home-dev-project/5b0d1f5c-bench.jsonl', generateCodeBuddySession),
  read: (path, kinds) =>
    usageTotals(codebuddy, path, kinds, { responses: 0, input: 0, cacheRead: 0, output: 0 } as CodeBuddyTotals, (t, e) => {
      t.responses++;
      t.input += e.inputTokens;
      t.cacheRead += e.cacheReadTokens;
      t.output += e.outputTokens;
    }),
});

await runTopicMain(import.meta.url, topic);
