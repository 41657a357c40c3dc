/**
 * The tools compared side by side: how each is installed (into a scratch folder outside the repo, with npm),
 * how it is invoked on a corpus, and how its daily JSON becomes per-day tokens and cost.
 *
 * - ccusage 20.0.24: its npm package is a launcher for a native binary shipped as an optional dependency
 *   (`@ccusage/ccusage-<platform>-<arch>`). We call that binary directly (no Node launcher in the timing):
 *   `daily --offline --json --by-agent`, with `CLAUDE_CONFIG_DIR` / `CODEX_HOME` at the corpus.
 * - llm-usage-metrics 0.8.0: `llm-usage daily --json --claude-dir … --codex-dir … --pricing-offline`.
 *   It declares Node >= 24; on Node 20 it runs with its event store disabled (node:sqlite is missing).
 * - sessionfold: `cost report --json --group-by day --tz UTC`, cold (`--no-cache`), building its cache, warm.
 *
 * Every tool runs with `TZ=UTC` and an isolated, empty `HOME`.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One day of a tool's report. */
export interface DayRow {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export type DailyReport = Record<string, DayRow>;

export interface Invocation {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface Peer {
  name: string;
  version: string;
  /** The command line for a corpus (`home` is an empty folder the tool may write to). */
  invoke(corpus: { dir: string; claude: string; codex: string }, home: string): Invocation;
  parse(stdout: string): DailyReport;
}

export const PEER_PACKAGES = { ccusage: '20.0.24', 'llm-usage-metrics': '0.8.0' } as const;

function baseEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TZ: 'UTC', NO_COLOR: '1', COLUMNS: '200' };
}

function installedVersion(dir: string, pkg: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

/** `npm install <pkg>@<version>` into `dir` unless that version is already there; the reason on failure. */
export function installPeer(dir: string, pkg: keyof typeof PEER_PACKAGES, log: (s: string) => void): string | undefined {
  const version = PEER_PACKAGES[pkg];
  if (installedVersion(dir, pkg) === version) return undefined;
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'sessionfold-peers', private: true }) + '\n');
  log(`installing ${pkg}@${version} into ${dir}`);
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `${pkg}@${version}`], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
  } catch (e) {
    return `npm install ${pkg}@${version} failed: ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim().split('\n').slice(-2).join(' ')}`;
  }
  return installedVersion(dir, pkg) === version ? undefined : `${pkg}@${version} is not in ${dir}/node_modules after npm install`;
}

/** The native ccusage binary inside the installed package's optional dependency, made executable. */
export function findCcusageBinary(dir: string): string | { reason: string } {
  const name = `@ccusage/ccusage-${process.platform}-${process.arch}`;
  const bin = join(dir, 'node_modules', name, 'bin', process.platform === 'win32' ? 'ccusage.exe' : 'ccusage');
  if (!existsSync(bin)) return { reason: `${name} (ccusage's native binary for this platform) was not installed` };
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    chmodSync(bin, 0o755); // npm does not keep the mode of files that are not declared as bins
  }
  return bin;
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

export function ccusagePeer(bin: string): Peer {
  return {
    name: 'ccusage',
    version: PEER_PACKAGES.ccusage,
    invoke: (c, home) => ({ command: bin, args: ['daily', '--offline', '--json', '--by-agent'], env: { ...baseEnv(home), CLAUDE_CONFIG_DIR: c.claude, CODEX_HOME: c.codex } }),
    parse(stdout) {
      const doc = JSON.parse(stdout) as { daily?: Record<string, unknown>[] };
      const out: DailyReport = {};
      for (const r of doc.daily ?? []) {
        out[String(r.period ?? r.date)] = {
          inputTokens: num(r.inputTokens),
          outputTokens: num(r.outputTokens),
          cacheReadTokens: num(r.cacheReadTokens),
          cacheWriteTokens: num(r.cacheCreationTokens),
          costUsd: num(r.totalCost),
        };
      }
      return out;
    },
  };
}

export function llmUsagePeer(dir: string): Peer {
  const script = join(dir, 'node_modules', 'llm-usage-metrics', 'dist', 'index.js');
  return {
    name: 'llm-usage-metrics',
    version: PEER_PACKAGES['llm-usage-metrics'],
    invoke: (c, home) => ({
      command: process.execPath,
      args: [script, 'daily', '--json', '--quiet', '--source', 'claude,codex', '--claude-dir', join(c.claude, 'projects'), '--codex-dir', join(c.codex, 'sessions'), '--timezone', 'UTC', '--pricing-offline'],
      env: baseEnv(home),
    }),
    parse(stdout) {
      const doc = JSON.parse(stdout) as { data?: Record<string, unknown>[] };
      const out: DailyReport = {};
      for (const r of doc.data ?? []) {
        if (r.rowType !== 'period_source') continue;
        const day = String(r.periodKey);
        const d = (out[day] ??= { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 });
        d.inputTokens += num(r.inputTokens);
        d.outputTokens += num(r.outputTokens);
        d.cacheReadTokens += num(r.cacheReadTokens);
        d.cacheWriteTokens += num(r.cacheWriteTokens);
        d.costUsd += num(r.costUsd);
      }
      return out;
    },
  };
}

/** Our `cost report` (built CLI); `mode` picks cold (no cache) or cached runs against `cacheDir`. */
export function sessionfoldInvocation(mainJs: string, c: { claude: string; codex: string }, home: string, mode: 'no-cache' | 'cache', cachePath: string): Invocation {
  return {
    command: process.execPath,
    args: [mainJs, 'cost', 'report', '--json', '--group-by', 'day', '--tz', 'UTC', '--agent', 'claude,codex', ...(mode === 'no-cache' ? ['--no-cache'] : ['--cache', cachePath])],
    env: { ...baseEnv(home), CLAUDE_CONFIG_DIR: c.claude, CODEX_HOME: c.codex },
  };
}

export function parseSessionfold(stdout: string): DailyReport {
  const s = JSON.parse(stdout) as { breakdowns?: Record<string, Record<string, number>> };
  const out: DailyReport = {};
  for (const [day, b] of Object.entries(s.breakdowns ?? {})) {
    out[day] = { inputTokens: num(b.inputTokens), outputTokens: num(b.outputTokens), cacheReadTokens: num(b.cacheReadTokens), cacheWriteTokens: num(b.cacheWriteTokens), costUsd: num(b.totalUsd) };
  }
  return out;
}
