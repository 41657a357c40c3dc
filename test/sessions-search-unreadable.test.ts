/**
 * `sessions search` over a history with a session file that cannot be read (mode 000; as root the children run
 * as nobody: test/helpers/locked-codex.ts): the file is left out of the results, but not silently. The
 * library counts it in `SessionQuery.sources`, as `sessions list` does (sessions-list-unreadable.test.ts),
 * for one agent and for every agent, with the cache and without; the CLI warns on stderr in the same words,
 * as text and --json. Once readable, its session is found and nothing is counted. Runs the built library
 * and CLI in child processes.
 */
import { chmod } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI, BUILT_LIB, LOCKED_ID, LOCKED_TEXT, lockedCodexPerTest, nodeIn } from './helpers/locked-codex.js';

const home = lockedCodexPerTest('sf-search-unreadable-');

interface SearchRun {
  ids: string[];
  /** The entries with something found or left out (every agent's roots are reported; the others are missing). */
  sources: { agent: string; status: string; files: number; unreadable: number }[];
}

/** One `SessionManager.search` of the built library (codex, or every agent), in a process of its own. */
async function library(cache: boolean, agent: string | undefined): Promise<SearchRun> {
  const script = `
    const { createSessionManager } = await import(${JSON.stringify(BUILT_LIB)});
    const sources = [];
    const rows = await createSessionManager({ env: process.env, cache: ${cache} }).search({ text: ${JSON.stringify(LOCKED_TEXT)}, ${agent === undefined ? '' : `agent: ${JSON.stringify(agent)}, `}sources });
    const seen = sources.filter((s) => s.files > 0 || s.unreadable > 0);
    process.stdout.write(JSON.stringify({ ids: rows.map((r) => r.sessionId), sources: seen.map(({ agent, status, files, unreadable }) => ({ agent, status, files, unreadable })) }));`;
  const { stdout } = await nodeIn(home(), ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as SearchRun;
}

const cli = (...args: string[]) => nodeIn(home(), [BUILT_CLI, ...args]);

const WARNING = 'warning: codex: 1 folder or file under ~/.codex could not be read: their sessions are left out';

describe('sessions search: a session file that cannot be read', () => {
  it('the library: left out and counted in sources, for codex and every agent, with and without the cache; not once readable', async () => {
    const expected = { ids: [], sources: [{ agent: 'codex', status: 'found', files: 2, unreadable: 1 }] };
    for (const agent of ['codex', undefined]) {
      expect(await library(false, agent)).toEqual(expected);
      expect(await library(true, agent)).toEqual(expected);
      expect(await library(true, agent)).toEqual(expected);
    }
    await chmod(home().locked, 0o644);
    for (const agent of ['codex', undefined]) {
      expect(await library(true, agent)).toEqual({ ids: [LOCKED_ID], sources: [{ ...expected.sources[0], unreadable: 0 }] });
    }
  }, 60_000);

  it('the CLI: a warning on stderr, as text and --json, for one agent, two and every agent', async () => {
    const runs = [['--agent', 'codex'], ['--agent', 'codex', '--json'], [], ['--json']].map((a) => ['sessions', 'search', LOCKED_TEXT, ...a]);
    for (const args of runs) {
      const r = await cli(...args);
      expect([args.join(' '), r.stderr]).toEqual([args.join(' '), `${WARNING}\n`]);
      const again = await cli(...args);
      expect([again.stdout, again.stderr]).toEqual([r.stdout, r.stderr]);
    }
    expect(JSON.parse((await cli('sessions', 'search', LOCKED_TEXT, '--json')).stdout)).toEqual([]);
    // agents named one by one: each one's report, the unknown history said as `sessions list claude` says it
    const two = await cli('sessions', 'search', LOCKED_TEXT, '--agent', 'codex,claude', '--json');
    expect(two.stderr).toBe(`${WARNING}\nwarning: no claude history found (looked in ~/.config/claude/projects, ~/.claude/projects)\n`);
    await chmod(home().locked, 0o644);
    for (const args of runs) {
      const r = await cli(...args);
      expect([args.join(' '), r.stderr]).toEqual([args.join(' '), '']);
    }
    const found = JSON.parse((await cli('sessions', 'search', LOCKED_TEXT, '--json')).stdout) as { sessionId: string }[];
    expect(found.map((s) => s.sessionId)).toEqual([LOCKED_ID]);
  }, 60_000);
});
