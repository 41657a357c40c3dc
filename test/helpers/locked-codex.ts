/**
 * A Codex history of two sessions, one of which cannot be read (mode 000): the home of the tests of a file
 * whose read fails for an I/O reason. Permissions do not bind root, so as root the children run as nobody
 * (`user`), in a home beside the run's temp folder (private to root) whose folders are open to them. The
 * children are the built library and CLI, run with `env` and `user` (`nodeIn`).
 */
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeEach } from 'vitest';
import { REAL_DIR } from '../codex-helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The built CLI and library, the children's. */
export const BUILT_CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
export const BUILT_LIB = join(ROOT, 'dist', 'src', 'index.js');

const OTHER_REL = 'sessions/2025/10/31/rollout-2025-10-31T17-00-00-0199a000-0000-7000-8000-000000000053.jsonl';
const LOCKED_REL = 'sessions/2025/11/01/rollout-2025-11-01T09-00-00-0199a000-0000-7000-8000-0000000000e1.jsonl';
/** The session id of the readable file. */
export const OTHER_ID = '0199a000-0000-7000-8000-000000000053';
/** The session id of the unreadable file, and a text only it holds (its title). */
export const LOCKED_ID = '0199a000-0000-7000-8000-0000000000e1';
export const LOCKED_TEXT = 'List the files';

const asRoot = process.getuid?.() === 0;

export interface LockedCodexHome {
  dir: string;
  codex: string;
  /** The unreadable rollout. */
  locked: string;
  /** HOME, CODEX_HOME, the XDG folders and the event cache inside `dir`; no socket; SESSIONFOLD_NATIVE passed on. */
  env: NodeJS.ProcessEnv;
  /** The child's uid and gid: nobody's as root, else none. */
  user: { uid?: number; gid?: number };
}

const homes: string[] = [];

/** A new home (see the module header), its name starting with `prefix`. */
export async function lockedCodexHome(prefix: string): Promise<LockedCodexHome> {
  const dir = await mkdtemp(join(asRoot ? dirname(tmpdir()) : tmpdir(), prefix));
  homes.push(dir);
  const codex = join(dir, '.codex');
  const other = join(codex, OTHER_REL);
  const locked = join(codex, LOCKED_REL);
  for (const f of [other, locked]) await mkdir(dirname(f), { recursive: true });
  await copyFile(join(REAL_DIR, 'agent-sessions-codex_053_rate_limit.jsonl'), other);
  await copyFile(join(REAL_DIR, 'agent-sessions-v0.146-sanitized.jsonl'), locked);
  await mkdir(join(dir, '.cache'), { recursive: true });
  if (asRoot) await openUp(dir);
  await chmod(other, 0o644);
  await chmod(locked, 0o000);
  const env: NodeJS.ProcessEnv = {
    HOME: dir,
    PATH: process.env.PATH,
    CODEX_HOME: codex,
    XDG_CACHE_HOME: join(dir, '.cache'),
    XDG_CONFIG_HOME: join(dir, '.config'),
    XDG_DATA_HOME: join(dir, '.local', 'share'),
    SESSIONFOLD_SOCKET: 'off',
    SESSIONFOLD_CACHE: join(dir, '.cache', 'events.db'),
    NO_COLOR: '1',
    TZ: 'UTC',
    ...(process.env.SESSIONFOLD_NATIVE !== undefined && { SESSIONFOLD_NATIVE: process.env.SESSIONFOLD_NATIVE }),
  };
  return { dir, codex, locked, env, user: asRoot ? { uid: 65534, gid: 65534 } : {} };
}

/** A new home for each test of the file (beforeEach), all removed after it: the current test's. */
export function lockedCodexPerTest(prefix: string): () => LockedCodexHome {
  let home: LockedCodexHome | undefined;
  beforeEach(async () => {
    home = await lockedCodexHome(prefix);
  });
  afterAll(removeLockedCodexHomes);
  return () => home as LockedCodexHome;
}

const run = promisify(execFile);

/** Node with `args`, in `h`'s folder, with its env, as its user. */
export function nodeIn(h: LockedCodexHome, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, args, { cwd: h.dir, env: h.env, ...h.user });
}

/** Remove every home `lockedCodexHome` made (an afterAll's work). */
export async function removeLockedCodexHomes(): Promise<void> {
  for (const d of homes.splice(0)) await rm(d, { recursive: true, force: true });
}

/** `d` and every folder under it open to any user. */
async function openUp(d: string): Promise<void> {
  await chmod(d, 0o777);
  for (const e of await readdir(d, { withFileTypes: true })) if (e.isDirectory()) await openUp(join(d, e.name));
}
