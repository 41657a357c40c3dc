/**
 * What the peers run and the size curve share: a tool on a corpus (a peer or our CLI), running every tool
 * `n` times round-robin with medians of wall, CPU (user+sys) and peak RSS, checking each answer against
 * expected.json, installing the peers, and markdown tables.
 */
import { createRequire } from 'node:module';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Corpus } from '../lib/corpus.js';
import { agreement, describeAgreement, type Agreement } from './compare.js';
import { measure, median, type Measurement } from './measure.js';
import { ccusagePeer, findCcusageBinary, installPeer, llmUsagePeer, parseSessionfold, sessionfoldInvocation, type DailyReport, type Invocation, type Peer } from './tools.js';

/** The CLI's code-cache folder for an environment (src/cli/code-cache.cts, CommonJS: taken by require). */
const { codeCacheDir } = createRequire(import.meta.url)('../../src/cli/code-cache.cjs') as typeof import('../../src/cli/code-cache.cjs');

export interface Tool {
  name: string;
  /** Invocation for a corpus; `prepare` runs (untimed) before each timed run. */
  invoke(c: Corpus, home: string): Invocation;
  prepare?(c: Corpus): void;
  parse(stdout: string): DailyReport;
  /**
   * Keep the CLI's V8 code cache (`code-cache/` of its XDG cache folder, src/cli/code-cache.cts) from one run
   * of this tool to the next, as a user's second run finds it; the value is a home whose code cache the first
   * run starts from (a priming run's). Every run still gets an empty HOME otherwise.
   */
  keepCodeCache?: string;
}

export interface ToolResult {
  name: string;
  runs: Measurement[];
  /** Every run's report (a tool must give the same answer every time). */
  reports: DailyReport[];
  wallMs: number;
  cpuMs?: number;
  peakRssMb?: number;
  report?: DailyReport;
  agreement?: Agreement;
  /** Set when a later run's report differs from the first. */
  inconsistent?: string;
  error?: string;
}

/** Installs ccusage and llm-usage-metrics into `peersDir` (`only` picks some); a peer that cannot be had is named in `skipped`. */
export function installPeers(peersDir: string, log: (s: string) => void, only?: readonly string[]): { peers: Peer[]; skipped: Record<string, string> } {
  const peers: Peer[] = [];
  const skipped: Record<string, string> = {};
  const want = (name: string) => only === undefined || only.includes(name);
  if (want('ccusage')) {
    const r1 = installPeer(peersDir, 'ccusage', log);
    const bin = r1 === undefined ? findCcusageBinary(peersDir) : { reason: r1 };
    if (typeof bin === 'string') peers.push(ccusagePeer(bin));
    else skipped.ccusage = bin.reason;
  }
  if (want('llm-usage-metrics')) {
    const r2 = installPeer(peersDir, 'llm-usage-metrics', log);
    if (r2 === undefined) peers.push(llmUsagePeer(peersDir));
    else skipped['llm-usage-metrics'] = r2;
  }
  return { peers, skipped };
}

export function corpusPaths(c: Corpus): { dir: string; claude: string; codex: string } {
  return { dir: c.dir, claude: c.roots.claude, codex: c.roots.codex };
}

export function peerTool(p: Peer): Tool {
  return { name: `${p.name} ${p.version}`, invoke: (c, home) => p.invoke(corpusPaths(c), home), parse: (s) => p.parse(s) };
}

export function oursTool(mainJs: string, name: string, mode: 'no-cache' | 'cache', cachePath: string, prepare?: (c: Corpus) => void, keepCodeCache?: string): Tool {
  return { name, invoke: (c, home) => sessionfoldInvocation(mainJs, corpusPaths(c), home, mode, cachePath), parse: parseSessionfold, ...(prepare && { prepare }), ...(keepCodeCache !== undefined && { keepCodeCache }) };
}

/** Run every tool `n` times round-robin on the corpus; medians; the first run's report. */
export async function runTools(c: Corpus, tools: Tool[], n: number, log: (s: string) => void): Promise<ToolResult[]> {
  const results: ToolResult[] = tools.map((t) => ({ name: t.name, runs: [], reports: [], wallMs: 0 }));
  for (let i = 0; i < n; i++) {
    for (const [k, t] of tools.entries()) {
      const res = results[k] as ToolResult;
      if (res.error) continue;
      t.prepare?.(c);
      const home = mkdtempSync(join(c.dir, '.home-'));
      const kept = t.keepCodeCache === undefined ? undefined : join(c.dir, `.code-cache-${k}`);
      const from = kept === undefined ? undefined : existsSync(kept) ? kept : codeCacheDir({ HOME: t.keepCodeCache });
      if (from !== undefined) {
        // a case named for its kept code cache must have one to keep, or it times a first run under that name
        if (!existsSync(from)) {
          res.error = `no code cache to keep at ${from}`;
          log(`  ${t.name}: ${res.error}`);
          rmSync(home, { recursive: true, force: true });
          continue;
        }
        cpSync(from, codeCacheDir({ HOME: home }), { recursive: true });
      }
      const m = await measure(t.invoke(c, home), home);
      if (kept !== undefined && existsSync(codeCacheDir({ HOME: home }))) {
        rmSync(kept, { recursive: true, force: true });
        cpSync(codeCacheDir({ HOME: home }), kept, { recursive: true });
      }
      rmSync(home, { recursive: true, force: true });
      if (m.code !== 0) {
        res.error = `exit ${m.code}: ${m.stderr.trim().split('\n').slice(-3).join(' | ')}`;
        log(`  ${t.name}: ${res.error}`);
        continue;
      }
      try {
        res.reports.push(t.parse(m.stdout));
        res.report ??= res.reports[0];
      } catch (e) {
        res.error = `unreadable output: ${(e as Error).message}`;
        continue;
      }
      res.runs.push(m);
      log(`  run ${i + 1}/${n} ${t.name}: ${(m.wallMs / 1000).toFixed(2)} s wall${m.cpuMs !== undefined ? `, ${(m.cpuMs / 1000).toFixed(2)} s CPU` : ''}${m.peakRssMb !== undefined ? `, ${m.peakRssMb.toFixed(0)} MB` : ''}`);
    }
  }
  for (const k of tools.keys()) rmSync(join(c.dir, `.code-cache-${k}`), { recursive: true, force: true });
  for (const r of results) {
    if (r.runs.length === 0) continue;
    r.wallMs = median(r.runs.map((m) => m.wallMs));
    const cpu = r.runs.map((m) => m.cpuMs).filter((x): x is number => x !== undefined);
    const rss = r.runs.map((m) => m.peakRssMb).filter((x): x is number => x !== undefined);
    if (cpu.length) r.cpuMs = median(cpu);
    if (rss.length) r.peakRssMb = median(rss);
  }
  return results;
}

/** Agreement of the first run, and a note when a later run answered differently. */
export function agreeAll(r: ToolResult, expected: Corpus['expected'], ours?: DailyReport): void {
  if (!r.report) return;
  r.agreement = agreement(expected, r.report, ours);
  const first = JSON.stringify(r.report);
  const other = r.reports.findIndex((x) => JSON.stringify(x) !== first);
  if (other > 0) {
    const a = agreement(expected, r.reports[other] as DailyReport, ours);
    r.inconsistent = `runs disagree: run 1 ${describeAgreement(r.agreement)}; run ${other + 1} ${describeAgreement(a)}`;
  }
}

export function ratio(a: number | undefined, b: number | undefined): string {
  return a !== undefined && b !== undefined && b > 0 ? `${(a / b).toFixed(2)}x` : '';
}

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}
