/**
 * CLI tests over agents' default layouts in a HOME of their own (test/pi-forks.test.ts,
 * test/cherry-studio.test.ts): the environment, the built CLI's JSON answers, and which codecs claim each
 * session file of the HOME.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { BUILTIN_CODECS } from '../../src/builtin-codecs.js';
import { detectCodec } from '../../src/registry.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../dist/src/cli/main.cjs', import.meta.url));

/** HOME and every XDG folder inside `home`, and the machine's PATH alone. */
export function homeEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'), XDG_CACHE_HOME: join(home, '.cache'), NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200' };
}

export interface IsolatedHome {
  home: string;
  env: NodeJS.ProcessEnv;
}

/** In the calling `describe`: a temp HOME that `layOut` fills before its tests, removed after them. */
export function isolatedHome(prefix: string, layOut: (home: string) => Promise<void>): IsolatedHome {
  const h: IsolatedHome = { home: '', env: {} };
  beforeAll(async () => {
    h.home = await mkdtemp(join(tmpdir(), prefix));
    await layOut(h.home);
    h.env = homeEnv(h.home);
  });
  afterAll(async () => {
    if (h.home !== '') await rm(h.home, { recursive: true, force: true });
  });
  return h;
}

/** What the built CLI prints for `args` under `env`, parsed as JSON. */
export async function cliJson(env: NodeJS.ProcessEnv, args: string[]): Promise<unknown> {
  return JSON.parse((await run(process.execPath, [CLI, ...args], { env, maxBuffer: 16 << 20 })).stdout) as unknown;
}

/**
 * Every `.jsonl` under the HOME is under the default roots of exactly one built-in codec, `expectedOf` its
 * path inside HOME, and `detectCodec` picks that codec too. Returns how many files it checked.
 */
export async function expectOneOwnerEach({ home, env }: IsolatedHome, expectedOf: (inHome: string) => string): Promise<number> {
  const files = (await readdir(home, { recursive: true })).filter((n) => n.endsWith('.jsonl')).map((n) => join(home, n));
  const under = (file: string, root: string) => file.startsWith(resolve(root) + sep);
  for (const file of files) {
    const owners = BUILTIN_CODECS.filter((c) => c.descriptor.defaultRoots(env).some((r) => under(file, r))).map((c) => c.descriptor.id);
    const expected = expectedOf(relative(home, file));
    expect([owners, (await detectCodec(file, env)).id], file).toEqual([[expected], expected]);
  }
  return files.length;
}
