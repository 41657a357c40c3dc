/**
 * `serve` cannot be knocked over (issue 17, case 3): every request line is validated (`null` included), the
 * size, the pace and the number of requests are bounded, a command that blocks holds up neither later
 * clients (they run locally after a deadline) nor the queue for long, SIGTERM stops the server within a
 * second even then (a child process blocked on a FIFO), and the socket goes on every exit path.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runServed, serverStatus } from '../src/serve/client.js';
import { buildId, encodeFrame, FRAME, FrameReader, PROTOCOL_VERSION, type ServeRequest } from '../src/serve/protocol.js';
import { startServer, type ServerHandle } from '../src/serve/server.js';
import { tempDirs } from './helpers/child.js';
import { COUNTED } from './helpers/served-count.js';

const temps = tempDirs('sf-serve-');
afterAll(() => temps.remove());
const dir = (): Promise<string> => temps.make();

/** Send raw bytes; the frames the server answers with until it closes (or `ms` passes). */
/** `test/helpers/serve-child.ts` on `socket`, once it listens; `log()` is its stderr so far. */
async function serveChild(socket: string): Promise<{ child: ChildProcess; log: () => string }> {
  const child = spawn(process.execPath, ['--import', './src/scan/dev-register.mjs', 'test/helpers/serve-child.ts', socket], { cwd: new URL('../', import.meta.url).pathname });
  let text = '';
  child.stderr.on('data', (b) => (text += b));
  for (let i = 0; i < 200 && !text.includes('listening on'); i++) await new Promise((r) => setTimeout(r, 50));
  expect(text).toContain('listening on');
  return { child, log: () => text };
}

function rawExchange(path: string, bytes: string | Buffer, ms = 3000): Promise<{ kinds: number[]; closed: boolean }> {
  return new Promise((resolve) => {
    const s: Socket = connect(path);
    const reader = new FrameReader();
    const kinds: number[] = [];
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ kinds, closed: false });
    }, ms);
    s.on('connect', () => s.write(bytes));
    s.on('data', (d: Buffer) => kinds.push(...reader.push(d).map((f) => f.kind)));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ kinds, closed: true });
    });
  });
}

/** A compute step: `--hang` never returns, `--fail` throws; anything else answers `{ ran: argv }`. */
function fakeCompute(calls: string[]) {
  return async (argv: string[]) => {
    calls.push(argv.join(' '));
    if (argv.includes('--hang')) await new Promise(() => undefined);
    if (argv.includes('--fail')) throw new Error('no such agent');
    return { ran: argv.join(' ') };
  };
}

function request(argv: string[]): ServeRequest {
  return { v: PROTOCOL_VERSION, build: buildId(), argv, env: {}, cwd: '/' };
}

/** A served command's answer (undefined: the caller runs it locally) and how long it took. */
async function served(socket: string, argv: string[], deadlineMs?: number) {
  const env = { SESSIONFOLD_SOCKET: socket, ...(deadlineMs !== undefined && { SESSIONFOLD_SERVE_DEADLINE_MS: String(deadlineMs) }) };
  const t0 = Date.now();
  const answer = await runServed(argv, { env, cwd: '/' });
  return { answer, ms: Date.now() - t0 };
}

