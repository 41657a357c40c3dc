/**
 * Side by side with the peers: `node dist/bench/peers/run.js [--scale 0.1] [--runs 5] [--huge-mb 500]
 * [--peers-dir /tmp/sessionfold-peers] [--append-pick largest|recent] [--no-main] [--no-quirks] [--no-append]
 * [--no-serve] [--json]` (after `npm run build`).
 *
 * 1. Installs ccusage 20.0.24 and llm-usage-metrics 0.8.0 with npm into a scratch folder outside the repo
 *    (a peer that cannot be installed or run is skipped, with the reason).
 * 2. Generates a clean corpus (fixtures/generate, CLEAN_FEATURES) and runs every tool on it `--runs` times,
 *    round-robin: wall, CPU (user+sys) and peak RSS from GNU time; medians; ratios to ours.
 * 3. Checks each tool's per-day tokens against expected.json and each peer's per-day cost against ours.
 * 4. Appends 1 MB to one session (`--append-pick largest|recent`, default the largest: the warm run then
 *    verifies the longest prefix) and times our warm run against the peers' (stateless) runs.
 * 5. Times the CLI as a client of `sessionfold serve` (served.ts): nothing changed, right after a 1 MB append,
 *    and 0.3 s after one; ratios to ccusage's runs above.
 * 6. Names where the tools differ: one small corpus per quirk (clean + that quirk), each tool once.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { appendToCorpus, readCorpusDocs, type Features } from '../../fixtures/generate/index.js';
import { ensureCorpus, type Corpus } from '../lib/corpus.js';
import { readRange, regrow, restoreDb, snapshotDb } from '../lib/files.js';
import { machine } from '../lib/runner.js';
import { agreement, describeAgreement } from './compare.js';
import { HAS_GNU_TIME, measure, median } from './measure.js';
import { agreeAll, corpusPaths, installPeers, oursTool, peerTool, ratio, runTools, table, type Tool, type ToolResult } from './rounds.js';
import { measureServed } from './served.js';
import { sessionfoldInvocation, type Invocation } from './tools.js';

const REPO = realpathSync(fileURLToPath(new URL('../../../', import.meta.url)));
const MAIN_JS = join(REPO, 'dist', 'src', 'cli', 'main.cjs');

const { values: opts } = parseArgs({
  options: {
    scale: { type: 'string', default: process.env.PEERS_SCALE ?? '0.1' },
    runs: { type: 'string', default: process.env.PEERS_RUNS ?? '5' },
    seed: { type: 'string', default: 'sessionfold-peers' },
    'huge-mb': { type: 'string', default: '0' },
    'peers-dir': { type: 'string', default: process.env.PEERS_DIR ?? '/tmp/sessionfold-peers' },
    'bench-dir': { type: 'string', default: process.env.BENCH_DIR ?? join('/tmp', 'sessionfold-bench') },
    'quirk-scale': { type: 'string', default: '0.02' },
    'no-quirks': { type: 'boolean' },
    'no-append': { type: 'boolean' },
    'no-main': { type: 'boolean' },
    'no-serve': { type: 'boolean' },
    'append-pick': { type: 'string', default: 'largest' },
    json: { type: 'boolean' },
  },
});

const log = (s: string) => process.stderr.write(`${s}\n`);
const runs = Math.max(1, Number(opts.runs));
const peersDir = resolve(opts['peers-dir']);
if (peersDir === REPO || peersDir.startsWith(`${REPO}/`)) throw new Error(`--peers-dir must be outside the repository (${REPO})`);

function timingTable(results: ToolResult[], ref: ToolResult): string {
  const rows = [['tool', 'wall (median)', 'CPU user+sys', 'peak RSS', 'wall vs ours', 'CPU vs ours', 'RSS vs ours']];
  for (const r of results) {
    if (r.error) {
      rows.push([r.name, r.error, '', '', '', '', '']);
      continue;
    }
    rows.push([
      r.name,
      `${(r.wallMs / 1000).toFixed(2)} s`,
      r.cpuMs !== undefined ? `${(r.cpuMs / 1000).toFixed(2)} s` : 'n/a',
      r.peakRssMb !== undefined ? `${r.peakRssMb.toFixed(0)} MB` : 'n/a',
      ratio(r.wallMs, ref.wallMs),
      ratio(r.cpuMs, ref.cpuMs),
      ratio(r.peakRssMb, ref.peakRssMb),
    ]);
  }
  return table(rows);
}

const { peers, skipped } = installPeers(peersDir, log);
const out: Record<string, unknown> = { machine: machine(), gnuTime: HAS_GNU_TIME, runs, skipped };
const sections: string[] = [];
for (const [name, reason] of Object.entries(skipped)) sections.push(`skipped ${name}: ${reason}`);

// --- main comparison -----------------------------------------------------------------------------------
const scale = Number(opts.scale);
const hugeMb = Number(opts['huge-mb']);
const base = join(resolve(opts['bench-dir']), 'peers');
const corpus = ensureCorpus(base, { seed: opts.seed, scale, clean: true, ...(hugeMb > 0 && { hugeFileBytes: hugeMb * 1e6 }) }, { log });
const corpusBytes = corpus.manifest.files.reduce((n, f) => n + f.bytes, 0);
const largest = Math.max(...corpus.manifest.files.map((f) => f.bytes));
log(`corpus ${corpus.dir}: ${corpus.manifest.files.length} files, ${(corpusBytes / 1e6).toFixed(0)} MB, largest ${(largest / 1e6).toFixed(1)} MB, ${corpus.expected.totals.events} usage events`);
const cacheDir = join(corpus.dir, '.cache');
mkdirSync(cacheDir, { recursive: true });
const warmCache = join(cacheDir, 'warm.db');
const buildCache = join(cacheDir, 'build.db');
{
  // Prime the warm cache (untimed), from scratch: the ledger keeps usage it has seen, so a cache left by an
  // earlier run over a corpus since cut back (served appends, a regenerated corpus) would count it still.
  for (const s of ['', '-wal', '-shm']) rmSync(warmCache + s, { force: true });
  const home = mkdtempSync(join(corpus.dir, '.home-'));
  await measure(sessionfoldInvocation(MAIN_JS, corpusPaths(corpus), home, 'cache', warmCache), home);
  rmSync(home, { recursive: true, force: true });
}
const tools: Tool[] = [
  oursTool(MAIN_JS, 'sessionfold cold (--no-cache)', 'no-cache', ''),
  oursTool(MAIN_JS, 'sessionfold first run (builds cache)', 'cache', buildCache, () => {
    for (const s of ['', '-wal', '-shm']) rmSync(buildCache + s, { force: true });
  }),
  oursTool(MAIN_JS, 'sessionfold warm (cache)', 'cache', warmCache),
  ...peers.map(peerTool),
];
const results = opts['no-main'] ? [] : await runTools(corpus, tools, runs, log);
const ours = (results[0] ?? { name: '', runs: [], reports: [], wallMs: 0 }) as ToolResult;
for (const r of results) agreeAll(r, corpus.expected, r.name.startsWith('sessionfold') ? undefined : ours.report);
const head = `Corpus: ${corpus.manifest.files.length} files, ${(corpusBytes / 1e6).toFixed(0)} MB, largest file ${(largest / 1e6).toFixed(1)} MB (clean features, scale ${scale}, seed ${opts.seed}), ${corpus.expected.totals.events} usage events over ${agreement(corpus.expected, {}).days} days. ${runs} runs each, round-robin, medians; ratios are tool / sessionfold cold.`;
if (results.length > 0) {
  sections.push(`## Cold and warm runs\n\n${head}\n\n${timingTable(results, ours)}`);
  sections.push(`## Agreement (tokens vs expected.json; peers' cost vs ours)\n\n${table([['tool', 'result'], ...results.map((r) => [r.name, r.error ?? r.inconsistent ?? (r.agreement ? describeAgreement(r.agreement) : '')])])}`);
} else sections.push(head.replace(/ \d+ runs each.*$/, ''));
out.main = { corpus: { dir: corpus.dir, files: corpus.manifest.files.length, bytes: corpusBytes, largest, events: corpus.expected.totals.events }, results: results.map(({ runs: _r, report: _p, reports: _q, ...rest }) => rest) };

// --- the floor of a warm run ---------------------------------------------------------------------------
// Start Node; start Node and stat every session file (what any run that notices appends by stat must do).
if (results.length > 0) {
  const node = (args: string[]): Invocation => ({ command: process.execPath, args, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TZ: 'UTC' } });
  const roots = [join(corpus.roots.claude, 'projects'), join(corpus.roots.codex, 'sessions'), join(corpus.roots.codex, 'archived_sessions')];
  const steps: [string, Invocation][] = [
    ['node -e 0', node(['-e', '0'])],
    ['node: list and stat every session file', node([join(REPO, 'dist', 'bench', 'peers', 'floor.js'), ...roots])],
  ];
  const rows = [['step', 'wall (median)', 'ccusage / this']];
  const ccusage = results.find((r) => r.name.startsWith('ccusage'));
  const floor: Record<string, number> = {};
  for (const [name, inv] of steps) {
    const walls: number[] = [];
    for (let i = 0; i < Math.max(runs, 5); i++) {
      const m = await measure(inv, corpus.dir);
      if (m.code !== 0) throw new Error(`${name}: exit ${m.code}`);
      if (name.startsWith('node:') && Number(m.stdout.trim()) !== corpus.manifest.files.length) throw new Error(`${name}: stat'ed ${m.stdout.trim()} files, the corpus has ${corpus.manifest.files.length}`);
      walls.push(m.wallMs);
    }
    floor[name] = median(walls);
    rows.push([name, `${(median(walls) / 1000).toFixed(3)} s`, ccusage && !ccusage.error ? ratio(ccusage.wallMs, median(walls)) : '']);
  }
  out.floor = floor;
  sections.push(
    `## The floor of a warm run\n\nNo Node tool that notices appends by stat-ing every file can answer faster than the second row; the last column is the largest speedup over ccusage it leaves.\n\n${table(rows)}`,
  );
}

// --- append 1 MB ---------------------------------------------------------------------------------------
if (!opts['no-append']) {
  const pick = opts['append-pick'] === 'recent' ? 'recent' : 'largest';
  log(`appending 1 MB to the ${pick === 'recent' ? 'most recent' : 'largest'} Claude session`);
  snapshotDb(warmCache, join(cacheDir, 'before-append.db'));
  const r = appendToCorpus({ dir: corpus.dir, bytes: 1_000_000, agent: 'claude', pick });
  const f = r.files[0]!;
  const abs = join(corpus.dir, f.path);
  const block = readRange(abs, f.fromBytes, f.toBytes);
  const grown: Corpus = { ...corpus, expected: readCorpusDocs(corpus.dir).expected };
  const appendTools: Tool[] = [
    oursTool(MAIN_JS, 'sessionfold warm after +1 MB (cache)', 'cache', warmCache, () => {
      restoreDb(join(cacheDir, 'before-append.db'), warmCache);
      regrow(abs, f.fromBytes, block);
    }),
    ...peers.map(peerTool),
  ];
  const ar = await runTools(grown, appendTools, runs, log);
  for (const x of ar) agreeAll(x, grown.expected);
  const ref = ar[0] as ToolResult;
  sections.push(
    `## Warm run after appending ${((f.toBytes - f.fromBytes) / 1e6).toFixed(2)} MB to one ${(f.fromBytes / 1e6).toFixed(1)} MB session\n\nPeers keep no state, so they read everything again. Ratios are tool / sessionfold warm.\n\n${timingTable(ar, ref)}\n\n${table([['tool', 'result'], ...ar.map((x) => [x.name, x.error ?? x.inconsistent ?? (x.agreement ? describeAgreement(x.agreement) : '')])])}`,
  );
  out.append = { file: f.path, fromBytes: f.fromBytes, toBytes: f.toBytes, results: ar.map(({ runs: _r, report: _p, reports: _q, ...rest }) => rest) };
}

// --- served: the CLI as a client of `sessionfold serve` --------------------------------------------------
if (!opts['no-serve']) {
  log('served: starting sessionfold serve on the corpus');
  const served = await measureServed({ mainJs: MAIN_JS, corpus, cacheDir, runs: Math.max(runs, 5), log });
  const ccusageRuns = [...(((out.append as { results?: ToolResult[] } | undefined)?.results ?? []) as ToolResult[]), ...results].filter((r) => r.name.startsWith('ccusage') && !r.error);
  const ccusageMs = ccusageRuns.length > 0 ? median(ccusageRuns.map((r) => r.wallMs)) : undefined;
  const rows = [['case', 'wall (median)', 'CPU user+sys', 'ccusage / this', 'result']];
  for (const c of served.cases) {
    rows.push([c.name, `${(c.wallMs / 1000).toFixed(3)} s`, c.cpuMs !== undefined ? `${(c.cpuMs / 1000).toFixed(3)} s` : 'n/a', ratio(ccusageMs, c.wallMs), c.agreement]);
  }
  sections.push(
    `## Served: the CLI as a client of \`sessionfold serve\`\n\nThe server ran on the corpus with its own cache (its first command, which built it, took ${(served.primeMs / 1000).toFixed(2)} s); each case is ${Math.max(runs, 5)} client runs, medians. The 1 MB appends grow the corpus; every report is checked against expected.json. ccusage's time is the median of its runs above (${ccusageMs !== undefined ? `${(ccusageMs / 1000).toFixed(2)} s` : 'not run'}).${served.serverPeakRssMb !== undefined ? ` The server's peak RSS: ${served.serverPeakRssMb.toFixed(0)} MB.` : ''}\n\n${table(rows)}`,
  );
  out.served = { ...served, cases: served.cases.map(({ runs: _r, ...rest }) => rest), ccusageMs };
}

// --- where the tools differ ------------------------------------------------------------------------------
/**
 * The quirk corpora start from CLEAN_FEATURES without cross-file copies (so the base row isolates the
 * tools' reading of plain files), then switch on one quirk each.
 */
