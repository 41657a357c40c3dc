/**
 * The executable ends a `cost` command as soon as it is done (src/cli/main.cts `EXIT_WHEN_DONE`), without
 * waiting for V8's teardown: what it wrote must all be there, to a pipe and to a file alike (stderr a pipe
 * or /dev/null), and its exit code must be the command's. A preloaded hook (`-r`) marks the early exit on
 * stderr, so the tests see that it happens: for a run with the cache and a warm one after it (same answer),
 * and not while a stream written outside the CLI's writers still holds bytes (a hook makes it say so).
 * Over the built executable (`npx tsc -p . && node scripts/bundle-cli.mjs` first).
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

const EARLY = 'SF-TEST: process.exit called';
/**
 * Marks a call of `process.exit` on stderr. SF_TEST_WARN: a `console.warn` once the command runs (a write to
 * `process.stderr` the CLI's writers never see); SF_TEST_PENDING: that stream then says bytes are buffered.
 */
const hook = join(home, 'exit-hook.cjs');
writeFileSync(
  hook,
  `const exit = process.exit;
process.exit = function (code) { require('node:fs').writeSync(2, ${JSON.stringify(`${EARLY}
`)}); return exit.call(process, code); };
if (process.env.SF_TEST_WARN === '1') setImmediate(() => {
  console.warn(\`SF-TEST: a warning (stderr a FIFO: \${require('node:fs').fstatSync(2).isFIFO()})\`);
  if (process.env.SF_TEST_PENDING === '1') Object.defineProperty(process.stderr, 'writableLength', { get: () => 1 });
});
`,
);
const hooked = (args: string[], extra: Record<string, string> = {}) => exec(process.execPath, ['-r', hook, MAIN, ...args], { env: { ...env, ...extra }, maxBuffer: 64 << 20 });

describe('a cost command that ends when it is done', () => {
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

  it('ends early, with the cache cold and warm, and the same answer as without it', async () => {
    const args = ['cost', 'report', '--json', '--group-by', 'session'];
    const uncached = await hooked([...args, '--no-cache']);
    const cold = await hooked(args);
    const warm = await hooked(args);
    for (const r of [uncached, cold, warm]) expect(r.stderr).toContain(EARLY);
    expect((JSON.parse(cold.stdout) as { totalUsd: number }).totalUsd).toBeGreaterThan(0);
    expect(warm.stdout).toBe(cold.stdout);
    expect(cold.stdout).toBe(uncached.stdout);
  }, 60_000);

  // stderr a shell's pipe (a FIFO: the CLI writes it with fs.writeSync, never making process.stderr), not
  // the socket a Node parent gives (for which the CLI makes Node's stream itself), stdout a file
  const viaPipe = (extra: Record<string, string>) => {
    const out = join(home, 'pipe-out.json');
    const r = spawnSync('/bin/sh', ['-c', `"${process.execPath}" -r '${hook}' '${MAIN}' cost report --json --no-cache 2>&1 >'${out}' | cat`], { env: { ...env, ...extra }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    return { stderr: r.stdout, stdout: readFileSync(out, 'utf8') };
  };

  it('ends early after a write to process.stderr of its own, not while it is buffered', () => {
    const plain = viaPipe({});
    expect(plain.stderr).toContain(EARLY);
    const warned = viaPipe({ SF_TEST_WARN: '1' });
    expect(warned.stderr).toContain('SF-TEST: a warning (stderr a FIFO: true)');
    expect(warned.stderr).toContain(EARLY);
    const pending = viaPipe({ SF_TEST_WARN: '1', SF_TEST_PENDING: '1' });
    expect(pending.stderr).toContain('SF-TEST: a warning (stderr a FIFO: true)');
    expect(pending.stderr).not.toContain(EARLY);
    expect(JSON.parse(plain.stdout)).toHaveProperty('totalUsd');
    for (const r of [warned, pending]) expect(r.stdout).toBe(plain.stdout);
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
