/**
 * The CLI's two sides of `sessionfold serve` (src/serve/): `computeServed`, what the server is given to answer
 * a served command with (the command's arguments parsed and its compute step run: plain data, no text), and
 * `runServedCommand`, what the executable runs first: the command sent to the server, its data rendered here
 * by the command's own render step, for this process's terminal, colors and time zone, so the output is the
 * local run's byte for byte. Loads only the client and, while the server computes, the command's renderer.
 */
import { runServed, type ClientIo } from '../serve/client.js';
import { SERVED_COMMANDS } from '../serve/protocol.js';
import type { CommandDef } from './command.js';
import type { RenderIo } from './render/io.js';

/**
 * The served commands (protocol.ts, SERVED_COMMANDS): each one's command module (its compute step, which the
 * server runs) and its render step, loaded on its own (no scan, no registry) so the client stays light.
 */
const SERVED: Record<string, { command: () => Promise<{ default: CommandDef }>; render: () => Promise<(data: never, io: RenderIo) => number> }> = {
  'cost report': { command: () => import('./commands/cost-report.js'), render: async () => (await import('./render/cost-report.js')).renderCostReport },
  'sessions list': { command: () => import('./commands/sessions-list.js'), render: async () => (await import('./render/sessions-list.js')).renderSessionList },
  statusline: { command: () => import('./commands/statusline.js'), render: async () => (await import('./render/statusline.js')).renderStatusLineAnswer },
};

/** The served command `argv` starts with (its words, as SERVED_COMMANDS lists them) and its arguments. */
function servedOf(argv: readonly string[]): { key: string; args: string[] } | undefined {
  const words = SERVED_COMMANDS.find((w) => w.every((x, i) => argv[i] === x));
  return words === undefined ? undefined : { key: words.join(' '), args: argv.slice(words.length) };
}

/**
 * Run `argv` through the server: its exit code once rendered here, or undefined when the caller must run it
 * locally (no server, another build, a refusal, a deadline passed, or a command the server could not answer).
 */
export async function runServedCommand(argv: string[], io: ClientIo): Promise<number | undefined> {
  const found = servedOf(argv);
  const served = found === undefined ? undefined : SERVED[found.key];
  if (served === undefined) return undefined;
  // The render step loads while the server computes (once a server listens): its modules then cost no wall time.
  let render: ReturnType<typeof served.render> | undefined;
  const answer = await runServed(argv, io, () => {
    render = served.render();
    render.catch(() => undefined); // awaited below only with an answer; a local run reports its own errors
  });
  if (answer === undefined) return undefined;
  return (await (render ?? served.render()))(answer.data as never, io);
}

/**
 * A served command's compute step, for the server: `argv` parsed as the CLI parses it, then the command's
 * `compute`. Throws on anything a local run would report (a usage error, an unknown agent): the server then
 * refuses, and the client runs the command locally, which reports it exactly.
 */
export async function computeServed(argv: string[], env: NodeJS.ProcessEnv): Promise<unknown> {
  const found = servedOf(argv);
  const served = found === undefined ? undefined : SERVED[found.key];
  const def = served === undefined ? undefined : (await served.command()).default;
  if (found === undefined || def?.compute === undefined) throw new Error(`"${argv.slice(0, 2).join(' ')}" is not a served command`);
  const { args } = found;
  // the parser on first use: the client (runServedCommand) never needs it
  const { parseCommandArgs } = await import('./command.js');
  const { positionals, values } = parseCommandArgs(def, args);
  const quiet = { write: () => true } as unknown as NodeJS.WritableStream; // no terminal: no progress bar
  return def.compute({ positionals, values, stdout: quiet, stderr: quiet, env });
}
