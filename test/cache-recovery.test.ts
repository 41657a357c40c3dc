import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { newScanStats } from '../src/scan/types.js';
import { CACHE_APPLICATION_ID, CACHE_SCHEMA_VERSION } from '../src/cache/db.js';
import { EventCache } from '../src/cache/store.js';
import type { FileResult } from '../src/cache/rows.js';
import { SegmentWriter } from '../src/scan/segment.js';
import { collect, makeTree, opts, put, tempDir } from './scan-helpers.js';

async function scanWith(dir: string, root: string) {
  const warnings: string[] = [];
  const stats = newScanStats();
  const records = await collect(opts(dir, root, { stats, onWarning: (w) => warnings.push(w) }));
  return { records, warnings, stats };
}

async function asideFiles(dir: string): Promise<string[]> {
  return (await readdir(join(dir, 'cache'))).filter((f) => f.startsWith('events.db.corrupt-')).sort();
}

describe('event cache: corrupt or unknown sessionfold caches are moved aside and rebuilt', () => {
  // A file that is not provably a sessionfold cache (not SQLite, a foreign database) is never moved:
  // test/reliability-paths.test.ts.
  const cases: [string, (path: string) => Promise<void>][] = [
    [
      'a sessionfold cache of an unknown schema version',
      async (p) => {
        await put(p, '');
        const db = new Database(p);
        db.exec('CREATE TABLE files (id INTEGER PRIMARY KEY)');
        db.pragma(`application_id = ${CACHE_APPLICATION_ID}`);
        db.pragma(`user_version = ${CACHE_SCHEMA_VERSION + 98}`);
        db.close();
      },
    ],
    [
      'a truncated database',
      async (p) => {
        const dir = p.replace(/\/cache\/events\.db$/, '');
        const { root } = await makeTree(join(dir, 'seed'), 3, () => 400);
        await collect(opts(join(dir, 'seed'), root, { cachePath: p }));
        const bytes = await readFile(p);
        await writeFile(p, bytes.subarray(0, Math.floor(bytes.length / 3)));
      },
    ],
  ];

  it.each(cases)('%s', async (_name, prepare) => {
    const dir = await tempDir();
    const { root } = await makeTree(dir, 3);
    const expected = await collect(opts(dir, root, { cache: false }));
    const path = join(dir, 'cache', 'events.db');
    await prepare(path);
    const before = await readFile(path);

    const first = await scanWith(dir, root);
    expect(first.records).toEqual(expected);
    expect(first.stats.cache).toBe('rebuilt');
    expect(first.warnings).toHaveLength(1);
    expect(first.warnings[0]).toMatch(/moved it aside to .*events\.db\.corrupt-\d+/);
    const aside = await asideFiles(dir);
    expect(aside).toHaveLength(1);
    expect(await readFile(join(dir, 'cache', aside[0] as string))).toEqual(before);

    const second = await scanWith(dir, root);
    expect(second.records).toEqual(expected);
    expect(second.warnings).toEqual([]);
    expect(second.stats).toMatchObject({ cache: 'used', unchanged: 3 });
  });
});

describe('event cache: optimistic concurrency', () => {
  const result = (baseGen: number | null, outputs: number[]): FileResult => {
    const w = new SegmentWriter();
    outputs.forEach((o, i) =>
      w.add({ type: 'usage', agent: 'a', sessionId: 's', offset: i, model: 'm', timestamp: 't', inputTokens: 1, outputTokens: o, reasoningTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, singleRequest: true, dedupKey: `k${i}` }),
    );
    return {
      agent: 'a',
      path: '/f.jsonl',
      root: '/',
      parser: 'a@n1.p1',
      size: outputs.length,
      mtimeMs: 1,
      ino: 1,
      ctimeMs: 1,
      deps: '[]',
      baseGen,
      start: { restarted: true, replaced: {} },
      segments: [w.finish()],
      cursor: null,
      prefixHash: null,
      track: { events: 0, cwdIndex: null, cwd: null },
    };
  };

  it('applies a file only over the row generation it was computed from', async () => {
    const dir = await tempDir();
    const path = join(dir, 'c.db');
    const a = EventCache.open(path, () => undefined);
    const b = EventCache.open(path, () => undefined);
    try {
      expect(a.apply([result(null, [1, 2])])[0]).toMatchObject({ ok: true });
      // b computed its result before a's write: it is refused, not merged.
      expect(b.apply([result(null, [5])])).toEqual([{ ok: false }]);
      const row = b.getFile('a', '/f.jsonl');
      expect(row).toMatchObject({ gen: 1, live_count: 2 });
      const ok = b.apply([result(1, [7, 8, 9])])[0];
      expect(ok?.ok && ok.records.map((r) => r.outputTokens)).toEqual([7, 8, 9]);
      expect(a.apply([result(1, [3])])).toEqual([{ ok: false }]);
      expect(a.readFiles([a.getFile('a', '/f.jsonl')!]).records.map((r) => r.outputTokens)).toEqual([7, 8, 9]);
    } finally {
      a.close();
      b.close();
    }
  });
});
