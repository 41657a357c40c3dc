/**
 * `sessionfold serve`: keep a resident server answering `cost report` and `sessions list` for every CLI run
 * of the same build (src/serve/). It runs in the foreground until SIGINT or SIGTERM; `--quiet` drops its log.
 */
import { serverStatus } from '../../serve/client.js';
import { getSocketPath } from '../../serve/protocol.js';
import { startServer, type ServedCompute } from '../../serve/server.js';
import { bool, CliError, defineCommand, str, type CommandContext } from '../command.js';
import { computeServed } from '../served-compute.js';

export default defineCommand({
  name: 'serve',
  description: 'Answer `cost report`, `sessions list` and `statusline` from a resident process that watches your agent folders',
  usage: '',
  options: {
    socket: { type: 'string', description: 'Socket path (default $SESSIONFOLD_SOCKET, else $XDG_RUNTIME_DIR/sessionfold.sock, else $XDG_CACHE_HOME/sessionfold/server.sock, XDG_CACHE_HOME defaulting to ~/.cache)', valueName: '<path>' },
    sweep: { type: 'string', description: 'List every folder again this often, for changes notifications missed (default 30; 0: never)', valueName: '<seconds>' },
    quiet: { type: 'boolean', description: 'Print nothing after start-up' },
    status: { type: 'boolean', description: 'Print the running server\'s state as JSON (exit 1 when none answers) and exit' },
  },
  run: (ctx) => serveUntilSignal(ctx, computeServed),
});

/** Serve until SIGINT, SIGTERM or SIGHUP, answering with `compute` (the CLI's compute steps; tests give another). */
export async function serveUntilSignal(ctx: CommandContext, compute: ServedCompute): Promise<number> {
  if (ctx.positionals.length > 0) throw new CliError('USAGE_ERROR', `unexpected argument "${ctx.positionals[0]}"`);
  const socket = str(ctx, 'socket') ?? getSocketPath(ctx.env);
  if (socket === undefined) throw new CliError('INVALID_OPTION', 'SESSIONFOLD_SOCKET is "off": give --socket <path>');
  if (bool(ctx, 'status')) {
    const r = await serverStatus(socket);
    if ('reason' in r) throw new CliError('IO_ERROR', r.reason);
    ctx.stdout.write(`${JSON.stringify(r.status, null, 2)}\n`);
    return 0;
  }
  const sweepText = str(ctx, 'sweep') ?? '30';
  const sweep = Number(sweepText);
  if (!Number.isFinite(sweep) || sweep < 0) throw new CliError('INVALID_OPTION', `Invalid option --sweep: expected seconds ≥ 0, got "${sweepText}"`);
  // SESSIONFOLD_SERVE_TRACE=1: each served command's phases on its log line (the log kept even with --quiet).
  const trace = ctx.env.SESSIONFOLD_SERVE_TRACE === '1';
  const quiet = bool(ctx, 'quiet') && !trace;
  const log = (line: string) => ctx.stderr.write(`${line}\n`);
  const server = await startServer({ socket, compute, sweepMs: sweep * 1000, trace, ...(!quiet && { log }) });
  ctx.stderr.write(`sessionfold serve: listening on ${server.socket} (SESSIONFOLD_SOCKET=${server.socket} for clients with another environment)\n`);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  await new Promise<void>((resolve) => {
    const stop = () => {
      for (const sig of signals) process.off(sig, stop);
      resolve();
    };
    for (const sig of signals) process.on(sig, stop);
  });
  const drained = await server.close();
  if (!quiet) ctx.stderr.write(`sessionfold serve: stopped (${server.stats.served} served, ${server.stats.refreshes} refreshes${drained ? '' : '; a command still running was dropped'})\n`);
  // A command blocked in the kernel (an open that never returns) holds a libuv thread, which even
  // process.exit() waits to join: end the process by the signal's default action instead (the socket is
  // already gone).
  if (!drained) process.kill(process.pid, 'SIGTERM');
  return 0;
}
