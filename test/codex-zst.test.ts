/**
 * Compressed Codex rollouts (`rollout-….jsonl.zst`, what Codex's compression worker leaves in
 * `archived_sessions/`): found by discovery, read through the same line core as the plain file, counted once
 * beside a plain sibling, and a broken one is a PARSE_ERROR for itself alone. The compressed file is the
 * committed fixtures/codex-zst one (CI has no zstd compressor), a copy of a real fixture.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decompress } from 'fzstd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codex } from '../codecs/codex/index.js';
import { discoverCodexFilesSync } from '../codecs/codex/paths.js';
import type { ReadOptions, ResumeStart } from '../cursors/protocol/codec.js';
import { isSessionfoldError, SessionfoldError } from '../cursors/protocol/errors.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { runCli } from '../src/cli/run.js';
import { computeServed } from '../src/cli/served-compute.js';
import { runServedCommand } from '../src/cli/served.js';
import { startServer } from '../src/serve/server.js';
import { REAL_DIR } from './codex-helpers.js';
import { readEvents } from './helpers/codec-harness.js';
import { makeHome, sink, type Home } from './sessions-helpers.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');

const ID = '019fc8be-3658-7ca3-9e29-000000000000';
const PLAIN_NAME = `rollout-2026-08-03T10-48-56-${ID}.jsonl`;
const ZST_NAME = `${PLAIN_NAME}.zst`;
const ZST_FIXTURE = join(ROOT, 'fixtures', 'codex-zst', ZST_NAME);
const REAL = join(REAL_DIR, 'agent-sessions-v0.146-sanitized.jsonl');
/** Another real rollout, plain, for "the other files still count". */
const OTHER_ID = '0199a000-0000-7000-8000-000000000053';
const OTHER_NAME = `rollout-2025-10-31T17-00-00-${OTHER_ID}.jsonl`;
const OTHER = join(REAL_DIR, 'agent-sessions-codex_053_rate_limit.jsonl');
/** A second compressed name, for the broken copies. */
const BROKEN_NAME = `rollout-2025-11-01T09-00-00-0199a000-0000-7000-8000-00000000dead.jsonl.zst`;

const homes: Home[] = [];
async function home(files: Record<string, string | Buffer>): Promise<Home> {
  const h = await makeHome();
  homes.push(h);
  for (const [rel, content] of Object.entries(files)) {
    const p = join(h.codex, rel);
    await mkdir(join(p, '..'), { recursive: true });
    if (typeof content === 'string') await copyFile(content, p);
    else await writeFile(p, content);
  }
  return h;
}
afterAll(async () => {
  for (const h of homes) await rm(h.dir, { recursive: true, force: true });
});

/** `args` run by the library in this process, with stdout and stderr. */
async function cli(h: Home, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = sink();
  const err = sink();
  const code = await runCli(args, { stdout: out, stderr: err, env: { ...h.env, SESSIONFOLD_SOCKET: 'off' } });
  return { code, stdout: out.text(), stderr: err.text() };
}

/** `args` run by the built CLI in a child process (the native kernel is chosen per process). */
async function builtCli(h: Home, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await run(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...h.env, SESSIONFOLD_SOCKET: 'off', ...env } });
  return r.stdout;
}

/** A CLI output with its home's folder and the compressed name written as any home's and the plain name. */
const normalize = (h: Home, text: string): string => text.split(h.dir).join('<home>').replaceAll(ZST_NAME, PLAIN_NAME);

const REPORT = ['cost', 'report', '--json', '--agent', 'codex', '--tz', 'UTC'];

let plain: Home;
let compressed: Home;
beforeAll(async () => {
  plain = await home({ [`archived_sessions/${PLAIN_NAME}`]: REAL });
  compressed = await home({ [`archived_sessions/${ZST_NAME}`]: ZST_FIXTURE });
});

