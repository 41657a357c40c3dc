/**
 * The CLI's side of `sessionfold serve`: a served command (protocol.ts, SERVED_COMMANDS) is sent to a running
 * server of the same build, which answers from its warm state; the output and exit code are the same as a
 * local run's. No socket, a stale one, another build, or a connection that fails before the reply starts:
 * undefined, and the CLI runs the command itself. Loads nothing but node:net and protocol.ts.
 */
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { buildId, FRAME, FrameReader, getSocketPath, isServed, OUTPUT_DEADLINE_MS, PROTOCOL_VERSION, startDeadlineMs, streamShape, type ServeRequest, type ServerStatus } from './protocol.js';

export interface ClientIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * Send one request and read its reply: `onFrame` sees each frame until it returns `{ done }`; a connection
 * that fails or ends first gives `onEnd(why)`.
 */
function exchange<T>(
  path: string,
  request: ServeRequest,
  onFrame: (kind: number, payload: Buffer) => { done: T } | undefined,
  onEnd: (why: string) => T,
  deadlineMs: number,
): Promise<T> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const reader = new FrameReader();
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (value: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    // Until the command starts (STARTED), then until its first output: past either deadline, onEnd.
    const wait = (ms: number, why: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(onEnd(why)), ms);
    };
    wait(deadlineMs, `no start within ${deadlineMs} ms`);
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: Buffer) => {
      for (const f of reader.push(chunk)) {
        if (f.kind === FRAME.started) {
          wait(OUTPUT_DEADLINE_MS, `no output within ${OUTPUT_DEADLINE_MS} ms`);
          continue;
        }
        clearTimeout(timer);
        const r = onFrame(f.kind, f.payload);
        if (r !== undefined) return finish(r.done);
      }
    });
    socket.on('error', (e) => !settled && finish(onEnd(e.message)));
    socket.on('close', () => !settled && finish(onEnd('connection closed')));
  });
}

/** Run `argv` on the server; the exit code, or undefined when the caller must run it locally. */
export function runServed(argv: string[], io: ClientIo): Promise<number | undefined> {
  if (!isServed(argv)) return Promise.resolve(undefined);
  const path = getSocketPath(io.env);
  if (path === undefined || !existsSync(path)) return Promise.resolve(undefined);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(io.env)) if (v !== undefined) env[k] = v;
  const streams = { stdout: streamShape(io.stdout), stderr: streamShape(io.stderr) };
  const request: ServeRequest = { v: PROTOCOL_VERSION, build: buildId(), argv, env, cwd: io.cwd, streams };
  let started = false;
  return exchange<number | undefined>(
    path,
    request,
    (kind, payload) => {
      if (kind === FRAME.refused) return { done: undefined };
      started = true;
      if (kind === FRAME.stdout) io.stdout.write(payload);
      else if (kind === FRAME.stderr) io.stderr.write(payload);
      else if (kind === FRAME.exit) return { done: (JSON.parse(payload.toString()) as { code: number }).code };
      return undefined;
    },
    // Before any output: run locally. After some: the output is half written, so say so and fail.
    (why) => {
      if (!started) return undefined;
      io.stderr.write(`error IO_ERROR: the sessionfold server went away mid-reply (${why})\n`);
      return 1;
    },
    startDeadlineMs(io.env),
  );
}

/**
 * The state of the server on `path`: its status, or why there is none to use (nothing listens, or a server
 * of another build, which refuses this client's commands).
 */
export function serverStatus(path: string): Promise<{ status: ServerStatus } | { reason: string }> {
  if (!existsSync(path)) return Promise.resolve({ reason: `no sessionfold server listens on ${path}` });
  const request: ServeRequest = { v: PROTOCOL_VERSION, build: buildId(), argv: [], env: {}, cwd: '/', streams: { stdout: { isTTY: false }, stderr: { isTTY: false } }, status: true };
  let out = '';
  return exchange<{ status: ServerStatus } | { reason: string }>(
    path,
    request,
    (kind, payload) => {
      if (kind === FRAME.refused) return { done: { reason: `the server on ${path} refused: ${(JSON.parse(payload.toString()) as { reason: string }).reason}` } };
      if (kind === FRAME.stdout) out += payload.toString();
      if (kind === FRAME.exit) return { done: { status: JSON.parse(out) as ServerStatus } };
      return undefined;
    },
    (why) => ({ reason: `no sessionfold server answers on ${path} (${why})` }),
    startDeadlineMs(),
  );
}
