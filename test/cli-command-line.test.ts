/**
 * The command line's own mistakes, as a user meets them: no command, a group without its sub-command, or an
 * argument a command does not take are USAGE_ERRORs on stderr (stdout stays empty, exit 1), never a usage
 * text on stdout with a failing exit code, nor a stray word silently ignored. A group's help says what each
 * of its sub-commands does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/commands.js';
import { runCli } from '../src/cli/run.js';
import { sink } from './sessions-helpers.js';

// A command that did not refuse its stray argument would run: over an empty home, never the user's.
let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'sf-command-line-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const env = { HOME: home, XDG_CACHE_HOME: join(home, 'cache'), XDG_DATA_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), SESSIONFOLD_SOCKET: 'off', TZ: 'UTC' };
  const code = await runCli(args, { stdout, stderr, env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('the command line', () => {
  it('no command: a USAGE_ERROR with the command list, on stderr', async () => {
    const r = await cli();
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(/^error USAGE_ERROR: no command given\n\nUsage: sessionfold <command>/);
  });

  it.each([
    ['cost', 'report, blocks'],
    ['sessions', 'list, show, search, export, diff, resume, fork'],
    ['store', 'save, list, show, archive, delete, rename, fork, prune'],
    ['events', 'export'],
  ])('%s without its sub-command: a USAGE_ERROR naming them, the usage on stderr', async (group, subs) => {
    const r = await cli(group);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(new RegExp(`^error USAGE_ERROR: "sessionfold ${group}" needs a command: ${subs}\\n\\nUsage: sessionfold ${group} `));
  });

  it.each([['agents'], ['store', 'list'], ['start'], ['bench'], ['events', 'export']])('%s refuses an argument it does not take', async (...words) => {
    const r = await cli(...words, 'extra');
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(/^error USAGE_ERROR: unexpected argument "extra"\n\nUsage: /);
  });

  it('a group help says what each sub-command does', async () => {
    for (const group of ['cost', 'sessions', 'store', 'events']) {
      const def = (await (COMMANDS[group] as (typeof COMMANDS)[string]).load()).default;
      const help = (await cli(group, '--help')).stdout;
      for (const [name, load] of Object.entries(def.subCommands ?? {})) {
        const description = (await load()).default.description;
        expect(help).toMatch(new RegExp(`^  ${name} +${description.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
      }
    }
  });

  it('the command list names both of cost\'s sub-commands', async () => {
    expect((await cli('--help')).stdout).toMatch(/^ {2}cost +.*`cost report`.*`cost blocks`/m);
  });

  it('serve says it answers the status line too', async () => {
    expect((await cli('serve', '--help')).stdout).toMatch(/^Answer `cost report`, `sessions list` and `statusline`/m);
    expect((await cli('--help')).stdout).toMatch(/^ {2}serve +Answer `cost report`, `sessions list` and `statusline`/m);
  });
});
