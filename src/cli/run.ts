/**
 * `runCli(argv, io)`: the whole CLI as a function (tests call it with fake streams; main.cts calls it with the
 * process's). `sessionfold <command> [...]`; `sessionfold --help` lists commands; `sessionfold help <command…>`
 * prints what `<command…> --help` prints.
 */
import { COMMANDS } from './commands.js';
import { sessionfoldVersion } from '../../cursors/versions.js';

/** The executable caps malloc arenas before the engines start (cursors/native.ts); re-exported so it comes from the same modules as the CLI. */
export { limitMallocArenasOnLoad } from '../../cursors/native.js';
import { CliError, formatUsage, parseCommandArgs, reportError, type CommandContext, type CommandDef } from './command.js';

type Io = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv };

/** What the first words of a command line name: a command to run with the words after it, or a group's usage. */
type Resolved = { def: CommandDef; prefix: string; args: string[] } | { group: string; sub: string | undefined; prefix: string; subs: string[] } | { unknown: string; usage: string };

/** A group's help, with what each of its sub-commands does (each loaded for its description: help only). */
async function groupUsage(def: CommandDef, prefix: string): Promise<string> {
  const subs = Object.entries(def.subCommands ?? {});
  const descriptions = await Promise.all(subs.map(async ([name, load]) => [name, (await load()).default.description] as const));
  return formatUsage(def, prefix, Object.fromEntries(descriptions));
}

/** The command `words` start with: a top-level command, then its sub-commands while it has them. */
async function resolve(words: string[]): Promise<Resolved> {
  const [name, ...rest] = words;
  const entry = name === undefined ? undefined : COMMANDS[name];
  if (entry === undefined) return { unknown: name ?? '', usage: topUsage() };
  let def: CommandDef = (await entry.load()).default;
  let prefix = `sessionfold ${name}`;
  let args = rest;
  while (def.subCommands) {
    const [sub, ...more] = args;
    if (sub === undefined || sub === '--help' || sub === '-h') return { group: await groupUsage(def, prefix), sub, prefix, subs: Object.keys(def.subCommands) };
    const load = def.subCommands[sub];
    if (!load) return { unknown: `${prefix.slice('sessionfold '.length)} ${sub}`, usage: await groupUsage(def, prefix) };
    def = (await load()).default;
    prefix = `${prefix} ${sub}`;
    args = more;
  }
  return { def, prefix, args };
}

const unknownCommand = (r: { unknown: string; usage: string }, io: Io): number => {
  io.stderr.write(`error USAGE_ERROR: unknown command "${r.unknown}"\n\n${r.usage}`);
  return 1;
};

/** `help [command…]`: the usage `command… --help` prints, or the command list without one. */
async function help(words: string[], io: Io): Promise<number> {
  if (words.length === 0 || (words.length === 1 && (words[0] === 'help' || words[0] === '--help' || words[0] === '-h'))) {
    io.stdout.write(topUsage());
    return 0;
  }
  const r = await resolve(words);
  if ('unknown' in r) return unknownCommand(r, io);
  if ('group' in r) {
    io.stdout.write(r.group);
    return 0;
  }
  if (r.args.length > 0) return unknownCommand({ unknown: words.join(' '), usage: formatUsage(r.def, r.prefix) }, io);
  io.stdout.write(formatUsage(r.def, r.prefix));
  return 0;
}

export async function runCli(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(`error USAGE_ERROR: no command given\n\n${topUsage()}`);
    return 1;
  }
  if (name === '--help' || name === '-h') {
    io.stdout.write(topUsage());
    return 0;
  }
  if (name === 'help') return help(rest, io);
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${sessionfoldVersion()}\n`);
    return 0;
  }
  const r = await resolve(argv);
  if ('unknown' in r) return unknownCommand(r, io);
  if ('group' in r) {
    if (r.sub !== undefined) {
      io.stdout.write(r.group);
      return 0;
    }
    io.stderr.write(`error USAGE_ERROR: "${r.prefix}" needs a command: ${r.subs.join(', ')}\n\n${r.group}`);
    return 1;
  }
  return runCommand(r.def, r.prefix, r.args, io);
}

/** Run one (leaf) command with its arguments; its exit code. */
async function runCommand(def: CommandDef, prefix: string, args: string[], io: Io): Promise<number> {
  const usage = formatUsage(def, prefix);
  let given: CommandContext['values'] | undefined;
  try {
    const { positionals, values } = parseCommandArgs(def, args);
    given = values;
    if (values.help === true) {
      io.stdout.write(usage);
      return 0;
    }
    // A command with no operands takes none: a stray word is a mistake, not a filter silently ignored.
    if (def.usage === '' && positionals.length > 0) throw new CliError('USAGE_ERROR', `unexpected argument "${positionals[0]}"`);
    const ctx = { positionals, values, stdout: io.stdout, stderr: io.stderr, env: io.env };
    // A served command computes its data, then renders it here, as its serve client does (served.ts).
    if (def.compute !== undefined && def.render !== undefined) return def.render((await def.compute(ctx)) as never, io);
    if (!def.run) throw new CliError('USAGE_ERROR', `"${prefix}" needs a sub-command`);
    const code = await def.run(ctx);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    // The usage helps with a mistake in the command line only (reportError tells); a server not running or a session not found is no such mistake.
    return reportError(e, io.stderr, usage, given);
  }
}

function topUsage(): string {
  const lines = ['Usage: sessionfold <command> [options]', '', 'Commands:'];
  for (const [n, c] of Object.entries(COMMANDS)) lines.push(`  ${n.padEnd(10)} ${c.description}`);
  lines.push('', 'Run `sessionfold <command> --help` (or `sessionfold help <command>`) for a command\'s options.');
  return lines.join('\n') + '\n';
}
