/**
 * A file whose read fails warns on every report, not only on the one that read it: a warm report (served by
 * the event cache's rows, by its fold snapshot, or by the answer kept beside the cache) gives the cold run's
 * warning and output, so a broken file is never silently missing from the totals. A corrupt compressed Codex
 * rollout through the library and through the CLI; a malformed Cline task document (a record skipped, which
 * the rows keep as they keep skipped lines) through the library.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { computeServed } from '../src/cli/served-compute.js';
import { runServedCommand } from '../src/cli/served.js';
import { FoldSnapshots } from '../src/cache/folds.js';
import type { SourceReport } from '../src/scan/sources.js';
import { startServer } from '../src/serve/server.js';
import { failureStamp, IO_RETRY_MS } from '../src/cache/rows.js';
import { EventCache } from '../src/cache/store.js';
import { CACHE_SCHEMA_VERSION } from '../src/cache/db.js';
import Database from 'better-sqlite3';
import { isUnchanged } from '../src/scan/classify.js';
import type { ScanFile } from '../src/scan/discover.js';
import { newScanStats } from '../src/scan/types.js';
import { totalCost } from '../src/cost/total.js';
import type { FoldRunInfo } from '../src/cost/incremental.js';
import { REAL_DIR } from './codex-helpers.js';
import { makeHome, sink, type Home } from './sessions-helpers.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
const ZST_FIXTURE = join(ROOT, 'fixtures', 'codex-zst', 'rollout-2026-08-03T10-48-56-019fc8be-3658-7ca3-9e29-000000000000.jsonl.zst');
const OTHER = join(REAL_DIR, 'agent-sessions-codex_053_rate_limit.jsonl');
const OTHER_REL = 'sessions/2025/10/31/rollout-2025-10-31T17-00-00-0199a000-0000-7000-8000-000000000053.jsonl';
const BROKEN_REL = 'archived_sessions/rollout-2025-11-01T09-00-00-0199a000-0000-7000-8000-00000000dead.jsonl.zst';
const CLINE_TASK = join(ROOT, 'fixtures', 'cline', 'tasks', '1722000000000', 'ui_messages.json');

const homes: Home[] = [];
let home: Home;
let broken: string;
beforeEach(async () => {
  home = await makeHome();
  homes.push(home);
  await mkdir(join(home.codex, OTHER_REL, '..'), { recursive: true });
  await copyFile(OTHER, join(home.codex, OTHER_REL));
  broken = join(home.codex, BROKEN_REL);
  await mkdir(join(broken, '..'), { recursive: true });
  await writeFile(broken, (await readFile(ZST_FIXTURE)).subarray(0, 3000));
});
afterAll(async () => {
  for (const h of homes) await rm(h.dir, { recursive: true, force: true });
});

const cachePath = () => join(home.dir, 'cache', 'events.db');

/**
 * Age the cache's files past the answer memo's "racily clean" window (src/cache/answer-memo.ts), so the next
 * unchanged report records its answer beside the cache and the one after answers from it without SQLite.
 */
async function settleCache(): Promise<void> {
  const old = new Date(Date.now() - 60_000);
  for (const f of [cachePath(), `${cachePath()}-wal`]) if (existsSync(f)) await utimes(f, old, old);
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = sink();
  const err = sink();
  const code = await runCli(args, { stdout: out, stderr: err, env: { ...home.env, SESSIONFOLD_SOCKET: 'off', SESSIONFOLD_CACHE: cachePath() } });
  return { code, stdout: out.text(), stderr: err.text() };
}

const REPORT = ['cost', 'report', '--json', '--agent', 'codex', '--tz', 'UTC'];

/** What a `cost report --json` says could not be read: the top-level count and the codex source's. */
function unreadableOf(stdout: string): { unreadable: number; sources: { agent: string; files: number; unreadable: number }[] } {
  const j = JSON.parse(stdout) as { unreadable: number; sources: { agent: string; status: string; files: number; unreadable: number }[] };
  return { unreadable: j.unreadable, sources: j.sources.filter((s) => s.status === 'found').map(({ agent, files, unreadable }) => ({ agent, files, unreadable })) };
}
const ONE_UNREADABLE = { unreadable: 1, sources: [{ agent: 'codex', files: 2, unreadable: 1 }] };

