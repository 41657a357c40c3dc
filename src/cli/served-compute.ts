/**
 * The server's side of a served command (src/cli/served.ts has the client's): `computeServed`, what
 * `sessionfold serve` is given to answer with: the command's arguments parsed as the CLI parses them and its
 * compute step run, to plain data (no text), which the client renders.
 */
import { parseCommandArgs, type CommandDef } from './command.js';
import { keepJitDefaults } from './jit.js';
import { servedOf } from './served.js';

/** The served commands' modules (protocol.ts, SERVED_COMMANDS), whose compute step the server runs. */
const COMMANDS: Record<string, () => Promise<{ default: CommandDef }>> = {
  'cost report': () => import('./commands/cost-report.js'),
  'sessions list': () => import('./commands/sessions-list.js'),
  statusline: () => import('./commands/statusline.js'),
};

/**
 * A served command's compute step, for the server: `argv` parsed as the CLI parses it, then the command's
 * `compute`. Throws on anything a local run would report (a usage error, an unknown agent): the server then
 * refuses, and the client runs the command locally, which reports it exactly.
 */
export async function computeServed(argv: string[], env: NodeJS.ProcessEnv): Promise<unknown> {
  keepJitDefaults(); // a server keeps V8's defaults: the scan budget is for one-shot runs (jit.ts)
  const found = servedOf(argv);
  const command = found === undefined ? undefined : COMMANDS[found.key];
  const def = command === undefined ? undefined : (await command()).default;
  if (found === undefined || def?.compute === undefined) throw new Error(`"${argv.slice(0, 2).join(' ')}" is not a served command`);
  const { args } = found;
  const { positionals, values } = parseCommandArgs(def, args);
  const quiet = { write: () => true } as unknown as NodeJS.WritableStream; // no terminal: no progress bar
  return def.compute({ positionals, values, stdout: quiet, stderr: quiet, env });
}
