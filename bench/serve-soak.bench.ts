/**
 * Topic `serve-soak`: can `sessionfold serve` be knocked over? One server takes a soak of mixed requests
 * (BENCH_SOAK_REQUESTS, default 10,000) from 16 clients at once: valid `cost report --json` requests sent
 * with the CLI's own client (`runServedCommand`, src/cli/served.ts, which renders the served data), malformed request lines (`null`, junk bytes,
 * wrong shapes and versions, a line over the size bound) and slow clients (half a request, then silence
 * until they hang up) written on raw sockets. It checks every valid answer against a local run's output
 * before it reports a time; then the server must stay under 250 MB peak RSS and answer valid requests
 * within 50 ms at p99 (both checked, figures in bench/RESULTS.md). The soak runs once, in the case's
 * setup; the timed iterations are one batch of 16 valid requests each, to the server the soak left.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Writable } from 'node:stream';
import { runServedCommand } from '../src/cli/served.js';
import { buildId, PROTOCOL_VERSION } from '../src/serve/protocol.js';
import { check, type BenchCase, type IterationResult, type Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { startServe, type ServeChild } from './lib/serve.js';
import { Rng } from '../fixtures/generate/prng.js';

const MAIN_JS = fileURLToPath(new URL('../src/cli/main.cjs', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../../fixtures/claude/projects', import.meta.url));
const exec = promisify(execFile);
const ARGV = ['cost', 'report', '--json', '--group-by', 'model'];
const CONCURRENCY = 16;
const MAX_RSS_MB = 250;
const MAX_P99_MS = 50;

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

interface Soak {
  dir: string;
  env: NodeJS.ProcessEnv;
  server: ServeChild;
  expected: string;
}

/** One valid request through the CLI's client: its latency, or a thrown error when the answer is wrong. */
async function valid(s: Soak): Promise<number> {
  const stdout = new Collect();
  const stderr = new Collect();
  const t0 = performance.now();
  const code = await runServedCommand(ARGV, { stdout, stderr, env: s.env, cwd: s.dir });
  const ms = performance.now() - t0;
  check(code === 0, `served request exit ${String(code)} (undefined: the server declined): ${stderr.text}`);
  check(stdout.text === s.expected, `served answer differs from the local run: ${stdout.text.slice(0, 200)}`);
  return ms;
}

/** A raw connection: write `parts` (waiting `gapMs` between them), then wait for the server to close, at most `holdMs`. */
function raw(socket: string, parts: (string | Buffer)[], gapMs: number, holdMs: number): Promise<void> {
  return new Promise((resolve) => {
    const c = connect(socket);
    const timer = setTimeout(() => c.destroy(), holdMs);
    c.on('data', () => undefined);
    c.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
    c.on('error', () => undefined);
    c.on('connect', async () => {
      for (const [i, p] of parts.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, gapMs));
        if (!c.destroyed) c.write(p);
      }
    });
  });
}

/**
 * The over-long request (1 MiB + 16 bytes, no newline), made once: writing it as a fresh string makes this
 * process encode a megabyte on every send, a 5 to 14 ms stall of the event loop the valid clients share,
 * which their latencies then counted as the server's. The server gets the same bytes either way.
 */
const TOO_LONG = Buffer.alloc((1 << 20) + 16, 'x');

/** The malformed and slow requests, by kind. */
function hostile(kind: number, s: Soak, rand: () => number): Promise<void> {
  const sock = s.env.SESSIONFOLD_SOCKET as string;
  const request = JSON.stringify({ v: PROTOCOL_VERSION, build: buildId(), argv: ARGV, env: {}, cwd: '/', streams: { stdout: { isTTY: false }, stderr: { isTTY: false } } });
  switch (kind) {
    case 0:
      return raw(sock, ['null\n'], 0, 2000);
    case 1:
      return raw(sock, [Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 300) }, () => Math.floor(rand() * 255))), '\n'], 0, 2000);
    case 2:
      return raw(sock, ['{"v":3,"argv":"cost report"}\n'], 0, 2000);
    case 3:
      return raw(sock, [request.replace(`"v":${PROTOCOL_VERSION}`, '"v":999') + '\n'], 0, 2000);
    case 4:
      return raw(sock, [TOO_LONG], 0, 2000); // over the request bound, no newline
    case 5:
      return raw(sock, [request.replace('"argv":[', '"argv":[1,').slice(0, -1) + ',"cwd":7}\n'], 0, 2000);
    default:
      // slow: half a request, then silence until this client gives up
      return raw(sock, [request.slice(0, Math.floor(request.length / 2)), ''], 50 + Math.floor(rand() * 200), 300 + Math.floor(rand() * 700));
  }
}

