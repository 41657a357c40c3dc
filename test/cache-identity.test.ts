/**
 * The event cache's identity of a file: a rewrite that keeps the file's size and mtime (`cp -p`, `rsync -t`,
 * `touch -d`, a sync tool restoring the mtime) is still seen, by its ctime (which no user can set) and its
 * inode (a replace by rename gives another). Each case writes a session, runs a cached report or listing,
 * rewrites the session with other content of the same size, puts the old mtime back, and runs again: the
 * answer must be the new content's, through the library and through the built CLI, with the native listing
 * and without it (`SESSIONFOLD_NATIVE=0` in the child).
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CACHE_SCHEMA_VERSION } from '../src/cache/db.js';
import { claudeLine, type Req } from './claude-lines.js';
import { makeHome, type Home } from './sessions-helpers.js';
import { totalCost } from '../src/cost/total.js';
import { createSessionManager } from '../src/sessions/manager.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const SID = '66666666-6666-4666-8666-666666666666';
const T0 = Date.parse('2026-02-01T10:00:00Z');

/** Two contents of one byte length: the second's tokens and recorded cost differ in the same digits. */
const reqs = (inp: number, usd: number): Req[] => [0, 1].map((i) => ({ id: `r${i}`, ms: T0 + i * 60_000, inp, out: 20, cr: 5, cw: 1, usd }));
const CONTENT_A = reqs(11, 0.25);
const CONTENT_B = reqs(77, 0.75);

const homes: Home[] = [];
let home: Home;
let file: string;
beforeEach(async () => {
  home = await makeHome();
  homes.push(home);
  file = join(home.claude, 'projects', '-w', `${SID}.jsonl`);
  await rewrite('in place', CONTENT_A);
});
afterAll(async () => {
  for (const h of homes) await rm(h.dir, { recursive: true, force: true });
});

const text = (rs: readonly Req[]): string => rs.map((r) => claudeLine(SID, r)).join('\n') + '\n';

/** The mtime every write leaves (a whole second: `utimes` would round a fraction of a millisecond). */
const MTIME = new Date(T0 + 3_600_000);

/** Write `rs` over the session, in place or by renaming a new file over it, and give it MTIME, as `touch -d` would. */
async function rewrite(how: 'in place' | 'by rename', rs: readonly Req[]): Promise<void> {
  const before = await stat(file).catch(() => undefined);
  await mkdir(join(file, '..'), { recursive: true });
  const target = how === 'by rename' ? `${file}.tmp` : file;
  await writeFile(target, text(rs));
  await utimes(target, MTIME, MTIME);
  if (target !== file) await rename(target, file);
  if (before === undefined) return;
  const after = await stat(file);
  // The case under test: only the content (and what no user sets) differs.
  expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
}

const scan = () => ({ env: home.env, cachePath: join(home.dir, 'cache', 'events.db'), onWarning: () => undefined });
const libReport = () => totalCost({ agents: ['claude'] }, scan());
const libList = (o: { sort?: 'cost' } = {}) => createSessionManager({ env: home.env, cachePath: scan().cachePath }).list('claude', o);

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await run(process.execPath, [CLI, ...args], { env: { ...home.env, SESSIONFOLD_SOCKET: 'off', SESSIONFOLD_CACHE: join(home.dir, 'cache', 'cli-events.db'), ...env } });
  return r.stdout;
}

describe('a cache of schema version 4 (rows without an inode or ctime)', () => {
  it('is migrated in place, and each row is checked once against its file: a rewrite made before the upgrade is seen', async () => {
    await libReport();
    await libList({ sort: 'cost' });
    // What a version-4 build left: the same tables without the identity columns.
    const w = new Database(scan().cachePath);
    for (const t of ['files', 'summaries']) w.exec(`ALTER TABLE ${t} DROP COLUMN ino; ALTER TABLE ${t} DROP COLUMN ctime_ms`);
    w.pragma('user_version = 4');
    w.close();
    await rewrite('in place', CONTENT_B);
    expect((await libReport()).inputTokens).toBe(154);
    expect((await libList({ sort: 'cost' }))[0]?.cost?.totalUsd).toBe(1.5);
    const r = new Database(scan().cachePath, { readonly: true });
    const s = await stat(file);
    expect(r.pragma('user_version', { simple: true })).toBe(CACHE_SCHEMA_VERSION);
    for (const t of ['files', 'summaries']) expect(r.prepare(`SELECT ino, ctime_ms FROM ${t}`).all()).toEqual([{ ino: s.ino, ctime_ms: s.ctimeMs }]);
    r.close();
  });
});

