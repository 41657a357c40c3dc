/**
 * Question: what peak RSS and throughput does a cost report over a large history of the file-based agents
 * beyond Claude and Codex take? A history of `BENCH_HISTORY_MB` (default 1024) of generated pi, Gemini CLI
 * and Copilot CLI sessions (about 20 MB each, in each agent's real layout under one HOME) is folded by
 * `totalCost` grouped by agent, without the cache and building it; each case runs in its own process, so its
 * peak RSS is the report's. Every case first checks the tokens per agent against what the generators wrote.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CostSummary } from '../src/cost/types.js';
import { totalCost } from '../src/cost/total.js';
import { writeCopilotSession } from '../fixtures/generate/copilot.js';
import { generateGeminiChat } from '../fixtures/generate/gemini.js';
import { generatePiSession } from '../fixtures/generate/pi.js';
import { Rng } from '../fixtures/generate/prng.js';
import { check, type BenchCase, type BenchEnv, type Topic } from './lib/harness.js';
import { removeDb } from './lib/files.js';
import { runTopicMain } from './lib/main.js';

const FILE_BYTES = 20 << 20;

/** Tokens per agent as a cost report counts them (input uncached). */
interface AgentTokens {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

interface History {
  home: string;
  bytes: number;
  files: number;
  expected: Record<string, AgentTokens>;
}

function historyBytes(): number {
  const mb = Number(process.env.BENCH_HISTORY_MB ?? 1024);
  return Math.max(1, Number.isFinite(mb) ? mb : 1024) << 20;
}

function add(into: Record<string, AgentTokens>, agent: string, t: AgentTokens): void {
  const a = (into[agent] ??= { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 });
  a.input += t.input;
  a.cacheRead += t.cacheRead;
  a.cacheWrite += t.cacheWrite;
  a.output += t.output;
}

/** The generated history (made once per seed and size; its expected totals are kept beside it). */
function ensureHistory(env: BenchEnv): History {
  const target = historyBytes();
  const home = join(env.dir, 'history', `${env.seed}-${target}`);
  const manifest = join(home, 'history.json');
  if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')) as History;
  const h: History = { home, bytes: 0, files: 0, expected: {} };
  for (let i = 0; h.bytes < target; i++) {
    const seed = `${env.seed}/history/${i}`;
    const day = `2026-05-${String(1 + (i % 28)).padStart(2, '0')}`;
    if (i % 3 === 0) {
      const path = join(home, '.pi', 'agent', 'sessions', `--home-dev-p${i % 7}--`, `${day}T09-00-00-000Z_s${i}.jsonl`);
      const s = generatePiSession(path, FILE_BYTES, new Rng(seed));
      h.bytes += s.bytes;
      add(h.expected, 'pi', { input: s.totals.input, cacheRead: s.totals.cacheRead, cacheWrite: s.totals.cacheWrite, output: s.totals.output });
    } else if (i % 3 === 1) {
      const path = join(home, '.gemini', 'tmp', `p${i % 5}`, 'chats', `session-${day}T09-00-s${i}.jsonl`);
      const c = generateGeminiChat(path, FILE_BYTES, new Rng(seed));
      h.bytes += c.bytes;
      add(h.expected, 'gemini', { input: c.totals.input - c.totals.cached, cacheRead: c.totals.cached, cacheWrite: 0, output: c.totals.output });
    } else {
      const path = join(home, '.copilot', 'session-state', `c0ffee00-0000-4000-8000-${String(i).padStart(12, '0')}`, 'events.jsonl');
      const f = writeCopilotSession(path, FILE_BYTES, seed);
      h.bytes += f.bytes;
      add(h.expected, 'copilot', { input: f.totals.inputTokens, cacheRead: f.totals.cacheReadTokens, cacheWrite: f.totals.cacheWriteTokens, output: f.totals.outputTokens });
    }
    h.files++;
  }
  writeFileSync(manifest, JSON.stringify(h));
  return h;
}

function verify(h: History, summary: CostSummary): void {
  for (const [agent, want] of Object.entries(h.expected)) {
    const row = summary.breakdowns?.[agent];
    const got: AgentTokens | undefined = row && { input: row.inputTokens, cacheRead: row.cacheReadTokens, cacheWrite: row.cacheWriteTokens, output: row.outputTokens };
    check(JSON.stringify(got) === JSON.stringify(want), `${agent}: report ${JSON.stringify(got)}, generated ${JSON.stringify(want)}`);
  }
}

export const topic: Topic = {
  name: 'history',
  question: 'totalCost by agent over a BENCH_HISTORY_MB history of pi, Gemini CLI and Copilot CLI sessions: throughput and peak RSS',
  async prepare(env) {
    const h = ensureHistory(env);
    process.stderr.write(`history: ${(h.bytes / 1e6).toFixed(0)} MB in ${h.files} files\n`);
  },
  async cases(env: BenchEnv): Promise<BenchCase<any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const h = ensureHistory(env);
    const note = `${(h.bytes / 1e6).toFixed(0)} MB, ${h.files} files`;
    const base = { agents: ['pi', 'gemini', 'copilot'], groupBy: 'agent' as const, timeZone: 'UTC', env: { HOME: h.home } };
    const cold = 'history totalCost cold (no cache)';
    const cachePath = join(env.dir, 'history', 'cache.db');
    return [
      {
        name: cold,
        bytes: h.bytes,
        note,
        run: async () => {
          const summary = await totalCost({ ...base, cache: false });
          return { events: summary.requestCount, summary };
        },
        verify: (res) => verify(h, res.summary as CostSummary),
      },
      {
        name: 'history totalCost building the cache',
        bytes: h.bytes,
        baseline: cold,
        note,
        beforeEach: () => removeDb(cachePath),
        teardown: () => removeDb(cachePath),
        run: async () => {
          const summary = await totalCost({ ...base, cache: true, cachePath });
          return { events: summary.requestCount, summary };
        },
        verify: (res) => verify(h, res.summary as CostSummary),
      },
    ];
  },
};

await runTopicMain(import.meta.url, topic);
