/**
 * Packages taken by their files (cursors/package-file.ts): xxhash-wasm's CommonJS build and better-sqlite3's
 * addon found where `require` finds their packages, so a warm report starts no part of Node's ESM resolver
 * (an `exports` map) and never asks `bindings` (test/warm-append.test.ts checks the CLI's own process).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageFile } from '../cursors/package-file.js';
import { sqliteDriver } from '../cursors/sqlite.js';

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
});
