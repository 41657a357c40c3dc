/**
 * A fuzz suite for CLI arguments and environment variables (issue 17), with a fixed seed and a bounded
 * budget. Random argv is drawn from the real command table (every command and sub-command, their own
 * options), with values that are paths to existing things of every kind (a regular file, a folder, a
 * FIFO, a symlink, a dangling symlink, a socket, /dev/null, an agent transcript) or new paths, numbers and
 * words; random environment overrides set every codec's root variable, the SESSIONFOLD_* variables, HOME and
 * XDG_*. Each run is a child process of the built CLI in a sandbox HOME, with a timeout that none may hit (a
 * FIFO must never hang a run). Before and after, the sandbox tree is snapshot (paths, bytes, modes, mtimes):
 * no pre-existing file may change or go, and a new one may appear only where sessionfold keeps its own
 * (its cache folder) or at a path the run named that did not exist (a cache, cursor, socket or store the user
 * asked for). Every run exits with a code, without an uncaught stack trace.
 *
 * Left out of the draw: `serve` (runs until stopped, by design), `bench` (a measurement, minutes long) and
 * `sessions resume` (starts the agent).
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/commands.js';
import type { CommandDef } from '../src/cli/command.js';
import { Rng } from '../fixtures/generate/prng.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli/main.cjs');
const RUNS = Number(process.env.FUZZ_RUNS ?? 8);
const CHILD_TIMEOUT_MS = 15_000;
const SEED = 20261201;
const EXCLUDED = new Set(['serve', 'bench', 'sessions resume']);
const ENV_VARS = [
  'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'COPILOT_HOME', 'DROID_SESSIONS_DIR', 'GEMINI_CLI_HOME', 'GOOSE_PATH_ROOT', 'HERMES_HOME',
  'KIMI_CODE_HOME', 'KIMI_SHARE_DIR', 'OPENCLAW_STATE_DIR', 'CLAWDBOT_STATE_DIR', 'OPENCLAW_HOME', 'QWEN_HOME', 'QWEN_RUNTIME_DIR', 'SESSIONFOLD_AMP_DIR',
  'SESSIONFOLD_ANTIGRAVITY_DIR', 'SESSIONFOLD_KIMI_DIR', 'SESSIONFOLD_CACHE', 'SESSIONFOLD_EXPORT_DIR', 'SESSIONFOLD_PRICES',
  'SESSIONFOLD_SOCKET', 'SESSIONFOLD_STORE_DIR', 'SESSIONFOLD_TAGS', 'SESSIONFOLD_NATIVE', 'SESSIONFOLD_WASM',
  'SESSIONFOLD_SERVE_DEADLINE_MS', 'HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_RUNTIME_DIR', 'TZ',
];

let dir: string;
let home: string;
let things: Record<string, string>;
let socketServer: Server;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sf-fuzz-'));
  home = join(dir, 'home');
  const box = join(dir, 'box');
  mkdirSync(join(home, '.claude'), { recursive: true });
  cpSync(join(ROOT, 'fixtures/claude/projects'), join(home, '.claude', 'projects'), { recursive: true });
  mkdirSync(join(box, 'folder', 'inner'), { recursive: true });
  writeFileSync(join(box, 'notes.txt'), 'not sessionfold\'s\n');
  writeFileSync(join(box, 'package.json'), '{"name":"x"}\n');
  writeFileSync(join(box, 'folder', 'inner', 'data.jsonl'), '{"a":1}\n');
  execFileSync('mkfifo', [join(box, 'pipe')]);
  symlinkSync(join(box, 'notes.txt'), join(box, 'link'));
  symlinkSync(join(box, 'gone'), join(box, 'dangling'));
  socketServer = createServer();
  await new Promise<void>((r) => socketServer.listen(join(box, 'sock'), r));
  const transcript = readdirSync(join(home, '.claude', 'projects', '-Users-dev-app')).find((n) => n.endsWith('.jsonl')) as string;
  things = {
    file: join(box, 'notes.txt'),
    json: join(box, 'package.json'),
    folder: join(box, 'folder'),
    fifo: join(box, 'pipe'),
    link: join(box, 'link'),
    dangling: join(box, 'dangling'),
    socket: join(box, 'sock'),
    devnull: '/dev/null',
    transcript: join(home, '.claude', 'projects', '-Users-dev-app', transcript),
    projects: join(home, '.claude', 'projects'),
    home,
  };
});

afterAll(async () => {
  await new Promise((r) => socketServer.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** Every path under `root`: kind and mode, size, mtime, and a regular file's sha256 (a FIFO is never opened). */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (p: string) => {
    const s = lstatSync(p);
    out.set(p, `${s.mode} ${s.size} ${s.mtimeMs}${s.isFile() ? ' ' + createHash('sha256').update(readFileSync(p)).digest('hex') : ''}`);
    if (s.isDirectory()) for (const n of readdirSync(p)) visit(join(p, n));
  };
  visit(root);
  return out;
}

