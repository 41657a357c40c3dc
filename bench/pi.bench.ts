/**
 * Question: how fast does the pi codec read one large session (a generated version 3 tree of BENCH_BIG_MB,
 * default 100 MB, shaped as pi writes one: fixtures/generate/pi.ts) — a full read and a usage-only read —
 * against split + JSON.parse of every line, and with what peak RSS? omp and OpenClaw write the same format and
 * are read by the same engine, so this topic answers for them too. Every case first checks its usage totals
 * (tokens and the recorded dollars) against what the generator wrote.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pi } from '../codecs/pi/index.js';
import type { EventKind } from '../cursors/protocol/events.js';
import { generatePiSession, type PiSession, type PiTotals } from '../fixtures/generate/pi.js';
import { Rng } from '../fixtures/generate/prng.js';
import type { BenchEnv, Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { oneFileTopic } from './lib/one-file.js';

/** The generated session (made once per seed and size; its totals are kept beside it). */
function ensureSession(env: BenchEnv): PiSession {
  const dir = join(env.dir, 'pi', `${env.seed}-${env.bigBytes}`);
  const manifest = join(dir, 'session.json');
  if (existsSync(manifest)) {
    const s = JSON.parse(readFileSync(manifest, 'utf8')) as PiSession;
    if (existsSync(s.path) && statSync(s.path).size === s.bytes) return s;
  }
  const path = join(dir, '.pi', 'agent', 'sessions', '--home-dev-project--', '2026-05-01T09-00-00-000Z_bench.jsonl');
  const session = generatePiSession(path, env.bigBytes, new Rng(`${env.seed}/pi`));
  writeFileSync(manifest, JSON.stringify(session));
  return session;
}

async function readTotals(path: string, kinds: readonly EventKind[] | undefined): Promise<{ events: number; totals: PiTotals }> {
  const totals: PiTotals = { responses: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0, costMicroUsd: 0 };
  let events = 0;
  for await (const e of pi.read(path, kinds === undefined ? {} : { kinds })) {
    events++;
    if (e.type !== 'usage') continue;
    totals.responses++;
    totals.input += e.inputTokens;
    totals.cacheRead += e.cacheReadTokens;
    totals.cacheWrite += e.cacheWriteTokens;
    totals.output += e.outputTokens;
    totals.costMicroUsd += Math.round((e.costUsd ?? 0) * 1e6);
  }
  return { events, totals };
}

export const topic: Topic = oneFileTopic({
  name: 'pi',
  question: 'pi codec (also omp, OpenClaw) on one large v3 session: full and usage-only read vs split+JSON.parse, peak RSS',
  ensure: ensureSession,
  read: readTotals,
});

await runTopicMain(import.meta.url, topic);
