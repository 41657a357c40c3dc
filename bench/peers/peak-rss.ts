/**
 * Peak RSS of the CLI on the largest inputs issue 16 names: `npm run bench -- peak-rss [--huge-mb 500]
 * [--scale 1] [--cores <n>] [--corpora claude,codex,history] [--commands <regex>] [--keep-corpora]` (or `node
 * dist/bench/peers/peak-rss.js …` after a build). The bar: under 250 MB (`--limit-mb`) at scale 1 of the clean
 * ccusage profile and with one 500 MB file, with the N-API addon and without it (`SESSIONFOLD_NATIVE=0`: the
 * WebAssembly kernel).
 *
 * Three corpora, generated under `--bench-dir` and removed after their rows unless `--keep-corpora`: one
 * `--huge-mb` Claude transcript (beside one small session), one `--huge-mb` Codex rollout (the same), and the
 * clean ccusage profile at `--scale` (Claude and Codex, ~1.8 GB at 1). On each, for each kernel, every
 * command runs once under GNU time (`wait4`'s peak RSS of the CLI process, its worker threads included):
 * `cost report --json` cold (`--no-cache`), building the event cache, warm (nothing changed), `sessions list
 * --json`, by date and `--sort cost`, and `sessions show` (Markdown) of the largest session (the huge file),
 * then its `sessions show --format json` and `sessions export --format json` (their output, about twice the
 * file, goes to a file under the scratch folder), each of the list, show and export rows on an empty cache
 * (`--commands` keeps those whose name matches, e.g. `'sessions list'`). `--cores n` makes the CLI see n cores
 * (a preloaded module overrides `os.availableParallelism`), so the worker pool is the size an n-core machine
 * starts (src/scan/options.ts: up to 4 workers); without it, this machine's.
 *
 * Every answer is checked before its figure counts: the report's daily tokens against expected.json, the
 * list's rows against the corpus's sessions, the shown session's id and request count against the manifest
 * (the JSON's too, with at least one message object per request, and the document closed).
 * A wrong answer or a peak over the limit fails the run (exit 1).
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { nativeKernel } from '../../cursors/native.js';
import { ensureCorpus, type Corpus, type CorpusSpec } from '../lib/corpus.js';
import { machine } from '../lib/runner.js';
import { agreement, describeAgreement } from './compare.js';
import { HAS_GNU_TIME, measure } from './measure.js';
import { table } from './rounds.js';
import { parseSessionfold } from './tools.js';

const MAIN_JS = fileURLToPath(new URL('../../src/cli/main.cjs', import.meta.url));
const log = (s: string) => process.stderr.write(`${s}\n`);
/** The default list length of `sessions list`. */
const LIST_LIMIT = 100;

type Kernel = 'addon' | 'wasm';

interface Row {
  corpus: string;
  kernel: Kernel;
  command: string;
  wallMs?: number;
  peakRssMb?: number;
  /** Why the answer is wrong or the run failed. */
  wrong?: string;
}

interface Command {
  name: string;
  /** The CLI's arguments, or a function of the corpus for those that name one of its sessions. */
  args: string[] | ((c: Corpus) => string[]);
  /** A fresh cache for this command, or the one the previous command left. */
  cache: 'none' | 'fresh' | 'kept';
  /** Stdout to a file under the scratch folder (its path is `check`'s third argument; `stdout` is empty). */
  toFile?: true;
  check(stdout: string, c: Corpus, file?: string): string | undefined;
}

function checkReport(stdout: string, c: Corpus): string | undefined {
  const a = agreement(c.expected, parseSessionfold(stdout));
  return a.tokenDays.length === 0 ? undefined : describeAgreement(a);
}

function checkList(stdout: string, c: Corpus): string | undefined {
  const rows = JSON.parse(stdout) as { sessionId?: string; cost?: { totalUsd?: number } }[];
  const sessions = c.manifest.files.filter((f) => !f.path.includes('/subagents/')).length;
  const want = Math.min(LIST_LIMIT, sessions);
  return Array.isArray(rows) && rows.length === want && rows.every((r) => typeof r.sessionId === 'string') ? undefined : `listed ${Array.isArray(rows) ? rows.length : 'no'} rows, want ${want}`;
}

