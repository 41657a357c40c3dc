/**
 * A file whose read fails on an I/O error (here: no read permission, which as root takes a reader of another
 * user) is not a file of bad bytes: the failure may pass without the file changing. The event cache keeps it
 * with its warning while the file stays as the failure saw it, for IO_RETRY_MS (src/cache/rows.ts): a warm
 * report in that time answers from the fold snapshot or the answer memo, warning and counting the file as
 * unreadable as the failing read did; the first report after it, or after the file changes, reads it again.
 * Runs the built library and CLI in child processes (with the clock moved on where the test says so).
 */
import { execFile } from 'node:child_process';
import { chmod, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { IO_RETRY_MS } from '../src/cache/rows.js';
import { lockedCodexHome, removeLockedCodexHomes, type LockedCodexHome } from './helpers/locked-codex.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
const LIB = join(ROOT, 'dist', 'src', 'index.js');

let dir: string;
let locked: string;
let env: NodeJS.ProcessEnv;
let user: LockedCodexHome['user'];
beforeEach(async () => {
  ({ dir, locked, env, user } = await lockedCodexHome('sf-io-failure-'));
});
afterAll(removeLockedCodexHomes);

const cachePath = () => env.SESSIONFOLD_CACHE as string;

/** Age the cache past the answer memo's "racily clean" window, so the next unchanged report records its answer. */
async function settleCache(): Promise<void> {
  const old = new Date(Date.now() - 60_000);
  for (const f of [cachePath(), `${cachePath()}-wal`]) if (existsSync(f)) await utimes(f, old, old);
}

/** A preload that moves the child's clock on by `ms`. */
async function clockShift(ms: number): Promise<string> {
  const f = join(dir, `clock-${ms}.cjs`);
  await writeFile(f, `const now = Date.now; Date.now = () => now() + ${ms};\n`);
  await chmod(f, 0o644);
  return f;
}

interface LibRun {
  requests: number;
  warnings: string[];
  unreadable: number[];
  scanned: boolean;
  snapshot: string;
  fullReads: number;
  /** Files the scan served from their rows without reading them. */
  unchanged: number;
}

/** One `totalCost` of the built library, in a process of its own. */
async function library(shiftMs = 0): Promise<LibRun> {
  const script = `
    const { totalCost } = await import(${JSON.stringify(LIB)});
    const warnings = [], sources = [], info = {}, stats = { fullReads: 0 };
    const { newScanStats } = await import(${JSON.stringify(join(ROOT, 'dist', 'src', 'scan', 'types.js'))});
    const s = newScanStats();
    const summary = await totalCost({ agents: ['codex'] }, { env: process.env, sources, stats: s, onWarning: (w) => warnings.push(w) }, info);
    process.stdout.write(JSON.stringify({ requests: summary.requestCount, warnings, unreadable: sources.map((x) => x.unreadable), scanned: info.scanned, snapshot: info.snapshot, fullReads: s.fullReads, unchanged: s.unchanged }));`;
  const pre = shiftMs === 0 ? [] : ['--require', await clockShift(shiftMs)];
  const { stdout } = await run(process.execPath, [...pre, '--input-type=module', '-e', script], { cwd: dir, env, ...user });
  return JSON.parse(stdout) as LibRun;
}

describe('a file that cannot be read for an I/O reason (no read permission)', () => {
  it('the library: warm reports answer without reading it, warn and count it; it is read again in time or once it changes', async () => {
    const cold = await library();
    expect(cold.warnings).toEqual([expect.stringContaining(`Cannot read ${locked}:`)]);
    expect([cold.unreadable, cold.fullReads, cold.unchanged]).toEqual([[1], 1, 0]);
    const warm = await library();
    expect(warm).toEqual({ ...cold, scanned: false, snapshot: 'hit', fullReads: 0 }); // the snapshot, without a scan
    await settleCache();
    await library(); // records its answer beside the cache
    expect(existsSync(`${cachePath()}.answers`)).toBe(true);
    expect(await library()).toEqual(warm); // the answer memo
    // Its time is up: read again (the other file served from its row), still failing, and kept as before.
    const later = await library(IO_RETRY_MS + 1000);
    expect(later).toEqual({ ...cold, snapshot: 'hit', fullReads: 0, unchanged: 1 });
    // The file changed (a chmod moves its ctime): read again at once, then answered from the snapshot again.
    await chmod(locked, 0o000);
    expect(await library()).toMatchObject({ warnings: cold.warnings, unreadable: [1], scanned: true, unchanged: 1 });
    expect(await library()).toMatchObject({ warnings: cold.warnings, unreadable: [1], scanned: false });
    // Readable again: counted.
    await chmod(locked, 0o644);
    const readable = await library();
    expect([readable.warnings, readable.unreadable, readable.fullReads]).toEqual([[], [0], 1]);
    expect(readable.requests).toBeGreaterThan(cold.requests);
  }, 60_000);

  it('the built CLI: a warm report equals the cold one and is answered beside the cache', async () => {
    const report = ['cost', 'report', '--json', '--agent', 'codex', '--tz', 'UTC'];
    const once = () => run(process.execPath, [CLI, ...report], { cwd: dir, env, ...user });
    const cold = await once();
    expect(cold.stderr).toContain(`Cannot read ${locked}:`);
    expect(JSON.parse(cold.stdout)).toMatchObject({ unreadable: 1 });
    const noCache = await run(process.execPath, [CLI, ...report, '--no-cache'], { cwd: dir, env, ...user });
    expect([noCache.stdout, noCache.stderr]).toEqual([cold.stdout, cold.stderr]);
    const warm = await once();
    expect([warm.stdout, warm.stderr]).toEqual([cold.stdout, cold.stderr]);
    await settleCache();
    await once();
    // Recorded only by a report answered without a scan.
    expect(existsSync(`${cachePath()}.answers`)).toBe(true);
    const memo = await once();
    expect([memo.stdout, memo.stderr]).toEqual([cold.stdout, cold.stderr]);
  }, 60_000);
});
