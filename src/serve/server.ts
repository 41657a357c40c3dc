/**
 * `startServer`: the resident side of `sessionfold serve`. It answers served commands (protocol.ts) with data:
 * it runs only their compute step (the `compute` it is given: the CLI's `computeServed`, the caller's argv
 * parsed and computed in the caller's environment and working folder; given, not imported, so the server sits
 * below the CLI and renders nothing), in a process that has its modules loaded, its JIT warm, and a discovery
 * cache fed by file-system notifications (watch.ts) instead of a stat of every file per run. The client
 * renders the data with the command's own render step, so answers equal a local run's; only the time differs.
 *
 * The units, each with its own state:
 * - `Connections` (connection.ts): one per server; reads each client's request line within its bounds
 *   (size, deadline, clients at once), validates it, and frames the answer or the refusal.
 * - `CommandQueue` (queue.ts): one command runs at a time: the event cache, the fold snapshots, the working
 *   folder and the time zone (`process.env.TZ`, the client's or the system's) are the process's own, and a
 *   second process using the cache at the same time is handled as ever (WAL). A command that stalls past
 *   `stallMs` no longer holds up the next. Identical requests waiting for the queue share one compute (a
 *   batch): a client never waits behind copies of its own request queued before it.
 * - `WorkAhead` (queue.ts): when files change, the server re-runs its recent distinct commands (REFRESH_LIMIT)
 *   with their data dropped, one per turn of the queue, so their fold snapshots already hold the change
 *   when a client asks again; a client that asks meanwhile waits for one refresh at most, then takes the
 *   stored answer.
 * - `claimSocketPath` and `OwnSocket` (socket-file.ts): the lifecycle of the socket file: claimed at start,
 *   bound without replacing anything, removed at close and at process exit. (SIGINT and SIGTERM are the CLI
 *   command's: they call `close()`.)
 * - This file: `runAsClient` computes one command in the client's folder and time zone (what parses dates
 *   and relative paths); before it the event loop turns once, so every change event already queued by the
 *   kernel (a write that finished before the client asked) is read before discovery. `startServer` wires
 *   the units together with the periodic sweep (`sweepMs`: every source listed again, the safety net for
 *   notifications a network file system or an overflowed kernel queue never delivered) and `close()`.
 *
 * Cache connections stay open between commands (db.ts `setConnectionReuse`), and with them the file rows
 * already loaded (store.ts, the row memo), which no write by another process has made stale.
 */
import type { Socket } from 'node:net';
import { setConnectionReuse } from '../cache/db.js';
import { setDiscoveryCache } from '../scan/discover.js';
import { answerCommand, Connections, phaseText, type Phases, type Waiter } from './connection.js';
import { buildId, type ServeRequest, type ServerStatus } from './protocol.js';
import { CommandQueue, delay, WorkAhead } from './queue.js';
import { claimSocketPath, OwnSocket } from './socket-file.js';
import { WatchedDiscovery, type WatchStats } from './watch.js';

export { isRequest } from './connection.js';
export { REFRESH_LIMIT } from './queue.js';

/**
 * A command still running after this no longer holds up the queue: the next one starts (the stalled one
 * goes on; its client has long since run locally, see client.ts).
 */
const STALL_MS = 10_000;
/** How long stopping waits for a running command before it drops it. */
const STOP_GRACE_MS = 500;

/**
 * A served command's compute step: `argv` in the environment `env`, to plain JSON-serializable data (what the
 * client renders). Throws on what a local run reports as an error (the client then runs it locally).
 */
export type ServedCompute = (argv: string[], env: NodeJS.ProcessEnv) => Promise<unknown>;

export interface ServerOptions {
  socket: string;
  /** What computes a served command: the CLI's `computeServed`. */
  compute: ServedCompute;
  /** One line per served command and refresh (default: none). */
  log?: (line: string) => void;
  /** List every source again this often (ms; default 30 s; 0: never). */
  sweepMs?: number;
  /**
   * Answer discovery from file-system notifications (default: on Linux only, where inotify makes it exact);
   * off, every command lists and stats the roots as a local run does.
   */
  watch?: boolean;
  /** A command running longer than this no longer holds up the next (ms; default STALL_MS). */
  stallMs?: number;
  /** Add each served command's phases (read, queued, compute, encode) to its log line (default: off). */
  trace?: boolean;
  /** Wait this long after a change before working ahead (ms; default 0: the next turn of the event loop, which already coalesces the events of one write burst). */
  refreshDelayMs?: number;
}

export interface ServerHandle {
  readonly socket: string;
  readonly stats: { served: number; refused: number; failed: number; refreshes: number; discovery: WatchStats };
  /** Stop: true when every command had finished, false when one was still running after STOP_GRACE_MS. */
  close(): Promise<boolean>;
}

function setTz(tz: string | undefined): void {
  if (process.env.TZ === tz) return;
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
}

