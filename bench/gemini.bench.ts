/**
 * Question: how fast does the Gemini CLI codec read one large chat (a generated JSONL file of BENCH_BIG_MB,
 * default 100 MB, shaped as Gemini CLI writes one: fixtures/generate/gemini.ts) — a full read and a
 * usage-only read — against split + JSON.parse of every line, and with what peak RSS? Every case first checks
 * its usage totals against what the generator wrote.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gemini } from '../codecs/gemini/index.js';
import type { EventKind } from '../cursors/protocol/events.js';
import { generateGeminiChat, type GeminiChat, type GeminiTotals } from '../fixtures/generate/gemini.js';
import { Rng } from '../fixtures/generate/prng.js';
import type { BenchEnv, Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { oneFileTopic } from './lib/one-file.js';

function chatDir(env: BenchEnv): string {
  return join(env.dir, 'gemini', `${env.seed}-${env.bigBytes}`);
}

/** The generated chat (made once per seed and size; its totals are kept beside it). */
function ensureChat(env: BenchEnv): GeminiChat {
  const dir = chatDir(env);
  const manifest = join(dir, 'chat.json');
  if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')) as GeminiChat;
  const path = join(dir, '.gemini', 'tmp', 'bench', 'chats', 'session-2026-05-01T09-00-bench000.jsonl');
  const chat = generateGeminiChat(path, env.bigBytes, new Rng(`${env.seed}/gemini`));
  writeFileSync(manifest, JSON.stringify(chat));
  return chat;
}

async function readTotals(path: string, kinds: readonly EventKind[] | undefined): Promise<{ events: number; totals: GeminiTotals }> {
  const totals: GeminiTotals = { responses: 0, input: 0, cached: 0, output: 0, reasoning: 0 };
  let events = 0;
  for await (const e of gemini.read(path, kinds === undefined ? {} : { kinds })) {
    events++;
    if (e.type !== 'usage') continue;
    totals.responses++;
    totals.input += e.inputTokens + e.cacheReadTokens + e.cacheWriteTokens;
    totals.cached += e.cacheReadTokens;
    totals.output += e.outputTokens;
    totals.reasoning += e.reasoningTokens;
  }
  return { events, totals };
}

export const topic: Topic = oneFileTopic({
  name: 'gemini',
  question: 'Gemini CLI codec on one large JSONL chat: full and usage-only read vs split+JSON.parse, peak RSS',
  ensure: ensureChat,
  read: readTotals,
});

await runTopicMain(import.meta.url, topic);
