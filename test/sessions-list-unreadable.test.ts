/**
 * `sessions list` over a history with a session file that cannot be read (no read permission; as root the
 * children run as nobody, so mode 000 stops the read as it would for a user): the file is left out of the
 * list, as before, but no longer silently. The library counts it in `SessionListOptions.sources` (the agent's
 * roots, as a cost report's `sources`), with the event cache cold and warm and without it; the CLI warns on
 * stderr, in every format. Runs the built library and CLI in child processes.
 */
import { execFile } from 'node:child_process';
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { lockedCodexHome, OTHER_ID, removeLockedCodexHomes, type LockedCodexHome } from './helpers/locked-codex.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
const LIB = join(ROOT, 'dist', 'src', 'index.js');

let dir: string;
let locked: string;
let env: NodeJS.ProcessEnv;
let user: LockedCodexHome['user'];
beforeEach(async () => {
  ({ dir, locked, env, user } = await lockedCodexHome('sf-list-unreadable-'));
});
afterAll(removeLockedCodexHomes);

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
    const expected = { ids: [OTHER_ID], sources: [{ agent: 'codex', status: 'found', files: 2, unreadable: 1 }] };
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
    expect(json.map((s) => s.sessionId)).toEqual([OTHER_ID]);
  }, 60_000);
});