describe('a JSON document rewritten in place with its mtime put back (a Cline task)', () => {
  it('the library: cost report answers the new content (its fingerprint cursor is not taken for it)', async () => {
    const doc = join(home.dir, 'cline', 'tasks', '1722000000000', 'ui_messages.json');
    const original = await readFile(fileURLToPath(new URL('../fixtures/cline/tasks/1722000000000/ui_messages.json', import.meta.url)), 'utf8');
    const changed = original.replace('\\"tokensIn\\":2310', '\\"tokensIn\\":9310');
    expect(changed.length).toBe(original.length);
    expect(changed).not.toBe(original);
    await mkdir(join(doc, '..'), { recursive: true });
    const put = async (content: string) => {
      await writeFile(doc, content);
      await utimes(doc, MTIME, MTIME);
    };
    const report = () => totalCost({ agents: ['cline'] }, { ...scan(), roots: { cline: [join(home.dir, 'cline')] } });
    await put(original);
    expect((await report()).inputTokens).toBe(2310 + 3120);
    await report();
    await put(changed);
    expect((await report()).inputTokens).toBe(9310 + 3120);
  });
});

describe.each(['in place', 'by rename'] as const)('a rewrite of the same size with the mtime put back (%s)', (how) => {
  it('the library: cost report answers the new content', async () => {
    const a = await libReport();
    expect(a.inputTokens).toBe(22);
    await libReport(); // warm: served from the cache (and its fold snapshot)
    await rewrite(how, CONTENT_B);
    const b = await libReport();
    expect([b.inputTokens, b.totalUsd]).toEqual([154, 1.5]);
    expect(await libReport()).toEqual(b);
  });

  it('the library: sessions list answers the new content, with and without usage', async () => {
    const cold = await libList({ sort: 'cost' });
    expect(cold[0]?.cost?.totalUsd).toBe(0.5);
    await libList();
    await rewrite(how, CONTENT_B);
    const fresh = await createSessionManager({ env: home.env, cache: false }).list('claude', { sort: 'cost' });
    expect(fresh[0]?.cost?.totalUsd).toBe(1.5);
    expect(await libList({ sort: 'cost' })).toEqual(fresh);
    expect(await libList()).toEqual(await createSessionManager({ env: home.env, cache: false }).list('claude'));
  });

  it.each([
    ['the native listing', {}],
    ['no native kernel', { SESSIONFOLD_NATIVE: '0' }],
  ])('the CLI (%s): cost report and sessions list answer the new content', async (_, env) => {
    const report = async () => JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'claude'], env)) as { inputTokens: number; totalUsd: number };
    const list = async () => cli(['sessions', 'list', 'claude', '--json', '--sort', 'cost'], env);
    expect((await report()).inputTokens).toBe(22);
    await report();
    const listed = await list();
    expect(await list()).toBe(listed);
    await rewrite(how, CONTENT_B);
    expect(await report()).toMatchObject({ inputTokens: 154, totalUsd: 1.5 });
    const relisted = await list();
    expect(relisted).not.toBe(listed);
    // What a cache that never saw the old content lists.
    expect(relisted).toBe(await cli(['sessions', 'list', 'claude', '--json', '--sort', 'cost'], { ...env, SESSIONFOLD_CACHE: join(home.dir, 'cache', 'fresh.db') }));
    expect(await readFile(file, 'utf8')).toBe(text(CONTENT_B));
  }, 60_000);
});