describe('the committed compressed rollout', () => {
  it('decompresses to the real fixture byte for byte, as Codex writes one (no content size, no checksum)', async () => {
    const bytes = await readFile(ZST_FIXTURE);
    expect(Buffer.from(decompress(bytes)).equals(await readFile(REAL))).toBe(true);
    // Frame header descriptor: no Frame_Content_Size (bits 6-7 zero, not single-segment), no checksum (bit 2).
    expect(bytes.readUInt32LE(0)).toBe(0xfd2fb528);
    expect((bytes[4] as number) & 0b1110_0100).toBe(0);
  });
});

describe('discovery', () => {
  it('lists a compressed archived rollout, its session id taken from the plain name', () => {
    const files = [...discoverCodexFilesSync([compressed.codex])];
    expect(files.map((f) => [f.path, f.sessionId])).toEqual([[join(compressed.codex, 'archived_sessions', ZST_NAME), ID]]);
  });

  it('skips a compressed rollout beside its plain sibling, and an archived one whose plain name is live', async () => {
    const h = await home({
      [`archived_sessions/${PLAIN_NAME}`]: REAL,
      [`archived_sessions/${ZST_NAME}`]: ZST_FIXTURE,
      [`sessions/2025/10/31/${OTHER_NAME}`]: OTHER,
      [`archived_sessions/${OTHER_NAME}.zst`]: ZST_FIXTURE,
      [`sessions/2026/08/03/${ZST_NAME}`]: ZST_FIXTURE,
    });
    const files = [...discoverCodexFilesSync([h.codex])].map((f) => f.path.slice(h.codex.length + 1));
    expect(files).toEqual([`sessions/2025/10/31/${OTHER_NAME}`, `sessions/2026/08/03/${ZST_NAME}`]);
  });

  it('locates a compressed rollout by id', async () => {
    expect((await codex.locate?.([compressed.codex], ID))?.path).toBe(join(compressed.codex, 'archived_sessions', ZST_NAME));
  });
});

describe('reading', () => {
  const plainFile = () => join(plain.codex, 'archived_sessions', PLAIN_NAME);
  const zstFile = () => join(compressed.codex, 'archived_sessions', ZST_NAME);

  it.each<[string, ReadOptions]>([
    ['every kind', {}],
    ['the cost scan (session and usage, no titles)', { kinds: ['session', 'usage'], titles: false }],
  ])('yields the same events as the plain file, offsets into the decompressed text (%s)', async (_, options) => {
    const want = await readEvents(codex, plainFile(), options);
    expect(want.some((e) => e.type === 'usage')).toBe(true);
    expect(await readEvents(codex, zstFile(), options)).toEqual(want);
  });

  it.each([1, 2, 3, 7, 64, 4096])('yields the same events whatever the size of the compressed chunks read (%i bytes)', async (bufferSize) => {
    expect(await readEvents(codex, zstFile(), { bufferSize })).toEqual(await readEvents(codex, plainFile()));
  });

  it('restarts from byte 0 with reason "compressed" when given a cursor, and hands back the decompressed offset', async () => {
    const starts: ResumeStart[] = [];
    const cursors: unknown[] = [];
    const read = (from?: unknown) =>
      readEvents(codex, zstFile(), { resume: { from: from as never, onStart: (s) => starts.push(s), onCursor: (u) => cursors.push(u.cursor) } });
    const first = await read();
    const again = await read(cursors[0]);
    expect(again).toEqual(first);
    expect(starts.map((s) => [s.restarted, s.reason])).toEqual([
      [true, 'no-cursor'],
      [true, 'compressed'],
    ]);
    const size = (await readFile(REAL)).length;
    expect(cursors[0]).toMatchObject({ format: 'jsonl', offset: size });
    expect((cursors[0] as { prefixHash: string }).prefixHash).toBe(createHash('sha256').update(await readFile(REAL)).digest('hex'));
  });

  it.each([
    ['truncated', async () => (await readFile(ZST_FIXTURE)).subarray(0, 3000)],
    ['not zstd', async () => Buffer.from('{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{}}\n')],
  ])('a %s .zst is a PARSE_ERROR for that file, and yields no event', async (_, bytes) => {
    const h = await home({ [`archived_sessions/${BROKEN_NAME}`]: await bytes() });
    const got: SessionfoldEvent[] = [];
    let error: unknown;
    try {
      for await (const e of codex.read(join(h.codex, 'archived_sessions', BROKEN_NAME))) got.push(e);
    } catch (e) {
      error = e;
    }
    expect(got).toEqual([]);
    expect(error).toBeInstanceOf(SessionfoldError);
    expect(isSessionfoldError(error, 'PARSE_ERROR')).toBe(true);
    expect((error as SessionfoldError).file).toBe(join(h.codex, 'archived_sessions', BROKEN_NAME));
  });
});

