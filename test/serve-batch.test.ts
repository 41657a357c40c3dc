/**
 * `serve` batches identical requests that wait in its queue together: one compute answers them all, and it
 * starts after each of them asked. A request that differs (arguments, environment) gets its own compute, and a
 * request that arrives while its twin is already computing waits for a compute of its own (never an answer
 * computed before it asked).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runServed } from '../src/serve/client.js';
import { startServer } from '../src/serve/server.js';
import { tempDirs } from './helpers/child.js';
import { COUNTED } from './helpers/served-count.js';

const temps = tempDirs('sf-batch-');
afterAll(() => temps.remove());

/** A compute step that records each call and holds it until `release()`; its answer names the call's number. */
function gatedCompute() {
  const calls: string[] = [];
  const gates: (() => void)[] = [];
  const compute = async (argv: string[], env: NodeJS.ProcessEnv) => {
    calls.push(`${argv.join(' ')}${env.X === undefined ? '' : ` X=${env.X}`}`);
    const n = calls.length;
    await new Promise<void>((r) => gates.push(r));
    return { n, ran: argv.join(' ') };
  };
  /** Let the oldest held call finish, once one is held. */
  const release = async () => {
    while (gates.length === 0) await new Promise((r) => setTimeout(r, 5));
    (gates.shift() as () => void)();
  };
  return { calls, compute, release };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('serve batches identical queued requests', () => {
  it('answers identical queued requests with one compute, and others with their own', async () => {
    const socket = join(await temps.make(), 's.sock');
    const g = gatedCompute();
    const server = await startServer({ socket, compute: g.compute, watch: false, sweepMs: 0 });
    try {
      const ask = (argv: string[], extra: Record<string, string> = {}) =>
        runServed(argv, { env: { SESSIONFOLD_SOCKET: socket, SESSIONFOLD_SERVE_DEADLINE_MS: '20000', ...extra }, cwd: '/' });
      const first = ask(['sessions', 'list']); // holds the queue
      await settle(100);
      const twins = Array.from({ length: 6 }, () => ask(['cost', 'report']));
      const otherArgs = ask(['cost', 'report', '--json']);
      const otherEnv = ask(['cost', 'report'], { X: '1' });
      await settle(200);
      for (let i = 0; i < 4; i++) await g.release();
      expect(await first).toEqual({ data: { n: 1, ran: 'sessions list' } });
      const answers = await Promise.all(twins);
      expect(answers).toEqual(Array.from({ length: 6 }, () => ({ data: { n: 2, ran: 'cost report' } })));
      expect(await otherArgs).toEqual({ data: { n: 3, ran: 'cost report --json' } });
      expect(await otherEnv).toEqual({ data: { n: 4, ran: 'cost report' } });
      expect(g.calls).toEqual(['sessions list', 'cost report', 'cost report --json', 'cost report X=1']);
      await expect.poll(() => server.stats, COUNTED).toMatchObject({ served: 9, failed: 0 });
    } finally {
      await server.close();
    }
  });

  it('never hands a request an answer whose compute started before it asked', async () => {
    const socket = join(await temps.make(), 's.sock');
    const g = gatedCompute();
    const server = await startServer({ socket, compute: g.compute, watch: false, sweepMs: 0 });
    try {
      const ask = () => runServed(['cost', 'report'], { env: { SESSIONFOLD_SOCKET: socket, SESSIONFOLD_SERVE_DEADLINE_MS: '20000' }, cwd: '/' });
      const early = ask();
      await settle(100); // its compute has started (and is held)
      expect(g.calls).toHaveLength(1);
      const late = [ask(), ask()];
      await settle(100);
      await g.release();
      await g.release();
      expect(await early).toEqual({ data: { n: 1, ran: 'cost report' } });
      expect(await Promise.all(late)).toEqual([{ data: { n: 2, ran: 'cost report' } }, { data: { n: 2, ran: 'cost report' } }]);
      expect(g.calls).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it('with trace on, logs each served command with its phases, one line per client', async () => {
    const socket = join(await temps.make(), 's.sock');
    const g = gatedCompute();
    const lines: string[] = [];
    const server = await startServer({ socket, compute: g.compute, watch: false, sweepMs: 0, trace: true, log: (l) => lines.push(l) });
    try {
      const ask = () => runServed(['cost', 'report'], { env: { SESSIONFOLD_SOCKET: socket, SESSIONFOLD_SERVE_DEADLINE_MS: '20000' }, cwd: '/' });
      const first = ask();
      await settle(100);
      const twins = [ask(), ask()];
      await settle(100);
      await g.release();
      await g.release();
      await Promise.all([first, ...twins]);
      const servedLines = () => lines.filter((l) => l.startsWith('served '));
      await expect.poll(servedLines, COUNTED).toHaveLength(3);
      const served = servedLines();
      for (const l of served) expect(l).toMatch(/\(read \d+\.\d, queued \d+\.\d, compute \d+\.\d, encode \d+\.\d ms\)$/);
      expect(served.filter((l) => l.includes('one compute for 2 clients'))).toHaveLength(2);
      // the twins waited in the queue while the first was held
      const queued = served.map((l) => Number(/queued (\d+\.\d)/.exec(l)?.[1]));
      expect(Math.max(...queued)).toBeGreaterThan(50);
    } finally {
      await server.close();
    }
  });
});
