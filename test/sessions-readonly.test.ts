/**
 * Read-only by contract: every `sessions` command (and every SessionManager method) runs over copies of the
 * real fixtures, and afterwards every agent file has the same bytes and mtime, and no file appeared or went.
 * Build first: `npx tsc -p .`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { CLAUDE_COPIES, CLAUDE_SUBAGENT_PARENT, EXPORT_IDS, HAS_CLAUDE, HAS_CODEX, sink, snapshotTree, type Home, makeFixtureHome } from './sessions-helpers.js';

const run = promisify(execFile);
const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const J = 'sessionfold-jsonl';
let home: Home;
let codexIds: string[] = [];

beforeAll(async () => {
  ({ home, codexIds } = await makeFixtureHome());
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

/** The first use of each sub-command runs the built CLI in a subprocess; the rest run in process (runCli). */
const spawned = new Set<string>();
async function cli(args: string[]): Promise<number> {
  const sub = args[0] as string;
  if (!spawned.has(sub)) {
    spawned.add(sub);
    try {
      await run(process.execPath, [CLI, 'sessions', ...args], { env: home.env, maxBuffer: 64 << 20 });
      return 0;
    } catch (e) {
      return (e as { code: number }).code;
    }
  }
  return runCli(['sessions', ...args], { stdout: sink(), stderr: sink(), env: home.env });
}

describe('read-only by contract', () => {
  it('leaves every agent file byte-identical with its mtime after every command', async () => {
    const roots = [home.exports, home.claude, home.codex];
    const before = new Map((await Promise.all(roots.map(snapshotTree))).flatMap((m) => [...m]));
    expect(before.size).toBeGreaterThan(10);

    const sessions: [string, string][] = [
      [J, EXPORT_IDS.parent],
      [J, EXPORT_IDS.big],
      ...(HAS_CLAUDE ? [...Object.values(CLAUDE_COPIES), CLAUDE_SUBAGENT_PARENT].map((id): [string, string] => ['claude', id]) : []),
      ...(HAS_CODEX ? codexIds.map((id): [string, string] => ['codex', id]) : []),
    ];
    const agents = [J, ...(HAS_CLAUDE ? ['claude'] : []), ...(HAS_CODEX ? ['codex'] : [])];
    const commands: string[][] = [
      ['list'],
      ['list', '--full', '--subagents', '--json'],
      ...agents.flatMap((a) => [['list', a], ['list', a, '--sort', 'cost'], ['list', a, '--sort', 'turns', '--json'], ['list', a, '--model', 'gpt']]),
      ['search', 'the'],
      ['search', 'auth', '--sort', 'date', '--limit', '2'],
      ['search', 'the', '--sort', 'cost', '--json', '--subagents'],
      ...sessions.flatMap(([a, id]) => [
        ['show', a, id],
        ['show', `${a}:${id}`, '--format', 'jsonl'],
        ['export', a, id, '--format', 'json'],
        ['export', a, id, '--format', 'markdown'],
        ['export', a, id],
      ]),
      ['diff', `${J}:${EXPORT_IDS.parent}`, `${J}:${EXPORT_IDS.fork}`],
      ...(HAS_CLAUDE ? [['diff', `claude:${CLAUDE_SUBAGENT_PARENT}`, `${J}:${EXPORT_IDS.fork}`, '--json'], ['resume', 'claude', CLAUDE_SUBAGENT_PARENT]] : []),
      ['show', J, EXPORT_IDS.broken], // fails (PARSE_ERROR), still writes nothing
    ];
    const codes = [];
    for (const c of commands) codes.push(await cli(c));
    expect(codes.slice(0, -1).every((c) => c === 0)).toBe(true);
    expect(codes.at(-1)).toBe(1);

    // The library too, every method.
    const sm = createSessionManager({ env: home.env });
    for (const a of agents) for (const s of await sm.list(a, { full: true, subagents: true })) await sm.export(a, s.sessionId, 'jsonl');
    await sm.search({ text: 'the', sort: 'date' });
    await sm.diff({ agent: J, sessionId: EXPORT_IDS.parent }, { agent: J, sessionId: EXPORT_IDS.fork });

    const after = new Map((await Promise.all(roots.map(snapshotTree))).flatMap((m) => [...m]));
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [path, b] of before) expect(after.get(path), path).toEqual(b);
  });
});