/** The soak: `n` requests, CONCURRENCY at a time; the valid ones' latencies. */
async function soak(s: Soak, n: number): Promise<{ latencies: number[]; malformed: number; slow: number }> {
  const rng = new Rng(Number(process.env.BENCH_SEED ?? 17));
  const rand = () => rng.next();
  const plan = Array.from({ length: n }, () => {
    const r = rand();
    return r < 0.7 ? -1 : r < 0.9 ? Math.floor(rand() * 6) : 6;
  });
  const latencies: number[] = [];
  let next = 0;
  let malformed = 0;
  let slow = 0;
  const worker = async () => {
    while (next < plan.length) {
      const kind = plan[next++] as number;
      if (kind === -1) latencies.push(await valid(s));
      else {
        await hostile(kind, s, rand);
        if (kind === 6) slow++;
        else malformed++;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { latencies, malformed, slow };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;

interface State {
  s: Soak;
  p50: number;
  p99: number;
  rssMb: number | undefined;
}

export const topic: Topic = {
  name: 'serve-soak',
  question: `sessionfold serve under mixed valid, malformed and slow requests (${CONCURRENCY} at a time): peak RSS and valid-request p99`,
  async cases(): Promise<BenchCase<any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const n = Number(process.env.BENCH_SOAK_REQUESTS ?? 10_000);
    const c: BenchCase<State> = {
      name: `serve soak: ${n} requests, then a batch of ${CONCURRENCY} valid ones`,
      async setup() {
        const dir = mkdtempSync(join(tmpdir(), 'sf-soak-'));
        mkdirSync(join(dir, '.claude'), { recursive: true });
        cpSync(FIXTURES, join(dir, '.claude', 'projects'), { recursive: true });
        const socket = join(dir, 'serve.sock');
        const base = { PATH: process.env.PATH, HOME: dir, TZ: 'UTC', XDG_CACHE_HOME: join(dir, 'cache') };
        const expected = (await exec(process.execPath, [MAIN_JS, ...ARGV], { env: { ...base, SESSIONFOLD_SOCKET: 'off' } })).stdout;
        const server = await startServe(MAIN_JS, socket, base);
        const s: Soak = { dir, env: { ...base, SESSIONFOLD_SOCKET: socket }, server, expected };
        await valid(s); // warm
        const t0 = performance.now();
        const r = await soak(s, n);
        const sorted = r.latencies.sort((a, b) => a - b);
        const state: State = { s, p50: percentile(sorted, 50), p99: percentile(sorted, 99), rssMb: server.peakRssMb() };
        process.stderr.write(
          `serve soak: ${n} requests in ${((performance.now() - t0) / 1000).toFixed(1)} s (${r.latencies.length} valid, ${r.malformed} malformed, ${r.slow} slow); ` +
            `valid p50 ${state.p50.toFixed(1)} ms, p99 ${state.p99.toFixed(1)} ms; server peak RSS ${state.rssMb?.toFixed(0) ?? '?'} MB\n`,
        );
        return state;
      },
      async run(state): Promise<IterationResult> {
        const ms = await Promise.all(Array.from({ length: CONCURRENCY }, () => valid(state.s)));
        return { events: ms.length, p50: state.p50, p99: state.p99, rssMb: state.rssMb };
      },
      verify(r, state) {
        check(r.events === CONCURRENCY, `${String(r.events)} answers of ${CONCURRENCY}`);
        check(state.s.server.child.exitCode === null, 'the server is not running after the soak');
        check(state.rssMb === undefined || state.rssMb < MAX_RSS_MB, `server peak RSS ${state.rssMb} MB, over ${MAX_RSS_MB} MB`);
        check(state.p99 < MAX_P99_MS, `valid requests p99 ${state.p99.toFixed(1)} ms, over ${MAX_P99_MS} ms`);
      },
      async teardown(state) {
        await state?.s.server.stop();
        if (state) rmSync(state.s.dir, { recursive: true, force: true });
      },
      note: `soak figures on stderr; checks RSS < ${MAX_RSS_MB} MB, p99 < ${MAX_P99_MS} ms`,
    };
    return [c];
  },
};

await runTopicMain(import.meta.url, topic);
