/**
 * Question: after an agent adds 1,000 messages to a large OpenCode database, how much faster is a warm read
 * (from the RowCursor of the last one) than a cold read, and how many rows does each take? Two levels:
 * - the codec: `opencode.read(<db>)` of the whole database, cold, then from its cursor after the appends;
 * - the CLI: `cost report --json --group-by agent`, cold without the event cache, then warm through it (the
 *   cache read the database before the appends: discovery fingerprints every session, and only the changed
 *   sessions are read, each from its cursor).
 * The generated database has OpenCode's real tables (test/helpers/opencode-db.ts), in WAL mode; every
 * session's exchanges carry padded text parts so the file reaches `--mb`. The warm answer is checked
 * against a cold one after the appends.
 *
 * Usage: node --import ./src/scan/dev-register.mjs bench/sqlite-warm.ts [--mb 1024] [--dir /tmp/sf-sqlite-bench] [--keep] [--reuse] [--cli-only]
 * (`--cli-only`: the CLI level alone, its warm answers checked against its cold ones; the codec's cold reads
 * of a large database take minutes. `--reuse`: take the database a `--keep` run left in `--dir` instead of
 * generating one; each run appends its 2,000 messages to it).
 * (the CLI level needs a build: `npx tsc -p . && node scripts/bundle-cli.mjs`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { opencode } from '../codecs/opencode/index.js';
import { newReadInfo, type ReadCursor } from '../cursors/protocol/codec.js';
import { appendExchanges, exchangesIn, generateOpencodeDb } from './lib/opencode-db.js';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '1024' }, dir: { type: 'string', default: '/tmp/sf-sqlite-bench' }, keep: { type: 'boolean', default: false }, 'cli-only': { type: 'boolean', default: false }, reuse: { type: 'boolean', default: false }, sessions: { type: 'string', default: '200' } } });
const targetBytes = Number(values.mb) * 1024 * 1024;
const SESSIONS = Number(values.sessions);
const dir = values.dir as string;
const dataHome = join(dir, 'data');
const db = join(dataHome, 'opencode', 'opencode.db');

async function codecRead(from?: ReadCursor): Promise<{ ms: number; rows: number; events: number; output: number; cursor: ReadCursor | undefined; restarted: string | undefined }> {
  const info = newReadInfo();
  let cursor: ReadCursor | undefined;
  let restarted: string | undefined;
  let events = 0;
  let output = 0;
  const t = performance.now();
  for await (const e of opencode.read(db, { info, resume: { ...(from && { from }), onStart: (s) => (restarted = s.restarted ? (s.reason ?? 'yes') : 'no'), onCursor: (u) => (cursor = u.cursor) } })) {
    events++;
    if (e.type === 'usage') output += e.outputTokens;
  }
  return { ms: performance.now() - t, rows: info.lines, events, output, cursor, restarted };
}

const CLI = new URL('../src/cli/main.cjs', import.meta.url).pathname; // run from dist/bench, beside dist/src
/**
 * CPU seconds (user + system) of the children this process has waited for, from /proc/self/stat (Linux;
 * undefined elsewhere). On a shared machine a run's wall time moves with the load, its CPU time much less.
 */
function childCpuSeconds(): number | undefined {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ');
    const cutime = Number(fields?.[13]);
    const cstime = Number(fields?.[14]);
    return Number.isFinite(cutime) && Number.isFinite(cstime) ? (cutime + cstime) / 100 : undefined; // clock ticks: USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

function cliReport(cache: boolean): { ms: number; cpu: number | undefined; output: number } {
  const env = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: dataHome, XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config'), TZ: 'UTC', SESSIONFOLD_SOCKET: 'off' };
  const cpu0 = childCpuSeconds();
  const t = performance.now();
  const out = execFileSync(process.execPath, [CLI, 'cost', 'report', '--json', '--group-by', 'agent', '--agent', 'opencode', ...(cache ? [] : ['--no-cache'])], { env, maxBuffer: 1 << 26 }).toString();
  const cpu1 = childCpuSeconds();
  return { ms: performance.now() - t, cpu: cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0, output: (JSON.parse(out) as { outputTokens: number }).outputTokens };
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const reuse = values.reuse === true && statSync(db, { throwIfNoEntry: false }) !== undefined;
if (!reuse) rmSync(dir, { recursive: true, force: true });
try {
  const t = performance.now();
  const made = reuse ? exchangesIn(db) : generateOpencodeDb(db, targetBytes, SESSIONS);
  const size = statSync(db).size;
  console.log(`${reuse ? 'kept' : 'generated'} ${(size / 1048576).toFixed(0)} MiB: ${SESSIONS} sessions, ${made} exchanges (${made * 2} messages, ${made * 6} parts) in ${fmt(performance.now() - t)}`);

  const cliOnly = values['cli-only'] === true;
  const cold = cliOnly ? undefined : await codecRead();
  if (cold) console.log(`codec cold: ${fmt(cold.ms)}, ${cold.rows} rows, ${cold.events} events`);
  const cliPrime = cliReport(true);
  console.log(`CLI first run with the cache (fills it): ${fmt(cliPrime.ms)}`);

  let cursor = cold?.cursor;
  let output = cold?.output ?? 0;
  let next = made;
  for (const spread of ['one', 'all'] as const) {
    appendExchanges(db, next, spread, SESSIONS);
    next += 500;
    const where = spread === 'one' ? 'into one session' : `over all ${SESSIONS} sessions`;
    if (!cliOnly) {
      const warm = await codecRead(cursor);
      cursor = warm.cursor;
      output = warm.restarted === 'no' ? output + warm.output : warm.output;
      const check = await codecRead();
      if (output !== check.output) throw new Error(`warm codec output ${output} != cold ${check.output}`);
      console.log(`1,000 messages ${where}: codec warm ${fmt(warm.ms)} (${warm.rows} rows of ${check.rows}, restarted ${warm.restarted}) vs cold ${fmt(check.ms)}: ${(check.ms / warm.ms).toFixed(1)}x`);
    }
    const cliWarm = cliReport(true);
    const cliCheck = cliReport(false);
    if (cliWarm.output !== cliCheck.output) throw new Error(`warm CLI output ${cliWarm.output} != cold ${cliCheck.output}`);
    const cpu = cliWarm.cpu === undefined || cliCheck.cpu === undefined ? '' : `; CPU ${cliWarm.cpu.toFixed(2)} s vs ${cliCheck.cpu.toFixed(2)} s: ${(cliCheck.cpu / cliWarm.cpu).toFixed(1)}x`;
    console.log(`  ${where}: CLI warm (cache) ${fmt(cliWarm.ms)} vs cold (--no-cache) ${fmt(cliCheck.ms)}: ${(cliCheck.ms / cliWarm.ms).toFixed(1)}x${cpu}; answers equal (output tokens ${cliCheck.output})`);
  }
} finally {
  if (values.keep !== true) rmSync(dir, { recursive: true, force: true });
}
