/**
 * The CLI's bundle (scripts/bundle-cli.mjs, dist/src/cli/bundle/): the build makes it after the modules it
 * bundles, the executable loads it instead of run.js, commands that need few modules load few chunks, and it finds what the package ships (the native kernel, the demo
 * history, the scan's workers) from the package folder, as the modules do.
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const DIST_CLI = new URL('../dist/src/cli/', import.meta.url);
const CLI = fileURLToPath(new URL('main.js', DIST_CLI));
const run = promisify(execFile);

describe('the CLI bundle', () => {
  it('is built after run.js, and is what the executable loads', async () => {
    const bundle = statSync(new URL('bundle/run.js', DIST_CLI));
    expect(bundle.mtimeMs).toBeGreaterThanOrEqual(statSync(new URL('run.js', DIST_CLI)).mtimeMs);
    const main = (await import(new URL('main.js', DIST_CLI).href)) as { loadCli(): Promise<{ runCli: unknown }> };
    const loaded = await main.loadCli();
    const modules = (await import(new URL('run.js', DIST_CLI).href)) as { runCli: unknown };
    expect(typeof loaded.runCli).toBe('function');
    expect(loaded.runCli).not.toBe(modules.runCli); // another module instance: the bundle's
  });

  it('reports alike from the bundle (with and without the native kernel) and from the modules', async () => {
    const demo = fileURLToPath(new URL('../fixtures/demo/', import.meta.url));
    const env = { PATH: process.env.PATH, HOME: '/nonexistent', TZ: 'UTC', NO_COLOR: '1', SESSIONFOLD_SOCKET: 'off', CLAUDE_CONFIG_DIR: `${demo}claude`, CODEX_HOME: `${demo}codex` };
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
});
