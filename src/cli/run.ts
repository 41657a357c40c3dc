/**
 * `runCli(argv, io)`: the whole CLI as a function (tests call it with fake streams; main.cts calls it with the
 * process's). `sessionfold <command> [...]`; `sessionfold --help` lists commands.
 */
import { COMMANDS } from './commands.js';
import { sessionfoldVersion } from '../../cursors/versions.js';

/** The executable caps malloc arenas before the engines start (cursors/native.ts); re-exported so it comes from the same modules as the CLI. */
export { limitMallocArenasOnLoad } from '../../cursors/native.js';
import { CliError, formatUsage, parseCommandArgs, reportError, type CommandDef } from './command.js';

export async function runCli(
  argv: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv } = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  },
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(topUsage());
    return name === undefined ? 1 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${sessionfoldVersion()}\n`);
    return 0;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    io.stderr.write(`error USAGE_ERROR: unknown command "${name}"\n\n${topUsage()}`);
    return 1;
  }
  let def: CommandDef = (await entry.load()).default;
  let prefix = `sessionfold ${name}`;
  let args = rest;
  while (def.subCommands) {
    const [sub, ...more] = args;
    if (sub === undefined || sub === '--help' || sub === '-h') {
      io.stdout.write(formatUsage(def, prefix));
      return sub === undefined ? 1 : 0;
    }
    const load = def.subCommands[sub];
    if (!load) {
      io.stderr.write(`error USAGE_ERROR: unknown command "${name} ${sub}"\n\n${formatUsage(def, prefix)}`);
      return 1;
    }
    def = (await load()).default;
    prefix = `${prefix} ${sub}`;
    args = more;
  }
  const usage = formatUsage(def, prefix);
  try {
    const { positionals, values } = parseCommandArgs(def, args);
    if (values.help === true) {
      io.stdout.write(usage);
      return 0;
    }
    const ctx = { positionals, values, stdout: io.stdout, stderr: io.stderr, env: io.env };
    // A served command computes its data, then renders it here, as its serve client does (served.ts).
    if (def.compute !== undefined && def.render !== undefined) return def.render((await def.compute(ctx)) as never, io);
    if (!def.run) throw new CliError('USAGE_ERROR', `"${prefix}" needs a sub-command`);
    const code = await def.run(ctx);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    // The usage helps with a mistake in the command line only; a server not running or a session not found is no such mistake.
    return reportError(e, io.stderr, e instanceof CliError && (e.code === 'USAGE_ERROR' || e.code === 'INVALID_OPTION') ? usage : undefined);
  }
}

function topUsage(): string {
  const lines = ['Usage: sessionfold <command> [options]', '', 'Commands:'];
  for (const [n, c] of Object.entries(COMMANDS)) lines.push(`  ${n.padEnd(10)} ${c.description}`);
  lines.push('', 'Run `sessionfold <command> --help` for a command\'s options.');
  return lines.join('\n') + '\n';
}

