/**
 * `sessionfold serve` as a child process for the benchmarks: started on a socket, resolved once it listens,
 * stopped with SIGTERM (its socket removed). `peakRssMb` reads the server's VmHWM from /proc where there is one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ServeChild {
  child: ChildProcess;
  peakRssMb(): number | undefined;
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
  return {
    child,
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
