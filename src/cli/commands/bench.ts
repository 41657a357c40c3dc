/**
 * `sessionfold bench [--agent a,b] [--roots <path|agent=path>,…] [--json]`: how fast sessionfold reads *your*
 * history. Per agent: files, bytes, and for a full read (every event kind) and a usage-only read (the
 * byte-marker path) the time, MB/s and events/s, cold and warm:
 *
 * - full read: cold = first pass through the codec; warm = second pass (the OS page cache is warm; there is
 *   no event cache for full reads);
 * - usage-only read: cold = through the codec with the event cache bypassed; warm = `scanUsage` through an
 *   event cache built for this run in a temporary folder (what a second `cost report` does). The user's own
 *   cache is never touched.
 *
 * With no agent data under the default roots it measures the bundled demo history (fixtures/demo) and says so.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Codec } from '../../../cursors/protocol/codec.js';
import type { EventKind } from '../../../cursors/protocol/events.js';
import { getCodec, listCodecs } from '../../registry.js';
import { newScanStats, scanUsageBatches } from '../../scan/index.js';
import { nativeKernel, wasmKernel } from '../../../cursors/native.js';
import { demoRoot } from './start.js';
import { ruleLine } from '../render/width.js';
import { bool, CliError, defineCommand, list, type CommandContext } from '../command.js';

export interface BenchRead {
  mode: 'full' | 'usage';
  phase: 'cold' | 'warm';
  /** How the pass read: `codec` (every file parsed) or `event-cache` (scanUsage with a primed cache). */
  via: 'codec' | 'event-cache';
  seconds: number;
  /** Events yielded (usage only for usage reads). */
  events: number;
  /** Distinct usage events (dedup keys) seen. */
  usageEvents: number;
  mbPerSec: number;
  eventsPerSec: number;
}

export interface BenchAgent {
  agent: string;
  roots: string[];
  files: number;
  bytes: number;
  reads: BenchRead[];
}

export interface BenchReport {
  /** Where the files came from. */
  source: 'default-roots' | 'roots' | 'demo';
  agents: BenchAgent[];
  machine: { node: string; platform: string; cpu: string; cores: number; nativeKernel: NativeKernelState };
}

/** Whether the reads ran the native kernel's loops (cursors/native.ts): with AVX2, in plain C, or not at all. */
export type NativeKernelState = 'avx2' | 'plain' | 'wasm' | 'off';

export function nativeKernelState(): NativeKernelState {
  const k = nativeKernel();
  if (k === undefined) return wasmKernel() === undefined ? 'off' : 'wasm';
  return k.simd() ? 'avx2' : 'plain';
}

/** The environment under which the codecs' default roots are the demo history. */
export function demoEnv(): NodeJS.ProcessEnv {
  let demo: string;
  try {
    demo = demoRoot();
  } catch (e) {
    throw new CliError('IO_ERROR', (e as Error).message);
  }
  return { HOME: join(demo, '.no-home'), CLAUDE_CONFIG_DIR: join(demo, 'claude'), CODEX_HOME: join(demo, 'codex'), TZ: 'UTC' };
}

async function discover(codec: Codec, roots: string[]): Promise<{ paths: string[]; bytes: number }> {
  const paths: string[] = [];
  let bytes = 0;
  for await (const f of codec.discover(roots)) {
    try {
      bytes += statSync(f.path).size;
      paths.push(f.path);
    } catch {
      // vanished between discovery and stat
    }
  }
  return { paths, bytes };
}

async function codecPass(codec: Codec, paths: readonly string[], kinds: EventKind[] | undefined): Promise<{ seconds: number; events: number; usageEvents: number }> {
  const keys = new Set<string>();
  let events = 0;
  const t0 = performance.now();
  for (const p of paths) {
    try {
      for await (const e of codec.read(p, { kinds })) {
        events++;
        if (e.type === 'usage') keys.add(e.dedupKey);
      }
    } catch {
      // an unreadable file is skipped here as everywhere in bulk reads
    }
  }
  return { seconds: (performance.now() - t0) / 1000, events, usageEvents: keys.size };
}

async function cachePass(agent: string, roots: string[], cachePath: string, env: NodeJS.ProcessEnv): Promise<{ seconds: number; events: number; usageEvents: number }> {
  const keys = new Set<string>();
  let events = 0;
  const t0 = performance.now();
  for await (const batch of scanUsageBatches({ agents: [agent], roots: { [agent]: roots }, cache: true, cachePath, env, stats: newScanStats(), onWarning: () => undefined })) {
    for (const r of batch) {
      events++;
      keys.add(r.dedupKey);
    }
  }
  return { seconds: (performance.now() - t0) / 1000, events, usageEvents: keys.size };
}

function toRead(mode: BenchRead['mode'], phase: BenchRead['phase'], via: BenchRead['via'], bytes: number, r: { seconds: number; events: number; usageEvents: number }): BenchRead {
  const s = Math.max(r.seconds, 1e-6);
  return { mode, phase, via, seconds: r.seconds, events: r.events, usageEvents: r.usageEvents, mbPerSec: bytes / 1e6 / s, eventsPerSec: r.events / s };
}

