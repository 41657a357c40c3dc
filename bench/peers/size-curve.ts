/**
 * The size curve: `npm run bench -- size-curve [--scales 0.02,0.12,0.5,1] [--runs 5] [--keep-corpora]`
 * (or `node dist/bench/peers/size-curve.js …` after a build). For each scale of the clean ccusage profile:
 *
 * 1. ccusage 20.0.24's native binary (`daily --offline --json --by-agent`), sessionfold cold
 *    (`cost report --json --no-cache`) and sessionfold warm with nothing changed, `--runs` times round-robin;
 *    every run has an empty HOME, but the warm cases (here, after +1 MB, and served) keep the CLI's V8 code
 *    cache from one run to the next, starting from the priming run's, as a user's runs after the first find
 *    it (src/cli/code-cache.cts); a cold run compiles afresh (a first run ever), and a second cold case keeps
 *    the code cache as the warm ones do (a user's `--no-cache` run after any earlier run);
 * 2. 1 MB appended to the largest Claude session: sessionfold warm (its cache restored to the pre-append
 *    snapshot before each run) round-robin with ccusage on the grown history;
 * 3. the report through `sessionfold serve` with nothing changed (served.ts, its first case only).
 *
 * Every answer's per-day tokens must equal expected.json (and ccusage's cost ours, to the cent); a wrong
 * answer is named and gets no figure, and the run exits 1. CPU (user+sys of the child, from GNU time) is the
 * primary figure because the wall time of a shared machine measures its other load; wall is shown beside it.
 * A served client's CPU is the client's only (the server's share is not in it). Ratios are sessionfold's
 * median over the median of the ccusage runs interleaved with it: below 1 is faster than ccusage.
 * Corpora are generated under `--bench-dir` and removed after their scale unless `--keep-corpora`.
 */
import { mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { appendToCorpus, readCorpusDocs } from '../../fixtures/generate/index.js';
import { ensureCorpus, type Corpus } from '../lib/corpus.js';
import { readRange, regrow, removeDb, restoreDb, snapshotDb } from '../lib/files.js';
import { machine } from '../lib/runner.js';
import { describeAgreement } from './compare.js';
import { HAS_GNU_TIME, measure } from './measure.js';
import { agreeAll, corpusPaths, installPeers, oursTool, peerTool, ratio, runTools, table, type Tool, type ToolResult } from './rounds.js';
import { measureServed, type ServedCase } from './served.js';
import { sessionfoldInvocation } from './tools.js';

const MAIN_JS = fileURLToPath(new URL('../../src/cli/main.cjs', import.meta.url));
const log = (s: string) => process.stderr.write(`${s}\n`);

/** One figure: median wall and CPU, and the ccusage runs it is compared with. */
interface Cell {
  wallMs?: number;
  cpuMs?: number;
  peakRssMb?: number;
  refWallMs?: number;
  refCpuMs?: number;
  /** Why there is no figure (an error or a wrong answer). */
  wrong?: string;
}

interface Row {
  scale: number;
  mb: number;
  files: number;
  ccusage: Cell;
  cold: Cell;
  /** Cold with the V8 code cache a user's earlier runs left (`--no-cache` skips the event cache, not that). */
  coldKept: Cell;
  /** Cold without the N-API addon (`SESSIONFOLD_NATIVE=0`: the WebAssembly kernel), what a user without a C compiler gets. */
  coldWasm: Cell;
  warm: Cell;
  appended: Cell;
  served: Cell;
  serverPeakRssMb?: number;
}

/** Empty when the tool answered right every run; else why not. */
function wrongness(r: ToolResult): string | undefined {
  if (r.error) return r.error;
  if (r.inconsistent) return r.inconsistent;
  if (!r.agreement) return 'no answer';
  const a = r.agreement;
  return a.tokenDays.length > 0 || (a.costDays?.length ?? 0) > 0 ? describeAgreement(a) : undefined;
}

function cell(r: ToolResult | ServedCase, ref: ToolResult): Cell {
  const wrong = 'reports' in r ? wrongness(r) : /^tokens exact on \d+ days$/.test(r.agreement) ? undefined : r.agreement;
  if (wrong !== undefined) return { wrong };
  return {
    wallMs: r.wallMs,
    ...(r.cpuMs !== undefined && { cpuMs: r.cpuMs }),
    ...('peakRssMb' in r && r.peakRssMb !== undefined && { peakRssMb: r.peakRssMb }),
    refWallMs: ref.wallMs,
    ...(ref.cpuMs !== undefined && { refCpuMs: ref.cpuMs }),
  };
}

async function measureScale(scale: number, o: { base: string; seed: string; runs: number; ccusage: ReturnType<typeof peerTool> }): Promise<Row> {
  const corpus = ensureCorpus(o.base, { seed: o.seed, scale, clean: true }, { log });
  const bytes = corpus.manifest.files.reduce((n, f) => n + f.bytes, 0);
  log(`scale ${scale}: ${corpus.manifest.files.length} files, ${(bytes / 1e6).toFixed(0)} MB`);
  const cacheDir = join(corpus.dir, '.cache');
  mkdirSync(cacheDir, { recursive: true });
  const warmDb = join(cacheDir, 'warm.db');
  removeDb(warmDb);
  const home = join(cacheDir, 'prime-home');
  mkdirSync(home, { recursive: true });
  const primed = await measure(sessionfoldInvocation(MAIN_JS, corpusPaths(corpus), home, 'cache', warmDb), home);
  if (primed.code !== 0) throw new Error(`priming the warm cache: exit ${primed.code}: ${primed.stderr}`);

  // 1. ccusage, cold, warm (nothing changed), interleaved.
  const main = await runTools(corpus, [o.ccusage, oursTool(MAIN_JS, 'sessionfold cold', 'no-cache', ''), oursTool(MAIN_JS, 'sessionfold warm', 'cache', warmDb, undefined, home), withoutAddon(oursTool(MAIN_JS, 'sessionfold cold, no addon', 'no-cache', '')), oursTool(MAIN_JS, 'sessionfold cold, code cache kept', 'no-cache', '', undefined, home)], o.runs, log);
  const [cc, cold, warm, coldWasm, coldKept] = main as [ToolResult, ToolResult, ToolResult, ToolResult, ToolResult];
  for (const r of main) agreeAll(r, corpus.expected, r === cc ? cold.report : undefined);

  // 2. +1 MB to the largest Claude session, warm from the pre-append cache, interleaved with ccusage.
  const docs = ['manifest.json', 'expected.json'].map((name) => [join(corpus.dir, name), readFileSync(join(corpus.dir, name))] as const);
  const before = join(cacheDir, 'before-append.db');
  snapshotDb(warmDb, before);
  const f = appendToCorpus({ dir: corpus.dir, bytes: 1_000_000, agent: 'claude', pick: 'largest' }).files[0]!;
  const abs = join(corpus.dir, f.path);
  const block = readRange(abs, f.fromBytes, f.toBytes);
  const grown: Corpus = { ...corpus, expected: readCorpusDocs(corpus.dir).expected };
  let appendRuns: ToolResult[];
  try {
    const appendedTool = oursTool(MAIN_JS, 'sessionfold warm after +1 MB', 'cache', warmDb, () => {
      restoreDb(before, warmDb);
      regrow(abs, f.fromBytes, block);
    }, home);
    appendRuns = await runTools(grown, [o.ccusage, appendedTool], o.runs, log);
    for (const r of appendRuns) agreeAll(r, grown.expected, r === appendRuns[0] ? appendRuns[1]?.report : undefined);
  } finally {
    truncateSync(abs, f.fromBytes);
    for (const [path, text] of docs) writeFileSync(path, text);
  }
  const [cc2, appended] = appendRuns as [ToolResult, ToolResult];

  // 3. Served, nothing changed.
  const served = await measureServed({ mainJs: MAIN_JS, corpus, cacheDir, runs: o.runs, log, onlyUnchanged: true });
  const servedCase = served.cases[0] as ServedCase;

  return {
    scale,
    mb: bytes / 1e6,
    files: corpus.manifest.files.length,
    ccusage: cell(cc, cc),
    cold: cell(cold, cc),
    coldKept: cell(coldKept, cc),
    coldWasm: cell(coldWasm, cc),
    warm: cell(warm, cc),
    appended: cell(appended, cc2),
    served: cell(servedCase, cc),
    ...(served.serverPeakRssMb !== undefined && { serverPeakRssMb: served.serverPeakRssMb }),
  };
}

const s = (ms: number | undefined) => (ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(2)} s`);
const mb = (x: number | undefined) => (x === undefined ? 'n/a' : `${x.toFixed(0)} MB`);

/** `0.45 s (0.52x)`: the figure and its ratio to ccusage's. */
function fig(c: Cell, what: 'cpu' | 'wall', withRatio = true): string {
  if (c.wrong !== undefined) return `wrong: ${c.wrong}`;
  const [v, ref] = what === 'cpu' ? [c.cpuMs, c.refCpuMs] : [c.wallMs, c.refWallMs];
  return withRatio ? `${s(v)} (${ratio(v, ref) || 'n/a'})` : s(v);
}

export function curveTables(rows: readonly Row[]): string {
  const head = ['scale', 'history', 'ccusage', 'cold (--no-cache)', 'cold, code cache kept', 'cold without the addon', 'warm, nothing changed', 'warm after +1 MB', 'served, nothing changed'];
  const body = (what: 'cpu' | 'wall') =>
    table([head, ...rows.map((r) => [String(r.scale), `${r.mb.toFixed(0)} MB, ${r.files} files`, fig(r.ccusage, what, false), fig(r.cold, what), fig(r.coldKept, what), fig(r.coldWasm, what), fig(r.warm, what), fig(r.appended, what), fig(r.served, what)])]);
  const rss = table([
    ['scale', 'ccusage', 'cold', 'cold, code cache kept', 'cold without the addon', 'warm', 'warm after +1 MB', 'server (serve)'],
    ...rows.map((r) => [String(r.scale), mb(r.ccusage.peakRssMb), mb(r.cold.peakRssMb), mb(r.coldKept.peakRssMb), mb(r.coldWasm.peakRssMb), mb(r.warm.peakRssMb), mb(r.appended.peakRssMb), mb(r.serverPeakRssMb)]),
  ]);
  return [
    '### CPU, user+sys of the child (median; ratio = sessionfold / ccusage, below 1 is faster)',
    body('cpu'),
    '### Wall (median; same ratio)',
    body('wall'),
    '### Peak RSS (median)',
    rss,
  ].join('\n\n');
}

export async function main(argv: string[]): Promise<void> {
  const { values: opts } = parseArgs({
    args: argv,
    options: {
      scales: { type: 'string', default: '0.02,0.12,0.5,1' },
      runs: { type: 'string', default: '5' },
      seed: { type: 'string', default: 'sessionfold-peers' },
      'peers-dir': { type: 'string', default: process.env.PEERS_DIR ?? '/tmp/sessionfold-peers' },
      'bench-dir': { type: 'string', default: process.env.BENCH_DIR ?? join('/tmp', 'sessionfold-bench') },
      'keep-corpora': { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  const scales = opts.scales.split(',').map(Number);
  if (scales.some((x) => !(x > 0))) throw new Error(`--scales wants positive numbers, got ${opts.scales}`);
  const runs = Math.max(1, Number(opts.runs));
  const { peers, skipped } = installPeers(resolve(opts['peers-dir']), log, ['ccusage']);
  const cc = peers[0];
  if (!cc) throw new Error(`size curve: ccusage is not available: ${skipped.ccusage}`);
  const base = join(resolve(opts['bench-dir']), 'size-curve');
  const rows: Row[] = [];
  for (const scale of scales) {
    try {
      rows.push(await measureScale(scale, { base, seed: opts.seed, runs, ccusage: peerTool(cc) }));
    } finally {
      if (!opts['keep-corpora']) rmSync(base, { recursive: true, force: true });
    }
  }
  const text = `## Size curve\n\nClean ccusage profile, seed ${opts.seed}; ${runs} runs per case, round-robin with ccusage, medians.${HAS_GNU_TIME ? '' : ' No GNU time: CPU and RSS not measured.'}\n\n${curveTables(rows)}\n\nMachine: ${JSON.stringify(machine())}\n`;
  const outDir = join(resolve(opts['bench-dir']), 'peers');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'size-curve.json'), JSON.stringify({ machine: machine(), runs, rows }, null, 1) + '\n');
  writeFileSync(join(outDir, 'size-curve.md'), text);
  process.stdout.write(opts.json ? JSON.stringify({ machine: machine(), runs, rows }, null, 1) + '\n' : text);
  const wrong = rows.flatMap((r) => [r.ccusage, r.cold, r.coldWasm, r.warm, r.appended, r.served].filter((c) => c.wrong !== undefined));
  if (wrong.length > 0) process.exitCode = 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));

/** `t` run without the N-API addon (`SESSIONFOLD_NATIVE=0`). */
function withoutAddon(t: Tool): Tool {
  const invoke: Tool['invoke'] = (c, home) => {
    const i = t.invoke(c, home);
    return { ...i, env: { ...i.env, SESSIONFOLD_NATIVE: '0' } };
  };
  return { ...t, invoke };
}
