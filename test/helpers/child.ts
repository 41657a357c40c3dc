/** Run the CLI from the sources in a child process (test/helpers/cli-child.ts) with a deadline. */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The deadline passed and the child was killed. */
  timedOut: boolean;
  ms: number;
}

const ROOT = new URL('../../', import.meta.url).pathname;

/** `args` through the CLI in a child; `shell` wraps the node command (e.g. `ulimit -v … && exec`). */
export function runCliChild(args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; shellPrefix?: string; cwd?: string; built?: boolean } = {}): Promise<ChildResult> {
  // `built`: the built CLI (dist/), which loads no TypeScript compiler (a memory limit would hit that first).
  const node = opts.built === true ? [process.execPath, 'dist/src/cli/main.cjs', ...args] : [process.execPath, '--import', './src/scan/dev-register.mjs', 'test/helpers/cli-child.ts', ...args];
  const t0 = Date.now();
  return new Promise((resolve) => {
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const p =
      opts.shellPrefix === undefined
        ? spawn(node[0] as string, node.slice(1), { cwd: ROOT, env: opts.env ?? process.env })
        : spawn('/bin/sh', ['-c', `${opts.shellPrefix} exec ${node.map(quote).join(' ')}`], { cwd: ROOT, env: opts.env ?? process.env });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      p.kill('SIGKILL');
    }, opts.timeoutMs ?? 30_000);
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, ms: Date.now() - t0 });
    });
  });
}

/** Temp folders a test file makes and removes after its tests (`afterAll(temps.remove)`). */
export function tempDirs(prefix: string): { make(): Promise<string>; remove(): void } {
  const made: string[] = [];
  return {
    async make() {
      const d = await mkdtemp(join(tmpdir(), prefix));
      made.push(d);
      return d;
    },
    remove() {
      for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}