describe('a corrupt .zst rollout', () => {
  it('the CLI: every warm report, whatever answers it, gives the cold report\'s warning and output', async () => {
    expect(unreadableOf((await cli([...REPORT, '--no-cache'])).stdout)).toEqual(ONE_UNREADABLE);
    const cold = await cli(REPORT);
    expect(cold.code).toBe(0);
    expect(cold.stderr).toContain(`Cannot read ${broken}: Cannot decompress`);
    // The source report counts the file, cold as without the cache (and so every warm report equal to it).
    expect(unreadableOf(cold.stdout)).toEqual(ONE_UNREADABLE);
    expect(await cli(REPORT)).toEqual(cold); // the rows (and the fold snapshot)
    await settleCache();
    expect(await cli(REPORT)).toEqual(cold); // records its answer beside the cache
    expect(existsSync(`${cachePath()}.answers`)).toBe(true);
    expect(await cli(REPORT)).toEqual(cold); // answered beside the cache, without SQLite
    // A report of other options (no snapshot of its own yet): the rows say it too.
    const daily = await cli([...REPORT, '--group-by', 'day']);
    expect(daily.stderr).toBe(cold.stderr);
    expect(unreadableOf(daily.stdout)).toEqual(ONE_UNREADABLE);
  });

  it('the library: the warm result and its warnings equal the cold ones; a repaired file counts again', async () => {
    const report = async (cache = true) => {
      const warnings: string[] = [];
      const info = {} as FoldRunInfo;
      const sources: SourceReport[] = [];
      const summary = await totalCost({ agents: ['codex'] }, { env: home.env, cachePath: cachePath(), cache, sources, onWarning: (w) => warnings.push(w) }, info);
      return { summary, warnings, info, unreadable: sources.map((s) => s.unreadable) };
    };
    expect((await report(false)).unreadable).toEqual([1]);
    const cold = await report();
    expect(cold.warnings).toEqual([expect.stringContaining(`Cannot read ${broken}: Cannot decompress`)]);
    expect(cold.unreadable).toEqual([1]);
    const warm = await report();
    expect(warm.info.snapshot).toBe('hit');
    expect([warm.summary, warm.warnings, warm.unreadable]).toEqual([cold.summary, cold.warnings, [1]]);
    // Answered beside the cache (the answer memo), without SQLite: counted still.
    await settleCache();
    await report();
    const memo = await report();
    expect([memo.info.scanned, memo.warnings, memo.unreadable]).toEqual([false, cold.warnings, [1]]);
    await copyFile(ZST_FIXTURE, broken);
    const repaired = await report();
    expect(repaired.warnings).toEqual([]);
    expect(repaired.unreadable).toEqual([0]);
    expect(repaired.summary.requestCount).toBeGreaterThan(cold.summary.requestCount);
    expect((await report()).warnings).toEqual([]);
  });

  it("the library's scan stats count each file once, the failed one as failed, on every path", async () => {
    const statsOf = async (cache: boolean) => {
      const stats = newScanStats();
      const info = {} as FoldRunInfo;
      await totalCost({ agents: ['codex'] }, { env: home.env, cachePath: cachePath(), cache, stats, onWarning: () => undefined }, info);
      return { files: stats.files, failed: stats.failed, snapshot: info.snapshot ?? 'off' };
    };
    const counts = { files: 2, failed: 1 };
    expect(await statsOf(false)).toMatchObject(counts);
    // The first report with the cache: no cache file yet, so it first asks whether there is anything to read.
    expect(await statsOf(true)).toMatchObject(counts);
    expect(await statsOf(true)).toEqual({ ...counts, snapshot: 'hit' });
    await settleCache();
    await statsOf(true);
    expect(existsSync(`${cachePath()}.answers`)).toBe(true);
    expect(await statsOf(true)).toEqual({ ...counts, snapshot: 'hit' }); // the answer memo
  });

  it('the built CLI: cold and warm stderr are the same', async () => {
    const env = { ...home.env, SESSIONFOLD_SOCKET: 'off', SESSIONFOLD_CACHE: join(home.dir, 'cache', 'built.db') };
    const once = () => run(process.execPath, [CLI, ...REPORT], { cwd: ROOT, env });
    const cold = await once();
    expect(cold.stderr).toContain(`Cannot read ${broken}: Cannot decompress`);
    expect(unreadableOf(cold.stdout)).toEqual(ONE_UNREADABLE);
    const warm = await once();
    expect([warm.stdout, warm.stderr]).toEqual([cold.stdout, cold.stderr]);
  }, 30_000);

  it('serve: its reports count the file as a local run does', async () => {
    const socket = join(home.dir, 'unreadable.sock');
    const server = await startServer({ socket, compute: computeServed, sweepMs: 0 });
    const served = async () => {
      const out = sink();
      const err = sink();
      const code = await runServedCommand(REPORT, { stdout: out, stderr: err, env: { ...home.env, SESSIONFOLD_SOCKET: socket, SESSIONFOLD_CACHE: cachePath() }, cwd: home.dir });
      return { code, stdout: out.text(), stderr: err.text() };
    };
    try {
      const first = await served();
      expect(first.code).toBe(0);
      expect(first.stderr).toContain(`Cannot read ${broken}: Cannot decompress`);
      expect(unreadableOf(first.stdout)).toEqual(ONE_UNREADABLE);
      expect(await served()).toEqual(first); // kept current by the server
      expect(first.stdout).toBe((await cli(REPORT)).stdout);
    } finally {
      await server.close();
    }
  });
});