/** Compute `req` in the client's working folder and time zone, then restore the server's own (`home`). */
async function runAsClient(compute: ServedCompute, home: string, req: ServeRequest): Promise<unknown> {
  await new Promise<void>((r) => setImmediate(r)); // read every change event the kernel already queued
  process.chdir(req.cwd); // throws when the server cannot enter it: the client runs the command itself
  // The client's zone for what formats in local time (`sessions list` dates): its TZ, else the system's.
  // (Each change of process.env.TZ makes V8 and ICU look the zone up again: only when it differs.)
  const tz = process.env.TZ;
  setTz(req.env.TZ);
  try {
    return await compute(req.argv, req.env);
  } finally {
    process.chdir(home);
    setTz(tz);
  }
}

export async function startServer(options: ServerOptions): Promise<ServerHandle> {
  const path = options.socket;
  const log = options.log ?? (() => {});
  await claimSocketPath(path);

  const stats: ServerHandle['stats'] = { served: 0, refused: 0, failed: 0, refreshes: 0, discovery: { cached: 0, relisted: 0, full: 0, restats: 0, watched: 0 } };
  const home = process.cwd();
  const startedAt = Date.now();
  const compute = (req: ServeRequest): Promise<unknown> => runAsClient(options.compute, home, req);

  const queue = new CommandQueue(options.stallMs ?? STALL_MS);
  const refresh = async (req: ServeRequest): Promise<void> => {
    await compute(req);
    stats.refreshes++;
  };
  const ahead = new WorkAhead(queue, refresh, log, options.refreshDelayMs ?? 0);

  const watched = new WatchedDiscovery(() => ahead.schedule());
  stats.discovery = watched.stats;
  // Only inotify queues an event before the write returns (the exactness argument, watch.ts). Elsewhere
  // (macOS FSEvents delivers after a latency) every command lists and stats as a local run does.
  const watching = options.watch ?? process.platform === 'linux';
  if (watching) setDiscoveryCache(watched);
  setConnectionReuse(true);

  const status = (): ServerStatus => ({
    socket: path,
    build: buildId(),
    pid: process.pid,
    uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
    served: stats.served,
    refused: stats.refused,
    failed: stats.failed,
    refreshes: stats.refreshes,
    recent: ahead.commands().map((r) => r.argv.join(' ')),
    watching,
    discovery: { ...watched.stats },
  });
  // Identical requests (same argv, folder and environment) queued and not yet started: one batch, answered
  // by one compute when the queue reaches it. Each client in it asked before that compute began, so the
  // answer it gets is computed after its request, as its own run in the queue would be, and equal to it.
  const batches = new Map<string, Waiter[]>();
  const command = (socket: Socket, req: ServeRequest, phases: Phases): void => {
    const key = WorkAhead.key(req);
    ahead.takeOver(key);
    const queued = batches.get(key);
    if (queued !== undefined) {
      queued.push({ socket, phases });
      return;
    }
    const batch: Waiter[] = [{ socket, phases }];
    batches.set(key, batch);
    void queue.enqueue(async () => {
      batches.delete(key); // from here on, an identical request waits for the next compute
      const t = performance.now();
      const result = await answerCommand(batch, () => compute(req));
      if (result === undefined) return; // every client gave up waiting (they ran locally)
      if (result.failed === undefined) ahead.remember(key, req);
      const what = req.argv.slice(0, 2).join(' ');
      const ms = (performance.now() - t).toFixed(0);
      // Counted once the answer is written: a client that left first ran the command itself (not served).
      void result.delivered.then((answered) => {
        const gone = batch.length - answered.length;
        if (gone > 0) log(`${what}: ${gone} of ${batch.length} clients left before the answer (they ran it themselves)`);
        const shared = answered.length > 1 ? `, one compute for ${answered.length} clients` : '';
        for (const w of answered) {
          if (result.failed !== undefined) {
            stats.failed++;
            log(`failed ${what} in ${ms} ms, the client runs it (${result.failed})`);
            continue;
          }
          stats.served++;
          log(`served ${what} in ${ms} ms${shared}${options.trace ? ` (${phaseText(w.phases)})` : ''}`);
        }
      });
    });
  };
  const connections = new Connections({ status, command }, stats, log);
  const own = await OwnSocket.listen(connections.server, path);

  const sweepMs = options.sweepMs ?? 30_000;
  const sweep =
    sweepMs > 0
      ? setInterval(() => {
          watched.sweep();
          ahead.schedule();
        }, sweepMs)
      : undefined;

  return {
    socket: path,
    stats,
    async close() {
      if (sweep) clearInterval(sweep);
      const closed = new Promise<void>((r) => connections.server.close(() => r()));
      own.remove(); // no new client from here on
      // Commands still running get a moment; then their clients are dropped (they run locally or say so).
      const settled = queue.settled().then(() => true);
      const drained = await Promise.race([settled, delay(STOP_GRACE_MS).then(() => false)]);
      connections.dropAll();
      await closed;
      watched.close();
      setDiscoveryCache(undefined);
      setConnectionReuse(false);
      own.unhook();
      return drained;
    },
  };
}
