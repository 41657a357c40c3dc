/**
 * `startServer`: the resident side of `sessionfold serve`. It answers served commands (protocol.ts) by running
 * the very CLI code a local run would (the `run` it is given: the CLI's `runCli`, with the caller's argv,
 * environment and working folder; given, not imported, so the server sits below the CLI), in
 * a process that has its modules loaded, its JIT warm, and a discovery cache fed by file-system notifications
 * (watch.ts) instead of a stat of every file per run. Answers equal a local run's; only the time differs.
 *
 * - One command runs at a time (a queue): the event cache, the fold snapshots, the working folder and the
 *   time zone (`process.env.TZ`, the client's or the system's) are the process's own, and a second process
 *   using the cache at the same time is handled as ever (WAL). The client's stdout and stderr are mirrored
 *   as terminals of its width, or not, so colors, the progress bar and table widths follow the client.
 * - Before each command the server lets the event loop turn once, so every change event already queued by
 *   the kernel (a write that finished before the client asked) is read before discovery.
 * - Work ahead: when files change, the server re-runs its recent distinct commands (REFRESH_LIMIT) with their
 *   output dropped, one per turn of the queue, so their fold snapshots already hold the change when a client
 *   asks again; a client that asks meanwhile waits for one refresh at most, then takes the stored answer.
 * - A periodic sweep (`sweepMs`) lists every source again, the safety net for notifications a network file
 *   system or an overflowed kernel queue never delivered.
 * - Cache connections stay open between commands (db.ts `setConnectionReuse`), and with them the file rows
 *   already loaded (store.ts, the row memo), which no write by another process has made stale.
 */
import { chmodSync, linkSync, lstatSync, mkdirSync, rmSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { setConnectionReuse } from '../cache/db.js';
import { setDiscoveryCache } from '../scan/discover.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { buildId, encodeFrame, FRAME, isServed, PROTOCOL_VERSION, type FrameKind, type ServeRequest, type ServerStatus, type StreamShape } from './protocol.js';
import { WatchedDiscovery, type WatchStats } from './watch.js';

/** Distinct recent commands the server keeps current after a change. */
export const REFRESH_LIMIT = 4;
/** A request line longer than this is refused (argv, cwd and an environment: kilobytes). */
const MAX_REQUEST_BYTES = 1 << 20;
/** A client that has not sent its whole request line by then is dropped. */
const REQUEST_DEADLINE_MS = 5_000;
/** Clients at once; more are closed on arrival (and run locally). Bounds the memory requests can hold. */
const MAX_CLIENTS = 64;
/**
 * A command still running after this no longer holds up the queue: the next one starts (the stalled one
 * goes on; its client has long since run locally, see client.ts).
 */
const STALL_MS = 10_000;
/** How long stopping waits for a running command before it drops it. */
const STOP_GRACE_MS = 500;

/** Runs one command as a local run would, writing to the given streams; resolves to its exit code. */
export type CommandRunner = (argv: string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv }) => Promise<number>;

export interface ServerOptions {
  socket: string;
  /** What answers a served command: the CLI's `runCli`. */
  run: CommandRunner;
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
  /** Wait this long after a change before working ahead (ms; default 0: the next turn of the event loop, which already coalesces the events of one write burst). */
  refreshDelayMs?: number;
}