const QUIRK_BASE: Partial<Features> = { resumedCopies: false, subagentReplay: false };
const QUIRKS: { feature: keyof Features | 'base'; what: string }[] = [
  { feature: 'base', what: 'clean data without cross-file copies (subagents, compaction, malformed lines, <synthetic>, Task-result usage)' },
  { feature: 'resumedCopies', what: 'Claude: a resumed session copies earlier responses (same message.id + requestId) into its new file' },
  { feature: 'subagentReplay', what: "Claude: a subagent transcript starts by replaying its parent's last response" },
  { feature: 'streamingSnapshots', what: 'Claude: early lines of a response carry output_tokens 1–8, the last line the final count' },
  { feature: 'spacedJson', what: 'Claude: some lines written as `"usage": {` (valid JSON with spaces)' },
  { feature: 'missingRequestId', what: 'Claude: responses without requestId (gateways), one line per content block' },
  { feature: 'cache1h', what: 'Claude: 1-hour cache writes (cache_creation.ephemeral_1h_input_tokens), priced 2x input' },
  { feature: 'codexForks', what: 'Codex: a forked rollout replays its parent (token_count included) before its own turns' },
  { feature: 'codexDuplicateTokenCounts', what: 'Codex: a token_count repeated with unchanged totals' },
  { feature: 'longContext', what: 'Claude: Sonnet prompts over 200k tokens (long-context tier)' },
];
if (!opts['no-quirks']) {
  const qScale = Number(opts['quirk-scale']);
  const rows = [['quirk', 'sessionfold', ...peers.map((p) => p.name)]];
  const quirkOut: Record<string, unknown> = {};
  for (const q of QUIRKS) {
    log(`quirk ${q.feature}`);
    const dir = join(base, 'quirks');
    const c = ensureCorpus(dir, { seed: `${opts.seed}-${q.feature}`, scale: qScale, clean: true, features: { ...QUIRK_BASE, ...(q.feature !== 'base' && { [q.feature]: true }) } });
    const qr = await runTools(c, [oursTool(MAIN_JS, 'sessionfold', 'no-cache', ''), ...peers.map(peerTool)], 1, log);
    const mine = qr[0]?.report;
    const cells = qr.map((x, i) => x.error ?? (x.report ? describeAgreement(agreement(c.expected, x.report, i === 0 ? undefined : mine)) : ''));
    rows.push([`${q.feature}: ${q.what}`, ...cells]);
    quirkOut[q.feature] = qr.map((x, i) => ({ name: x.name, ...(x.error && { error: x.error }), ...(x.report && { agreement: agreement(c.expected, x.report, i === 0 ? undefined : mine) }) }));
  }
  sections.push(`## Where the tools differ (one corpus per quirk: the base + that quirk, scale ${qScale}; tokens vs expected.json, peers' cost vs ours)\n\n${table(rows)}`);
  out.quirks = quirkOut;
}

const text = `${sections.join('\n\n')}\n\nMachine: ${JSON.stringify(machine())}${HAS_GNU_TIME ? '' : ' (no GNU time: CPU and RSS not measured)'}\n`;
mkdirSync(base, { recursive: true });
writeFileSync(join(base, 'last-run.json'), JSON.stringify(out, null, 1) + '\n');
writeFileSync(join(base, 'last-run.md'), text);
process.stdout.write(opts.json ? JSON.stringify(out, null, 1) + '\n' : text);
