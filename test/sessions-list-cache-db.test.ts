/**
 * The summaries table in the event cache database: a version-1 cache (before the table) is migrated in place
 * with its usage rows and ledger kept; an unknown version or a corrupt file is moved aside and rebuilt, and
 * list still answers; two processes listing at once over a cold cache agree. Build first: `npx tsc -p .`.
 */
import { execFile } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_APPLICATION_ID, CACHE_SCHEMA_VERSION } from '../src/cache/db.js';
import { SummaryStore, type SummaryKey } from '../src/cache/summaries.js';
import { summaryJson } from '../src/cli/commands/sessions-common.js';
import { createSessionManager } from '../src/sessions/manager.js';
import type { SessionListOptions } from '../src/sessions/types.js';
import { newScanStats } from '../src/scan/types.js';
import { asJson, cachePath, summaryRows, writeLargeSessions } from './sessions-list-cache-helpers.js';
import { buildExportFixtures, makeHome, type Home } from './sessions-helpers.js';
import { collect, makeTree, opts, put, sessionBody, tempDir } from './scan-helpers.js';

const J = 'sessionfold-jsonl';
const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const run = promisify(execFile);

let home: Home;

beforeAll(async () => {
  home = await makeHome();
  await buildExportFixtures(home.exports);
  await writeLargeSessions(join(home.exports, 'large'), 34);
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

function tables(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[]);
  } finally {
    db.close();
  }
}

function pragma(path: string, name: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma(name, { simple: true }) as number;
  } finally {
    db.close();
  }
}

async function aside(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.includes('.corrupt-'));
}

describe('schema version 2', () => {
  it('migrates a version-1 cache in place: usage rows and ledger kept, summaries added, nothing moved aside', async () => {
    const dir = await tempDir('sf-listcache-');
    const { root, paths } = await makeTree(dir, 4);
    const o = opts(dir, root);
    const db = o.cachePath as string;
    await collect(o);
    // A rewrite that drops a usage line puts it in the ledger.
    const lines = sessionBody('s0', 5).trimEnd().split('\n');
    await put(paths[0] as string, `${lines.slice(0, -1).join('\n')}\n`);
    const before = await collect(o);
    expect(before.some((r) => r.retained === true)).toBe(true);

    // What a version-1 build left: the same tables without `summaries` (nor `folds`), user_version 1.
    const w = new Database(db);
    w.exec('DROP TABLE summaries; DROP TABLE folds; DROP TABLE fold_chunks; DROP TABLE file_changes');
    w.pragma('user_version = 1');
    w.close();
    expect(tables(db)).toEqual(['files', 'meta', 'segments']);

    const sm = createSessionManager({ env: { HOME: dir }, roots: { [J]: [root] }, cachePath: db });
    const listed = await sm.list(J, { limit: 1000 });
    expect(asJson(listed)).toBe(asJson(await createSessionManager({ env: { HOME: dir }, roots: { [J]: [root] }, cache: false }).list(J, { limit: 1000 })));
    expect(pragma(db, 'user_version')).toBe(CACHE_SCHEMA_VERSION);
    expect(pragma(db, 'application_id')).toBe(CACHE_APPLICATION_ID);
    expect(tables(db)).toEqual(['file_changes', 'files', 'fold_chunks', 'folds', 'meta', 'segments', 'summaries']);
    expect(await aside(join(dir, 'cache'))).toEqual([]);

    const stats = newScanStats();
    const warnings: string[] = [];
    expect(await collect({ ...o, stats, onWarning: (m) => warnings.push(m) })).toEqual(before);
    expect(stats).toMatchObject({ cache: 'used', unchanged: 4, fullReads: 0 });
    expect(warnings).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['a cache of a schema version this build does not know', (p: string) => {
      const d = new Database(p);
      d.exec('CREATE TABLE files (id INTEGER PRIMARY KEY)');
      d.pragma(`application_id = ${CACHE_APPLICATION_ID}`);
      d.pragma(`user_version = ${CACHE_SCHEMA_VERSION + 1}`);
      d.close();
    }],
  ] as [string, (p: string) => unknown][])('lists over %s: moved aside, rebuilt, same summaries', async (_name, prepare) => {
    const other = await makeHome();
    try {
      await buildExportFixtures(other.exports);
      const path = cachePath(other);
      await put(path, '');
      await prepare(path);
      const expected = asJson(await createSessionManager({ env: other.env, cache: false }).list(J, { sort: 'cost' }));
      expect(asJson(await createSessionManager({ env: other.env }).list(J, { sort: 'cost' }))).toBe(expected);
      expect(await aside(join(other.env.XDG_CACHE_HOME as string, 'sessionfold'))).toHaveLength(1);
      expect(summaryRows(other, J).length).toBeGreaterThan(0);
      expect(asJson(await createSessionManager({ env: other.env }).list(J, { sort: 'cost' }))).toBe(expected);
    } finally {
      await rm(other.dir, { recursive: true, force: true });
    }
  });
});

