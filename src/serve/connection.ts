/**
 * `Connections`: the server's side of each client connection. It reads the one request line within its
 * bounds (MAX_REQUEST_BYTES, REQUEST_DEADLINE_MS, MAX_CLIENTS at once), validates it (`isRequest`, the
 * protocol version and build, a served command), hands it on, and frames the answer (protocol.ts): a status,
 * a command's STARTED and DATA, or REFUSED with its reason.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { buildId, encodeFrame, FRAME, isServed, PROTOCOL_VERSION, type ServeRequest, type ServerStatus } from './protocol.js';

/** A request line longer than this is refused (argv, cwd and an environment: kilobytes). */
const MAX_REQUEST_BYTES = 1 << 20;
/** A client that has not sent its whole request line by then is dropped. */
const REQUEST_DEADLINE_MS = 5_000;
/** Clients at once; more are closed on arrival (and run locally). Bounds the memory requests can hold. */
const MAX_CLIENTS = 64;

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Whether a parsed request line has a request's shape (anything else, `null` included, is refused). */
export function isRequest(v: unknown): v is ServeRequest {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  if (typeof r.v !== 'number' || typeof r.build !== 'string') return false;
  if (r.status === true) return true;
  if (!isStrings(r.argv) || typeof r.cwd !== 'string' || r.env === null || typeof r.env !== 'object' || Array.isArray(r.env)) return false;
  return Object.values(r.env).every((x) => typeof x === 'string');
}

/** Computes a served command's answer: plain JSON-serializable data. */
export type Compute = () => Promise<unknown>;

/** A client waiting for a command's answer, and its phases so far (for the trace). */
export interface Waiter {
  socket: Socket;
  phases: Phases;
}

/**
 * A command's answer on its way: `delivered` resolves to the clients its last frame (DATA, or REFUSED when
 * the compute step threw: `failed`) was written to. A client that left meanwhile (past its deadline it runs
 * the command itself) is not among them. Settles apart from the queue: a client slow to read holds no job.
 */
export type Answered = { delivered: Promise<Waiter[]>; failed?: string };

/**
 * When each phase of one served command ended (performance.now(), ms), for the server's trace
 * (SESSIONFOLD_SERVE_TRACE): connection accepted, request line read, job started by the queue, data computed,
 * answer encoded.
 */
export interface Phases {
  accepted: number;
  line: number;
  started?: number;
  computed?: number;
  encoded?: number;
}

/** The phases as one log clause: how long each took. */
export function phaseText(p: Phases): string {
  const d = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? '-' : (b - a).toFixed(1));
  return `read ${d(p.accepted, p.line)}, queued ${d(p.line, p.started)}, compute ${d(p.started, p.computed)}, encode ${d(p.computed, p.encoded)} ms`;
}

/**
 * Write `frame` as the last thing on `socket`: true once written. False when the client is gone: its socket
 * destroyed, or the write failing (EPIPE: it closed before this process, busy or stopped, saw it). A client
 * that leaves after the bytes reached its side, unread, still counts: only an acknowledgement could tell.
 */
function endWith(socket: Socket, frame: Buffer): Promise<boolean> {
  if (socket.destroyed || !socket.writable) return Promise.resolve(false);
  return new Promise((resolve) => socket.end(frame, (err?: Error | null) => resolve(err == null)));
}

/**
 * Answer one command for every client in `waiters` (identical requests, see server.ts): STARTED to each, one
 * `compute`, then the same DATA frame to each, or REFUSED when it throws (the client runs the command locally,
 * and a local run reports the error as it always does). Undefined, nothing computed and nothing sent, when
 * every client gave up waiting (they ran locally); `delivered` says which clients the answer reached.
 */
