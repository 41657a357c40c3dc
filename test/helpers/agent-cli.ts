/**
 * The built CLI run against a generated HOME that holds agents' folders, checking after every command that
 * those folders are as they were (no command writes into an agent's folder). The CLI suites of the agents
 * added together share it.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');

/**
 * A `cli(args)` for the HOME `home()` returns: stdout of the built CLI, after checking that `trees()` (a
 * listing of the agents' folders) still equals `before()`, the listing taken when the suite set them up.
 */
export function agentCli(home: () => string, trees: () => Promise<string[]>, before: () => string[]): (args: string[]) => Promise<string> {
  return async (args) => {
    const h = home();
    const r = await run(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      maxBuffer: 64 << 20,
      env: { PATH: process.env.PATH, HOME: h, XDG_CACHE_HOME: join(h, '.cache'), XDG_DATA_HOME: join(h, '.local', 'share'), NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200' },
    });
    expect(await trees(), `${args.join(' ')} leaves the agents' trees as they were`).toEqual(before());
    return r.stdout;
  };
}