/** Every runnable command path with its options: ['cost', 'report'] → its CommandDef. */
async function commandTable(): Promise<[string[], CommandDef][]> {
  const out: [string[], CommandDef][] = [];
  const walk = async (path: string[], def: CommandDef) => {
    if (EXCLUDED.has(path.join(' '))) return;
    if (def.run) out.push([path, def]);
    for (const [name, load] of Object.entries(def.subCommands ?? {})) await walk([...path, name], (await load()).default);
  };
  for (const [name, c] of Object.entries(COMMANDS)) await walk([name], (await c.load()).default);
  return out;
}

interface Run {
  argv: string[];
  env: Record<string, string>;
  /** Values the run names (paths it may create when they did not exist). */
  named: string[];
}

function draw(rand: () => number, table: [string[], CommandDef][], n: number): Run {
  const pick = <T,>(a: readonly T[]): T => a[Math.floor(rand() * a.length)] as T;
  const fresh = () => join(dir, 'box', `new-${n}-${Math.floor(rand() * 1e6)}${pick(['', '.json', '.db', '.jsonl', '/'])}`);
  const value = (): string => {
    const r = rand();
    if (r < 0.55) return pick(Object.values(things));
    if (r < 0.7) return fresh();
    return pick(['', '0', '-1', '1e309', 'claude', 'codex', 'all', 'day', 'model', 'json', 'x'.repeat(300), '..', '2026-01-01', 'claude:nope', '\u00ff']);
  };
  const [path, def] = pick(table);
  const argv = [...path];
  const named: string[] = [];
  for (let k = Math.floor(rand() * 3); k > 0; k--) {
    const v = value();
    argv.push(v);
    named.push(v);
  }
  const opts = Object.entries(def.options);
  for (let k = Math.floor(rand() * 4); k > 0 && opts.length > 0; k--) {
    const [name, o] = pick(opts);
    argv.push(`--${name}`);
    if (o.type === 'string') {
      const v = value();
      argv.push(v);
      named.push(v);
    }
  }
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, XDG_CACHE_HOME: join(dir, 'cache'), TZ: 'UTC', SESSIONFOLD_SOCKET: 'off' };
  for (let k = Math.floor(rand() * 4); k > 0; k--) {
    const name = pick(ENV_VARS);
    const v = value();
    env[name] = v;
    named.push(v);
  }
  return { argv, env, named };
}

function runChild(r: Run, args = [CLI, ...r.argv]): Promise<{ code: number | null; signal: string | null; stderr: string; timedOut: boolean; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = execFile(process.execPath, args, { env: r.env, cwd: join(dir, 'box'), timeout: CHILD_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 1 << 26 }, (err, _out, stderr) => {
      const e = err as (Error & { killed?: boolean }) | null;
      resolve({ code: child.exitCode, signal: child.signalCode, stderr, timedOut: e?.killed === true, ms: Date.now() - t0 });
    });
    child.stdin?.end();
  });
}

