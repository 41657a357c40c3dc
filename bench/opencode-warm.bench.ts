/**
 * Question: what does a warm OpenCode report cost after 1,000 new messages spread over all sessions of a large
 * database, and how many SQL statements does it run? The built CLI's `cost report --json --group-by agent
 * --agent opencode` through the event cache (which read the database before the messages came), against the
 * same report cold (`--no-cache`). A preload (`-r`, written into the bench's folder) counts every statement
 * the CLI's process runs through better-sqlite3 — each `run`, `get`, `all` and `iterate` of a prepared
 * statement (pragmas and transactions' BEGIN and COMMIT included) and each `exec` — per database (OpenCode's
 * file, the event cache), and prints its peak RSS and CPU at exit: the counts are the CLI's, not this
 * process's.
 *
 * The database (bench/lib/opencode-db.ts: OpenCode's tables, BENCH_OPENCODE_SESSIONS sessions, default 200, of
 * padded exchanges) is generated once per size, BENCH_SCALE × 1,024 MiB, and kept in BENCH_DIR; each case
 * reads its own copy. Before every warm run the cache is put back as it was before the messages came, so every
 * run does the same work; the file is older than the listing memo's racy window (RACY_MS) by then. Each answer
 * is checked against the database's own sums (its assistant messages and their output tokens, by SQL) first.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { RACY_MS } from '../cursors/listing-memo.js';
import { check, type BenchCase, type BenchEnv, type IterationResult, type Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { appendExchanges, exchangesIn, generateOpencodeDb } from './lib/opencode-db.js';

const MAIN = fileURLToPath(new URL('../src/cli/main.cjs', import.meta.url));
const DRIVER_DIR = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));

/**
 * The preload: the four run methods of better-sqlite3's Statement, taken from the addon the CLI names
 * (`nativeBinding`: one module instance for both), and `Database#exec`, counted per database file; the counts,
 * peak RSS and CPU written to SF_SQL_COUNT_OUT at exit. It loads the addon before the CLI does, and SQLite
 * reads SQLITE_USE_URI when the addon loads: the preload first sets it as the CLI would
 * (cursors/record-path.ts), else every snapshot of the database falls back to a copy (cursors/sqlite.ts).
 */
const COUNT_HOOK = `'use strict';
if (process.env.SQLITE_USE_URI === undefined) process.env.SQLITE_USE_URI = '1';
const Database = require(${JSON.stringify(DRIVER_DIR)});
const { Statement } = require(${JSON.stringify(join(DRIVER_DIR, 'build', 'Release', 'better_sqlite3.node'))});
const counts = {};
const add = (db, kind) => { const k = db + '\\t' + kind; counts[k] = (counts[k] || 0) + 1; };
for (const m of ['run', 'get', 'all', 'iterate']) {
  const f = Statement.prototype[m];
  Statement.prototype[m] = function (...a) { add(this.database.name, m); return f.apply(this, a); };
}
const exec = Database.prototype.exec;
Database.prototype.exec = function (...a) { add(this.name, 'exec'); return exec.apply(this, a); };
process.on('exit', () => {
  const u = process.resourceUsage();
  require('fs').writeFileSync(process.env.SF_SQL_COUNT_OUT, JSON.stringify({ counts, maxRssKb: u.maxRSS, cpuUs: u.userCPUTime + u.systemCPUTime }));
});
`;

interface Paths {
  dir: string;
  dataHome: string;
  db: string;
  cache: string;
}

const pathsIn = (dir: string): Paths => {
  const dataHome = join(dir, 'data');
  return { dir, dataHome, db: join(dataHome, 'opencode', 'opencode.db'), cache: join(dir, 'cache') };
};

const sessionsOf = (): number => Number(process.env.BENCH_OPENCODE_SESSIONS || 200);
const mbOf = (env: BenchEnv): number => Math.max(16, Math.round(1024 * env.scale));
const baseDir = (env: BenchEnv): string => join(env.dir, `opencode-warm-${mbOf(env)}mb-${sessionsOf()}s`);

