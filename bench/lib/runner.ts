/**
 * Runs topics: prepares each in this process, then runs every case in a child process
 * (`node dist/bench/run.js --child <topic> <case>`), collects the JSON reports, computes ratios to each
 * case's baseline and prints one table.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBenchEnv, runCase, type BenchEnv, type CaseReport, type Topic } from './harness.js';

/** Topic name → module (relative to dist/bench/lib). */
export const TOPIC_MODULES: Record<string, string> = {
  'line-reader': '../line-reader.bench.js',
  prefix: '../prefix.bench.js',
  codecs: '../codecs.bench.js',
  resume: '../resume.bench.js',
  cost: '../cost.bench.js',
  'marker-search': '../marker-search.bench.js',
  'opencode-warm': '../opencode-warm.bench.js',
  sessions: '../sessions.bench.js',
  gemini: '../gemini.bench.js',
  copilot: '../copilot.bench.js',
  pi: '../pi.bench.js',
  codebuddy: '../codebuddy.bench.js',
  history: '../history.bench.js',
  'serve-soak': '../serve-soak.bench.js',
  startup: '../startup.bench.js',
};

export async function loadTopic(name: string): Promise<Topic> {
  const mod = TOPIC_MODULES[name];
  if (!mod) throw new Error(`unknown topic "${name}"; known: ${Object.keys(TOPIC_MODULES).join(', ')}`);
  return ((await import(mod)) as { topic: Topic }).topic;
}

const RESULT_PREFIX = 'BENCH_RESULT ';
const RUN_JS = fileURLToPath(new URL('../run.js', import.meta.url));

/**
 * sessionfold's warnings of a case, each said once (to stderr): the library's default `onWarning` emits a Node
 * warning per run, and a case runs a report dozens of times over a corpus whose malformed lines are there on
 * purpose, so the same "skipped N lines" buried the table under copies of itself. Node's other warnings print
 * as they would.
 */
function sayWarningsOnce(): void {
  const said = new Set<string>();
  process.removeAllListeners('warning');
  process.on('warning', (w) => {
    const line = `(bench) ${w.name}: ${w.message}`;
    if (w.name === 'SessionfoldWarning' && said.has(line)) return;
    said.add(line);
    process.stderr.write(`${line}\n`);
  });
}

/** Child side: run one case and print its report. */
export async function runChild(topicName: string, caseName: string): Promise<void> {
  sayWarningsOnce();
  const env = readBenchEnv();
  const topic = await loadTopic(topicName);
  const c = (await topic.cases(env)).find((x) => x.name === caseName);
  if (!c) throw new Error(`no case "${caseName}" in topic ${topicName}`);
  let report: CaseReport;
  try {
    report = await runCase(topicName, c, env);
  } catch (e) {
    report = { topic: topicName, case: caseName, status: 'failed', message: (e as Error).message };
  }
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(report)}\n`);
}

function spawnCase(topic: string, caseName: string): Promise<CaseReport> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RUN_JS, '--child', topic, caseName], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (line) resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as CaseReport);
      else resolve({ topic, case: caseName, status: 'failed', message: `child exited ${code} without a result` });
    });
  });
}

export interface RunOptions {
  topics: string[];
  /** Only cases whose name matches. */
  filter?: RegExp;
  json?: boolean;
  /** Run cases in this process (no per-case RSS). */
  inProcess?: boolean;
  log?: (s: string) => void;
}

export async function runTopics(options: RunOptions): Promise<CaseReport[]> {
  const env = readBenchEnv();
  const log = options.log ?? ((s: string) => process.stderr.write(`${s}\n`));
  const reports: CaseReport[] = [];
  for (const name of options.topics) {
    const topic = await loadTopic(name);
    log(`# ${topic.name}: ${topic.question}`);
    await topic.prepare?.(env);
    const cases = (await topic.cases(env)).filter((c) => !options.filter || options.filter.test(c.name));
    for (const c of cases) {
      let r: CaseReport;
      if (c.skip !== undefined) r = { topic: topic.name, case: c.name, status: 'skipped', message: c.skip };
      else if (options.inProcess) {
        try {
          r = await runCase(topic.name, c, env);
        } catch (e) {
          r = { topic: topic.name, case: c.name, status: 'failed', message: (e as Error).message };
        }
      } else r = await spawnCase(topic.name, c.name);
      const counts = r.counts === undefined ? '' : ` (${Object.entries(r.counts).map(([k, v]) => `${k} ${v}`).join(', ')})`;
      log(`  ${r.status === 'ok' ? `${fmt(r.medianMs)} ms` : r.status}  ${c.name}${counts}${r.message ? `: ${r.message.split('\n')[0]}` : ''}`);
      reports.push(r);
    }
  }
  for (const r of reports) {
    if (r.baseline === undefined || r.medianMs === undefined) continue;
    const b = reports.find((x) => x.topic === r.topic && x.case === r.baseline);
    if (b?.medianMs !== undefined) (r as CaseReport & { ratio?: number }).ratio = r.medianMs / b.medianMs;
  }
  const saved = join(env.dir, 'last-run.json');
  mkdirSync(env.dir, { recursive: true });
  writeFileSync(saved, JSON.stringify({ env, machine: machine(), reports }, null, 1) + '\n');
  if (options.json) process.stdout.write(JSON.stringify({ env, machine: machine(), reports }, null, 1) + '\n');
  else process.stdout.write(formatTable(reports, env) + `\n(saved to ${saved})\n`);
  return reports;
}

export function machine(): Record<string, unknown> {
  const c = cpus();
  return { node: process.version, platform: `${process.platform}-${process.arch}`, cpu: c[0]?.model ?? 'unknown', cores: c.length, memGb: Math.round(totalmem() / 1e9) };
}

function fmt(n: number | undefined, digits = 1): string {
  if (n === undefined || !Number.isFinite(n)) return '';
  if (n >= 1e6) return `${(n / 1e6).toFixed(digits)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
  return n.toFixed(n < 10 ? 2 : digits);
}

/** The report table (markdown-compatible). */
export function formatTable(reports: readonly CaseReport[], env: BenchEnv): string {
  const rows = [['topic', 'case', 'median ms', 'MB/s', 'events/s', 'peak RSS MB', 'CPU/wall', 'vs baseline', 'status']];
  for (const r of reports) {
    const ratio = (r as CaseReport & { ratio?: number }).ratio;
    rows.push([
      r.topic,
      r.case,
      fmt(r.medianMs),
      fmt(r.mbPerSec, 0),
      fmt(r.eventsPerSec, 0),
      fmt(r.peakRssMb, 0),
      r.cpuPerWall !== undefined ? r.cpuPerWall.toFixed(2) : '',
      ratio !== undefined ? `${ratio.toFixed(2)}x ${r.baseline}` : '',
      r.status === 'ok' ? 'ok' : `${r.status}: ${(r.message ?? '').split('\n')[0]}`,
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const head = `BENCH_SCALE=${env.scale} BENCH_ITERATIONS=${env.iterations} BENCH_BIG_MB=${env.bigBytes / 1e6} seed=${env.seed} — ${JSON.stringify(machine())}`;
  return [head, '', line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}
