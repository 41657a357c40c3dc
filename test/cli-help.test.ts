/**
 * `sessionfold help <command…>` prints what `<command…> --help` prints, for a command, a group and a
 * sub-command alike; a name that is no command is a USAGE_ERROR that names it.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { sink } from './sessions-helpers.js';

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(args, { stdout, stderr, env: { SESSIONFOLD_SOCKET: 'off' } });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('sessionfold help', () => {
  it.each([['cost'], ['cost', 'report'], ['sessions', 'list'], ['statusline'], ['store', 'prune'], ['agents']])('help %s prints what --help prints', async (...words) => {
    const asked = await cli('help', ...words);
    const flag = await cli(...words, '--help');
    expect(flag.code).toBe(0);
    expect(flag.stdout).toMatch(new RegExp(`^Usage: sessionfold ${words.join(' ')}\\b`));
    expect(asked).toEqual(flag);
  });

  it('help alone, and --help, print the command list', async () => {
    const top = await cli('--help');
    expect(top.stdout).toMatch(/^Usage: sessionfold <command>/);
    expect(await cli('help')).toEqual(top);
  });

  it.each([
    [['nope'], /^error USAGE_ERROR: unknown command "nope"/],
    [['cost', 'nope'], /^error USAGE_ERROR: unknown command "cost nope"/],
    [['cost', 'report', 'extra'], /^error USAGE_ERROR: unknown command "cost report extra"/],
  ])('help %j is a USAGE_ERROR naming the unknown command', async (words, message) => {
    const r = await cli('help', ...words);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });
});
