/**
 * A warm report after an append (bench/RESULTS.md "Size curve", "The warm path"): what it loads and what it
 * answers. Through the built executable, as a user's status line runs it: after an append to a Claude
 * session, beside an unchanged Codex history, the cached scan loads Claude's parser and not Codex's, Node's
 * ESM resolver never starts (xxhash-wasm and better-sqlite3's addon are taken by their paths), and the answer
 * is the one a fresh fold gives. The evidence is what the process loaded, not how long it took.
 */
import { execFile } from 'node:child_process';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeLine, writeClaudeSession } from './claude-lines.js';
import { copyCodexFixtures, makeHome, type Home } from './sessions-helpers.js';
import { totalCost } from '../src/cost/total.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(ROOT, 'dist/src/cli/main.cjs');
const SID = '55555555-5555-4555-8555-555555555555';
const T0 = Date.parse('2026-01-05T10:00:00Z');

let home: Home;
let probe: string;
beforeAll(async () => {
  home = await makeHome();
  probe = join(home.dir, 'probe.cjs');
  // The CLI's chunks are compiled by vm.Script (src/cli/code-cache.cts): report each, and Node's own record
  // of the internal modules it loaded. A CommonJS preload starts no ESM loader of its own.
  await writeFile(
    probe,
    "const fs = require('node:fs'); const vm = require('node:vm'); const S = vm.Script;\n" +
      "vm.Script = new Proxy(S, { construct(t, a) { if (a[1] && a[1].filename) fs.writeSync(2, 'CHUNK ' + a[1].filename + '\\n'); return Reflect.construct(t, a); } });\n" +
      "process.on('exit', () => fs.writeSync(2, 'MODULES ' + JSON.stringify(process.moduleLoadList) + '\\nREQUIRED ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));\n",
  );
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

interface Run {
  out: unknown;
  /** The modules of ours the run's chunks held (`// dist/…` lines rolldown writes). */
  modules: string[];
  /** The chunks compiled, and the files Node's CommonJS loader loaded (packages, addons). */
  chunks: string[];
  required: string[];
  nodeModules: string[];
}

async function report(extra: string[], preload = false): Promise<Run> {
  const cache = join(home.dir, 'cache', 'events.db');
  const args = [...(preload ? ['-r', probe] : []), MAIN, 'cost', 'report', '--json', '--group-by', 'day', '--tz', 'UTC', ...extra, ...(extra.includes('--no-cache') ? [] : ['--cache', cache])];
  const r = await exec(process.execPath, args, { env: { ...home.env, SESSIONFOLD_SOCKET: 'off', TZ: 'UTC' } });
  const chunks = [...r.stderr.matchAll(/^CHUNK (\S+)$/gm)].map((m) => m[1]!);
  const modules = chunks.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/^\/\/ (dist\/\S+\.js)$/gm)].map((m) => m[1]!));
  const list = /^MODULES (.*)$/m.exec(r.stderr)?.[1];
  const required = /^REQUIRED (.*)$/m.exec(r.stderr)?.[1];
  return { out: JSON.parse(r.stdout) as unknown, modules, chunks, required: required === undefined ? [] : (JSON.parse(required) as string[]), nodeModules: list === undefined ? [] : (JSON.parse(list) as string[]) };
}

const parserOf = (agent: string) => (m: string) => m.startsWith(`dist/codecs/${agent}/`) && !/\/(descriptor|paths)\.js$/.test(m);

