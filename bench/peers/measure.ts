/**
 * Wall time, CPU time (user + sys) and peak RSS of one child process. Node cannot read a child's rusage, so
 * the command runs under GNU time (`/usr/bin/time -f '%e %U %S %M' -o <file>`), which reports what
 * `wait4()` returned for it. Without GNU time only the wall time is known (CPU and RSS are left out).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Invocation } from './tools.js';

export interface Measurement {
  wallMs: number;
  /** user + sys, ms. */
  cpuMs?: number;
  peakRssMb?: number;
  stdout: string;
  stderr: string;
  code: number;
}

const GNU_TIME = '/usr/bin/time';
export const HAS_GNU_TIME = existsSync(GNU_TIME);

/** `stdoutFile`: the child's stdout goes to that file (an output too large for one string), and `stdout` is empty. */
export function measure(inv: Invocation, cwd: string, stdoutFile?: string): Promise<Measurement> {
  const dir = mkdtempSync(join(tmpdir(), 'sf-time-'));
  const out = join(dir, 'time.txt');
  const [cmd, args] = HAS_GNU_TIME ? [GNU_TIME, ['-f', '%e %U %S %M', '-o', out, inv.command, ...inv.args]] : [inv.command, inv.args];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const fd = stdoutFile === undefined ? undefined : openSync(stdoutFile, 'w');
    const child = spawn(cmd, args, { env: inv.env, cwd, stdio: ['ignore', fd ?? 'pipe', 'pipe'] });
    if (fd !== undefined) closeSync(fd);
    const so: Buffer[] = [];
    const se: Buffer[] = [];
    child.stdout?.on('data', (d: Buffer) => so.push(d));
    child.stderr?.on('data', (d: Buffer) => se.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - t0;
      const m: Measurement = { wallMs, stdout: Buffer.concat(so).toString('utf8'), stderr: Buffer.concat(se).toString('utf8'), code: code ?? -1 };
      if (HAS_GNU_TIME) {
        try {
          const line = readFileSync(out, 'utf8').trim().split('\n').pop() ?? '';
          const [, user, sys, rssKb] = line.split(/\s+/).map(Number);
          if (user !== undefined && sys !== undefined && Number.isFinite(user + sys)) m.cpuMs = (user + sys) * 1000;
          if (rssKb !== undefined && Number.isFinite(rssKb)) m.peakRssMb = rssKb / 1024;
        } catch {
          // no rusage line (the command could not start); the exit code says why
        }
      }
      rmSync(dir, { recursive: true, force: true });
      resolve(m);
    });
  });
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}
