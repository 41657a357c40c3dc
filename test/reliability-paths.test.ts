/**
 * Paths users name are never destroyed (issue 17, case 1): `serve --socket`, the cache path and `read
 * --cursor` remove or replace only what sessionfold can prove is its own (a dead server's socket, a database
 * with its application_id, a cursor file); anything else stops the command with a coded error naming the path
 * and stays byte for byte as it was. A FIFO is refused without being opened (in a child process: opening one
 * would block).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openCacheDb } from '../src/cache/db.js';
import { CursorStore } from '../cursors/store.js';
import { runCli } from '../src/cli/run.js';
import { computeServed } from '../src/cli/served-compute.js';
import { startServer } from '../src/serve/server.js';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import { runCliChild, tempDirs } from './helpers/child.js';
import { makeHome, sink } from './sessions-helpers.js';

const temps = tempDirs('sf-paths-');
const dirs: string[] = [];
afterAll(() => {
  temps.remove();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const dir = (): Promise<string> => temps.make();

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

/** A socket nobody answers on: bound by a child that is then killed, so it is never unlinked. */
async function staleSocket(path: string): Promise<void> {
  const p = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
  await new Promise((r) => p.on('exit', r));
  expect(lstatSync(path).isSocket()).toBe(true);
}

describe('serve --socket never removes what is not a dead server\'s socket', () => {
  it('refuses a regular file, a read-only file and a folder with IO_ERROR, leaving them as they were', async () => {
    const d = await dir();
    const file = join(d, 'transcript.jsonl');
    writeFileSync(file, '{"a":1}\n');
    const ro = join(d, 'ro.txt');
    writeFileSync(ro, 'keep me');
    chmodSync(ro, 0o444);
    const folder = join(d, 'folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'x'), 'x');
    for (const path of [file, ro, folder]) {
      const e = await rejection(startServer({ socket: path, compute: computeServed, watch: false, sweepMs: 0 }));
      expect(isSessionfoldError(e, 'IO_ERROR')).toBe(true);
      expect((e as Error).message).toContain(path);
    }
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    expect(readFileSync(ro, 'utf8')).toBe('keep me');
    expect(readdirSync(folder)).toEqual(['x']);
  });

  it('replaces a dead server\'s socket, and removes only its own socket when it stops', async () => {
    const d = await dir();
    const path = join(d, 'sf.sock');
    await staleSocket(path);
    const server = await startServer({ socket: path, compute: computeServed, watch: false, sweepMs: 0 });
    expect(lstatSync(path).isSocket()).toBe(true);
    // Something else took the path meanwhile: the server leaves it there.
    rmSync(path);
    writeFileSync(path, 'not yours');
    await server.close();
    expect(readFileSync(path, 'utf8')).toBe('not yours');
  });

  it('says so through the CLI, SESSIONFOLD_SOCKET included', async () => {
    const home = await makeHome();
    dirs.push(home.dir);
    const file = join(home.dir, 'notes.txt');
    writeFileSync(file, 'notes');
    const err = sink();
    const code = await runCli(['serve', '--quiet'], { stdout: sink(), stderr: err, env: { ...home.env, SESSIONFOLD_SOCKET: file } });
    expect(code).toBe(1);
    expect(err.text()).toMatch(/^error IO_ERROR: .*notes\.txt exists and is not a socket/);
    expect(readFileSync(file, 'utf8')).toBe('notes');
  });
});

describe('the cache path is moved aside only when it holds a sessionfold cache', () => {
  const cases: [string, (p: string) => void][] = [
    ['a text file', (p) => writeFileSync(p, 'this is not a database\n'.repeat(500))],
    [
      'a foreign SQLite database',
      (p) => {
        const db = new Database(p);
        db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
        db.close();
      },
    ],
    [
      'a database with another application_id',
      (p) => {
        const db = new Database(p);
        db.pragma('application_id = 1234');
        db.exec('CREATE TABLE t (x)');
        db.close();
      },
    ],
  ];
  it.each(cases)('%s: CACHE_ERROR naming it, the file untouched, nothing beside it', async (_name, make) => {
    const d = await dir();
    const path = join(d, 'mine.db');
    make(path);
    const before = readFileSync(path);
    const mtime = statSync(path).mtimeMs;
    const warnings: string[] = [];
    let err: unknown;
    try {
      openCacheDb(path, (w) => warnings.push(w)).db.close();
    } catch (e) {
      err = e;
    }
    expect(isSessionfoldError(err, 'CACHE_ERROR')).toBe(true);
    expect((err as Error).message).toContain(path);
    expect(readFileSync(path)).toEqual(before);
    expect(statSync(path).mtimeMs).toBe(mtime);
    expect(readdirSync(d)).toEqual(['mine.db']);
    expect(warnings).toEqual([]);
  });

  it('a folder is refused too; an empty file becomes a cache', async () => {
    const d = await dir();
    mkdirSync(join(d, 'f.db'));
    expect(() => openCacheDb(join(d, 'f.db'), () => undefined)).toThrow(/not a sessionfold cache \(not a regular file\)/);
    writeFileSync(join(d, 'empty.db'), '');
    const { db } = openCacheDb(join(d, 'empty.db'), () => undefined);
    expect(db.pragma('application_id', { simple: true })).toBe(0x53466576);
    db.close();
  });

  it('cost report with SESSIONFOLD_CACHE at a FIFO stops with CACHE_ERROR at once (child process)', async () => {
    const home = await makeHome();
    dirs.push(home.dir);
    const fifo = join(home.dir, 'cache.fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await runCliChild(['cost', 'report', '--json'], { env: { ...home.env, SESSIONFOLD_CACHE: fifo, SESSIONFOLD_SOCKET: 'off' }, timeoutMs: 20_000 });
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/CACHE_ERROR: .*cache\.fifo is not a sessionfold cache \(not a regular file\)/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  }, 30_000);
});

describe('read --cursor overwrites only a cursor file', () => {
  async function read(args: string[]) {
    const out = sink();
    const err = sink();
    const code = await runCli(['read', ...args], { stdout: out, stderr: err, env: { HOME: '/nonexistent' } });
    return { code, out: out.text(), err: err.text() };
  }
  const line = JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'claude', sessionId: 's1', model: 'm' });

  it('refuses notes, a package.json and a folder with CURSOR_INVALID and reads nothing', async () => {
    const d = await dir();
    const session = join(d, 's.jsonl');
    writeFileSync(session, `${line}\n`);
    const notes = join(d, 'notes.txt');
    writeFileSync(notes, 'my notes\n');
    const pkg = join(d, 'package.json');
    writeFileSync(pkg, JSON.stringify({ name: 'x', version: '1.0.0' }));
    mkdirSync(join(d, 'folder'));
    for (const c of [notes, pkg, join(d, 'folder')]) {
      const r = await read([session, '--agent', 'sessionfold-jsonl', '--cursor', c]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(new RegExp(`^error CURSOR_INVALID: ${c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a sessionfold cursor file`));
      expect(r.out).toBe('');
    }
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
    expect(readFileSync(pkg, 'utf8')).toBe(JSON.stringify({ name: 'x', version: '1.0.0' }));
    expect(readdirSync(d).sort()).toEqual(['folder', 'notes.txt', 'package.json', 's.jsonl']);
  });

  it('starts an absent or empty cursor file and resumes from its own', async () => {
    const d = await dir();
    const session = join(d, 's.jsonl');
    writeFileSync(session, `${line}\n`);
    const cursor = join(d, 'c.json');
    writeFileSync(cursor, '');
    const first = await read([session, '--agent', 'sessionfold-jsonl', '--cursor', cursor]);
    expect(first.code).toBe(0);
    expect(JSON.parse(readFileSync(cursor, 'utf8'))).toMatchObject({ format: 'jsonl', offset: line.length + 1 });
    const second = await read([session, '--agent', 'sessionfold-jsonl', '--cursor', cursor]);
    expect(second.code).toBe(0);
    expect(second.err).toContain('"restarted":false');
    expect(readdirSync(d).sort()).toEqual(['c.json', 's.jsonl']);
  });

  it('a CursorStore refuses a file that is not its document, and its temp name too', async () => {
    const d = await dir();
    const path = join(d, 'store.json');
    writeFileSync(path, '{"name":"x"}');
    await expect(CursorStore.open(path)).rejects.toThrow(/is not a sessionfold cursor store/);
    expect(readFileSync(path, 'utf8')).toBe('{"name":"x"}');
    const other = join(d, 'other.json');
    writeFileSync(`${other}.tmp`, 'user data');
    const store = await CursorStore.open(other);
    store.set('/f', { format: 'jsonl', version: 1, parser: 'p', offset: 0, prefixHash: '' });
    await expect(store.save()).rejects.toThrow(/other\.json\.tmp is not a sessionfold cursor store/);
    expect(readFileSync(`${other}.tmp`, 'utf8')).toBe('user data');
    expect(existsSync(other)).toBe(false);
  });
});
