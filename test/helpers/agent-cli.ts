/**
 * The built CLI run against a generated HOME that holds agents' folders, checking after every command that
 * those folders are as they were (no command writes into an agent's folder). The CLI suites of the agents
 * added together share it.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import type { SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');

/**
 * Builds dist/ (compile and CLI bundle) when the CLI bundle is older than any source it is built from: src/,
 * cursors/ and `agents`' codec folders (a descriptor's or a shared reader's change counts as a codec's). `npm
 * test` builds first; this serves a suite run by itself.
 */
export async function buildIfStale(agents: readonly string[]): Promise<void> {
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = join(dir, e.name);
      return Math.max(m, e.isDirectory() ? newest(p) : e.name.endsWith('.ts') ? statSync(p).mtimeMs : 0);
    }, 0);
  const sources = ['src', 'cursors', ...agents.map((a) => join('codecs', a))].map((d) => newest(join(ROOT, d)));
  if (existsSync(CLI) && statSync(CLI).mtimeMs >= Math.max(...sources)) return;
  await run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT });
  await run(process.execPath, [join(ROOT, 'scripts', 'bundle-cli.mjs')], { cwd: ROOT });
}

/**
 * A `cli(args)` for the HOME `home()` returns: stdout and stderr of the built CLI, after checking that
 * `trees()` (a listing of the agents' folders) still equals `before()`, the listing taken when the suite set
 * them up. `extraEnv()`: an agent's own variables, for a suite whose folders are not under HOME.
 */
export function agentCliOutput(
  home: () => string,
  trees: () => Promise<string[]>,
  before: () => string[],
  extraEnv: () => Record<string, string> = () => ({}),
): (args: string[]) => Promise<{ out: string; err: string }> {
  return async (args) => {
    const h = home();
    const r = await run(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      maxBuffer: 64 << 20,
      env: { PATH: process.env.PATH, HOME: h, XDG_CACHE_HOME: join(h, '.cache'), XDG_DATA_HOME: join(h, '.local', 'share'), NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200', ...extraEnv() },
    });
    expect(await trees(), `${args.join(' ')} leaves the agents' trees as they were`).toEqual(before());
    return { out: r.stdout, err: r.stderr };
  };
}

/** `agentCliOutput`'s stdout alone. */
export function agentCli(home: () => string, trees: () => Promise<string[]>, before: () => string[], extraEnv?: () => Record<string, string>): (args: string[]) => Promise<string> {
  const both = agentCliOutput(home, trees, before, extraEnv);
  return async (args) => (await both(args)).out;
}

/** The usage events of golden event files (`<name>.events.jsonl`), each dedup key once, in file order. */
export async function goldenUsage(paths: readonly string[]): Promise<UsageEvent[]> {
  const out: UsageEvent[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    for (const l of (await readFile(path, 'utf8')).split('\n').filter(Boolean)) {
      const e = JSON.parse(l) as SessionfoldEvent;
      if (e.type === 'usage' && !seen.has(e.dedupKey)) {
        seen.add(e.dedupKey);
        out.push(e);
      }
    }
  }
  return out;
}

/** A `cost report --json --group-by agent` row. */
export interface AgentRow {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  requestCount: number;
}

/** `row` (of `agent`) holds the golden `usage`: its tokens summed, a request each; at least two of them. */
export function expectGoldenRow(row: AgentRow | undefined, agent: string, usage: readonly UsageEvent[]): void {
  expect(usage.length).toBeGreaterThanOrEqual(2);
  const sum = (f: (u: UsageEvent) => number) => usage.reduce((a, u) => a + f(u), 0);
  expect(row, agent).toMatchObject({ inputTokens: sum((u) => u.inputTokens), outputTokens: sum((u) => u.outputTokens), cacheReadTokens: sum((u) => u.cacheReadTokens), cacheWriteTokens: sum((u) => u.cacheWriteTokens), requestCount: usage.length });
}
