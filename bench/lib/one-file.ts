/**
 * A topic over one large generated session file of one codec: the naive baseline (`split('\n')` +
 * `JSON.parse` of every line), a full read and a usage-only read, each checked against the totals the
 * generator wrote before it is timed. The gemini and pi topics are this with their own generator and totals.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Codec } from '../../cursors/protocol/codec.js';
import type { EventKind, UsageEvent } from '../../cursors/protocol/events.js';
import { Rng } from '../../fixtures/generate/prng.js';
import { check, type BenchCase, type BenchEnv, type Topic } from './harness.js';
import { naiveRead, type NaiveRead } from './read.js';

export interface OneFile<T> {
  path: string;
  bytes: number;
  lines: number;
  totals: T & { responses: number };
}

export interface OneFileSpec<T> {
  /** Topic name and case prefix. */
  name: string;
  question: string;
  /** The generated file (made once, then reused). */
  ensure(env: BenchEnv): OneFile<T>;
  /** Read the file with the codec and total what the generator totals. */
  read(path: string, kinds: readonly EventKind[] | undefined): Promise<{ events: number; totals: T }>;
}

/**
 * The topic's generated file for this seed and size: made once under `<BENCH_DIR>/<name>/<seed>-<bytes>/` at
 * `relPath` (the agent's own layout), its totals kept beside it in `session.json`, and made again when the
 * file is gone or its size moved.
 */
export function keptFile<F extends { path: string; bytes: number }>(env: BenchEnv, name: string, relPath: string, generate: (path: string, bytes: number, rng: Rng) => F): F {
  const dir = join(env.dir, name, `${env.seed}-${env.bigBytes}`);
  const manifest = join(dir, 'session.json');
  if (existsSync(manifest)) {
    const f = JSON.parse(readFileSync(manifest, 'utf8')) as F;
    if (existsSync(f.path) && statSync(f.path).size === f.bytes) return f;
  }
  const f = generate(join(dir, relPath), env.bigBytes, new Rng(`${env.seed}/${name}`));
  writeFileSync(manifest, JSON.stringify(f));
  return f;
}

/** A read of `path` by `codec`, every usage event added into `totals` as the generator totals it. */
export async function usageTotals<T>(codec: Codec, path: string, kinds: readonly EventKind[] | undefined, totals: T, add: (t: T, e: UsageEvent) => void): Promise<{ events: number; totals: T }> {
  let events = 0;
  for await (const e of codec.read(path, kinds === undefined ? {} : { kinds })) {
    events++;
    if (e.type === 'usage') add(totals, e);
  }
  return { events, totals };
}

export function oneFileTopic<T>(spec: OneFileSpec<T>): Topic {
  return {
    name: spec.name,
    question: spec.question,
    async prepare(env) {
      const f = spec.ensure(env);
      process.stderr.write(`${spec.name}: ${(f.bytes / 1e6).toFixed(0)} MB, ${f.lines} lines\n`);
    },
    async cases(env: BenchEnv): Promise<BenchCase<any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
      const f = spec.ensure(env);
      const note = `${(f.bytes / 1e6).toFixed(0)} MB, ${f.lines} lines, ${f.totals.responses} responses`;
      const naive = `${spec.name} naive split+JSON.parse`;
      const cases: BenchCase<any>[] = [ // eslint-disable-line @typescript-eslint/no-explicit-any
        {
          name: naive,
          bytes: f.bytes,
          note,
          run: async () => {
            const r = await naiveRead([f.path]);
            return { events: r.objects, read: r };
          },
          verify: (res) => check((res.read as NaiveRead).objects === f.lines, `naive: ${(res.read as NaiveRead).objects} objects, generated ${f.lines} lines`),
        },
      ];
      for (const [label, kinds] of [
        ['full read', undefined],
        ['usage-only read', ['usage'] as const],
      ] as const) {
        cases.push({
          name: `${spec.name} ${label}`,
          bytes: f.bytes,
          baseline: naive,
          note,
          run: async () => spec.read(f.path, kinds),
          verify: (res) => check(JSON.stringify(res.totals) === JSON.stringify(f.totals), `${label}: totals ${JSON.stringify(res.totals)}, generated ${JSON.stringify(f.totals)}`),
        });
      }
      return cases;
    },
  };
}
