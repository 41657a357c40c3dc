/**
 * `sessionfold serve` as a child process for the benchmarks: started on a socket, resolved once it listens,
 * stopped with SIGTERM (its socket removed). `peakRssMb` reads the server's VmHWM from /proc where there is one;
 * `expectServed` checks, by the server's own count, that a bench's served runs were the server's.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ServerStatus } from '../../src/serve/protocol.js';

export interface ServeChild {
  child: ChildProcess;
  peakRssMb(): number | undefined;
  /** The server's own counts (`serve --status`): what it answered, refused and failed so far. */
  status(): Promise<ServerStatus>;
  /**
   * Resolves when the server answered exactly `n` commands since `before` (a `status()`) and refused or
   * failed none; throws otherwise. A client that gets no answer runs the command itself and prints the same
   * output, so only the server's count tells a served run from a local one.
   */
  expectServed(before: ServerStatus, n: number, what: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startServe(mainJs: string, socket: string, env: NodeJS.ProcessEnv): Promise<ServeChild> {
  const child = spawn(process.execPath, [mainJs, 'serve', '--socket', socket, '--sweep', '0', '--quiet'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`sessionfold serve exited ${code}: ${err}`)));
  });
  // Asked by the server's own CLI (`serve --status`): a server answers only a client of its build. Its
  // deadline is a fixed 3 s, which a loaded machine can pass: once more before failing.
  const ask = () => spawnSync(process.execPath, [mainJs, 'serve', '--status', '--socket', socket], { env, encoding: 'utf8' });
  const status = async (): Promise<ServerStatus> => {
    let r = ask();
    if (r.status !== 0) r = ask();
    if (r.status !== 0) throw new Error(`sessionfold serve --status exited ${r.status} twice: ${r.stderr}`);
    return JSON.parse(r.stdout) as ServerStatus;
  };
  return {
    child,
    status,
    async expectServed(before, n, what) {
      const after = await status();
      const served = after.served - before.served;
      const refused = after.refused - before.refused;
      const failed = after.failed - before.failed;
      if (served !== n || refused !== 0 || failed !== 0) {
        throw new Error(`${what}: the server answered ${served} of ${n} runs (refused ${refused}, failed ${failed}); the rest ran locally`);
      }
    },
    peakRssMb() {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return m ? Number(m[1]) / 1024 : undefined;
      } catch {
        return undefined;
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
