/**
 * The resident server's wire protocol, shared by `sessionfold serve` and the CLI's client. Kept free of the
 * rest of the code base (node built-ins and versions.ts only): the client loads it before anything else, so a
 * served run pays for starting Node and little more. The server answers with data, never text: the client
 * renders it (src/cli/served.ts) for its own terminal, colors and time zone.
 *
 * - Socket: `$SESSIONFOLD_SOCKET` (`off` disables the client), else `$XDG_RUNTIME_DIR/sessionfold.sock`, else
 *   `<cache dir>/sessionfold/server.sock` (`$XDG_CACHE_HOME`, default `~/.cache`). The server makes its folder
 *   private (0700) and the socket 0600: a request carries the caller's environment.
 * - Request: one JSON line, `{v, build, argv, env, cwd}`. `build` names the code that sent it (the
 *   package version and this module's mtime): a server built from other code refuses, and the client runs
 *   locally.
 * - Reply: frames `[kind u8][length u32 BE][payload]`: STARTED (empty) when the command leaves the queue and
 *   runs, then one frame that ends the reply: DATA `{"data":…}`, the command's computed answer (plain JSON:
 *   for a status request, the ServerStatus), or REFUSED `{"reason":…}` (the client then runs locally: another
 *   build, a bad request, or a command the server could not answer, whose error a local run reports). A
 *   client that sees no STARTED within `startDeadlineMs`, or no DATA within OUTPUT_DEADLINE_MS after it, runs
 *   locally (client.ts); as nothing is written before the DATA frame is whole, that is always safe.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FROM_SOURCES, packageRoot, sessionfoldVersion } from '../../cursors/versions.js';

export const PROTOCOL_VERSION = 4;

export const FRAME = { started: 1, data: 2, refused: 3 } as const;
export type FrameKind = (typeof FRAME)[keyof typeof FRAME];

/**
 * `cost report`, `sessions list` and `statusline`: the status-line and monitor queries, whose flags name no
 * stdin (main.cts turns the status-line JSON on stdin into `statusline`'s flags before it asks a server).
 */
export const SERVED_COMMANDS: readonly (readonly string[])[] = [['cost', 'report'], ['sessions', 'list'], ['statusline']];

export interface ServeRequest {
  v: number;
  build: string;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** Ask for the server's state (`sessionfold serve --status`) instead of running a command. */
  status?: true;
}

/** What `sessionfold serve --status` prints. */
export interface ServerStatus {
  socket: string;
  build: string;
  pid: number;
  uptimeSeconds: number;
  served: number;
  refused: number;
  /** Commands whose compute step threw (their clients ran them locally). */
  failed: number;
  refreshes: number;
  /** The distinct recent commands the server keeps current. */
  recent: string[];
  /** Whether discovery follows file-system notifications (Linux), and what it did. */
  watching: boolean;
  discovery: { cached: number; relisted: number; full: number; restats: number; watched: number };
}

/**
 * How long a client waits for its command to start on the server before it runs it locally (ms; default
 * 3000, `SESSIONFOLD_SERVE_DEADLINE_MS` overrides): a server busy with a stalled command never holds a client.
 */
export function startDeadlineMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.SESSIONFOLD_SERVE_DEADLINE_MS);
  return Number.isFinite(v) && v > 0 ? v : 3_000;
}

/** After STARTED, how long a client waits for the DATA before it runs locally (ms). */
export const OUTPUT_DEADLINE_MS = 60_000;

export { getSocketPath } from './socket-path.js';

/** Whether a command line is one the server answers (`cost report …`, `sessions list …`, `statusline …`, not their --help). */
export function isServed(argv: readonly string[]): boolean {
  if (argv.includes('--help') || argv.includes('-h')) return false;
  return SERVED_COMMANDS.some((words) => words.every((w, i) => argv[i] === w));
}

let build: string | undefined;

/**
 * The code this process runs: the package version and the mtime of the build's `dist/src/serve/protocol.js`
 * (a rebuild changes it), named from the package folder so that the client (this module as it is) and a
 * server (the CLI's bundle) agree; from the sources (tests), this module's own.
 */
export function buildId(): string {
  const root = packageRoot();
  const file = FROM_SOURCES || root === undefined ? fileURLToPath(import.meta.url) : join(root, 'dist', 'src', 'serve', 'protocol.js');
  build ??= `${sessionfoldVersion()}+${statSync(file).mtimeMs}`;
  return build;
}

export function encodeFrame(kind: FrameKind, payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const out = Buffer.allocUnsafe(5 + body.length);
  out[0] = kind;
  out.writeUInt32BE(body.length, 1);
  body.copy(out, 5);
  return out;
}

/** Splits a byte stream into frames. */
export class FrameReader {
  #buf: Buffer = Buffer.alloc(0);

  /** The frames completed by `chunk`. */
  push(chunk: Buffer): { kind: number; payload: Buffer }[] {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    const out: { kind: number; payload: Buffer }[] = [];
    let at = 0;
    while (this.#buf.length - at >= 5) {
      const len = this.#buf.readUInt32BE(at + 1);
      if (this.#buf.length - at - 5 < len) break;
      out.push({ kind: this.#buf[at] as number, payload: this.#buf.subarray(at + 5, at + 5 + len) });
      at += 5 + len;
    }
    this.#buf = this.#buf.subarray(at);
    return out;
  }

  /** Bytes of an unfinished frame. */
  get pending(): number {
    return this.#buf.length;
  }
}
