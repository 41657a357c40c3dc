/**
 * Question: how fast does each codec read a realistic history on one thread — a full read (every event
 * kind) and a usage-only read (the byte-marker fast path) — against the naive `split('\n')` + `JSON.parse`
 * baseline over the same files? Every case first checks its usage totals against expected.json (per day and
 * model, after dedup across files).
 */
import type { GeneratedAgent } from '../fixtures/generate/index.js';
import { assertTotals } from '../fixtures/generate/index.js';
import { agentBytes, ensureCorpus, mainCorpusSpec } from './lib/corpus.js';
import { check, type BenchCase, type BenchEnv, type Topic } from './lib/harness.js';
import { codecOrReason, discoverPaths, naiveRead, readAll, type CorpusRead, type NaiveRead } from './lib/read.js';
import { runTopicMain } from './lib/main.js';
import { claude, createClaudeCore, PARSER_VERSION } from '../codecs/claude/index.js';
import { createJsonlRead } from '../cursors/read-jsonl.js';
import type { Codec } from '../cursors/protocol/codec.js';

/**
 * The Claude codec with its exact usage scanner switched off (every usage line through JSON.parse): the
 * baseline the scanner's speedup is quoted against in codecs/claude/README.md.
 */
const claudeWithoutScanner: Codec = { ...claude, read: createJsonlRead({ id: claude.id, parserVersion: PARSER_VERSION }, createClaudeCore({ fastScan: false })) };

const AGENTS: readonly GeneratedAgent[] = ['claude', 'codex'];

export const topic: Topic = {
  name: 'codecs',
  question: 'Codec throughput on one thread: full read and usage-only read vs naive split+JSON.parse',
  async prepare(env) {
    ensureCorpus(env.dir, mainCorpusSpec(env), { log: (s) => process.stderr.write(`${s}\n`) });
  },
  async cases(env: BenchEnv) {
    const corpus = ensureCorpus(env.dir, mainCorpusSpec(env));
    const out: BenchCase<any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const agent of AGENTS) {
      const { codec, reason } = codecOrReason(agent);
      const bytes = agentBytes(corpus, agent);
      const want = corpus.expected.agents[agent];
      const manifestFiles = corpus.manifest.files.filter((f) => f.agent === agent);
      const lines = manifestFiles.reduce((n, f) => n + f.lines, 0);
      const malformed = manifestFiles.reduce((n, f) => n + f.malformed, 0);
      const paths = codec ? await discoverPaths(codec, corpus.env) : [];
      const verifyRead = (r: CorpusRead) => {
        check(r.files === manifestFiles.length, `${agent}: discovered ${r.files} files, generated ${manifestFiles.length}`);
        check(r.bytes === bytes, `${agent}: read ${r.bytes} bytes, generated ${bytes}`);
        assertTotals(corpus.expected, r.usage.totals(), { agents: [agent] });
      };
      out.push({
        name: `${agent} naive split+JSON.parse`,
        bytes,
        ...(want === undefined && { skip: `no ${agent} files in the corpus` }),
        run: async () => {
          const r = await naiveRead(manifestFiles.map((f) => `${corpus.dir}/${f.path}`));
          return { events: r.objects, read: r };
        },
        verify: (res) => {
          const r = res.read as NaiveRead;
          check(r.lines === lines, `${agent} naive: ${r.lines} lines, generated ${lines}`);
          check(r.bad === malformed, `${agent} naive: ${r.bad} bad lines, generated ${malformed} malformed`);
        },
      });
      for (const [label, kinds] of [
        ['full read', undefined],
        ['usage-only read', ['usage'] as const],
      ] as const) {
        out.push({
          name: `${agent} ${label}`,
          bytes,
          baseline: `${agent} naive split+JSON.parse`,
          ...(reason !== undefined ? { skip: reason } : want === undefined ? { skip: `no ${agent} files in the corpus` } : {}),
          run: async () => {
            if (!codec) throw new Error(reason);
            const r = await readAll(codec, paths, kinds);
            return { events: r.events, read: r };
          },
          verify: (res) => verifyRead(res.read as CorpusRead),
          note: `${manifestFiles.length} files, ${want?.totals.events ?? 0} usage events`,
        });
      }
      if (agent === 'claude') {
        out.push({
          name: 'claude usage-only read, scanner off (JSON.parse)',
          bytes,
          baseline: 'claude usage-only read',
          ...(reason !== undefined ? { skip: reason } : want === undefined ? { skip: 'no claude files in the corpus' } : {}),
          run: async () => {
            const r = await readAll(claudeWithoutScanner, paths, ['usage']);
            return { events: r.events, read: r };
          },
          verify: (res) => verifyRead(res.read as CorpusRead),
        });
      }
    }
    return out;
  },
};

await runTopicMain(import.meta.url, topic);
