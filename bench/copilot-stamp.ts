/**
 * Question: Copilot CLI writes `~/.copilot/session-store.db` (one row per model call, for the session that
 * made it) all the while it runs, and that database is a parse dependency of every Copilot session. After one
 * row is added, how long does a warm `cost report` take, against one with nothing changed? Stamped by the
 * database's stat, every session was read again from byte 0; stamped per session by its calls
 * (codecs/copilot/store.ts `storeDependencyStamp`), only the session the row is for.
 *
 * Method: `--sessions` logs of `--mb` MiB in all (fixtures/generate/copilot.ts) in a Copilot home, and a WAL
 * `session-store.db` with the CLI's tables (test/helpers/copilot-store.ts) holding `--calls` calls per
 * session plus one session with no log here. Each CLI build (`--cli name=path`, several for an A/B) fills its
 * own event cache, then the rounds interleave the builds: per round a row is added, for the session with no
 * log ("unrelated") or for one session ("one session"), then each build runs `cost report --json --agent
 * copilot` through its cache once; a round with nothing added times the nothing-changed run. Medians of
 * `--rounds` rounds. Every warm answer of a round must equal the others' and, at the end, a `--no-cache` run's.
 *
 * Usage: node --import ./src/scan/dev-register.mjs bench/copilot-stamp.ts [--mb 183] [--sessions 300]
 *   [--calls 20] [--rounds 5] [--dir /tmp/sf-copilot-stamp] [--cli after=dist/src/cli/main.cjs --cli before=…]
 * (the CLI runs a build: `npx tsc -p . && node scripts/bundle-cli.mjs`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeCopilotSession } from '../fixtures/generate/copilot.js';
import { insertCalls, openCopilotStore, type CallRow } from '../test/helpers/copilot-store.js';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '183' },
    sessions: { type: 'string', default: '300' },
    calls: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '5' },
    dir: { type: 'string', default: '/tmp/sf-copilot-stamp' },
    cli: { type: 'string', multiple: true, default: ['after=dist/src/cli/main.cjs'] },
  },
});
const SESSIONS = Number(values.sessions);
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const dir = values.dir as string;
const home = join(dir, 'home');
const builds = (values.cli as string[]).map((s) => {
  const [name, path] = s.split('=') as [string, string];
  return { name, cli: resolve(path), cache: join(dir, `cache-${name}`, 'events.db') };
});

const UNRELATED = 'c0ffee00-ffff-4fff-8fff-ffffffffffff';
const idOf = (i: number) => `c0ffee00-0000-4000-8000-${String(i).padStart(12, '0')}`;
let clock = Date.parse('2026-03-01T09:00:30.000Z');
/** A call at the next second: created_at as the CLI writes it (SQLite's `datetime()` form, UTC). */
const callOf = (session: string, i: number): CallRow => {
  clock += 1000;
  return [session, 'claude-sonnet-4.5', null, 20_000 + i, 300 + (i % 50), 15_000, 1_000, 0, new Date(clock).toISOString().slice(0, 19).replace('T', ' ')];
};

/**
 * CPU milliseconds (user + system) of the children this process has waited for, from /proc/self/stat (Linux;
 * NaN elsewhere): on a shared machine a run's wall time moves with the load, its CPU time much less.
 */
function childCpuMs(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ');
    return (Number(fields?.[13]) + Number(fields?.[14])) * 10; // clock ticks: USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

function report(cli: string, cache: string | undefined): { ms: number; cpu: number; json: string } {
  const env = { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(dir, 'xdg-cache'), XDG_CONFIG_HOME: join(dir, 'config'), TZ: 'UTC', SESSIONFOLD_SOCKET: 'off', ...(cache !== undefined && { SESSIONFOLD_CACHE: cache }) };
  const cpu = childCpuMs();
  const t = performance.now();
  const out = execFileSync(process.execPath, [cli, 'cost', 'report', '--json', '--agent', 'copilot', '--tz', 'UTC', ...(cache === undefined ? ['--no-cache'] : [])], { env, maxBuffer: 1 << 26 }).toString();
  return { ms: performance.now() - t, cpu: childCpuMs() - cpu, json: JSON.stringify(JSON.parse(out)) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

rmSync(dir, { recursive: true, force: true });
mkdirSync(join(home, '.copilot'), { recursive: true });
const writer = openCopilotStore(join(home, '.copilot', 'session-store.db'));
try {
  let bytes = 0;
  const perFile = (Number(values.mb) * 1024 * 1024) / SESSIONS;
  for (let i = 0; i < SESSIONS; i++) bytes += writeCopilotSession(join(home, '.copilot', 'session-state', idOf(i), 'events.jsonl'), perFile, `stamp-${i}`).bytes;
  for (let i = 0; i < SESSIONS; i++) insertCalls(writer, Array.from({ length: CALLS }, (_, c) => callOf(idOf(i), c)));
  insertCalls(writer, [callOf(UNRELATED, 0)]);
  console.log(`${SESSIONS} sessions, ${(bytes / 1048576).toFixed(0)} MiB; ${SESSIONS * CALLS + 1} calls in session-store.db`);
  for (const b of builds) console.log(`${b.name}: first run (fills its cache) ${fmt(report(b.cli, b.cache).ms)}`);

  const cases = { 'nothing changed': () => undefined, 'a row for an unrelated session': () => insertCalls(writer, [callOf(UNRELATED, 1)]), 'a row for one session': (r: number) => insertCalls(writer, [callOf(idOf((r * 37) % SESSIONS), 1)]) };
  const times = new Map<string, number[]>();
  let answer = '';
  for (const [name, change] of Object.entries(cases)) {
    for (let r = 0; r < ROUNDS; r++) {
      change(r);
      const answers = new Set<string>();
      for (const b of builds) {
        const { ms, cpu, json } = report(b.cli, b.cache);
        answers.add(json);
        times.set(`${name}|${b.name}`, [...(times.get(`${name}|${b.name}`) ?? []), ms]);
        times.set(`${name}|${b.name}|cpu`, [...(times.get(`${name}|${b.name}|cpu`) ?? []), cpu]);
      }
      if (answers.size !== 1) throw new Error(`${name}, round ${r}: the builds' answers differ`);
      answer = [...answers][0] as string;
    }
    const of = (b: (typeof builds)[number], what = '') => fmt(median(times.get(`${name}|${b.name}${what}`) ?? []));
    console.log(`${name}: ${builds.map((b) => `${b.name} ${of(b)} (CPU ${of(b, '|cpu')})`).join(', ')} (medians of ${ROUNDS})`);
  }
  if (report(builds[0]?.cli as string, undefined).json !== answer) throw new Error('the warm answer differs from a --no-cache run');
  console.log('the warm answers equal a --no-cache run');
} finally {
  writer.close();
  rmSync(dir, { recursive: true, force: true });
}
