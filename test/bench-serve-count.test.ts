/**
 * The benches' served rows must be the server's: a client nobody answers runs the command itself and prints
 * the same output, so bench/lib/serve.ts checks the server's own count of answered commands. Runs the built
 * CLI (`dist/src/cli/main.cjs`), as the benches do (`npm test` builds it first).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeChild } from '../bench/lib/serve.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;

describe('bench/lib/serve.ts: expectServed', () => {
  let dir: string;
  let server: ServeChild;
  let socket: string;
  const env = () => ({ PATH: process.env.PATH, HOME: dir, XDG_CACHE_HOME: join(dir, '.cache'), XDG_CONFIG_HOME: join(dir, '.config'), TZ: 'UTC' });
  const report = (socketEnv: string) => {
    const r = spawnSync(process.execPath, [CLI, 'cost', 'report', '--json'], { env: { ...env(), SESSIONFOLD_SOCKET: socketEnv }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { requestCount: number };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-bench-serve-'));
    socket = join(dir, 'serve.sock');
    server = await startServe(CLI, socket, { ...env(), SESSIONFOLD_SOCKET: 'off' });
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes when the server answered every run, and fails when a run was answered locally', async () => {
    const before = await server.status();
    expect(report(socket).requestCount).toBe(0);
    expect(report(socket).requestCount).toBe(0);
    await server.expectServed(before, 2, 'served');

    // The same output, computed by the client itself: the server's count does not move.
    const local = await server.status();
    expect(report('off').requestCount).toBe(0);
    await expect(server.expectServed(local, 1, 'local')).rejects.toThrow('local: the server answered 0 of 1 runs (refused 0, failed 0)');
  }, 60_000);
});
