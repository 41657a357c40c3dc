/**
 * The CLI's bundle (scripts/bundle-cli.mjs, dist/src/cli/bundle/): the build makes it after the modules it
 * bundles; the executable loads it instead of run.js; a report from it equals one from the modules, with the
 * native kernel (found from the package folder) and without; `start` from it finds the demo history. The scan's
 * worker has its own bundle, named from the package folder too: a scan on workers from the built modules checks that path (the
 * CLI starts workers only for more than 1 GiB of files its engines leave).
 * test/cli-start.test.ts and test/bench-command.test.ts run their commands through the bundle as well.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const DIST_CLI = new URL('../dist/src/cli/', import.meta.url);
const CLI = fileURLToPath(new URL('main.cjs', DIST_CLI));
const run = promisify(execFile);
/** An empty HOME of the tests' own: a made-up path can exist (and be written) where the suite runs as root. */
const EMPTY_HOME = mkdtempSync(join(tmpdir(), 'sf-bundle-home-'));
afterAll(() => rmSync(EMPTY_HOME, { recursive: true, force: true }));

describe('the CLI bundle', () => {
  it('is built after run.js, and is what the executable loads (main.js exports main.cjs\'s loadCli)', async () => {
    const bundle = statSync(new URL('bundle/run.js', DIST_CLI));
    expect(bundle.mtimeMs).toBeGreaterThanOrEqual(statSync(new URL('run.js', DIST_CLI)).mtimeMs);
    const main = (await import(new URL('main.js', DIST_CLI).href)) as { loadCli(): Promise<{ runCli: unknown }> };
    const loaded = await main.loadCli();
    const modules = (await import(new URL('run.js', DIST_CLI).href)) as { runCli: unknown };
    expect(typeof loaded.runCli).toBe('function');
    expect(loaded.runCli).not.toBe(modules.runCli); // another module instance: the bundle's
  });

  it('bundles the front (status-line input, served client) on its own, sharing nothing with run.js', () => {
    expect(statSync(new URL('bundle/front.js', DIST_CLI)).mtimeMs).toBeGreaterThanOrEqual(statSync(new URL('front.js', DIST_CLI)).mtimeMs);
    const ours = [...readFileSync(new URL('bundle/front.js', DIST_CLI), 'utf8').matchAll(/from "(\.[^"]+)"|import\("(\.[^"]+)"\)/g)].map((m) => m[1] ?? m[2]);
    expect(ours.length).toBeGreaterThan(0); // the render steps, as chunks
    expect(ours.filter((f) => !f?.startsWith('./front-'))).toEqual([]);
  });

  it('bundles the front again as CommonJS, which the executable requires: its own chunks and builtins only', async () => {
    expect(statSync(new URL('bundle-cjs/front.cjs', DIST_CLI)).mtimeMs).toBeGreaterThanOrEqual(statSync(new URL('front.js', DIST_CLI)).mtimeMs);
    const ours = [...readFileSync(new URL('bundle-cjs/front.cjs', DIST_CLI), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(ours.filter((f) => f.startsWith('./')).length).toBeGreaterThan(0); // the render steps, as chunks
    expect(ours.filter((f) => !f.startsWith('./front-') && f !== './socket-path.cjs' && !f.startsWith('node:') && f !== 'url')).toEqual([]);
    // socket-path.cjs, which the executable asks before it loads the front for `cost` and `sessions`: builtins only
    const socket = [...readFileSync(new URL('bundle-cjs/socket-path.cjs', DIST_CLI), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(socket.filter((f) => !f.startsWith('node:'))).toEqual([]);
    // the ES-module executable (main.js) runs the CommonJS one's code: the same answers
    const env = { PATH: process.env.PATH, HOME: EMPTY_HOME, SESSIONFOLD_SOCKET: 'off' };
    const esm = await run(process.execPath, [fileURLToPath(new URL('main.js', DIST_CLI)), 'cost', 'report', '--json'], { env });
    expect(JSON.parse(esm.stdout)).toMatchObject({ totalUsd: 0, requestCount: 0 });
    expect((await run(process.execPath, [CLI, 'cost', 'report', '--json'], { env })).stdout).toBe(esm.stdout);
  }, 60_000);

  it('bundles the parse worker on its own, and the pool starts workers from it', async () => {
    expect(statSync(new URL('bundle/scan-worker.js', DIST_CLI)).mtimeMs).toBeGreaterThanOrEqual(statSync(new URL('../scan/worker.js', DIST_CLI)).mtimeMs);
    const ours = [...readFileSync(new URL('bundle/scan-worker.js', DIST_CLI), 'utf8').matchAll(/from "(\.[^"]+)"|import\("(\.[^"]+)"\)/g)].map((m) => m[1] ?? m[2]);
    expect(ours.filter((f) => !f?.startsWith('./scan-worker-'))).toEqual([]);
    const pool = (await import(new URL('../scan/pool.js', DIST_CLI).href)) as { workerEntry(): URL };
    expect(pool.workerEntry().href).toBe(new URL('bundle/scan-worker.js', DIST_CLI).href);
  });

  it('reports alike from the bundle (with and without the native kernel) and from the modules', async () => {
    const demo = fileURLToPath(new URL('../fixtures/demo/', import.meta.url));
    const env = { PATH: process.env.PATH, HOME: EMPTY_HOME, TZ: 'UTC', NO_COLOR: '1', SESSIONFOLD_SOCKET: 'off', CLAUDE_CONFIG_DIR: `${demo}claude`, CODEX_HOME: `${demo}codex` };
    const args = ['cost', 'report', '--json', '--group-by', 'day', '--no-cache'];
    const bundled = (await run(process.execPath, [CLI, ...args], { env })).stdout;
    const noKernel = (await run(process.execPath, [CLI, ...args], { env: { ...env, SESSIONFOLD_NATIVE: '0' } })).stdout;
    const modules = (
      await run(process.execPath, ['--input-type=module', '-e', `const { runCli } = await import(${JSON.stringify(new URL('run.js', DIST_CLI).href)}); process.exitCode = await runCli(${JSON.stringify(args)});`], { env })
    ).stdout;
    const summary = JSON.parse(bundled) as { totalUsd: number; requestCount: number; outputTokens: number };
    const expected = JSON.parse(readFileSync(`${demo}expected.json`, 'utf8')) as { agents: Record<string, { totals: { events: number; outputTokens: number } }> };
    const totals = Object.values(expected.agents).map((a) => a.totals);
    expect(summary.requestCount).toBe(totals.reduce((n, t) => n + t.events, 0));
    expect(summary.outputTokens).toBe(totals.reduce((n, t) => n + t.outputTokens, 0));
    expect(summary.totalUsd).toBeGreaterThan(0);
    expect(noKernel).toBe(bundled);
    expect(modules).toBe(bundled);
  }, 120_000);

  it('runs start on the demo history it finds from the package folder', async () => {
    const r = await run(process.execPath, [CLI, 'start'], { env: { PATH: process.env.PATH, HOME: EMPTY_HOME, TZ: 'UTC', NO_COLOR: '1', COLUMNS: '200', SESSIONFOLD_SOCKET: 'off' } });
    expect(r.stderr).toMatch(/bundled demo history/);
    expect(r.stdout.split('\n').find((l) => l.startsWith('Total'))).toMatch(/\$\d+\.\d\d/);
  }, 60_000);

  it('scans on workers started from the built worker file, as on the main thread', async () => {
    const demo = fileURLToPath(new URL('../fixtures/demo/', import.meta.url));
    const script = `
      const { newScanStats, scanUsageBatches } = await import(${JSON.stringify(new URL('../scan/index.js', DIST_CLI).href)});
      const count = async (workers) => {
        let n = 0;
        const stats = newScanStats();
        for await (const b of scanUsageBatches({ agents: ['claude', 'codex'], roots: { claude: [${JSON.stringify(`${demo}claude`)}], codex: [${JSON.stringify(`${demo}codex`)}] }, cache: false, workers, stats })) n += b.length;
        return [n, stats.workers];
      };
      process.stdout.write(JSON.stringify([await count(2), await count(0)]));`;
    // a file, not `-e`: Workers inherit the process's flags, and `--input-type` is refused for a file
    const file = join(mkdtempSync(join(tmpdir(), 'sf-bundle-')), 'scan.mjs');
    writeFileSync(file, script);
    const r = await run(process.execPath, [file], { env: { PATH: process.env.PATH, HOME: EMPTY_HOME, SESSIONFOLD_NATIVE_ENGINES: '0' } });
    const [[onWorkers, workers], [onMain, none]] = JSON.parse(r.stdout) as [[number, number], [number, number]];
    expect(workers).toBe(2); // the records came from two Workers, started from dist/src/cli/bundle/scan-worker.js
    expect(none).toBe(0);
    expect(onWorkers).toBeGreaterThan(10);
    expect(onWorkers).toBe(onMain);
  }, 60_000);
  it('reads an `opencode export` file alike from the CommonJS bundle (cache cold and warm) and the ESM one', async () => {
    // The export reader takes stream-json and stream-chain, ES-module-only packages the CommonJS bundle holds.
    const dir = mkdtempSync(join(tmpdir(), 'sf-bundle-export-'));
    try {
      const file = join(dir, 'export.json');
      const msg = { info: { id: 'msg_1', sessionID: 'ses_a', role: 'user', time: { created: 1767000000000 } }, parts: [{ id: 'prt_1', sessionID: 'ses_a', messageID: 'msg_1', type: 'text', text: 'hi' }] };
      writeFileSync(file, JSON.stringify({ info: { id: 'ses_a', directory: '/w', title: 'hello', version: '1.0.0', time: { created: 1767000000000, updated: 1767000001000 } }, messages: [msg] }));
      const env = { PATH: process.env.PATH, HOME: dir, TZ: 'UTC', NO_COLOR: '1', SESSIONFOLD_SOCKET: 'off' };
      const read = async (extra: Record<string, string>) => (await run(process.execPath, [CLI, 'read', '--agent', 'opencode', file], { env: { ...env, ...extra } })).stdout;
      const esm = await read({ SESSIONFOLD_CJS: '0' });
      expect(esm).toContain('"text":"hi"');
      expect(await read({})).toBe(esm);
      expect(await read({})).toBe(esm);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