describe('a warm report after an append (built CLI)', () => {
  it('loads the parser of the grown session only, starts no ESM resolver, and answers as a fresh fold', async () => {
    const reqs = [0, 1, 2].map((i) => ({ id: `a${i}`, ms: T0 + i * 60_000, inp: 10 + i, out: 20, cr: 5, cw: 1, usd: 0.25 }));
    await writeClaudeSession(home.claude, SID, reqs);
    await copyCodexFixtures(home);
    await report([]); // builds the event cache and the fold snapshot
    await report([]); // nothing changed
    const file = join(home.claude, 'projects', '-w', `${SID}.jsonl`);
    for (const i of [3, 4]) await appendFile(file, claudeLine(SID, { id: `a${i}`, ms: T0 + 86_400_000 + i, inp: 7, out: 9, cr: 0, cw: 0, usd: 0.5 }) + '\n');
    const warm = await report([], true);
    const fresh = await report(['--no-cache']);
    expect(warm.out).toEqual(fresh.out);
    expect((warm.out as { breakdowns: Record<string, unknown> }).breakdowns['2026-01-06']).toMatchObject({ requestCount: 2, inputTokens: 14, outputTokens: 18 });
    expect(warm.modules.filter(parserOf('claude')).length).toBeGreaterThan(0);
    expect(warm.modules.filter(parserOf('codex'))).toEqual([]);
    expect(warm.modules).toContain('dist/src/scan/cached.js'); // it did go through the cache
    expect(warm.nodeModules.length).toBeGreaterThan(20);
    expect(warm.nodeModules.filter((m) => /internal\/modules\/esm\/(resolve|package_config)$/.test(m))).toEqual([]);
    // better-sqlite3's JavaScript from the bundle, for the version installed; its addon from the package
    const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string };
    expect(warm.chunks.filter((f) => f.endsWith(`better-sqlite3-${version}.cjs`))).toHaveLength(1);
    expect(warm.required.filter((f) => /better-sqlite3[\\/]lib[\\/]/.test(f))).toEqual([]);
    expect(warm.required.filter((f) => f.endsWith('better_sqlite3.node'))).toHaveLength(1);
  }, 120_000);

  it("leaves a cache connection that wrote to the process's exit (the WAL stays), and the next runs read it; the library closes its own", async () => {
    const cache = join(home.dir, 'cache', 'events.db');
    const file = join(home.claude, 'projects', '-w', `${SID}.jsonl`);
    for (const i of [5, 6]) {
      await appendFile(file, claudeLine(SID, { id: `a${i}`, ms: T0 + 2 * 86_400_000 + i, inp: 3, out: 4, cr: 0, cw: 0, usd: 0.5 }) + '\n');
      const warm = await report([]);
      // SQLite's last close would have checkpointed the WAL into the database and deleted it
      expect(existsSync(`${cache}-wal`)).toBe(true);
      expect(warm.out).toEqual((await report(['--no-cache'])).out);
    }
    // A run that changed nothing closes its connection (the WAL checkpointed and gone), so the one after it
    // records its answer beside the cache and the next answers from there, without SQLite.
    const unchanged = await report([]);
    expect(existsSync(`${cache}-wal`)).toBe(false);
    const past = new Date(Date.now() - 60_000); // written a while ago (src/cache/answer-memo.ts, RACY_MS)
    utimesSync(cache, past, past);
    expect((await report([])).out).toEqual(unchanged.out);
    const memo = await report([], true);
    expect(memo.out).toEqual(unchanged.out);
    expect(memo.chunks.filter((f) => /better-sqlite3-[^/]*\.cjs$/.test(f))).toEqual([]);
    await appendFile(file, claudeLine(SID, { id: 'a7', ms: T0 + 3 * 86_400_000, inp: 2, out: 2, cr: 0, cw: 0, usd: 0.25 }) + '\n');
    const env = { ...home.env, TZ: 'UTC' };
    const inProcess = await totalCost({ groupBy: 'day', timeZone: 'UTC', env, cachePath: cache }, { workers: 0 });
    expect(existsSync(`${cache}-wal`)).toBe(false); // closed: checkpointed, the WAL removed
    expect(inProcess).toEqual(await totalCost({ groupBy: 'day', timeZone: 'UTC', env }, { workers: 0, cache: false }));
  }, 120_000);

  it('reads a changed Codex session with Codex parser loaded, the answer of a fresh fold', async () => {
    const day = join(home.codex, 'sessions', '2026', '08', '03');
    const name = readdirSync(day).find((f) => f.endsWith('.jsonl'))!;
    const text = await readFile(join(day, name), 'utf8');
    await writeFile(join(day, name), text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1)); // its last line gone
    const warm = await report([], true);
    expect(warm.out).toEqual((await report(['--no-cache'])).out);
    expect(warm.modules.filter(parserOf('codex')).length).toBeGreaterThan(0);
    expect(warm.modules.filter(parserOf('claude'))).toEqual([]);
  }, 120_000);
});