export async function answerCommand(waiters: readonly Waiter[], compute: Compute): Promise<Answered | undefined> {
  const live = waiters.filter((w) => !w.socket.destroyed);
  if (live.length === 0) return undefined;
  const started = encodeFrame(FRAME.started, '');
  const t = performance.now();
  for (const w of live) {
    w.phases.started = t;
    w.socket.write(started);
  }
  let frame: Buffer;
  let failed: string | undefined;
  try {
    const data = await compute();
    const computed = performance.now();
    frame = encodeFrame(FRAME.data, JSON.stringify({ data }));
    const encoded = performance.now();
    for (const w of live) Object.assign(w.phases, { computed, encoded });
  } catch (e) {
    failed = (e as Error)?.message ?? String(e);
    frame = encodeFrame(FRAME.refused, JSON.stringify({ reason: `the command failed on the server (${failed})` }));
  }
  const sent = live.map(async (w) => ((await endWith(w.socket, frame)) ? [w] : []));
  const delivered = Promise.all(sent).then((reached) => reached.flat());
  return failed === undefined ? { delivered } : { delivered, failed };
}

/** What the server does with a valid request. */
export interface RequestHandlers {
  status(): ServerStatus;
  /** Queue the served command `req` for `socket` (answerCommand answers it); `phases` so far, for the trace. */
  command(socket: Socket, req: ServeRequest, phases: Phases): void;
}

export class Connections {
  readonly server: Server;
  readonly #clients = new Set<Socket>();
  readonly #handlers: RequestHandlers;
  readonly #stats: { refused: number };
  readonly #log: (line: string) => void;

  constructor(handlers: RequestHandlers, stats: { refused: number }, log: (line: string) => void) {
    this.#handlers = handlers;
    this.#stats = stats;
    this.#log = log;
    this.server = createServer((socket) => this.#accept(socket));
    this.server.maxConnections = MAX_CLIENTS;
  }

  /** Drop every client still connected (their commands are abandoned: they run locally or say so). */
  dropAll(): void {
    for (const c of this.#clients) c.destroy();
  }

  #refuse(socket: Socket, reason: string): void {
    this.#stats.refused++;
    this.#log(`refused: ${reason}`);
    socket.end(encodeFrame(FRAME.refused, JSON.stringify({ reason })));
  }

  /** Collect the request line, within its size and time bounds, then dispatch it. */
  #accept(socket: Socket): void {
    const accepted = performance.now();
    this.#clients.add(socket);
    socket.on('close', () => this.#clients.delete(socket));
    const chunks: Buffer[] = [];
    let length = 0;
    socket.on('error', () => socket.destroy());
    // Until the request line is in: a client that sends it slowly, or never, is dropped.
    socket.setTimeout(REQUEST_DEADLINE_MS, () => {
      socket.off('data', onData);
      this.#stats.refused++;
      this.#log('refused: request not sent in time');
      socket.destroy();
    });
    const onData = (chunk: Buffer): void => {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        chunks.push(chunk);
        length += chunk.length;
        if (length > MAX_REQUEST_BYTES) {
          socket.off('data', onData);
          chunks.length = 0;
          this.#refuse(socket, 'request too long');
        }
        return;
      }
      socket.off('data', onData);
      socket.setTimeout(0);
      if (length + nl > MAX_REQUEST_BYTES) return this.#refuse(socket, 'request too long');
      chunks.push(chunk.subarray(0, nl));
      let req: unknown;
      try {
        req = JSON.parse(Buffer.concat(chunks).toString());
      } catch {
        return this.#refuse(socket, 'unreadable request');
      }
      chunks.length = 0;
      try {
        this.#dispatch(socket, req, { accepted, line: performance.now() });
      } catch (e) {
        this.#refuse(socket, `bad request (${(e as Error).message})`);
      }
    };
    socket.on('data', onData);
  }

  /** Refuse what is not a request of this build for a served command; answer a status at once. */
  #dispatch(socket: Socket, req: unknown, phases: Phases): void {
    if (!isRequest(req)) return this.#refuse(socket, 'not a request');
    if (req.v !== PROTOCOL_VERSION || req.build !== buildId()) return this.#refuse(socket, `another build (${String(req.build)})`);
    if (req.status === true) {
      socket.end(encodeFrame(FRAME.data, JSON.stringify({ data: this.#handlers.status() })));
      return;
    }
    if (!Array.isArray(req.argv) || !isServed(req.argv) || typeof req.cwd !== 'string' || req.env === null || typeof req.env !== 'object') {
      return this.#refuse(socket, 'not a served command');
    }
    this.#handlers.command(socket, req, phases);
  }
}
