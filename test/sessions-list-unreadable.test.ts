/**
 * `sessions list` over a history with a session file that cannot be read (no read permission; as root the
 * children run as nobody, so mode 000 stops the read as it would for a user): the file is left out of the
 * list, as before, but no longer silently. The library counts it in `SessionListOptions.sources` (the agent's
 * roots, as a cost report's `sources`), with the event cache cold and warm and without it; the CLI warns on
 * stderr, in every format. Runs the built library and CLI in child processes.
 */
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { REAL_DIR } from './codex-helpers.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
const LIB = join(ROOT, 'dist', 'src', 'index.js');
const OTHER_REL = 'sessions/2025/10/31/rollout-2025-10-31T17-00-00-0199a000-0000-7000-8000-000000000053.jsonl';
const LOCKED_REL = 'sessions/2025/11/01/rollout-2025-11-01T09-00-00-0199a000-0000-7000-8000-0000000000e1.jsonl';

/** As root a mode of 000 stops no read: the children run as nobody, in folders open to them. */
const asRoot = process.getuid?.() === 0;
const user = asRoot ? { uid: 65534, gid: 65534 } : {};

const dirs: string[] = [];
let dir: string;
let codex: string;
let locked: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  dir = await mkdtemp(join(asRoot ? dirname(tmpdir()) : tmpdir(), 'sf-list-unreadable-'));
  dirs.push(dir);
  codex = join(dir, '.codex');
  await mkdir(join(codex, OTHER_REL, '..'), { recursive: true });
  await copyFile(join(REAL_DIR, 'agent-sessions-codex_053_rate_limit.jsonl'), join(codex, OTHER_REL));
  locked = join(codex, LOCKED_REL);
  await mkdir(join(locked, '..'), { recursive: true });
  await copyFile(join(REAL_DIR, 'agent-sessions-v0.146-sanitized.jsonl'), locked);
  await mkdir(join(dir, '.cache'), { recursive: true });
  if (asRoot) await openUp(dir);
  await chmod(join(codex, OTHER_REL), 0o644);
  await chmod(locked, 0o000);
  env = { HOME: dir, PATH: process.env.PATH, CODEX_HOME: codex, XDG_CACHE_HOME: join(dir, '.cache'), XDG_CONFIG_HOME: join(dir, '.config'), XDG_DATA_HOME: join(dir, '.local', 'share'), SESSIONFOLD_SOCKET: 'off', NO_COLOR: '1', TZ: 'UTC', ...(process.env.SESSIONFOLD_NATIVE !== undefined && { SESSIONFOLD_NATIVE: process.env.SESSIONFOLD_NATIVE }) };
});
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** `d` and every folder under it open to any user. */
async function openUp(d: string): Promise<void> {
  await chmod(d, 0o777);
  for (const e of await readdir(d, { withFileTypes: true })) if (e.isDirectory()) await openUp(join(d, e.name));
}

interface ListRun {
  ids: string[];
  sources: { agent: string; status: string; files: number; unreadable: number }[];
}

/** One `SessionManager.list('codex')` of the built library, in a process of its own. */
async function library(cache: boolean): Promise<ListRun> {
  const script = `
    const { createSessionManager } = await import(${JSON.stringify(LIB)});
    const sources = [];
    const rows = await createSessionManager({ env: process.env, cache: ${cache} }).list('codex', { sources, full: true });
    process.stdout.write(JSON.stringify({ ids: rows.map((r) => r.sessionId), sources: sources.map(({ agent, status, files, unreadable }) => ({ agent, status, files, unreadable })) }));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, env, ...user });
  return JSON.parse(stdout) as ListRun;
}

const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { cwd: dir, env, ...user });

const WARNING = 'warning: codex: 1 folder or file under ~/.codex could not be read: their sessions are left out';

describe('sessions list: a session file that cannot be read', () => {
  it('the library: left out and counted in sources, cold, warm and without the cache; counted no more once readable', async () => {
    const expected = { ids: ['0199a000-0000-7000-8000-000000000053'], sources: [{ agent: 'codex', status: 'found', files: 2, unreadable: 1 }] };
    expect(await library(false)).toEqual(expected);
    expect(await library(true)).toEqual(expected); // cold
    expect(await library(true)).toEqual(expected); // warm: the other file from the cache
    await chmod(locked, 0o644);
    const readable = await library(true);
    expect(readable.sources).toEqual([{ ...expected.sources[0], unreadable: 0 }]);
    expect(readable.ids).toHaveLength(2);
  }, 60_000);

  it('the CLI: a warning on stderr, as text and --json, cold and warm, for the agent and for every agent', async () => {
    for (const args of [['sessions', 'list', 'codex'], ['sessions', 'list', 'codex', '--json'], ['sessions', 'list'], ['sessions', 'list', '--json']]) {
      const cold = await cli(...args);
      expect([args.join(' '), cold.stderr]).toEqual([args.join(' '), `${WARNING}\n`]);
      const warm = await cli(...args);
      expect([warm.stdout, warm.stderr]).toEqual([cold.stdout, cold.stderr]);
    }
    const json = JSON.parse((await cli('sessions', 'list', 'codex', '--json')).stdout) as { sessionId: string }[];
    expect(json.map((s) => s.sessionId)).toEqual(['0199a000-0000-7000-8000-000000000053']);
  }, 60_000);
});
