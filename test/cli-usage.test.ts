/**
 * Every command's usage line names every option it accepts: the line is made from the option table
 * (src/cli/command.ts usageOptions), so the two cannot drift. Checked over the whole command tree, and
 * through `--help` for commands whose hand-written lines had left options out.
 */
import { describe, expect, it } from 'vitest';
import { formatUsage, type CommandDef } from '../src/cli/command.js';
import { COMMANDS } from '../src/cli/commands.js';
import { runCli } from '../src/cli/run.js';
import { sink } from './sessions-helpers.js';

async function tree(): Promise<[string, CommandDef][]> {
  const out: [string, CommandDef][] = [];
  const walk = async (def: CommandDef, prefix: string): Promise<void> => {
    out.push([prefix, def]);
    for (const [name, load] of Object.entries(def.subCommands ?? {})) await walk((await load()).default, `${prefix} ${name}`);
  };
  for (const [name, c] of Object.entries(COMMANDS)) await walk((await c.load()).default, `sessionfold ${name}`);
  return out;
}

/** The usage line: the help text up to its first blank line. */
const usageOf = (help: string): string => help.split('\n\n')[0] as string;

describe('usage lines', () => {
  it('name every option of every command', async () => {
    const all = await tree();
    expect(all.length).toBeGreaterThan(25);
    const missing = all.flatMap(([prefix, def]) => Object.keys(def.options).filter((o) => !new RegExp(`--${o}(?![\\w-])`).test(usageOf(formatUsage(def, prefix)))).map((o) => `${prefix} --${o}`));
    expect(missing).toEqual([]);
  });

  it('keep within 100 columns', async () => {
    for (const [prefix, def] of await tree()) for (const l of usageOf(formatUsage(def, prefix)).split('\n')) expect(l.length, l).toBeLessThanOrEqual(100);
  });

  it.each([
    ['sessions list', ['--tz <zone>', '[--full | --lazy]']],
    ['sessions search', ['--subagents', '--tz <zone>']],
    ['sessions fork', ['--store <dir>', '--json']],
    ['store save', ['--subagents', '--store <dir>', '--json']],
    ['store prune', ['--days <n> ']],
  ])('%s --help shows %j in its usage line', async (cmd, words) => {
    const out = sink();
    expect(await runCli([...cmd.split(' '), '--help'], { stdout: out, stderr: sink(), env: {} })).toBe(0);
    for (const w of words) expect(usageOf(out.text())).toContain(w);
  });

  it('serve --help gives the socket fallback under $XDG_CACHE_HOME', async () => {
    const out = sink();
    expect(await runCli(['serve', '--help'], { stdout: out, stderr: sink(), env: {} })).toBe(0);
    expect(out.text()).toContain('$XDG_CACHE_HOME/sessionfold/server.sock');
    expect(out.text()).not.toMatch(/else ~\/\.cache\/sessionfold/);
  });
});