/** The generated database of this size, made once (a database whose generation did not finish is made again). */
function ensureBase(env: BenchEnv, log?: (s: string) => void): Paths {
  const p = pathsIn(baseDir(env));
  if (existsSync(join(p.dir, 'done'))) return p;
  rmSync(p.dir, { recursive: true, force: true });
  const t0 = performance.now();
  const made = generateOpencodeDb(p.db, mbOf(env) * 1048576, sessionsOf());
  writeFileSync(join(p.dir, 'done'), `${made}\n`);
  log?.(`generated ${p.db} (${mbOf(env)} MiB, ${made} exchanges) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return p;
}

/** The database's own answer: its assistant messages and their output tokens (reasoning included). */
function sqlReference(db: string): { requests: number; output: number } {
  const d = new Database(db, { readonly: true });
  try {
    // The report's output tokens hold the reasoning tokens too (CostSummary).
    const r = d.prepare("SELECT count(*) AS n, sum(json_extract(data, '$.tokens.output') + json_extract(data, '$.tokens.reasoning')) AS o FROM message WHERE json_extract(data, '$.role') = 'assistant'").get() as { n: number; o: number };
    return { requests: r.n, output: r.o };
  } finally {
    d.close();
  }
}

interface Run extends IterationResult {
  requests: number;
  output: number;
}

/** One CLI report under the counting preload: its answer, statements per database and kind, peak RSS and CPU. */
function report(p: Paths, hook: string, cache: boolean): Run {
  const out = join(p.dir, 'counts.json');
  const env = { PATH: process.env.PATH, HOME: p.dir, XDG_DATA_HOME: p.dataHome, XDG_CACHE_HOME: p.cache, XDG_CONFIG_HOME: join(p.dir, 'config'), TZ: 'UTC', SESSIONFOLD_SOCKET: 'off', SF_SQL_COUNT_OUT: out };
  const args = ['-r', hook, MAIN, 'cost', 'report', '--json', '--group-by', 'agent', '--agent', 'opencode', ...(cache ? [] : ['--no-cache'])];
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`cost report exited ${r.status}: ${r.stderr}`);
  const s = JSON.parse(r.stdout) as { requestCount: number; outputTokens: number };
  const c = JSON.parse(readFileSync(out, 'utf8')) as { counts: Record<string, number>; maxRssKb: number; cpuUs: number };
  const counts: Record<string, number> = { statements: 0, 'on opencode.db': 0, 'on the cache': 0 };
  for (const [key, n] of Object.entries(c.counts)) {
    const [file = '', kind = ''] = key.split('\t');
    counts.statements = (counts.statements as number) + n;
    // A snapshot of the database is opened by a `file:` URI, or may be a copy elsewhere (cursors/sqlite.ts `copy`).
    const where = file.includes(p.cache) ? 'on the cache' : file.includes(p.dataHome) ? 'on opencode.db' : 'elsewhere';
    counts[where] = (counts[where] ?? 0) + n;
    counts[kind] = (counts[kind] ?? 0) + n;
  }
  counts['CLI CPU ms'] = Math.round(c.cpuUs / 1000);
  return { requests: s.requestCount, output: s.outputTokens, workPeakRssMb: c.maxRssKb / 1024, counts };
}

interface State {
  p: Paths;
  hook: string;
  want: { requests: number; output: number };
  /** The cache as it was before the messages came (warm case). */
  saved?: string;
}

/** A fresh copy of the base database in the case's own folder, and the preload beside it. */
function setupCopy(env: BenchEnv, name: string): State {
  const base = ensureBase(env);
  const p = pathsIn(join(env.dir, `opencode-warm-${name}`));
  rmSync(p.dir, { recursive: true, force: true });
  mkdirSync(dirname(p.db), { recursive: true });
  cpSync(base.db, p.db);
  const hook = join(p.dir, 'count-hook.cjs');
  writeFileSync(hook, COUNT_HOOK);
  return { p, hook, want: sqlReference(p.db) };
}

const verifyAnswer = (r: IterationResult, s: State): void => {
  const run = r as Run;
  check(run.requests === s.want.requests && run.output === s.want.output, `requests ${run.requests}, output ${run.output}; the database holds ${s.want.requests} and ${s.want.output}`);
  check((run.counts?.['on opencode.db'] ?? 0) > 0, `no statement on opencode.db was counted (the preload missed the driver): ${JSON.stringify(run.counts)}`);
};

export const topic: Topic = {
  name: 'opencode-warm',
  question: 'A warm OpenCode report after 1,000 new messages over all sessions: the SQL statements it runs, its time, against a cold one',
  async prepare(env) {
    ensureBase(env, (s) => process.stderr.write(`${s}\n`));
  },
  async cases(env: BenchEnv): Promise<BenchCase<any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const base = pathsIn(baseDir(env));
    const bytes = existsSync(base.db) ? statSync(base.db).size : undefined;
    const cold = 'cold (--no-cache)';
    const sessions = sessionsOf();
    return [
      {
        name: cold,
        ...(bytes !== undefined && { bytes }),
        setup: () => setupCopy(env, 'cold'),
        run: (s: State) => report(s.p, s.hook, false),
        verify: verifyAnswer,
        teardown: (s: State) => rmSync(s.p.dir, { recursive: true, force: true }),
      },
      {
        name: `warm, 1,000 new messages over all ${sessions} sessions`,
        ...(bytes !== undefined && { bytes }),
        baseline: cold,
        note: 'the event cache put back before each run',
        setup: async () => {
          const s = setupCopy(env, 'warm');
          report(s.p, s.hook, true); // fills the cache
          appendExchanges(s.p.db, exchangesIn(s.p.db), 'all', sessions);
          const appended = Date.now();
          s.want = sqlReference(s.p.db);
          s.saved = join(s.p.dir, 'cache-before');
          renameSync(s.p.cache, s.saved);
          // Past the racy window, every run finds the database as settled as the next one will.
          const wait = RACY_MS + 200 - (Date.now() - appended);
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          return s;
        },
        beforeEach: (s: State) => {
          rmSync(s.p.cache, { recursive: true, force: true });
          cpSync(s.saved as string, s.p.cache, { recursive: true });
        },
        run: (s: State) => report(s.p, s.hook, true),
        verify: verifyAnswer,
        teardown: (s: State) => rmSync(s.p.dir, { recursive: true, force: true }),
      },
    ];
  },
};

await runTopicMain(import.meta.url, topic);
