/**
 * Question: a cold `cost report --json --agent opencode --no-cache` reads each session of a database from its
 * start in a snapshot of its own. What do the lookups made once per session read (the schema probe of
 * `tablesOf`, MiMo's `external_import` probe, the 2.x copies query) cost against a database with many small
 * sessions, and does taking them once per database state (or per batch) make it faster?
 * Method: a database 2.x migrated (test/helpers/opencode2-db.ts: 1.x's tables and 2.x's, every 1.x session and
 * message copied, as 2.x's first start does), `--sessions` sessions of `--exchanges` exchanges each, closed (no
 * `-wal`: the snapshots are `immutable`, whose state a stat names); `--v1` for 1.x's tables alone. Each CLI named
 * in `--cli` (comma-separated `dist/src/cli/main.cjs` of two builds) runs the report `--runs` times, in turn;
 * the median wall time and CPU (user + system, of the child) per CLI, and the answers checked equal.
 *
 * Usage: node dist/bench/opencode-cold-lookups.js --cli /tmp/base/src/cli/main.cjs,dist/src/cli/main.cjs [--sessions 3000] [--exchanges 3] [--runs 5] [--v1]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { insertSession, OPENCODE_DDL } from '../test/helpers/opencode-db.js';
import { copyMessages, copySession, opencode2Db } from '../test/helpers/opencode2-db.js';

const { values } = parseArgs({
  options: {
    cli: { type: 'string', default: new URL('../src/cli/main.cjs', import.meta.url).pathname },
    sessions: { type: 'string', default: '3000' },
    exchanges: { type: 'string', default: '3' },
    runs: { type: 'string', default: '5' },
    dir: { type: 'string', default: '/tmp/sf-oc-cold-lookups' },
    v1: { type: 'boolean', default: false },
  },
});
const clis = (values.cli as string).split(',');
const SESSIONS = Number(values.sessions);
const dir = values.dir as string;
const dataHome = join(dir, 'data');
const db = join(dataHome, 'opencode', 'opencode.db');

function generate(): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dataHome, 'opencode'), { recursive: true });
  if (values.v1 === true) {
    const d = new Database(db);
    d.pragma('journal_mode = WAL');
    d.exec(OPENCODE_DDL);
    d.prepare('INSERT INTO project (id, worktree, time_created, time_updated) VALUES (?, ?, ?, ?)').run('prj_1', '/work/proj', 1, 1);
    d.close();
  } else opencode2Db(db, true);
  const d = new Database(db);
  d.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) {
      insertSession(d, `ses_${s}`, s, Number(values.exchanges));
      if (values.v1 !== true) {
        copySession(d, `ses_${s}`);
        copyMessages(d, `ses_${s}`);
      }
    }
  })();
  d.close();
}

/** CPU seconds (user + system) of the children waited for (Linux, /proc/self/stat). */
function childCpu(): number {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[13]) + Number(f[14])) / 100;
}

function report(cli: string): { ms: number; cpu: number; out: string } {
  const env = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: dataHome, XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config'), TZ: 'UTC', SESSIONFOLD_SOCKET: 'off' };
  const c = childCpu();
  const t = performance.now();
  const out = execFileSync(process.execPath, [cli, 'cost', 'report', '--json', '--agent', 'opencode', '--no-cache'], { env, maxBuffer: 1 << 26 }).toString();
  return { ms: performance.now() - t, cpu: childCpu() - c, out };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

generate();
// the snapshot memo keeps nothing of a file written within the last two seconds (cursors/sqlite.ts `memo`)
await new Promise((r) => setTimeout(r, 2500));
const times = clis.map(() => ({ ms: [] as number[], cpu: [] as number[] }));
let answer: string | undefined;
for (let run = 0; run < Number(values.runs); run++) {
  clis.forEach((cli, i) => {
    const r = report(cli);
    const summary = JSON.stringify((JSON.parse(r.out) as { totals?: unknown }).totals ?? JSON.parse(r.out));
    if (answer !== undefined && summary !== answer) throw new Error(`${cli} answered differently`);
    answer = summary;
    times[i]?.ms.push(r.ms);
    times[i]?.cpu.push(r.cpu);
  });
}
console.log(`${SESSIONS} sessions x ${values.exchanges} exchanges, ${values.v1 === true ? '1.x tables' : 'migrated to 2.x (copies)'}; ${values.runs} runs each, medians`);
clis.forEach((cli, i) => console.log(`${cli}: wall ${(median(times[i]!.ms) / 1000).toFixed(2)} s, CPU ${median(times[i]!.cpu).toFixed(2)} s`));
if (process.env.KEEP !== "1") rmSync(dir, { recursive: true, force: true });