describe('the summaries store', () => {
  it('merges levels under one key, replaces them under another, and never hands out a level of a row re-keyed since it was loaded', async () => {
    const dir = await tempDir('sf-listcache-');
    const store = SummaryStore.open(join(dir, 'events.db'), () => undefined);
    try {
      const k1: SummaryKey = { parser: 'p@1', size: 10, mtimeMs: 1.5, ino: 7, ctimeMs: 2.5, deps: '[]', foldKey: 'f' };
      const k2: SummaryKey = { ...k1, size: 11 };
      store.write([{ agent: 'a', path: '/x', key: k1, levels: { peek: '"p1"' } }]);
      store.write([{ agent: 'a', path: '/x', key: k1, levels: { whole: '"w1"' } }]);
      const loaded = store.load('a', 'p@1', 'f').get('/x');
      expect(loaded).toMatchObject({ size: 10, mtimeMs: 1.5, deps: '[]', peek: '"p1"' });
      const id = loaded?.id as number;
      expect(store.level('whole', new Map([[id, k1]]))).toEqual(new Map([[id, '"w1"']]));
      expect(store.level('usage', new Map([[id, k1]]))).toEqual(new Map([[id, null]]));
      // Another process saw the file grow and wrote its state: the old key no longer gets anything.
      store.write([{ agent: 'a', path: '/x', key: k2, levels: { usage: '"u2"' } }]);
      expect(store.level('whole', new Map([[id, k1]]))).toEqual(new Map());
      expect(store.level('usage', new Map([[id, k2]]))).toEqual(new Map([[id, '"u2"']]));
      expect(store.load('a', 'p@1', 'f').get('/x')).toMatchObject({ size: 11, peek: null });
      // Rewritten with its size and mtime put back: its ctime (or, renamed over, its inode) makes it another key.
      for (const k3 of [{ ...k2, ctimeMs: 3.5 }, { ...k2, ino: 8 }]) {
        store.write([{ agent: 'a', path: '/x', key: k3, levels: { peek: '"p3"' } }]);
        expect(store.level('usage', new Map([[id, k2]]))).toEqual(new Map());
        store.write([{ agent: 'a', path: '/x', key: k2, levels: { usage: '"u2"' } }]);
        expect(store.level('usage', new Map([[id, k2]]))).toEqual(new Map([[id, '"u2"']]));
      }
      expect(store.load('a', 'p@1', 'other-fold-key').size).toBe(0);
      store.write([], [['a', '/x']]);
      expect(store.load('a', 'p@1', 'f').size).toBe(0);
    } finally {
      store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('two processes at once', () => {
  const cases: [string, string[], SessionListOptions][] = [
    ['date', [], { exactBytes: 64 * 1024 * 1024, limit: 1000 }],
    ['cost', ['--sort', 'cost'], { sort: 'cost', exactBytes: 64 * 1024 * 1024, limit: 1000 }],
    ['turns', ['--sort', 'turns', '--lazy'], { sort: 'turns', limit: 1000 }],
  ];

  it('agree with each other and with an uncached list, cold and warm (built CLI, one cache)', async () => {
    const cli = async (args: string[]) => (await run(process.execPath, [CLI, 'sessions', 'list', J, '--json', '--limit', '1000', ...args], { env: home.env, maxBuffer: 64 << 20 })).stdout;
    for (const [name, args, o] of cases) {
      const expected = `${JSON.stringify((await createSessionManager({ env: home.env, cache: false }).list(J, o)).map(summaryJson), null, 2)}\n`;
      const [a, b] = await Promise.all([cli(args), cli(args)]);
      expect(a, name).toBe(expected);
      expect(b, name).toBe(expected);
      expect(await cli(args), `${name} warm`).toBe(expected);
    }
    expect(summaryRows(home, J).length).toBeGreaterThan(34);
    // In-process managers racing on the same rows agree too.
    const lists = await Promise.all([0, 1, 2].map(() => createSessionManager({ env: home.env }).list(J, { sort: 'cost', limit: 1000 })));
    expect(new Set(lists.map(asJson)).size).toBe(1);
  });
});