/**
 * True when `p` may appear in a run: under sessionfold's cache folders; at, under or beside (`-wal`, `.lock`,
 * `.tmp-…`) a path the run named that did not exist; or inside an existing folder the run named (a store or
 * export folder it was pointed at), unless that is an agent's folder, which is never written.
 */
function mayCreate(p: string, r: Run, before: Map<string, string>): boolean {
  if (p === join(dir, 'cache') || p.startsWith(join(dir, 'cache') + '/')) return true;
  if (p.startsWith(join(home, '.claude'))) return false;
  // Its default cache and data folders, and the XDG folders above them that creating those makes.
  for (const own of [join(home, '.cache', 'sessionfold'), join(home, '.local', 'share', 'sessionfold')]) if (p.startsWith(own) || own.startsWith(p + '/')) return true;
  return r.named.some((v) => {
    const base = v.replace(/\/$/, '');
    if (base === '' || !base.startsWith('/')) return false;
    if (!before.has(base)) return p === base || p.startsWith(base + '/') || p.startsWith(base + '-') || p.startsWith(base + '.');
    return p.startsWith(base + '/') && lstatSync(base).isDirectory();
  });
}

/** Run `r` (or, for the checker's own test, `args`) between two snapshots of the sandbox: what went wrong. */
async function checked(r: Run, args?: string[]): Promise<string[]> {
  const failures: string[] = [];
  const before = snapshot(dir);
  const got = await runChild(r, args);
  const after = snapshot(dir);
  const label = `${r.argv.join(' ')} ${JSON.stringify(r.env)}`;
  if (got.timedOut) failures.push(`timed out: ${label}`);
  else if (got.code === null) failures.push(`killed by ${got.signal}: ${label}`);
  if (/\n\s+at .+:\d+:\d+\)?\n/.test(got.stderr) || /^(TypeError|RangeError|SyntaxError|ReferenceError)/m.test(got.stderr)) failures.push(`stack trace: ${label}\n${got.stderr.slice(0, 600)}`);
  for (const [p, v] of before) {
    if (p.startsWith(join(dir, 'cache'))) continue;
    const now = after.get(p);
    if (now === undefined) failures.push(`removed ${p}: ${label}`);
    else if (now !== v && lstatSync(p).isFile()) failures.push(`changed ${p}: ${label}`);
  }
  for (const p of after.keys()) if (!before.has(p) && !mayCreate(p, r, before)) failures.push(`created ${p}: ${label}`);
  return failures;
}

describe('CLI arguments and environment fuzz', () => {
  it('its checker catches a run that changes, creates or removes a file, or throws', async () => {
    const r: Run = { argv: ['(a stand-in)'], env: { PATH: process.env.PATH ?? '' }, named: [] };
    const script = `const fs = require('fs'); fs.appendFileSync(${JSON.stringify(things.json)}, ' '); fs.writeFileSync(${JSON.stringify(join(dir, 'box', 'stray'))}, 'x'); fs.renameSync(${JSON.stringify(join(dir, 'box', 'folder', 'inner', 'data.jsonl'))}, ${JSON.stringify(join(dir, 'box', 'moved'))}); throw new TypeError('boom')`;
    const got = await checked(r, ['-e', script]);
    expect(got.map((f) => f.split(':')[0])).toEqual(expect.arrayContaining(['stack trace', `changed ${things.json}`, `removed ${join(dir, 'box', 'folder', 'inner', 'data.jsonl')}`, `created ${join(dir, 'box', 'stray')}`]));
  });

  it(`${RUNS} random runs change nothing that is not sessionfold's, exit with a code, never hang`, async () => {
    const table = await commandTable();
    expect(table.length).toBeGreaterThan(10);
    const rng = new Rng(SEED);
    const rand = () => rng.next();
    const runs = Array.from({ length: RUNS }, (_, n) => draw(rand, table, n));
    const failures: string[] = [];
    // One at a time: a file that appears is checked against the run that named its path.
    for (const r of runs) failures.push(...(await checked(r)));
    expect(failures).toEqual([]);
  }, 600_000);
});
