/**
 * The client's side of `sessionfold serve` (src/serve/): `runServedCommand`, what the executable runs first:
 * the command sent to the server, its data rendered here by the command's own render step, for this process's
 * terminal, colors and time zone, so the output is the local run's byte for byte. Loads only the client and,
 * while the server computes, the command's renderer. The server's side is served-compute.ts: nothing here
 * names a command module, so the client's bundle (front.ts) holds none.
 */
import { runServed, type ClientIo } from '../serve/client.js';
import { SERVED_COMMANDS } from '../serve/protocol.js';
import type { RenderIo } from './render/io.js';

/**
 * The served commands' render steps (protocol.ts, SERVED_COMMANDS), each loaded on its own (no scan, no
 * registry) so the client stays light.
 */
const SERVED: Record<string, { render: () => Promise<(data: never, io: RenderIo) => number> }> = {
  'cost report': { render: async () => (await import('./render/cost-report.js')).renderCostReport },
  'sessions list': { render: async () => (await import('./render/sessions-list.js')).renderSessionList },
  statusline: { render: async () => (await import('./render/statusline.js')).renderStatusLineAnswer },
};

/** The served command `argv` starts with (its words, as SERVED_COMMANDS lists them) and its arguments. */
export function servedOf(argv: readonly string[]): { key: string; args: string[] } | undefined {
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
