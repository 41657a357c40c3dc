/** The built CLI's `sessionfold serve` in a child process, for CLI tests that compare served and local runs. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { statusServed } from './served-count.js';

/** A running server: its process and everything it has logged on stderr so far. */
export interface ServeProcess {
  child: ChildProcess;
  log(): string;
  /** What its `serve --status` says it has served (poll it: see served-count.ts). */
  served(): Promise<number>;
  /** SIGTERM, and wait until it has exited. */
  stop(): Promise<void>;
}

/** Start `node <cli> serve --socket <socket> --sweep 0` with `env`; resolves once it listens. `onLog` sees its stderr as it comes. */
export async function startServeProcess(cli: string, socket: string, env: NodeJS.ProcessEnv, onLog?: (text: string) => void): Promise<ServeProcess> {
  const child = spawn(process.execPath, [cli, 'serve', '--socket', socket, '--sweep', '0'], { env: { ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (d: Buffer) => {
      log += d.toString();
      onLog?.(d.toString());
      if (log.includes('listening on')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${log}`)));
  });
  return {
    child,
    log: () => log,
    served: () => statusServed(cli, socket, env),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A server for the tests of the calling `describe` block: started before them on `<dir()>/run/sf.sock` with
 * `env()` (read when it starts: a HOME the file's `beforeAll` builds), stopped after them; `socket()` is its path,
 * `served()` what its `serve --status` says it has served.
 */
export function serveDuringBlock(cli: string, dir: () => string, env: () => NodeJS.ProcessEnv): { socket(): string; served(): Promise<number> } {
  let server: ServeProcess | undefined;
  let socket = '';
  beforeAll(async () => {
    socket = join(dir(), 'run', 'sf.sock');
    server = await startServeProcess(cli, socket, env());
  }, 30_000);
  afterAll(() => server?.stop());
  return { socket: () => socket, served: () => statusServed(cli, socket, env()) };
}
