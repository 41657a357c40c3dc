/**
 * An invalid option value, as the built CLI shows it: `error INVALID_OPTION: …` on the first line of stderr,
 * then the usage of that command, whichever step checked the value (the command itself, such as `--group-by`,
 * or the library it hands the value to, such as `--since`, `--tz` or `--mode`), with the exit code each
 * command had: 1, and 0 for `statusline`, whose bar must not go blank. stdout stays as it was, `--json` or
 * not. An unknown agent (AGENT_NOT_FOUND) and a `--prices` path that names nothing (PRICE_ERROR) are mistakes
 * too. A file's bad content (the tags file, a prices file), a prices file named by SESSIONFOLD_PRICES, or a
 * file no agent claims is no mistake in the command line: no usage after it.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { computeServed } from '../src/cli/served-compute.js';
import type { StatusLineAnswer } from '../src/cli/render/statusline.js';
import { isolatedHome } from './helpers/isolated-home.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));

const h = isolatedHome('sf-option-errors-', async (home) => {
  await mkdir(join(home, '.config', 'sessionfold'), { recursive: true });
  await writeFile(join(home, '.config', 'sessionfold', 'tags.json'), '{ not json');
  await writeFile(join(home, 'x.jsonl'), '{}\n');
  await writeFile(join(home, 'bad-prices.json'), '{ not json');
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cliWith({}, ...args);
}

async function cliWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [CLI, ...args], { env: { ...h.env, SESSIONFOLD_SOCKET: 'off', ...env }, cwd: h.home });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

/** The usage a command prints after a mistake: what follows the error line. */
const usageOf = (stderr: string): string => stderr.slice(stderr.indexOf('\n\nUsage: ') + 2);

const SESSION = ['--agent', 'claude', '--session', 'no-such-session'];

/** [command, its operands, the option and its bad value]: each kind of check, in each command that takes it. */
const CASES: [string, string[], string[]][] = [
  // checked by the command as it parses its options
  ['cost report', [], ['--group-by', 'foo']],
  ['cost report', [], ['--order', 'sideways']],
  ['sessions list', [], ['--sort', 'sideways']],
  ['read', ['x.jsonl', '--agent', 'claude'], ['--kinds', 'foo']],
  ['serve', ['--socket', 'sf.sock'], ['--sweep', 'x']],
  // checked by the library the value is handed to
  ...(['cost report', 'cost blocks', 'events export', 'sessions list', 'sessions search'] as const).flatMap((c) =>
    [['--since', 'foo'], ['--until', 'foo'], ['--tz', 'Not/AZone']].map((opt): [string, string[], string[]] => [c, c === 'sessions search' ? ['text'] : [], opt]),
  ),
  ['cost report', [], ['--mode', 'foo']],
  ['cost blocks', [], ['--mode', 'foo']],
  ['events export', [], ['--mode', 'foo']],
  ['store save', ['claude:x'], ['--name', 'a/b']],
  ['sessions fork', ['claude', 'x'], ['--name', 'a/b']],
];