describe('serve validates and bounds every request', () => {
  it('refuses null, arrays, numbers and malformed fields, and keeps answering', async () => {
    const socket = join(await dir(), 's.sock');
    const calls: string[] = [];
    const server = await startServer({ socket, compute: fakeCompute(calls), watch: false, sweepMs: 0 });
    try {
      const bad = ['null', '[]', '42', '"x"', '{}', JSON.stringify({ v: PROTOCOL_VERSION, build: buildId(), argv: 'cost report', cwd: '/', env: {} }), JSON.stringify({ ...request(['cost', 'report']), env: { A: 1 } }), JSON.stringify({ ...request(['cost', 'report']), cwd: 7 })];
      for (const line of bad) expect(await rawExchange(socket, `${line}\n`)).toEqual({ kinds: [FRAME.refused], closed: true });
      expect(await served(socket, ['cost', 'report'])).toMatchObject({ answer: { data: { ran: 'cost report' } } });
      expect(server.stats.refused).toBe(bad.length);
    } finally {
      await server.close();
    }
  });

  it('refuses after STARTED a command whose compute step throws (its client runs it locally), and keeps answering', async () => {
    const socket = join(await dir(), 's.sock');
    const server = await startServer({ socket, compute: fakeCompute([]), watch: false, sweepMs: 0 });
    try {
      expect(await rawExchange(socket, `${JSON.stringify(request(['cost', 'report', '--fail']))}\n`)).toEqual({ kinds: [FRAME.started, FRAME.refused], closed: true });
      expect((await served(socket, ['cost', 'report', '--fail'])).answer).toBeUndefined();
      expect((await served(socket, ['sessions', 'list'])).answer).toEqual({ data: { ran: 'sessions list' } });
      await expect.poll(() => server.stats, COUNTED).toMatchObject({ served: 1, failed: 2, refused: 0 });
    } finally {
      await server.close();
    }
  });

  it('refuses a request over the size bound, drops one that never ends, and closes clients past the count bound', async () => {
    const socket = join(await dir(), 's.sock');
    const server = await startServer({ socket, compute: fakeCompute([]), watch: false, sweepMs: 0 });
    const idle: Socket[] = [];
    try {
      expect(await rawExchange(socket, Buffer.alloc((1 << 20) + 10, 0x20))).toEqual({ kinds: [FRAME.refused], closed: true });
      const slow = await rawExchange(socket, '{"v":', 8000);
      expect(slow).toEqual({ kinds: [], closed: true });
      // 64 idle clients hold every place: the next is closed at once, and a served command runs locally.
      for (let i = 0; i < 64; i++) {
        const s = connect(socket);
        s.on('error', () => undefined);
        idle.push(s);
        await new Promise((r) => s.once('connect', r));
      }
      await new Promise((r) => setTimeout(r, 50));
      const extra = await rawExchange(socket, `${JSON.stringify(request(['cost', 'report']))}\n`, 2000);
      expect(extra).toEqual({ kinds: [], closed: true });
      expect((await served(socket, ['cost', 'report'])).answer).toBeUndefined();
    } finally {
      for (const s of idle) s.destroy();
      await server.close();
    }
  }, 30_000);
});