describe('the CLI', () => {
  it('cost report --json over the compressed rollout equals the plain one, cold, warm and without the cache', async () => {
    const want = await cli(plain, REPORT);
    expect(want.code).toBe(0);
    expect((JSON.parse(want.stdout) as { requestCount: number }).requestCount).toBeGreaterThan(0);
    for (const args of [REPORT, REPORT, [...REPORT, '--no-cache']]) {
      const got = await cli(compressed, args);
      expect([got.code, got.stderr]).toEqual([0, '']);
      expect(normalize(compressed, got.stdout)).toBe(normalize(plain, want.stdout));
    }
  });

  it('the native kernel on and off (SESSIONFOLD_NATIVE=0) agree, and equal the plain file', async () => {
    const want = normalize(plain, await builtCli(plain, [...REPORT, '--no-cache']));
    const got = (env: NodeJS.ProcessEnv, args = REPORT) => builtCli(compressed, args, env).then((out) => normalize(compressed, out));
    expect(await got({}, [...REPORT, '--no-cache'])).toBe(want);
    expect(await got({ SESSIONFOLD_NATIVE: '0' }, [...REPORT, '--no-cache'])).toBe(want);
    // With the cache, each kernel choice on a cache of its own, cold then warm.
    for (const native of ['1', '0']) {
      const env = { XDG_CACHE_HOME: join(compressed.dir, `cache-native-${native}`), ...(native === '0' && { SESSIONFOLD_NATIVE: '0' }) };
      expect(await got(env)).toBe(want);
      expect(await got(env)).toBe(want);
    }
  }, 60_000);

  it('a plain sibling wins: the session is counted once', async () => {
    const both = await home({ [`archived_sessions/${PLAIN_NAME}`]: REAL, [`archived_sessions/${ZST_NAME}`]: ZST_FIXTURE });
    expect(normalize(both, (await cli(both, REPORT)).stdout)).toBe(normalize(plain, (await cli(plain, REPORT)).stdout));
  });

  it('a broken .zst is skipped with a warning naming it, and the other files still count', async () => {
    const others = await home({ [`sessions/2025/10/31/${OTHER_NAME}`]: OTHER, [`archived_sessions/${ZST_NAME}`]: ZST_FIXTURE });
    const broken = await home({
      [`sessions/2025/10/31/${OTHER_NAME}`]: OTHER,
      [`archived_sessions/${ZST_NAME}`]: ZST_FIXTURE,
      [`archived_sessions/${BROKEN_NAME}`]: (await readFile(ZST_FIXTURE)).subarray(0, 3000),
    });
    const want = await cli(others, [...REPORT, '--no-cache']);
    expect((JSON.parse(want.stdout) as { requestCount: number }).requestCount).toBeGreaterThan((JSON.parse((await cli(compressed, REPORT)).stdout) as { requestCount: number }).requestCount);
    for (const args of [REPORT, [...REPORT, '--no-cache']]) {
      const got = await cli(broken, args);
      expect(got.code).toBe(0);
      // The broken file is listed (a file more) and counts nothing.
      const { sources, unreadable: _, ...totals } = JSON.parse(normalize(broken, got.stdout)) as Record<string, unknown>;
      expect(sources).toMatchObject([{ agent: 'codex', files: 3 }]);
      const { sources: _s, unreadable: _u, ...wanted } = JSON.parse(normalize(others, want.stdout)) as Record<string, unknown>;
      expect(totals).toEqual(wanted);
      expect(got.stderr).toContain(`Cannot read ${join(broken.codex, 'archived_sessions', BROKEN_NAME)}: Cannot decompress`);
      expect(got.stderr).toContain('unexpected EOF');
    }
  });

  it('sessions list, show and search, and events export see the compressed session as the plain one', async () => {
    for (const args of [
      ['sessions', 'list', 'codex', '--json'],
      ['sessions', 'show', 'codex', ID, '--format', 'json'],
      ['sessions', 'search', 'files', '--json'],
    ]) {
      const want = await cli(plain, args);
      const got = await cli(compressed, args);
      expect(got.code).toBe(0);
      // A listing gives the file's size on disk: the compressed one's.
      const size = `"sizeBytes": ${(await readFile(ZST_FIXTURE)).length}`;
      expect(args[1] !== 'list' || got.stdout.includes(size)).toBe(true);
      expect(normalize(compressed, got.stdout).replace(size, `"sizeBytes": ${(await readFile(REAL)).length}`)).toBe(normalize(plain, want.stdout));
      expect(want.stdout).toContain(ID);
    }
    const exported = async (h: Home) => (await cli(h, ['events', 'export', '--agent', 'codex'])).stdout.split('\n').filter(Boolean).map((l) => ({ ...(JSON.parse(l) as object), file: undefined }));
    const events = await exported(plain);
    expect(events.length).toBeGreaterThan(0);
    expect(await exported(compressed)).toEqual(events);
  });

  it('serve answers over a compressed rollout as a local run does, also once Codex compresses a plain one', async () => {
    const h = await home({ [`archived_sessions/${PLAIN_NAME}`]: REAL, [`sessions/2025/10/31/${OTHER_NAME}`]: OTHER });
    const socket = join(h.dir, 'zst.sock');
    const server = await startServer({ socket, compute: computeServed, sweepMs: 0 });
    const served = async (args: string[]) => {
      const out = sink();
      const err = sink();
      const code = await runServedCommand(args, { stdout: out, stderr: err, env: { ...h.env, SESSIONFOLD_SOCKET: socket }, cwd: h.dir });
      expect([code, err.text()]).toEqual([0, '']);
      return out.text();
    };
    // The totals: the cache keeps the deleted plain file's usage as retained (its ledger), and the fold may
    // count that copy of a response rather than the compressed file's, which then shows as `retained`.
    const totals = (text: string) => {
      const { retained: _, ...rest } = JSON.parse(text) as Record<string, unknown>;
      return rest;
    };
    try {
      const before = await served(REPORT);
      expect(before).toBe((await cli(h, REPORT)).stdout);
      // What Codex's worker does: the compressed file appears whole beside the plain one, then the plain one goes.
      await copyFile(ZST_FIXTURE, join(h.codex, 'archived_sessions', ZST_NAME));
      expect(await served(REPORT)).toBe(before);
      await rm(join(h.codex, 'archived_sessions', PLAIN_NAME));
      const after = await served(REPORT);
      expect(totals(after)).toEqual(totals(before));
      expect(after).toBe((await cli(h, REPORT)).stdout);
      expect(totals((await cli(h, [...REPORT, '--no-cache'])).stdout)).toEqual(totals(before));
      expect(await served(['sessions', 'list', 'codex', '--json'])).toContain(ZST_NAME);
    } finally {
      await server.close();
    }
  });
});
