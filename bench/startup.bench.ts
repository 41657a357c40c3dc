/**
 * Question: what does sessionfold cost before it reads anything? Goals (issues 16 and 20): an empty
 * `cost report` within 40 ms of `node -e 0`, a warm `statusline` within 30 ms.
 *
 * Side by side, interleaved (one run of each command per round, so the machine's load hits them alike),
 * medians over the rounds: `node -e 0`; `cost report --json` over a HOME without agent history (which
 * makes no cache); `statusline` fed Claude Code's JSON for a small session, its cache warm, run
 * locally; the same answered by a running `serve`. Each command's output is checked before timing, and the
 * server's own count of answered commands must grow by the served row's every run (a client nobody answers
 * runs the command itself and prints the same line, so the output alone cannot tell). Peak RSS
 * and CPU time (user + system, which a loaded machine moves less than wall time) come from separate,
 * untimed runs that print `process.resourceUsage()` at exit (a `-r` preload); the preload also says whether
 * the process loaded the CLI (code-cache.cjs, what main.cjs loads to run a command itself), which the served
 * row's runs must not and the local status line's must (the check's control), so each of those runs is
 * checked on the client's side too. The commands run the package's `bin` (dist/src/cli/main.cjs), as an
 * installed `sessionfold` does.
 *
 * The case's own time is one round; the figures go to stderr and in the result (`figures`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, type BenchCase, type BenchEnv, type Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { startServe, type ServeChild } from './lib/serve.js';

const MAIN = fileURLToPath(new URL('../src/cli/main.cjs', import.meta.url));
const ROUNDS = 11;
const SID = '5e551011-0000-4000-8000-000000000001';
const HOOK_ROUNDS = 5;
/**
 * The preload that prints peak RSS and CPU time at exit: a CommonJS file given with `-r` (written into the
 * bench's folder), not an `--import` of a data URL, which would start Node's ESM loader in every process and
 * run the CommonJS executable through it.
 */
const RSS_HOOK =
  "process.on('exit',()=>{const u=process.resourceUsage();const cli=Object.keys(require.cache).some((k)=>/[\\\\/]code-cache\\.cjs$/.test(k));" +
  "process.stderr.write('MAXRSS '+u.maxRSS+' CPU '+(u.userCPUTime+u.systemCPUTime)+' CLI '+(cli?1:0)+'\\n')});\n";
let rssHook = '';

interface Command {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  stdin?: string;
  /** Whether the server must answer it (its process never loads the CLI). */
  served?: true;
  /** Whether it runs the command itself (its process loads the CLI): the client-side check's control. */
  local?: true;
  check(stdout: string): void;
}

interface State {
  dir: string;
  commands: Command[];
  server: ServeChild;
}

function homeEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(home, '.cache'), XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'), SESSIONFOLD_SOCKET: 'off', ...extra };
}