describe('a command that blocks', () => {
  it('holds no later client past its deadline (it runs locally), nor the queue past the stall bound; close() returns within a second', async () => {
    const socket = join(await dir(), 's.sock');
    const calls: string[] = [];
    const server: ServerHandle = await startServer({ socket, compute: fakeCompute(calls), watch: false, sweepMs: 0, stallMs: 1500 });
    const hung = served(socket, ['cost', 'report', '--hang'], 60_000);
    await new Promise((r) => setTimeout(r, 200));
    const waiting = await served(socket, ['sessions', 'list'], 300);
    expect(waiting.answer).toBeUndefined(); // the caller runs it locally
    expect(waiting.ms).toBeLessThan(1500);
    await new Promise((r) => setTimeout(r, 1500));
    // The stalled command no longer holds the queue.
    expect(await served(socket, ['cost', 'report', '--json'], 5000)).toMatchObject({ answer: { data: { ran: 'cost report --json' } } });
    // The client that gave up was not run for nobody.
    expect(calls).toEqual(['cost report --hang', 'cost report --json']);
    const t0 = Date.now();
    expect(await server.close()).toBe(false);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(existsSync(socket)).toBe(false);
    expect((await hung).answer).toBeUndefined(); // nothing was written yet: that client runs it locally
  }, 30_000);

  it('SIGTERM stops `sessionfold serve` within a second while a command is blocked in the kernel, and the socket goes (child process)', async () => {
    const d = await dir();
    const socket = join(d, 's.sock');
    const fifo = join(d, 'block.fifo');
    execFileSync('mkfifo', [fifo]);
    const { child, log } = await serveChild(socket);
    try {
      void served(socket, ['cost', 'report', '--block', fifo], 60_000);
      for (let i = 0; i < 100 && !log().includes('refused') && !existsSync(fifo); i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 300)); // the command is now blocked opening the FIFO
      const t0 = Date.now();
      const exited = new Promise<[number | null, string | null]>((r) => child.once('exit', (c, sig) => r([c, sig])));
      child.kill('SIGTERM');
      // Blocked in the kernel, the command holds a thread even process.exit() joins: the server ends by the signal.
      expect(await exited).toEqual([null, 'SIGTERM']);
      expect(Date.now() - t0).toBeLessThan(1000 + 500);
      expect(existsSync(socket)).toBe(false);
      expect(log()).toMatch(/a command still running was dropped/);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  it('an uncaught error in the server process still removes the socket (child process)', async () => {
    const d = await dir();
    const socket = join(d, 's.sock');
    const script = `const { startServer } = await import('./src/serve/server.ts'); await startServer({ socket: ${JSON.stringify(socket)}, compute: async () => 0, watch: false, sweepMs: 0 }); setTimeout(() => { throw new Error('boom'); }, 100);`;
    const child = spawn(process.execPath, ['--import', './src/scan/dev-register.mjs', '--input-type=module', '-e', script], { cwd: new URL('../', import.meta.url).pathname });
    let err = '';
    child.stderr.on('data', (b) => (err += b));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(err).toContain('boom');
    expect(code).not.toBe(0);
    expect(existsSync(socket)).toBe(false);
  }, 30_000);
});

describe('a client that gave up is not counted as served', () => {
  it('counts a client whose connection closed while its command computed as neither served nor failed', async () => {
    const socket = join(await dir(), 's.sock');
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const compute = async (argv: string[]) => {
      if (argv.includes('--gate')) await gate;
      return { ran: argv.join(' ') };
    };
    const server = await startServer({ socket, compute, watch: false, sweepMs: 0 });
    try {
      // STARTED arrives, then the client leaves (as one past its deadline does) before the data is written.
      expect(await rawExchange(socket, `${JSON.stringify(request(['cost', 'report', '--gate']))}\n`, 300)).toEqual({ kinds: [FRAME.started], closed: false });
      release();
      expect((await served(socket, ['sessions', 'list'])).answer).toEqual({ data: { ran: 'sessions list' } });
      await expect.poll(() => server.stats, COUNTED).toMatchObject({ served: 1, failed: 0 });
    } finally {
      await server.close();
    }
  });

  it('counts none of the clients that timed out on a stopped server and ran locally (child process)', async () => {
    const socket = join(await dir(), 's.sock');
    const { child } = await serveChild(socket);
    try {
      child.kill('SIGSTOP');
      // Each client waits 300 ms for STARTED, gives up and would run its command itself.
      const gaveUp = await Promise.all([1, 2, 3].map((i) => served(socket, ['cost', 'report', `--n=${i}`], 300)));
      expect(gaveUp.map((g) => g.answer)).toEqual([undefined, undefined, undefined]);
      child.kill('SIGCONT');
      // A client that waits gets its answer (queued after the three, so they are settled by then), and is counted.
      expect((await served(socket, ['cost', 'report'], 5000)).answer).toEqual({ data: { ran: 'cost report' } });
      await expect.poll(() => serverStatus(socket), COUNTED).toMatchObject({ status: { served: 1, failed: 0 } });
    } finally {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode === null && child.signalCode === null ? child.once('exit', r) : r(undefined)));
    }
  }, 30_000);
});

describe('encodeFrame (sanity of the raw helper)', () => {
  it('frames a started marker with an empty payload', () => {
    expect([...encodeFrame(FRAME.started, '')]).toEqual([FRAME.started, 0, 0, 0, 0]);
  });
});
