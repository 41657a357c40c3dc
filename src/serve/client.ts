/**
 * The CLI's side of `sessionfold serve`: a served command (protocol.ts, SERVED_COMMANDS) is sent to a running
 * server of the same build, which answers from its warm state; the output and exit code are the same as a
 * local run's. No socket, a stale one, another build, or a connection that fails before the reply starts:
 * undefined, and the CLI runs the command itself. Loads nothing but node:net and protocol.ts.
 */
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { buildId, FRAME, FrameReader, getSocketPath, isServed, PROTOCOL_VERSION, streamShape, type ServeRequest } from './protocol.js';

export interface ClientIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
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
  return new Promise((resolve) => {
    const socket = connect(path);
    const reader = new FrameReader();
    let started = false;
    let done = false;
    const finish = (code: number | undefined) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(code);
    };
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: Buffer) => {
      for (const f of reader.push(chunk)) {
        if (f.kind === FRAME.refused) return finish(undefined);
        started = true;
        if (f.kind === FRAME.stdout) io.stdout.write(f.payload);
        else if (f.kind === FRAME.stderr) io.stderr.write(f.payload);
        else if (f.kind === FRAME.exit) return finish((JSON.parse(f.payload.toString()) as { code: number }).code);
      }
    });
    // Before any output: run locally. After some: the output is half written, so say so and fail.
    const broken = (why: string) => {
      if (done) return;
      if (!started) return finish(undefined);
      io.stderr.write(`error IO_ERROR: the sessionfold server went away mid-reply (${why})\n`);
      finish(1);
    };
    socket.on('error', (e) => broken(e.message));
    socket.on('close', () => broken('connection closed'));
  });
}
