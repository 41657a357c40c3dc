/**
 * Generated corpora for benchmarks, kept between runs under BENCH_DIR and keyed by everything that changes
 * their bytes (generator version, seed, scale, features, the large file). A corpus is regenerated only when
 * its expected.json is missing, so repeated runs measure reads, not generation.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { corpusRoots, generateCorpus, GENERATOR_VERSION, readCorpusDocs, type ExpectedDocument, type Features, type GeneratedAgent, type Manifest } from '../../fixtures/generate/index.js';

export interface CorpusSpec {
  seed: string;
  scale: number;
  agents?: readonly GeneratedAgent[];
  clean?: boolean;
  hugeFileBytes?: number;
  /** Whose session the huge file is (default claude). */
  hugeFileAgent?: GeneratedAgent;
  profile?: string;
  /** Single features switched on or off over the clean / default set. */
  features?: Partial<Features>;
}

export interface Corpus {
  dir: string;
  expected: ExpectedDocument;
  manifest: Manifest;
  /** CLAUDE_CONFIG_DIR / CODEX_HOME. */
  roots: Record<GeneratedAgent, string>;
  /** An environment whose agent variables point at this corpus (and HOME nowhere real). */
  env: NodeJS.ProcessEnv;
}

export function corpusKey(spec: CorpusSpec): string {
  const agents = (spec.agents ?? ['claude', 'codex']).join('+');
  const features = Object.entries(spec.features ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${v ? '+' : '~'}${k}`)
    .join('');
  return [`g${GENERATOR_VERSION}`, spec.profile ?? 'ccusage', spec.seed, `s${spec.scale}`, agents, spec.clean ? 'clean' : 'real', features, spec.hugeFileBytes ? `huge${Math.round(spec.hugeFileBytes / 1e6)}MB` : '', spec.hugeFileBytes && spec.hugeFileAgent === 'codex' ? 'codexhuge' : ''].filter(Boolean).join('-');
}

/** Environment for readers of a corpus: agent homes at the corpus, HOME at an empty folder. */
export function corpusEnv(dir: string, base: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const roots = corpusRoots(dir);
  return { ...base, HOME: join(dir, '.home'), CLAUDE_CONFIG_DIR: roots.claude, CODEX_HOME: roots.codex, TZ: 'UTC' };
}

/** The corpus for `spec` under `base`, generated when missing (or when `fresh`). */
export function ensureCorpus(base: string, spec: CorpusSpec, options: { fresh?: boolean; log?: (s: string) => void } = {}): Corpus {
  const dir = join(base, corpusKey(spec));
  if (options.fresh || !existsSync(join(dir, 'expected.json')) || !existsSync(join(dir, 'manifest.json'))) {
    rmSync(dir, { recursive: true, force: true });
    const t0 = performance.now();
    generateCorpus({
      out: dir,
      seed: spec.seed,
      scale: spec.scale,
      ...(spec.profile !== undefined && { profile: spec.profile }),
      ...(spec.agents !== undefined && { agents: spec.agents }),
      clean: spec.clean === true,
      ...(spec.features !== undefined && { features: spec.features }),
      ...(spec.hugeFileBytes !== undefined && { hugeFileBytes: spec.hugeFileBytes }),
      ...(spec.hugeFileAgent !== undefined && { hugeFileAgent: spec.hugeFileAgent }),
    });
    options.log?.(`generated ${dir} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const { expected, manifest } = readCorpusDocs(dir);
  return { dir, expected, manifest, roots: corpusRoots(dir), env: corpusEnv(dir) };
}

/** The corpus every codec/cost topic reads: both agents at BENCH_SCALE. */
export function mainCorpusSpec(env: { seed: string; scale: number }): CorpusSpec {
  return { seed: env.seed, scale: env.scale };
}

/** A Claude-only corpus whose largest file is one `bigBytes` session (line reader, prefix, resume). */
export function bigFileSpec(env: { seed: string; bigBytes: number }): CorpusSpec {
  return { seed: env.seed, scale: 0.002, agents: ['claude'], hugeFileBytes: env.bigBytes };
}

/** The manifest entry of the largest file of a corpus. */
export function largestFile(c: Corpus): { path: string; bytes: number; lines: number; usageEvents: number; malformed: number } {
  const f = [...c.manifest.files].sort((a, b) => b.bytes - a.bytes)[0];
  if (!f) throw new Error(`corpus ${c.dir} has no files`);
  return { path: join(c.dir, f.path), bytes: f.bytes, lines: f.lines, usageEvents: f.usageEvents, malformed: f.malformed };
}

/** Bytes of one agent's files in a corpus. */
export function agentBytes(c: Corpus, agent: GeneratedAgent): number {
  return c.manifest.files.filter((f) => f.agent === agent).reduce((n, f) => n + f.bytes, 0);
}
