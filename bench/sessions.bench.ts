/**
 * Question: does `sessions list` stay lazy? It should cost a fraction of a full parse (it reads the head and
 * tail of each file), while sorting by cost needs a usage-only read of every candidate. Baseline: a full
 * read of every file of the agent. Each case checks it listed every generated main session.
 */
import { createSessionManager } from '../src/sessions/index.js';
import type { GeneratedAgent } from '../fixtures/generate/index.js';
import { agentBytes, ensureCorpus, mainCorpusSpec } from './lib/corpus.js';
import { check, type BenchCase, type BenchEnv, type Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { codecOrReason, discoverPaths, readAll } from './lib/read.js';

const AGENTS: readonly GeneratedAgent[] = ['claude', 'codex'];

export const topic: Topic = {
  name: 'sessions',
  question: 'sessions list (lazy head/tail) vs a full parse of every file',
  async prepare(env) {
    ensureCorpus(env.dir, mainCorpusSpec(env), { log: (s) => process.stderr.write(`${s}\n`) });
  },
  async cases(env: BenchEnv): Promise<BenchCase<any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const corpus = ensureCorpus(env.dir, mainCorpusSpec(env));
    const out: BenchCase<any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const agent of AGENTS) {
      const { codec, reason } = codecOrReason(agent);
      const mainFiles = corpus.manifest.files.filter((f) => f.agent === agent && !f.subagent);
      const mains = mainFiles.length;
      const withUsage = mainFiles.filter((f) => f.usageEvents > 0).length;
      const files = corpus.manifest.files.filter((f) => f.agent === agent).length;
      const bytes = agentBytes(corpus, agent);
      const full = `${agent} full read of every file`;
      const paths = codec ? await discoverPaths(codec, corpus.env) : [];
      out.push({
        name: full,
        bytes,
        ...(reason !== undefined && { skip: reason }),
        run: async () => {
          const r = await readAll(codec!, paths);
          return { events: r.events, files: r.files };
        },
        verify: (r) => check(r.files === files, `${String(r.files)} files read, generated ${files}`),
      });
      for (const sort of ['date', 'cost'] as const) {
        out.push({
          name: `${agent} sessions list --sort ${sort} (all)`,
          bytes,
          baseline: full,
          note: `${mains} sessions`,
          ...(reason !== undefined && { skip: reason }),
          run: async () => {
            const list = await createSessionManager({ env: corpus.env }).list(agent, { limit: 1_000_000, sort });
            return { events: list.length, list };
          },
          verify: (r) => {
            check(r.events === mains, `listed ${String(r.events)} sessions, generated ${mains}`);
            const costed = (r.list as { cost?: unknown }[]).filter((s) => s.cost !== undefined).length;
            if (sort === 'cost') check(costed >= withUsage, `${costed} sessions with a cost in a cost-sorted list, ${withUsage} generated with usage`);
          },
        });
      }
    }
    return out;
  },
};

await runTopicMain(import.meta.url, topic);
