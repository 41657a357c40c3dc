/**
 * The executable ends a `cost` command as soon as it is done (src/cli/main.cts `EXIT_WHEN_DONE`), without
 * waiting for V8's teardown: what it wrote must all be there, to a pipe and to a file alike (stderr a pipe
 * or /dev/null), and its exit
 * code must be the command's. Over the built executable (`npx tsc -p . && node scripts/bundle-cli.mjs` first).
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const MAIN = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const DEMO = fileURLToPath(new URL('../fixtures/demo/', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'sf-exit-'));
afterAll(() => rm(home, { recursive: true, force: true }));
const env = { PATH: process.env.PATH, HOME: home, TZ: 'UTC', NO_COLOR: '1', SESSIONFOLD_SOCKET: 'off', CLAUDE_CONFIG_DIR: join(DEMO, 'claude'), CODEX_HOME: join(DEMO, 'codex') };

describe.skipIf(!existsSync(MAIN))('a cost command that ends when it is done', () => {
  it('has written all of its output, to a pipe and to a file, and the same', async () => {
    const args = [MAIN, 'cost', 'report', '--json', '--no-cache', '--group-by', 'session', '--breakdown'];
    const piped = await exec(process.execPath, args, { env, maxBuffer: 64 << 20 });
    const doc = JSON.parse(piped.stdout) as { totalUsd: number; breakdowns: Record<string, unknown> };
    expect(doc.totalUsd).toBeGreaterThan(0);
    expect(Object.keys(doc.breakdowns).length).toBeGreaterThan(1);
    const file = join(home, 'out.json');
    const sh = spawnSync('/bin/sh', ['-c', `"${process.execPath}" ${args.map((a) => `'${a}'`).join(' ')} > '${file}'`], { env });
    expect(sh.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(piped.stdout);
    // stderr on /dev/null: a Node stream carries it (nothing left buffered in it, so the process ends as well)
    const quiet = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(quiet.status).toBe(0);
    expect(quiet.stdout).toBe(piped.stdout);
  }, 60_000);

  it('exits with the command\'s code', () => {
    const r = spawnSync(process.execPath, [MAIN, 'cost', 'report', '--since', 'not-a-date'], { env, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/since/);
    const ok = spawnSync(process.execPath, [MAIN, 'cost', 'report', '--no-cache'], { env, encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect(ok.stdout.length).toBeGreaterThan(0);
  }, 60_000);
});