function runOnce(c: Command, hook = false): { ms: number; stdout: string; stderr: string } {
  const t = performance.now();
  const r = spawnSync(process.execPath, hook ? ['-r', rssHook, ...c.args] : c.args, { env: c.env, input: c.stdin ?? '', encoding: 'utf8' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout, stderr: r.stderr };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? (s[s.length >> 1] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

/** A small Claude session: a response every 10 minutes over the last two hours, the last a minute ago. */
function writeSession(claudeDir: string): string {
  const dir = join(claudeDir, 'projects', '-w');
  mkdirSync(dir, { recursive: true });
  const now = Date.now();
  const lines: string[] = [];
  for (let i = 0; i < 12; i++) {
    const ms = now - 60_000 - (11 - i) * 600_000;
    lines.push(JSON.stringify({ type: 'assistant', sessionId: SID, cwd: '/w', timestamp: new Date(ms).toISOString(), requestId: `req_${i}`, message: { id: `msg_${i}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'x' }], usage: { input_tokens: 10, output_tokens: 200, cache_read_input_tokens: 20_000 + i * 1000, cache_creation_input_tokens: 500 } } }));
  }
  const file = join(dir, `${SID}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

export const topic: Topic = {
  name: 'startup',
  question: 'Fixed start-up cost: node -e 0 vs an empty cost report vs a warm statusline (local and served), interleaved',
  async cases(env: BenchEnv): Promise<BenchCase<any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
    return [
      {
        name: 'side by side',
        note: `${ROUNDS} interleaved rounds; figures on stderr`,
        setup: async (): Promise<State> => {
          const dir = join(env.dir, 'startup');
          rmSync(dir, { recursive: true, force: true });
          const empty = join(dir, 'empty');
          const busy = join(dir, 'busy');
          mkdirSync(empty, { recursive: true });
          rssHook = join(dir, 'rss-hook.cjs');
          writeFileSync(rssHook, RSS_HOOK);
          const transcript = writeSession(join(busy, '.claude'));
          const input = JSON.stringify({ session_id: SID, transcript_path: transcript, cwd: '/w', model: { id: 'claude-sonnet-4-5', display_name: 'Sonnet 4.5' }, workspace: { current_dir: '/w', project_dir: '/w' }, version: '2.1.0', context_window: { context_window_size: 200000 } });
          const socket = join(dir, 'serve.sock');
          const server = await startServe(MAIN, socket, homeEnv(busy));
          const statusCheck = (out: string) => check(/^Sonnet 4\.5 · session \$[\d.]+ · today \$[\d.]+ · block \$[\d.]+, \dh \d\dm left, \$[\d.]+\/h · ctx 31,510\/200,000 \(16%\)\n$/.test(out), `statusline printed ${JSON.stringify(out)}`);
          const commands: Command[] = [
            { name: 'node -e 0', args: ['-e', '0'], env: homeEnv(empty), check: (out) => check(out === '', 'node -e 0 printed something') },
            {
              name: 'cost report --json (empty)',
              args: [MAIN, 'cost', 'report', '--json'],
              env: homeEnv(empty),
              check: (out) => {
                const s = JSON.parse(out) as { totalUsd: number; requestCount: number };
                check(s.totalUsd === 0 && s.requestCount === 0, `empty report counted ${s.requestCount} requests`);
              },
            },
            { name: 'statusline (warm, local)', args: [MAIN, 'statusline'], env: homeEnv(busy), stdin: input, local: true, check: statusCheck },
            { name: 'statusline (served)', args: [MAIN, 'statusline'], env: homeEnv(busy, { SESSIONFOLD_SOCKET: socket }), stdin: input, served: true, check: statusCheck },
          ];
          // Warm every cache, and check every answer before anything is timed.
          const before = await server.status();
          for (const c of commands) for (let i = 0; i < 2; i++) c.check(runOnce(c).stdout);
          await server.expectServed(before, 2 * commands.filter((c) => c.served).length, 'startup, warming');
          return { dir, commands, server };
        },
        run: async (s: State) => {
          const before = await s.server.status();
          const times = s.commands.map(() => [] as number[]);
          for (let r = 0; r < ROUNDS; r++) s.commands.forEach((c, i) => (times[i] as number[]).push(runOnce(c).ms));
          // Untimed runs that print their own peak RSS and CPU time (user + system) at exit: CPU time moves
          // less than wall time with the load of a shared machine.
          const rss = s.commands.map(() => [] as number[]);
          const cpu = s.commands.map(() => [] as number[]);
          for (let r = 0; r < HOOK_ROUNDS; r++)
            s.commands.forEach((c, i) => {
              const m = /MAXRSS (\d+) CPU (\d+) CLI ([01])/.exec(runOnce(c, true).stderr);
              (rss[i] as number[]).push(m ? Number(m[1]) / 1024 : NaN);
              (cpu[i] as number[]).push(m ? Number(m[2]) / 1000 : NaN);
              if (c.served) check(m?.[3] === '0', `${c.name}: the client loaded the CLI (it ran the command itself)`);
              if (c.local) check(m?.[3] === '1', `${c.name}: no CLI load seen, so the served row's client-side check cannot tell either`);
            });
          await s.server.expectServed(before, (ROUNDS + HOOK_ROUNDS) * s.commands.filter((c) => c.served).length, 'startup, the served rows');
          const base = median(times[0] as number[]);
          const baseCpu = median(cpu[0] as number[]);
          const figures = s.commands.map((c, i) => ({
            command: c.name,
            medianMs: median(times[i] as number[]),
            overNodeMs: median(times[i] as number[]) - base,
            cpuMs: median(cpu[i] as number[]),
            cpuOverNodeMs: median(cpu[i] as number[]) - baseCpu,
            peakRssMb: Math.max(...(rss[i] as number[])),
          }));
          const signed = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(1);
          const rows = figures.map((f) => `  ${f.command.padEnd(28)} wall ${f.medianMs.toFixed(1).padStart(7)} ms (${signed(f.overNodeMs)})  cpu ${f.cpuMs.toFixed(1).padStart(6)} ms (${signed(f.cpuOverNodeMs)})  peak RSS ${f.peakRssMb.toFixed(0)} MB`);
          process.stderr.write(`startup (${ROUNDS} interleaved rounds, medians; in brackets: over node -e 0):\n${rows.join('\n')}\n`);
          return { figures };
        },
        verify: (r) => {
          const f = r.figures as { medianMs: number }[];
          check(f.length === 4 && f.every((x) => x.medianMs > 0), 'missing timings');
        },
        teardown: async (s: State) => {
          await s.server.stop();
          rmSync(s.dir, { recursive: true, force: true });
        },
      },
    ];
  },
};

await runTopicMain(import.meta.url, topic);
