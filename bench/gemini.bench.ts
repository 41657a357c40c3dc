/**
 * Question: how fast does the Gemini CLI codec read one large chat (a generated JSONL file of BENCH_BIG_MB,
 * default 100 MB, shaped as Gemini CLI writes one: fixtures/generate/gemini.ts) — a full read and a
 * usage-only read — against split + JSON.parse of every line, and with what peak RSS? Every case first checks
 * its usage totals against what the generator wrote.
 */
import { gemini } from '../codecs/gemini/index.js';
import { generateGeminiChat, type GeminiTotals } from '../fixtures/generate/gemini.js';
import type { Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { keptFile, oneFileTopic, usageTotals } from './lib/one-file.js';

export const topic: Topic = oneFileTopic({
  name: 'gemini',
  question: 'Gemini CLI codec on one large JSONL chat: full and usage-only read vs split+JSON.parse, peak RSS',
  ensure: (env) => keptFile(env, 'gemini', '.gemini/tmp/bench/chats/session-2026-05-01T09-00-bench000.jsonl', generateGeminiChat),
  read: (path, kinds) =>
    usageTotals(gemini, path, kinds, { responses: 0, input: 0, cached: 0, output: 0, reasoning: 0 } as GeminiTotals, (t, e) => {
      t.responses++;
      t.input += e.inputTokens + e.cacheReadTokens + e.cacheWriteTokens;
      t.cached += e.cacheReadTokens;
      t.output += e.outputTokens;
      t.reasoning += e.reasoningTokens;
    }),
});

await runTopicMain(import.meta.url, topic);