describe('a malformed JSON document (a Cline task): one skipped record, not a failed read', () => {
  it('the library: cold and warm reports give the same skipped-record warning and totals', async () => {
    const root = join(home.dir, 'cline');
    await mkdir(join(root, 'tasks', '1722000000000'), { recursive: true });
    await writeFile(join(root, 'tasks', '1722000000000', 'ui_messages.json'), (await readFile(CLINE_TASK, 'utf8')).slice(0, 400));
    await mkdir(join(root, 'tasks', '1722000000001'), { recursive: true });
    await copyFile(CLINE_TASK, join(root, 'tasks', '1722000000001', 'ui_messages.json'));
    const report = async () => {
      const warnings: string[] = [];
      const summary = await totalCost({ agents: ['cline'] }, { env: home.env, cachePath: cachePath(), roots: { cline: [root] }, onWarning: (w) => warnings.push(w) });
      return { summary, warnings };
    };
    const cold = await report();
    expect(cold.warnings).toEqual([expect.stringMatching(/^skipped 1 line of .*1722000000000\/ui_messages\.json: malformed/)]);
    expect(cold.summary.inputTokens).toBe(2310 + 3120);
    expect(await report()).toEqual(cold);
  });
});

describe('the rows of failed reads (src/cache/store.ts recordFailures)', () => {
  const file = { agent: 'codex', path: '/r.jsonl.zst', root: '/', parser: 'codex@n1.p1', size: 10, mtimeMs: 1, ino: 2, ctimeMs: 3, deps: '[]' };
  const scanFile = { ...file, codec: { id: 'codex' } } as unknown as ScanFile;

  it("a failure of the file's bytes is served with its warning while the file is as it was; an I/O one for IO_RETRY_MS", () => {
    const cache = EventCache.open(cachePath(), () => undefined);
    try {
      expect(cache.recordFailures([{ ...file, baseGen: null, warning: 'Cannot read /r.jsonl.zst: corrupt', retry: false }])).toEqual([{ id: expect.any(Number), gen: 1 }]);
      const row = cache.getFile('codex', '/r.jsonl.zst');
      expect(row).toMatchObject({ error: 'Cannot read /r.jsonl.zst: corrupt', retry: 0, failed_as: null, live_count: 0, size: 10, ctime_ms: 3 });
      expect(isUnchanged(scanFile, row, file.parser)).toBe(true);
      expect(isUnchanged({ ...scanFile, ctimeMs: 4 }, row, file.parser)).toBe(false);
      // Recorded again as it is: no write (a warm run that re-reads a failing file does not count a change).
      const writes = cache.writes;
      cache.recordFailures([{ ...file, baseGen: 1, warning: 'Cannot read /r.jsonl.zst: corrupt', retry: false }]);
      expect(cache.writes).toBe(writes);
      // An I/O error: the row keeps its identity (its records'), notes the file's, and is served while the
      // file stays so, until its retry time.
      const before = Date.now();
      cache.recordFailures([{ ...file, size: 99, baseGen: 1, warning: 'Cannot read /r.jsonl.zst: EIO', retry: true }]);
      const again = cache.getFile('codex', '/r.jsonl.zst');
      expect(again).toMatchObject({ error: 'Cannot read /r.jsonl.zst: EIO', size: 10, gen: 1, failed_as: failureStamp({ ...file, size: 99 }) });
      expect(again?.retry).toBeGreaterThanOrEqual(before + IO_RETRY_MS);
      expect(isUnchanged({ ...scanFile, size: 99 }, again, file.parser)).toBe(true);
      expect(isUnchanged({ ...scanFile, size: 99, ctimeMs: 4 }, again, file.parser)).toBe(false);
      expect(isUnchanged(scanFile, again, file.parser)).toBe(false);
      const now = Date.now;
      Date.now = () => (again?.retry ?? 0) + 1;
      try {
        expect(isUnchanged({ ...scanFile, size: 99 }, again, file.parser)).toBe(false);
      } finally {
        Date.now = now;
      }
      // A read that succeeds clears it.
      cache.apply([{ ...file, baseGen: 1, start: { restarted: true, reason: 'no-cursor', replaced: {} }, segments: [], cursor: null, prefixHash: null, track: { events: 0, cwdIndex: null, cwd: null } }]);
      expect(cache.getFile('codex', '/r.jsonl.zst')).toMatchObject({ error: null, retry: 0, failed_as: null, gen: 2 });
    } finally {
      cache.close();
    }
  });

  it('a snapshot does not answer alone once an I/O failure is to be tried again', () => {
    const cache = EventCache.open(cachePath(), () => undefined);
    cache.recordFailures([{ ...file, baseGen: null, warning: 'w', retry: true }]);
    const retryAt = cache.getFile('codex', '/r.jsonl.zst')?.retry as number;
    cache.close();
    const snaps = FoldSnapshots.open(cachePath(), () => undefined);
    const now = Date.now;
    try {
      const failed = [{ agent: 'codex', root: '/', path: '/r.jsonl.zst', warning: 'w' }];
      expect(snaps.notes([{ agent: 'codex', roots: ['/'] }])).toEqual({ skipped: { lines: 0, files: 0, first: undefined }, failed, retry: false, retryAt });
      Date.now = () => retryAt;
      expect(snaps.notes([{ agent: 'codex', roots: ['/'] }])).toEqual({ skipped: { lines: 0, files: 0, first: undefined }, failed, retry: true });
      expect(snaps.notes([{ agent: 'codex', roots: ['/other'] }]).retry).toBe(false);
    } finally {
      Date.now = now;
      snaps.close();
    }
  });

  it('a version-6 cache is migrated: its I/O failures (retry 1) are read again once', () => {
    const cache = EventCache.open(cachePath(), () => undefined);
    cache.recordFailures([{ ...file, baseGen: null, warning: 'w', retry: true }]);
    cache.close();
    // What a version-6 build left: no failed_as, retry 1.
    const w = new Database(cachePath());
    w.exec('ALTER TABLE files DROP COLUMN failed_as; UPDATE files SET retry = 1');
    w.pragma('user_version = 6');
    w.close();
    const again = EventCache.open(cachePath(), () => undefined);
    try {
      const row = again.getFile('codex', '/r.jsonl.zst');
      expect(row).toMatchObject({ error: 'w', retry: 1, failed_as: null });
      expect(isUnchanged(scanFile, row, file.parser)).toBe(false);
    } finally {
      again.close();
    }
    const r = new Database(cachePath(), { readonly: true });
    expect(r.pragma('user_version', { simple: true })).toBe(CACHE_SCHEMA_VERSION);
    r.close();
  });
});
