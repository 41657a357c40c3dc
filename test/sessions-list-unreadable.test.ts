/**
 * `sessions list` over a history with a session file that cannot be read (no read permission; as root the
 * children run as nobody, so mode 000 stops the read as it would for a user): the file is left out of the
 * list, as before, but no longer silently. The library counts it in `SessionListOptions.sources` (the agent's
 * roots, as a cost report's `sources`), with the event cache cold and warm and without it; the CLI warns on
 * stderr, in every format. Runs the built library and CLI in child processes.
 */
import { chmod } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI, BUILT_LIB, lockedCodexPerTest, nodeIn, OTHER_ID } from './helpers/locked-codex.js';

const home = lockedCodexPerTest('sf-list-unreadable-');

interface ListRun {
  ids: string[];
  sources: { agent: string; status: string; files: number; unreadable: number }[];
}

/** One `SessionManager.list('codex')` of the built library, in a process of its own. */
async function library(cache: boolean): Promise<ListRun> {
  const script = `
    const { createSessionManager } = await import(${JSON.stringify(BUILT_LIB)});
    const sources = [];
    const rows = await createSessionManager({ env: process.env, cache: ${cache} }).list('codex', { sources, full: true });
    process.stdout.write(JSON.stringify({ ids: rows.map((r) => r.sessionId), sources: sources.map(({ agent, status, files, unreadable }) => ({ agent, status, files, unreadable })) }));`;
  const { stdout } = await nodeIn(home(), ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as ListRun;
}

const cli = (...args: string[]) => nodeIn(home(), [BUILT_CLI, ...args]);

const WARNING = 'warning: codex: 1 folder or file under ~/.codex could not be read: their sessions are left out';

describe('sessions list: a session file that cannot be read', () => {
  it('the library: left out and counted in sources, cold, warm and without the cache; counted no more once readable', async () => {
    const expected = { ids: [OTHER_ID], sources: [{ agent: 'codex', status: 'found', files: 2, unreadable: 1 }] };
    expect(await library(false)).toEqual(expected);
    expect(await library(true)).toEqual(expected); // cold
    expect(await library(true)).toEqual(expected); // warm: the other file from the cache
    await chmod(home().locked, 0o644);
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