export interface ServerHandle {
  readonly socket: string;
  readonly stats: { served: number; refused: number; refreshes: number; discovery: WatchStats };
  /** Stop: true when every command had finished, false when one was still running after STOP_GRACE_MS. */
  close(): Promise<boolean>;
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Whether a parsed request line has a request's shape (anything else, `null` included, is refused). */
export function isRequest(v: unknown): v is ServeRequest {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  if (typeof r.v !== 'number' || typeof r.build !== 'string') return false;
  if (r.status === true) return true;
  if (!isStrings(r.argv) || typeof r.cwd !== 'string' || r.env === null || typeof r.env !== 'object' || Array.isArray(r.env)) return false;
  if (!Object.values(r.env).every((x) => typeof x === 'string')) return false;
  const streams = r.streams as Record<string, unknown> | undefined;
  if (streams === undefined) return true;
  if (streams === null || typeof streams !== 'object') return false;
  for (const k of ['stdout', 'stderr']) {
    const sh = streams[k] as Record<string, unknown> | undefined;
    if (sh !== undefined && (sh === null || typeof sh !== 'object' || typeof sh.isTTY !== 'boolean' || (sh.columns !== undefined && typeof sh.columns !== 'number'))) return false;
  }
  return true;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/** Is something answering on `path`? */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/**
 * Make `path` free for the server's socket, removing only what is provably a dead server's: a socket of this
 * user that nothing answers on. Anything else there (a file, a folder, another user's socket) is never
 * touched: a coded error names it.
 */
async function claimSocketPath(path: string): Promise<void> {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) return;
  if (!st.isSocket()) throw new SessionfoldError('IO_ERROR', `${path} exists and is not a socket: serve leaves it alone (give --socket another path)`, { file: path });
  if (await answers(path)) throw new SessionfoldError('IO_ERROR', `a sessionfold server already listens on ${path}`, { file: path });
  if (process.getuid !== undefined && st.uid !== process.getuid()) throw new SessionfoldError('IO_ERROR', `${path} is another user's socket: serve leaves it alone`, { file: path });
  // left by a server that died; unless it was replaced meanwhile
  if (lstatSync(path, { throwIfNoEntry: false })?.ino === st.ino) unlinkSync(path);
}

/** Remove the socket at `path` when it is still the one this server bound (inode `ino`). */
function removeOwnSocket(path: string, ino: number | undefined): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined || !st.isSocket() || st.ino !== ino) return;
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** A client's stream: frames of `kind`, shaped as the client's own (a terminal of some width, or not). */
function frameStream(socket: Socket, kind: FrameKind, shape: StreamShape | undefined): Writable {
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      if (socket.destroyed) return cb();
      socket.write(encodeFrame(kind, chunk), () => cb());
    },
  });
  if (shape?.isTTY === true) Object.assign(w, { isTTY: true, ...(shape.columns !== undefined && { columns: shape.columns }) });
  return w;
}

function setTz(tz: string | undefined): void {
  if (process.env.TZ === tz) return;
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
}

const discard = (): Writable => new Writable({ write: (_c, _e, cb) => cb() });

