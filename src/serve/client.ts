/**
 * The client of `sessionfold serve`: a served command (protocol.ts, SERVED_COMMANDS) is sent to a running
 * server of the same build, which computes it from its warm state and answers with the data; the CLI renders
 * that (src/cli/served.ts) as a local run would. No socket, a stale one, another build, a refusal, or a
 * connection that fails before the data is in: undefined, and the CLI runs the command itself. Loads nothing
 * but node:net and protocol.ts.
 */
import { existsSync } from 'node:fs';
import { nodeNet } from '../../cursors/builtins.js';
import { buildId, FRAME, FrameReader, getSocketPath, isServed, OUTPUT_DEADLINE_MS, PROTOCOL_VERSION, startDeadlineMs, type ServeRequest, type ServerStatus } from './protocol.js';

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
  onSent?: () => void,
): Promise<T> {
  return new Promise((resolve) => {
    const socket = nodeNet().connect(path);
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
    // Until the command starts (STARTED), then until its data: past either deadline, onEnd.
    const wait = (ms: number, why: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(onEnd(why)), ms);
    };
    wait(deadlineMs, `no start within ${deadlineMs} ms`);
    socket.on('connect', () => {
      socket.write(`${JSON.stringify(request)}\n`);
      onSent?.();
    });
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

/** What the server computed for a command: plain JSON data, for the command's render step. */
export interface ServedAnswer {
  data: unknown;
}

/** The parsed payload of a DATA or REFUSED frame; undefined when it is not JSON. */
function payloadOf(payload: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(payload.toString());
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ask the server to compute `argv`; its answer, or undefined when the caller must run it locally. `onSent`
 * runs once the request is on its way (a server listens): what the caller does then overlaps the compute.
 */
export function runServed(argv: string[], io: Pick<ClientIo, 'env' | 'cwd'>, onSent?: () => void): Promise<ServedAnswer | undefined> {
  if (!isServed(argv)) return Promise.resolve(undefined);
  const path = getSocketPath(io.env);
  if (path === undefined || !existsSync(path)) return Promise.resolve(undefined);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(io.env)) if (v !== undefined) env[k] = v;
  const request: ServeRequest = { v: PROTOCOL_VERSION, build: buildId(), argv, env, cwd: io.cwd };
  return exchange<ServedAnswer | undefined>(
    path,
    request,
    (kind, payload) => {
      if (kind !== FRAME.data) return { done: undefined }; // refused (or a frame of another protocol)
      const p = payloadOf(payload);
      return { done: p !== undefined && 'data' in p ? { data: p.data } : undefined };
    },
    () => undefined, // nothing was written yet: the caller runs the command itself
    startDeadlineMs(io.env),
    onSent,
  );
}

/**
 * The state of the server on `path`: its status, or why there is none to use (nothing listens, or a server
 * of another build, which refuses this client's commands).
 */
export function serverStatus(path: string): Promise<{ status: ServerStatus } | { reason: string }> {
  if (!existsSync(path)) return Promise.resolve({ reason: `no sessionfold server listens on ${path}` });
  const request: ServeRequest = { v: PROTOCOL_VERSION, build: buildId(), argv: [], env: {}, cwd: '/', status: true };
  return exchange<{ status: ServerStatus } | { reason: string }>(
    path,
    request,
    (kind, payload) => {
      const p = payloadOf(payload);
      if (kind === FRAME.data && p !== undefined && 'data' in p) return { done: { status: p.data as ServerStatus } };
      return { done: { reason: `the server on ${path} refused: ${String(p?.reason ?? 'unreadable reply')}` } };
    },
    (why) => ({ reason: `no sessionfold server answers on ${path} (${why})` }),
    startDeadlineMs(),
  );
}
