/**
 * Packages taken by their files (cursors/package-file.ts): xxhash-wasm's CommonJS build and better-sqlite3's
 * addon found where `require` finds their packages, so a warm report starts no part of Node's ESM resolver
 * (an `exports` map) and never asks `bindings` (test/warm-append.test.ts checks the CLI's own process).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageFile } from '../cursors/package-file.js';
import { BUNDLED_PACKAGE, bundledBetterSqlite3, sqliteDriver } from '../cursors/sqlite.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('packages taken by their files', () => {
  const req = createRequire(import.meta.url);
  it('finds a package file where require finds the package, and nothing for a file it lacks', () => {
    const cjs = packageFile(req, 'xxhash-wasm', 'cjs/xxhash-wasm.cjs');
    expect(cjs).toBe(join(ROOT, 'node_modules', 'xxhash-wasm', 'cjs', 'xxhash-wasm.cjs'));
    expect(existsSync(cjs!)).toBe(true);
    expect(packageFile(req, 'xxhash-wasm', 'no/such/file.cjs')).toBeUndefined();
    expect(packageFile(req, 'no-such-package-sessionfold', 'package.json')).toBeUndefined();
  });

  it('takes the file from the copy require loads, never from a farther copy', async () => {
    // Two copies: the nearer (which `require` loads) without the addon, the farther with it.
    const root = await mkdtemp(join(tmpdir(), 'sf-package-copies-'));
    try {
      const near = join(root, 'app', 'node_modules', 'pkg');
      const far = join(root, 'node_modules', 'pkg');
      await mkdir(near, { recursive: true });
      await mkdir(join(far, 'build'), { recursive: true });
      await writeFile(join(near, 'package.json'), '{"name":"pkg","version":"1.0.0","main":"index.js"}');
      await writeFile(join(near, 'index.js'), 'module.exports = "near";');
      await writeFile(join(far, 'package.json'), '{"name":"pkg","version":"2.0.0","main":"index.js"}');
      await writeFile(join(far, 'index.js'), 'module.exports = "far";');
      await writeFile(join(far, 'build', 'addon.node'), '');
      const appReq = createRequire(join(root, 'app', 'main.js'));
      expect(appReq('pkg')).toBe('near');
      expect(packageFile(appReq, 'pkg', 'build/addon.node')).toBeUndefined();
      expect(packageFile(appReq, 'pkg', 'package.json')).toBe(join(near, 'package.json'));
      // From a folder that sees only the farther copy, its file is found.
      expect(packageFile(createRequire(join(root, 'main.js')), 'pkg', 'build/addon.node')).toBe(join(far, 'build', 'addon.node'));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('opens SQLite with better-sqlite3 given its addon (no `bindings` search), reading and writing', async () => {
    const addon = packageFile(req, 'better-sqlite3', 'build/Release/better_sqlite3.node');
    expect(addon).toBeDefined();
    const dir = await mkdtemp(join(tmpdir(), 'sf-package-file-'));
    const Db = sqliteDriver();
    const db = new Db(join(dir, 'x.db'));
    try {
      db.exec('CREATE TABLE t (v INTEGER)');
      db.prepare('INSERT INTO t VALUES (?)').run(41);
      expect(db.prepare('SELECT v + 1 AS w FROM t').get()).toEqual({ w: 42 });
    } finally {
      db.close();
      await rm(dir, { recursive: true, force: true });
    }
    expect(Object.keys(req.cache).some((k) => /node_modules\/bindings\//.test(k))).toBe(false);
  });

  it("asks the executable's bundle for better-sqlite3 by the installed version, and takes only a constructor from it", () => {
    const g = globalThis as Record<symbol, unknown>;
    const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string };
    const asked: string[] = [];
    const bundled = function BundledDatabase(): void {};
    try {
      expect(bundledBetterSqlite3(req)).toBeUndefined(); // no executable, no bundle
      g[BUNDLED_PACKAGE] = (name: string, v: string) => (asked.push(`${name}@${v}`), v === version ? bundled : undefined);
      expect(bundledBetterSqlite3(req)).toBe(bundled);
      expect(asked).toEqual([`better-sqlite3@${version}`]);
      g[BUNDLED_PACKAGE] = () => undefined; // a bundle built for another version
      expect(bundledBetterSqlite3(req)).toBeUndefined();
      g[BUNDLED_PACKAGE] = () => ({ partly: 'loaded' });
      expect(bundledBetterSqlite3(req)).toBeUndefined();
    } finally {
      delete g[BUNDLED_PACKAGE];
    }
  });
});