/** `checkList`, and the rows in falling cost, as `--sort cost` lists them (a list by date would pass the first check). */
function checkCostList(stdout: string, c: Corpus): string | undefined {
  const wrong = checkList(stdout, c);
  if (wrong !== undefined) return wrong;
  const costs = (JSON.parse(stdout) as { cost?: { totalUsd?: number } }[]).map((r) => r.cost?.totalUsd ?? 0);
  const at = costs.findIndex((x, i) => i > 0 && x > (costs[i - 1] as number));
  return at < 0 ? undefined : `row ${at} costs more than the row before it: not sorted by cost`;
}

/**
 * The session `sessions show` opens: the corpus's largest main session none of whose usage is copied from
 * another file (the huge file in the 500 MB corpora), so its request count is the manifest's usageEvents.
 */
function shownSession(c: Corpus): { agent: string; sessionId: string; requests: number } {
  const f = c.manifest.files.filter((x) => x.state !== undefined && x.copiedUsageEvents === 0 && x.copiedFrom === undefined).sort((a, b) => b.bytes - a.bytes)[0];
  if (f?.state === undefined) throw new Error(`corpus ${c.dir} has no main session to show`);
  return { agent: f.agent, sessionId: f.state.sessionId, requests: f.usageEvents };
}

/** The Markdown view's header names the session and its requests: both must be the shown session's. */
function checkShow(stdout: string, c: Corpus): string | undefined {
  const s = shownSession(c);
  const id = stdout.match(/^- \*\*Session:\*\* `([^`]*)`$/m)?.[1];
  if (id !== `${s.agent}:${s.sessionId}`) return `showed session ${id ?? 'none'}, want ${s.agent}:${s.sessionId}`;
  const requests = stdout.match(/^- \*\*Cost:\*\* \$[\d,.]+ \(([\d,]+) requests?\)$/m)?.[1];
  return requests !== undefined && Number(requests.replace(/,/g, '')) === s.requests ? undefined : `showed ${requests ?? 'no'} requests, want ${s.requests}`;
}

/** Each line of a file, read in 16 MiB chunks (the JSON of a 500 MB session is over a gigabyte). */
function* fileLines(path: string): Generator<string> {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(16 << 20);
    let rest = '';
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
      const lines = (rest + buf.toString('utf8', 0, n)).split('\n');
      rest = lines.pop() as string;
      yield* lines;
    }
    yield rest;
  } finally {
    closeSync(fd);
  }
}

/**
 * `JSON.stringify(session, null, 2)`: the shown session's unified id, its cost's request count (the manifest's),
 * and at least one message object per request (each a line `    {` in the root's `messages`: nothing else of a
 * session sits at that depth), read line by line.
 */
function checkJson(_stdout: string, c: Corpus, file?: string): string | undefined {
  if (file === undefined) return 'no output file';
  const s = shownSession(c);
  let id: string | undefined;
  let messages = 0;
  let inCost = false;
  let requests: number | undefined;
  let last = '';
  for (const line of fileLines(file)) {
    if (line !== '') last = line;
    if (line === '    {') messages++;
    else if (id === undefined && line.startsWith('  "unifiedId": ')) id = JSON.parse(line.slice(15).replace(/,$/, '')) as string;
    else if (line === '  "cost": {') inCost = true;
    else if (inCost && line.startsWith('    "requestCount": ')) requests = Number(line.slice(20).replace(/,$/, ''));
    else if (inCost && line.startsWith('  }')) inCost = false;
  }
  if (last !== '}') return 'JSON cut off: its last line is not the root\'s closing brace';
  if (id !== `${s.agent}:${s.sessionId}`) return `JSON of session ${id ?? 'none'}, want ${s.agent}:${s.sessionId}`;
  if (requests !== s.requests) return `JSON with ${requests ?? 'no'} requests, want ${s.requests}`;
  return messages >= s.requests ? undefined : `JSON with ${messages} messages for ${s.requests} requests`;
}

const REPORT = ['cost', 'report', '--json', '--group-by', 'day', '--tz', 'UTC', '--agent', 'claude,codex'];
const COMMANDS: Command[] = [
  { name: 'cost report cold (--no-cache)', args: [...REPORT, '--no-cache'], cache: 'none', check: checkReport },
  { name: 'cost report, building the cache', args: REPORT, cache: 'fresh', check: checkReport },
  { name: 'cost report warm (nothing changed)', args: REPORT, cache: 'kept', check: checkReport },
  { name: 'sessions list --json', args: ['sessions', 'list', '--json', '--tz', 'UTC'], cache: 'fresh', check: checkList },
  { name: 'sessions list --json --sort cost', args: ['sessions', 'list', '--json', '--sort', 'cost', '--tz', 'UTC'], cache: 'fresh', check: checkCostList },
  {
    name: 'sessions show (Markdown)',
    args: (c) => {
      const s = shownSession(c);
      return ['sessions', 'show', s.agent, s.sessionId, '--no-pager'];
    },
    cache: 'fresh',
    check: checkShow,
  },
  ...(['show', 'export'] as const).map(
    (verb): Command => ({
      name: `sessions ${verb} --format json`,
      args: (c) => {
        const s = shownSession(c);
        return ['sessions', verb, s.agent, s.sessionId, '--format', 'json', ...(verb === 'show' ? ['--no-pager'] : [])];
      },
      cache: 'fresh',
      toFile: true,
      check: checkJson,
    }),
  ),
];

/**
 * A `-r` preload that makes the CLI see `cores` cores: CommonJS, as the bin is (an `--import` hook would start
 * Node's ESM loader in the measured process, memory the bin does not use: bench/startup.bench.ts does the same).
 */
function coresPreload(dir: string, cores: number): string {
  const file = join(dir, `cores-${cores}.cjs`);
  writeFileSync(file, `const os = require('node:os'); os.availableParallelism = () => ${cores}; require('node:module').syncBuiltinESMExports();\n`);
  return file;
}

async function measureCorpus(label: string, spec: CorpusSpec, o: { base: string; kernels: Kernel[]; commands: RegExp; cores?: number; keep: boolean }): Promise<Row[]> {
  const corpus = ensureCorpus(o.base, spec, { log });
  const bytes = corpus.manifest.files.reduce((n, f) => n + f.bytes, 0);
  const largest = Math.max(...corpus.manifest.files.map((f) => f.bytes));
  log(`${label}: ${corpus.manifest.files.length} files, ${(bytes / 1e6).toFixed(0)} MB, the largest ${(largest / 1e6).toFixed(0)} MB`);
  const rows: Row[] = [];
  const scratch = join(corpus.dir, '.peak-rss');
  try {
    for (const kernel of o.kernels) {
      let cache = '';
      for (const [k, cmd] of COMMANDS.entries()) {
        if (!o.commands.test(cmd.name)) continue;
        // a warm row measures a cache an earlier row of the list built: never a fresh one under its name
        if (cmd.cache === 'kept' && cache === '') throw new Error(`"${cmd.name}" needs the cache that "building the cache" leaves: select both in --commands`);
        if (cmd.cache === 'fresh' || cache === '') {
          cache = join(scratch, `${kernel}-${k}`);
          rmSync(cache, { recursive: true, force: true });
          mkdirSync(join(cache, 'home'), { recursive: true });
        }
        const env: NodeJS.ProcessEnv = {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          ...corpus.env,
          HOME: join(cache, 'home'),
          XDG_CACHE_HOME: join(cache, 'xdg'),
          SESSIONFOLD_SOCKET: 'off',
          ...(kernel === 'wasm' && { SESSIONFOLD_NATIVE: '0' }),
        };
        const args = [...(o.cores !== undefined ? ['-r', coresPreload(cache, o.cores)] : []), MAIN_JS, ...(typeof cmd.args === 'function' ? cmd.args(corpus) : cmd.args)];
        const outFile = cmd.toFile === true ? join(cache, 'stdout') : undefined;
        const m = await measure({ command: process.execPath, args, env }, cache, outFile);
        const row: Row = { corpus: label, kernel, command: cmd.name, wallMs: m.wallMs, ...(m.peakRssMb !== undefined && { peakRssMb: m.peakRssMb }) };
        if (m.code !== 0) row.wrong = `exit ${m.code}: ${m.stderr.trim().split('\n').slice(-2).join(' | ')}`;
        else {
          try {
            const wrong = cmd.check(m.stdout, corpus, outFile);
            if (wrong !== undefined) row.wrong = wrong;
          } catch (e) {
            row.wrong = `unreadable output: ${(e as Error).message}`;
          }
        }
        log(`  ${kernel} ${cmd.name}: ${(m.wallMs / 1000).toFixed(2)} s, ${row.peakRssMb?.toFixed(0) ?? '?'} MB${row.wrong ? ` WRONG: ${row.wrong}` : ''}`);
        rows.push(row);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    if (!o.keep) rmSync(corpus.dir, { recursive: true, force: true });
  }
  return rows;
}

export async function main(argv: string[]): Promise<void> {
  const { values: opts } = parseArgs({
    args: argv,
    options: {
      'huge-mb': { type: 'string', default: '500' },
      scale: { type: 'string', default: '1' },
      cores: { type: 'string' },
      corpora: { type: 'string', default: 'claude,codex,history' },
      kernels: { type: 'string', default: 'addon,wasm' },
      commands: { type: 'string', default: '' },
      'limit-mb': { type: 'string', default: '250' },
      'bench-dir': { type: 'string', default: process.env.BENCH_DIR ?? '/tmp/sessionfold-bench' },
      seed: { type: 'string', default: process.env.BENCH_SEED ?? 'sessionfold-bench' },
      'keep-corpora': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  if (!HAS_GNU_TIME) throw new Error('peak-rss needs GNU time (/usr/bin/time) to read the CLI process peak RSS');
  const hugeBytes = Math.round(Number(opts['huge-mb']) * 1e6);
  const scale = Number(opts.scale);
  const limit = Number(opts['limit-mb']);
  const cores = opts.cores === undefined ? undefined : Number(opts.cores);
  if (!(hugeBytes > 0) || !(scale > 0) || !(limit > 0) || (cores !== undefined && !(Number.isInteger(cores) && cores > 0))) throw new Error('--huge-mb, --scale, --limit-mb and --cores want positive numbers');
  const kernels = opts.kernels.split(',') as Kernel[];
  if (kernels.some((k) => k !== 'addon' && k !== 'wasm')) throw new Error(`--kernels wants addon,wasm, got ${opts.kernels}`);
  if (kernels.includes('addon') && nativeKernel() === undefined) throw new Error('the N-API addon is not built (node scripts/build-native.mjs), or pass --kernels wasm');
  const base = join(resolve(opts['bench-dir']), 'peak-rss');
  const specs: Record<string, [string, CorpusSpec]> = {
    claude: [`one ${opts['huge-mb']} MB Claude transcript`, { seed: opts.seed, scale: 0.0001, agents: ['claude'], clean: true, hugeFileBytes: hugeBytes }],
    codex: [`one ${opts['huge-mb']} MB Codex rollout`, { seed: opts.seed, scale: 0.0001, agents: ['codex'], clean: true, hugeFileBytes: hugeBytes, hugeFileAgent: 'codex' }],
    history: [`clean ccusage profile, scale ${scale}`, { seed: opts.seed, scale, clean: true }],
  };
  const rows: Row[] = [];
  for (const name of opts.corpora.split(',')) {
    const s = specs[name];
    if (s === undefined) throw new Error(`unknown corpus ${name}; known: ${Object.keys(specs).join(', ')}`);
    rows.push(...(await measureCorpus(s[0], s[1], { base, kernels, commands: new RegExp(opts.commands), ...(cores !== undefined && { cores }), keep: opts['keep-corpora'] })));
  }
  const pool = `CLI sees ${cores ?? availableParallelism()} cores (${cores === undefined ? 'this machine' : '--cores'})`;
  const over = rows.filter((r) => r.wrong === undefined && (r.peakRssMb === undefined || r.peakRssMb >= limit));
  const wrong = rows.filter((r) => r.wrong !== undefined);
  const kernelName = (k: Kernel) => (k === 'addon' ? 'N-API addon' : 'WebAssembly (SESSIONFOLD_NATIVE=0)');
  const md = [
    `## Peak RSS (limit ${limit} MB; ${pool})`,
    '',
    table([
      ['input', 'kernel', 'command', 'wall', 'peak RSS'],
      ...rows.map((r) => [r.corpus, kernelName(r.kernel), r.command, r.wallMs === undefined ? '' : `${(r.wallMs / 1000).toFixed(2)} s`, r.wrong !== undefined ? `wrong: ${r.wrong}` : `${r.peakRssMb?.toFixed(0) ?? '?'} MB${r.peakRssMb !== undefined && r.peakRssMb >= limit ? ' (over)' : ''}`]),
    ]),
    '',
  ].join('\n');
  process.stdout.write(opts.json ? `${JSON.stringify({ limit, cores: cores ?? availableParallelism(), machine: machine(), rows }, null, 1)}\n` : `${md}\n`);
  mkdirSync(base, { recursive: true });
  writeFileSync(join(base, 'last-run.json'), `${JSON.stringify({ limit, cores: cores ?? availableParallelism(), machine: machine(), rows }, null, 1)}\n`);
  if (over.length > 0 || wrong.length > 0) {
    log(`${over.length} over ${limit} MB, ${wrong.length} wrong`);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