describe('an invalid option value', () => {
  it.each(CASES.map(([command, operands, opt]) => [`${command} ${opt.join(' ')}`, command, operands, opt] as const))('%s: INVALID_OPTION, then the usage, exit 1', async (_, command, operands, opt) => {
    const r = await cli(...command.split(' '), ...operands, ...opt);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error INVALID_OPTION: [^\\n]*\\n\\nUsage: sessionfold ${command} `));
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error ')).length).toBe(1);
  });

  it('reads the same when the library checked it as when the command did', async () => {
    const early = await cli('cost', 'report', '--group-by', 'foo');
    for (const opt of [['--since', 'foo'], ['--tz', 'Not/AZone'], ['--mode', 'foo']]) {
      const late = await cli('cost', 'report', ...opt);
      expect([opt[0], usageOf(late.stderr)]).toEqual([opt[0], usageOf(early.stderr)]);
    }
  });

  it('--json: stdout stays empty, the first line of stderr is the coded error, exit 1', async () => {
    for (const args of [['cost', 'report', '--json', '--tz', 'Not/AZone'], ['cost', 'blocks', '--json', '--since', 'foo'], ['sessions', 'list', '--json', '--mode', 'x'], ['sessions', 'list', '--json', '--until', 'foo']]) {
      const r = await cli(...args);
      expect([args.join(' '), r.code, r.stdout]).toEqual([args.join(' '), 1, '']);
      expect(r.stderr.split('\n')[0]).toMatch(/^error (INVALID_OPTION|USAGE_ERROR): /);
      expect(r.stderr).toContain('\n\nUsage: sessionfold ');
    }
  });

  it.each([[['--tz', 'Not/AZone']], [['--mode', 'foo']], [['--now', 'foo']], [['--context-window', 'x']]])('statusline %j: the fallback line on stdout, INVALID_OPTION and the usage on stderr, exit 0', async (opt) => {
    for (const json of [[], ['--json']]) {
      const r = await cli('statusline', ...SESSION, ...opt, ...json);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('sessionfold: no status (INVALID_OPTION)\n');
      expect(r.stderr).toMatch(/^error INVALID_OPTION: [^\n]*\n\nUsage: sessionfold statusline /);
    }
  });

  it('statusline: a served run gets the usage in its answer, so the client prints it too', async () => {
    const a = (await computeServed(['statusline', ...SESSION, '--tz', 'Not/AZone'], h.env)) as StatusLineAnswer;
    expect(a.error).toMatchObject({ code: 'INVALID_OPTION' });
    expect(a.error?.usage).toMatch(/^Usage: sessionfold statusline /);
    const n = (await computeServed(['statusline', '--agent', 'nope', '--session', 'x'], h.env)) as StatusLineAnswer;
    expect(n.error).toMatchObject({ code: 'AGENT_NOT_FOUND' });
    expect(n.error?.usage).toMatch(/^Usage: sessionfold statusline /);
    const p = (await computeServed(['statusline', ...SESSION, '--prices', 'no-such-prices.json'], h.env)) as StatusLineAnswer;
    expect(p.error).toMatchObject({ code: 'PRICE_ERROR' });
    expect(p.error?.usage).toMatch(/^Usage: sessionfold statusline /);
    const b = (await computeServed(['statusline', ...SESSION, '--prices', join(h.home, 'bad-prices.json')], h.env)) as StatusLineAnswer;
    expect(b.error).toMatchObject({ code: 'PRICE_ERROR' });
    expect(b.error?.usage).toBeUndefined();
  });

  it('a tags file that is not JSON is INVALID_OPTION about the file: no usage after it', async () => {
    const r = await cli('cost', 'report', '--tag', 'x');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error INVALID_OPTION: Invalid tags file .*tags\.json/);
    expect(r.stderr).not.toContain('Usage:');
  });
});

/** [command, its operands before the option, the option and its value]: a name or a path that names nothing. */
const NAMES_NOTHING: [string, string[], string[], string][] = [
  ...(['cost report', 'cost blocks', 'events export', 'sessions search'] as const).map((c): [string, string[], string[], string] => [c, c === 'sessions search' ? ['text'] : [], ['--agent', 'nope'], 'AGENT_NOT_FOUND']),
  ['sessions list', [], ['nope'], 'AGENT_NOT_FOUND'],
  ['sessions show', [], ['nope', 'x'], 'AGENT_NOT_FOUND'],
  ['read', ['x.jsonl'], ['--agent', 'nope'], 'AGENT_NOT_FOUND'],
  ...(['cost report', 'cost blocks', 'events export'] as const).flatMap((c) =>
    ['no-such-prices.json', 'x.jsonl/prices.json'].map((file): [string, string[], string[], string] => [c, [], ['--prices', file], 'PRICE_ERROR']),
  ),
];

describe('an unknown agent or a --prices file that is not there', () => {
  it.each(NAMES_NOTHING.map(([command, operands, opt, code]) => [`${command} ${opt.join(' ')}`, command, operands, opt, code] as const))('%s: the error, then the usage, exit 1', async (_, command, operands, opt, code) => {
    for (const json of ['sessions show', 'read', 'events export'].includes(command) ? [[]] : [[], ['--json']]) {
      const r = await cli(...command.split(' '), ...operands, ...opt, ...json);
      expect([r.code, r.stdout]).toEqual([1, '']);
      expect(r.stderr).toMatch(new RegExp(`^error ${code}: [^\\n]*\\n\\nUsage: sessionfold ${command} `));
    }
  });

  it('statusline: the fallback line on stdout, the error and the usage on stderr, exit 0', async () => {
    for (const opt of [['--agent', 'nope', '--session', 'x'], [...SESSION, '--prices', 'no-such-prices.json']]) {
      const r = await cli('statusline', ...opt);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^sessionfold: no status \((AGENT_NOT_FOUND|PRICE_ERROR)\)\n$/);
      expect(r.stderr).toMatch(/^error (AGENT_NOT_FOUND|PRICE_ERROR): [^\n]*\n\nUsage: sessionfold statusline /);
    }
  });

  it('a prices file that is there but bad, or one named by SESSIONFOLD_PRICES: the error alone', async () => {
    const bad = await cli('cost', 'report', '--prices', 'bad-prices.json');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error PRICE_ERROR: Invalid prices file /);
    const missing = await cliWith({ SESSIONFOLD_PRICES: join(h.home, 'no-such-prices.json') }, 'cost', 'report');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error PRICE_ERROR: Cannot read prices file /);
    for (const r of [bad, missing]) expect(r.stderr).not.toContain('Usage:');
  });

  it('a file no agent claims is about the file: AGENT_NOT_FOUND without the usage', async () => {
    const r = await cli('read', 'x.jsonl');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error AGENT_NOT_FOUND: Cannot tell which agent wrote /);
    expect(r.stderr).not.toContain('Usage:');
  });
});