export async function startServer(options: ServerOptions): Promise<ServerHandle> {
  const path = options.socket;
  const log = options.log ?? (() => {});
  await claimSocketPath(path);
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new SessionfoldError('IO_ERROR', `cannot create the folder of the socket ${path}: ${(e as Error).message}`, { file: path, cause: e });
  }

  const stats: ServerHandle['stats'] = { served: 0, refused: 0, refreshes: 0, discovery: { cached: 0, relisted: 0, full: 0, restats: 0, watched: 0 } };
  const recent = new Map<string, ServeRequest>();
  let queue: Promise<void> = Promise.resolve();
  /** Jobs still running (a stalled one included). */
  const running = new Set<Promise<void>>();
  // One at a time, but a job that stalls past STALL_MS lets the next one start.
  const enqueue = (job: () => Promise<void>): Promise<void> =>
    (queue = queue.then(() => {
      const p = job().catch(() => undefined);
      running.add(p);
      void p.finally(() => running.delete(p));
      return Promise.race([p, delay(options.stallMs ?? STALL_MS)]);
    }));
  const home = process.cwd();
  const startedAt = Date.now();

  async function run(req: ServeRequest, stdout: Writable, stderr: Writable): Promise<number> {
    await new Promise<void>((r) => setImmediate(r)); // read every change event the kernel already queued
    try {
      process.chdir(req.cwd);
    } catch {
      stderr.write(`error IO_ERROR: the server cannot enter ${req.cwd}\n`);
      return 1;
    }
    // The client's zone for what formats in local time (`sessions list` dates): its TZ, else the system's.
    // (Each change of process.env.TZ makes V8 and ICU look the zone up again: only when it differs.)
    const tz = process.env.TZ;
    setTz(req.env.TZ);
    try {
      return await options.run(req.argv, { stdout, stderr, env: req.env });
    } finally {
      process.chdir(home);
      setTz(tz);
    }
  }

  // Work ahead, one command per turn of the queue (most recent first), so a client that asks meanwhile waits
  // for one refresh at most; a client asking for a command still pending takes it over (its run does the work).
  const pending = new Set<string>();
  let draining = false;
  const drain = (): void => {
    let req: ServeRequest | undefined;
    while (req === undefined && pending.size > 0) {
      const key = [...pending].pop() as string;
      pending.delete(key);
      req = recent.get(key); // undefined: no longer among the recent ones
    }
    if (req === undefined) {
      draining = false;
      return;
    }
    const next = req;
    void enqueue(async () => {
      const t = performance.now();
      await run(next, discard(), discard());
      stats.refreshes++;
      log(`refreshed ${next.argv.slice(0, 2).join(' ')} in ${(performance.now() - t).toFixed(0)} ms`);
    })
      .catch((e: unknown) => log(`refresh failed: ${(e as Error).message}`))
      .finally(drain);
  };
  const scheduleRefresh = () => {
    for (const key of recent.keys()) pending.add(key);
    if (draining || pending.size === 0) return;
    draining = true;
    setTimeout(drain, options.refreshDelayMs ?? 0).unref();
  };

  const watched = new WatchedDiscovery(scheduleRefresh);
  stats.discovery = watched.stats;
  // Only inotify queues an event before the write returns (the exactness argument, watch.ts). Elsewhere
  // (macOS FSEvents delivers after a latency) every command lists and stats as a local run does.
  const watching = options.watch ?? process.platform === 'linux';
  if (watching) setDiscoveryCache(watched);
  setConnectionReuse(true);

  const refuse = (socket: Socket, reason: string) => {
    stats.refused++;
    log(`refused: ${reason}`);
    socket.end(encodeFrame(FRAME.refused, JSON.stringify({ reason })));
  };

  const serve = (socket: Socket, req: ServeRequest) => {
    if (!isRequest(req)) return refuse(socket, 'not a request');
    if (req.v !== PROTOCOL_VERSION || req.build !== buildId()) return refuse(socket, `another build (${String(req.build)})`);
    if (req.status === true) {
      const status: ServerStatus = {
        socket: path,
        build: buildId(),
        pid: process.pid,
        uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
        served: stats.served,
        refused: stats.refused,
        refreshes: stats.refreshes,
        recent: [...recent.values()].map((r) => r.argv.join(' ')),
        watching,
        discovery: { ...watched.stats },
      };
      socket.write(encodeFrame(FRAME.stdout, JSON.stringify(status)));
      socket.end(encodeFrame(FRAME.exit, JSON.stringify({ code: 0 })));
      return;
    }
    if (!Array.isArray(req.argv) || !isServed(req.argv) || typeof req.cwd !== 'string' || req.env === null || typeof req.env !== 'object') {
      return refuse(socket, 'not a served command');
    }
    const key = JSON.stringify([req.argv, req.cwd, req.env]);
    pending.delete(key);
    void enqueue(async () => {
      // A client that gave up waiting (it ran locally) is not answered.
      if (socket.destroyed) return;
      socket.write(encodeFrame(FRAME.started, ''));
      const t = performance.now();
      let code: number;
      try {
        code = await run(req, frameStream(socket, FRAME.stdout, req.streams?.stdout), frameStream(socket, FRAME.stderr, req.streams?.stderr));
      } catch (e) {
        socket.write(encodeFrame(FRAME.stderr, `error: ${(e as Error).stack ?? String(e)}\n`));
        code = 1;
      }
      socket.end(encodeFrame(FRAME.exit, JSON.stringify({ code })));
      stats.served++;
      recent.delete(key);
      recent.set(key, req);
      while (recent.size > REFRESH_LIMIT) recent.delete(recent.keys().next().value as string);
      log(`served ${req.argv.slice(0, 2).join(' ')} in ${(performance.now() - t).toFixed(0)} ms (exit ${code})`);
    });
  };

  const clients = new Set<Socket>();
  const server: Server = createServer((socket) => {
    clients.add(socket);
    socket.on('close', () => clients.delete(socket));
    const chunks: Buffer[] = [];
    let length = 0;
    socket.on('error', () => socket.destroy());
    // Until the request line is in: a client that sends it slowly, or never, is dropped.
    socket.setTimeout(REQUEST_DEADLINE_MS, () => {
      socket.off('data', onData);
      stats.refused++;
      log('refused: request not sent in time');
      socket.destroy();
    });
    const onData = (chunk: Buffer) => {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        chunks.push(chunk);
        length += chunk.length;
        if (length > MAX_REQUEST_BYTES) {
          socket.off('data', onData);
          chunks.length = 0;
          refuse(socket, 'request too long');
        }
        return;
      }
      socket.off('data', onData);
      socket.setTimeout(0);
      if (length + nl > MAX_REQUEST_BYTES) return refuse(socket, 'request too long');
      chunks.push(chunk.subarray(0, nl));
      let req: unknown;
      try {
        req = JSON.parse(Buffer.concat(chunks).toString());
      } catch {
        return refuse(socket, 'unreadable request');
      }
      chunks.length = 0;
      try {
        serve(socket, req as ServeRequest);
      } catch (e) {
        refuse(socket, `bad request (${(e as Error).message})`);
      }
    };
    socket.on('data', onData);
  });
  server.maxConnections = MAX_CLIENTS;

  // Bound under a name of its own, then linked into place: a link never replaces what appeared at `path`
  // meanwhile, and libuv's unlink at close removes only that name (the socket at `path` is removed by
  // close() only while it is still this one).
  const bound = join(dirname(path), `.sf${process.pid.toString(36)}${Math.random().toString(36).slice(2, 6)}`);
  const old = process.umask(0o177); // the socket is the user's alone: a request carries their environment
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(bound, () => resolve());
    });
  } finally {
    process.umask(old);
  }
  try {
    chmodSync(bound, 0o600);
    linkSync(bound, path);
  } catch (e) {
    await new Promise<void>((r) => server.close(() => r()));
    throw new SessionfoldError('IO_ERROR', `cannot make the socket ${path}: ${(e as Error).message}`, { file: path, cause: e });
  } finally {
    rmSync(bound, { force: true });
  }
  const socketIno = lstatSync(path).ino;
  // Whatever ends the process (an uncaught error, process.exit), the socket goes with it.
  const onExit = (): void => removeOwnSocket(path, socketIno);
  process.on('exit', onExit);

  const sweepMs = options.sweepMs ?? 30_000;
  const sweep =
    sweepMs > 0
      ? setInterval(() => {
          watched.sweep();
          scheduleRefresh();
        }, sweepMs)
      : undefined;

  return {
    socket: path,
    stats,
    async close() {
      if (sweep) clearInterval(sweep);
      const closed = new Promise<void>((r) => server.close(() => r()));
      removeOwnSocket(path, socketIno); // no new client from here on
      // Commands still running get a moment; then their clients are dropped (they run locally or say so).
      const settled = Promise.all([queue, ...running]).then(() => true);
      const drained = await Promise.race([settled, delay(STOP_GRACE_MS).then(() => false)]);
      for (const c of clients) c.destroy();
      await closed;
      watched.close();
      setDiscoveryCache(undefined);
      setConnectionReuse(false);
      process.off('exit', onExit);
      return drained;
    },
  };
}