/** Measure every agent; the library face of `sessionfold bench`. */
export async function benchAgents(agents: { codec: Codec; roots: string[] }[], env: NodeJS.ProcessEnv): Promise<BenchAgent[]> {
  const out: BenchAgent[] = [];
  const cacheDir = mkdtempSync(join(tmpdir(), 'sessionfold-bench-'));
  try {
    for (const { codec, roots } of agents) {
      const { paths, bytes } = await discover(codec, roots);
      if (paths.length === 0) continue;
      const reads: BenchRead[] = [];
      reads.push(toRead('full', 'cold', 'codec', bytes, await codecPass(codec, paths, undefined)));
      reads.push(toRead('full', 'warm', 'codec', bytes, await codecPass(codec, paths, undefined)));
      reads.push(toRead('usage', 'cold', 'codec', bytes, await codecPass(codec, paths, ['usage'])));
      const cachePath = join(cacheDir, `${codec.id}.db`);
      await cachePass(codec.id, roots, cachePath, env);
      reads.push(toRead('usage', 'warm', 'event-cache', bytes, await cachePass(codec.id, roots, cachePath, env)));
      out.push({ agent: codec.id, roots, files: paths.length, bytes, reads });
    }
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  return out;
}

function fmt(n: number, digits = 1): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(digits)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
  return n.toFixed(n < 10 ? 2 : digits);
}

export function formatBenchTable(report: BenchReport): string {
  const rows = [['Agent', 'Files', 'MB', 'Read', 'Pass', 'Seconds', 'MB/s', 'Events', 'Events/s']];
  for (const a of report.agents) {
    for (const r of a.reads) {
      rows.push([a.agent, String(a.files), (a.bytes / 1e6).toFixed(1), r.mode === 'full' ? 'full' : 'usage-only', `${r.phase} (${r.via})`, r.seconds.toFixed(3), fmt(r.mbPerSec, 0), String(r.events), fmt(r.eventsPerSec, 0)]);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  const right = new Set([1, 2, 5, 6, 7, 8]);
  const lines = rows.map((row) => row.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd());
  return [lines[0], ruleLine(widths), ...lines.slice(1)].join('\n') + '\n';
}

/** `--roots` entries: `agent=path` for one agent, a bare path for every selected agent. */
function parseRoots(entries: string[] | undefined, selected: Codec[]): Map<Codec, string[]> | undefined {
  if (entries === undefined) return undefined;
  const out = new Map<Codec, string[]>();
  for (const e of entries) {
    const eq = e.indexOf('=');
    const name = eq > 0 ? e.slice(0, eq) : undefined;
    const path = eq > 0 ? e.slice(eq + 1) : e;
    if (name !== undefined && !existsSync(name) && /^[\w-]+$/.test(name)) {
      const c = getCodec(name);
      out.set(c, [...(out.get(c) ?? []), path]);
    } else {
      if (selected.length !== 1) throw new CliError('USAGE_ERROR', `--roots ${e}: name the agent (agent=path) or select one agent with --agent`);
      const c = selected[0]!;
      out.set(c, [...(out.get(c) ?? []), e]);
    }
  }
  return out;
}

export default defineCommand({
  name: 'bench',
  description: 'Measure how fast sessionfold reads your own history: full and usage-only reads, cold and warm, per agent.',
  usage: '',
  options: {
    agent: { type: 'string', short: 'a', description: 'Agents to measure (default: every agent with data)', valueName: '<id,id>', multiple: true },
    roots: { type: 'string', description: 'Roots to read instead of the defaults: agent=path, or a path with one --agent', valueName: '<paths>', multiple: true },
    json: { type: 'boolean', description: 'Print the report as JSON' },
  },
  async run(ctx: CommandContext) {
    const names = list(ctx, 'agent');
    const selected = names ? [...new Set(names.map((n) => getCodec(n)))] : [...listCodecs()];
    const rootMap = parseRoots(list(ctx, 'roots'), selected);
    let env = ctx.env;
    let source: BenchReport['source'] = rootMap ? 'roots' : 'default-roots';
    let plan = selected.filter((c) => !rootMap || rootMap.has(c)).map((codec) => ({ codec, roots: rootMap?.get(codec) ?? codec.defaultRoots(env) }));
    let agents = await benchAgents(plan, env);
    if (agents.length === 0 && !rootMap) {
      env = demoEnv();
      source = 'demo';
      ctx.stderr.write(`No agent history found under the default roots; measuring the bundled demo history (${dirname(env.CLAUDE_CONFIG_DIR!)}).\n`);
      plan = selected.map((codec) => ({ codec, roots: codec.defaultRoots(env) }));
      agents = await benchAgents(plan, env);
    }
    if (agents.length === 0) throw new CliError('SESSION_NOT_FOUND', 'no session files found under the given roots');
    const c = cpus();
    const report: BenchReport = { source, agents, machine: { node: process.version, platform: `${process.platform}-${process.arch}`, cpu: c[0]?.model ?? 'unknown', cores: c.length, nativeKernel: nativeKernelState() } };
    if (bool(ctx, 'json')) ctx.stdout.write(JSON.stringify(report, null, 2) + '\n');
    else {
      ctx.stdout.write(formatBenchTable(report));
      const kernel = { avx2: 'the native kernel (AVX2)', plain: 'the native kernel (plain C)', wasm: 'the WebAssembly kernel (SIMD128)', off: 'no native kernel (JavaScript loops)' }[report.machine.nativeKernel];
      ctx.stdout.write(`\n${report.machine.cpu}, ${report.machine.cores} cores, Node ${report.machine.node}, ${kernel}. Warm full reads have the OS page cache; warm usage-only reads go through an event cache built for this run (your own cache is not touched).\n`);
    }
    return 0;
  },
});
