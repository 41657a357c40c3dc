import { appendFile, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Codec } from '../cursors/protocol/codec.js';
import { registerCodec } from '../src/registry.js';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { newScanDelta, newScanStats, type ScanOptions, type UsageRecord } from '../src/scan/types.js';
import { scanUsage, scanUsageBatches } from '../src/scan/index.js';
import { getCachePath } from '../src/cache/paths.js';
import { SessionfoldError } from '../cursors/protocol/errors.js';
import { AGENT, collect, dedup, makeTree, opts, put, sessionBody, tempDir, usageLine, userLine } from './scan-helpers.js';

const live = (rs: UsageRecord[]) => rs.filter((r) => r.retained !== true);

async function both(dir: string, root: string, extra: ScanOptions = {}) {
  const stats = newScanStats();
  const cached = await collect(opts(dir, root, { ...extra, stats }));
  const uncached = await collect(opts(dir, root, { ...extra, cache: false }));
  return { cached, uncached, stats };
}

describe('event cache: cold, warm, append, rewrite', () => {
  it('gives the uncached records cold and warm, and a warm run opens no file', async () => {
    const dir = await tempDir();
    const { root } = await makeTree(dir, 5);
    const cold = await both(dir, root, { workers: 2 });
    expect(cold.cached).toEqual(cold.uncached);
    expect(cold.stats).toMatchObject({ files: 5, fullReads: 5, unchanged: 0, cache: 'used' });
    const warm = await both(dir, root, { workers: 2 });
    expect(warm.cached).toEqual(cold.uncached);
    expect(warm.stats).toMatchObject({ files: 5, unchanged: 5, fullReads: 0, resumed: 0, bytesRead: 0, bytesVerified: 0, records: cold.cached.length });
  });

  it('reads only the appended bytes of a grown file', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 3);
    const file = paths[2] as string;
    await collect(opts(dir, root));
    const before = (await stat(file)).size;
    const added = `${userLine('more')}\n${usageLine('s2', 's2-new-1', 41)}\n${usageLine('s2', 's2-new-2', 42)}\n`;
    await appendFile(file, added);
    const r = await both(dir, root);
    expect(r.cached).toEqual(r.uncached);
    expect(r.stats).toMatchObject({ unchanged: 2, resumed: 1, fullReads: 0 });
    expect(r.stats.bytesRead).toBe(Buffer.byteLength(added));
    expect(r.stats.bytesVerified).toBe(before);
    expect(r.cached.filter((x) => x.dedupKey.endsWith('s2-new-2'))).toHaveLength(1);
  });

  it("calls a delta's whileReading once while files are read, before their records, and not when none is", async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 3);
    const run = async (): Promise<string[]> => {
      const seen: string[] = [];
      const delta = { ...newScanDelta(), whileReading: () => void seen.push('reading') };
      for await (const batch of scanUsageBatches(opts(dir, root, { delta, workers: 0 }))) if (batch.length > 0) seen.push('records');
      return seen;
    };
    const cold = await run();
    expect(cold.filter((e) => e === 'reading')).toHaveLength(1);
    expect(cold[0]).toBe('reading');
    const warm = await run();
    expect(warm).not.toContain('reading');
    expect(warm).toContain('records');
    await appendFile(paths[1] as string, `${usageLine('s1', 's1-late', 9)}\n`);
    const grown = await run();
    expect(grown.filter((e) => e === 'reading')).toHaveLength(1);
    expect(grown.lastIndexOf('records')).toBeGreaterThan(grown.indexOf('reading'));
  });

  it('picks up a final line once its line feed is written, across several appends', async () => {
    const dir = await tempDir();
    const root = join(dir, 'exports');
    const file = await put(join(root, 'g.jsonl'), sessionBody('g', 2));
    await collect(opts(dir, root));
    const steps = [usageLine('g', 'g-a', 5).slice(0, 30), `${usageLine('g', 'g-a', 5).slice(30)}\n`, `${usageLine('g', 'g-b', 6)}\n${usageLine('g', 'g-c', 7)}`, '\n'];
    for (const step of steps) {
      await appendFile(file, step);
      const r = await both(dir, root, { workers: 0 });
      expect(r.cached).toEqual(r.uncached);
      expect(r.stats.fullReads).toBe(0);
    }
    expect((await collect(opts(dir, root))).map((x) => x.messageId)).toEqual(['g-0', 'g-1', 'g-a', 'g-b', 'g-c']);
  });

  it('re-reads a file rewritten in place, and keeps no ledger when no usage disappeared', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 2);
    const file = paths[0] as string;
    await collect(opts(dir, root));
    const text = await readFile(file, 'utf8');
    const lines = text.split('\n');
    lines.splice(1, 0, userLine('inserted near the top')); // bytes before the cursor change, nothing is lost
    await writeFile(file, lines.join('\n'));
    const r = await both(dir, root);
    expect(r.cached).toEqual(r.uncached);
    expect(r.stats).toMatchObject({ fullReads: 1, resumed: 0, unchanged: 1, retainedRecords: 0 });
  });

  it('detects a same-size rewrite of the prefix (the fingerprint, not the size)', async () => {
    const dir = await tempDir();
    const root = join(dir, 'exports');
    const file = await put(join(root, 'f.jsonl'), sessionBody('f', 3));
    await collect(opts(dir, root));
    const text = await readFile(file, 'utf8');
    // Change one digit of the first usage line's output tokens, then append so the file grows.
    const changed = text.replace('"outputTokens":1,', '"outputTokens":8,');
    expect(changed).not.toBe(text);
    await writeFile(file, `${changed}${usageLine('f', 'f-9', 9)}\n`);
    const r = await both(dir, root);
    expect(r.cached).toEqual(r.uncached);
    expect(r.stats.fullReads).toBe(1);
    expect(r.cached.find((x) => x.messageId === 'f-0')?.outputTokens).toBe(8);
  });
});

describe('event cache: the ledger', () => {
  it('keeps usage a rewrite dropped, counted exactly once', async () => {
    const dir = await tempDir();
    const root = join(dir, 'exports');
    const lines = sessionBody('L', 4).trimEnd().split('\n');
    const file = await put(join(root, 'L.jsonl'), `${lines.join('\n')}\n`);
    const first = await collect(opts(dir, root));
    const keys = [...dedup(first).keys()].sort();
    expect(keys).toHaveLength(4);
    const dropped = first[1] as UsageRecord;

    // Claude Code-style rewrite: the same session without one usage line (the file gets shorter).
    await writeFile(file, `${lines.filter((l) => !l.includes(`"id":"${dropped.messageId}"`)).join('\n')}\n`);
    for (let run = 0; run < 2; run++) {
      const stats = newScanStats();
      const after = await collect(opts(dir, root, { stats }));
      expect([...dedup(after).keys()].sort()).toEqual(keys);
      expect(after.filter((r) => r.dedupKey === dropped.dedupKey)).toHaveLength(1);
      expect(after.find((r) => r.dedupKey === dropped.dedupKey)).toEqual({ ...dropped, retained: true });
      expect(stats.retainedRecords).toBe(1);
      // The uncached scan cannot know it; the rest is equal.
      expect(live(after)).toEqual(await collect(opts(dir, root, { cache: false })));
    }

    // The line comes back: it leaves the ledger.
    await appendFile(file, `${lines.find((l) => l.includes(`"id":"${dropped.messageId}"`))}\n`);
    const back = await collect(opts(dir, root));
    expect(back.filter((r) => r.retained)).toEqual([]);
    expect([...dedup(back).keys()].sort()).toEqual(keys);
  });

  it('keeps ledger usage through later rewrites and appends', async () => {
    const dir = await tempDir();
    const root = join(dir, 'exports');
    const file = await put(join(root, 'M.jsonl'), sessionBody('M', 3));
    await collect(opts(dir, root));
    await writeFile(file, sessionBody('M', 1)); // drops M-1 and M-2
    await collect(opts(dir, root));
    await writeFile(file, `${sessionBody('M', 1)}${usageLine('M', 'M-new', 50)}\n`.replaceAll('M-0', 'M-zero')); // drops M-0, adds two
    await appendFile(file, `${usageLine('M', 'M-tail', 51)}\n`);
    const out = await collect(opts(dir, root));
    const got = dedup(out);
    expect([...got.keys()].map((k) => k.split(':').pop()).sort()).toEqual(['M-0', 'M-1', 'M-2', 'M-new', 'M-tail', 'M-zero'].sort());
    expect(out.filter((r) => r.retained).map((r) => r.messageId).sort()).toEqual(['M-0', 'M-1', 'M-2']);
    expect(out).toHaveLength(6);
  });

  it('keeps the usage of a deleted file under the scanned roots, unless retainDeleted is false', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 3, () => 2);
    const all = await collect(opts(dir, root));
    const gone = paths[0] as string;
    await rm(gone);
    const stats = newScanStats();
    const after = await collect(opts(dir, root, { stats }));
    expect(after).toEqual(all.map((r) => (r.file === gone ? { ...r, retained: true } : r)));
    expect(stats).toMatchObject({ deleted: 1, retainedRecords: 2 });
    expect(await collect(opts(dir, root, { retainDeleted: false }))).toEqual(all.filter((r) => r.file !== gone));
    // Another root does not see it.
    const other = await makeTree(join(dir, 'other'), 1, () => 1);
    expect((await collect(opts(dir, other.root))).every((r) => r.file.startsWith(other.root))).toBe(true);
    // It comes back: read again, nothing retained.
    await put(gone, sessionBody('s0', 2));
    const back = await collect(opts(dir, root));
    expect(back.filter((r) => r.retained)).toEqual([]);
    expect(back).toEqual(await collect(opts(dir, root, { cache: false })));
  });
});

describe('event cache: files that vanish mid-scan and consumers that stop early', () => {
  it('keeps the cached usage of a file that disappears between discovery and its read', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 2, () => 3);
    const victim = paths[1] as string;
    let vanish = false;
    const c: Codec = {
      ...sessionfoldJsonl,
      id: 'cache-vanishing',
      aliases: [],
      discover: (roots) => sessionfoldJsonl.discover(roots),
      read(file, options) {
        if (vanish && file === victim) throw new SessionfoldError('SESSION_NOT_FOUND', `Cannot open ${file}: ENOENT`);
        return sessionfoldJsonl.read(file, options);
      },
    };
    registerCodec(c);
    const o: ScanOptions = { agents: ['cache-vanishing'], roots: { 'cache-vanishing': [root] }, env: { HOME: dir }, cachePath: join(dir, 'v.db') };
    const run = async (extra: ScanOptions = {}) => {
      const out: UsageRecord[] = [];
      for await (const r of scanUsage({ ...o, ...extra })) out.push(r);
      return out;
    };
    const before = await run();
    await appendFile(victim, `${usageLine('s1', 's1-late', 4)}\n`);
    vanish = true;
    const warnings: string[] = [];
    const stats = newScanStats();
    const after = await run({ stats, onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([]);
    expect(stats).toMatchObject({ deleted: 1, failed: 0, retainedRecords: 3 });
    expect(after.filter((r) => r.file === victim)).toEqual(before.filter((r) => r.file === victim).map((r) => ({ ...r, retained: true })));
  });

  it('stops its workers when the consumer breaks out, and the next scan works', async () => {
    const dir = await tempDir();
    const { root } = await makeTree(dir, 6, (i) => 200 + i * 100);
    for await (const r of scanUsage(opts(dir, root, { workers: 2 }))) {
      expect(r.type).toBe('usage');
      break;
    }
    const stats = newScanStats();
    expect(await collect(opts(dir, root, { workers: 2, stats }))).toEqual(await collect(opts(dir, root, { cache: false })));
    expect(stats.fullReads + stats.unchanged).toBe(6);
  });
});

describe('event cache: invalidation', () => {
  it('re-reads every file when the parser version changes, without a ledger of the old parse', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 2, () => 3);
    const make = (parserVersion: number, tag: string): Codec => {
      const c: Codec = {
        ...sessionfoldJsonl,
        id: 'cache-versioned',
        aliases: [],
        parserVersion,
        discover: (roots) => sessionfoldJsonl.discover(roots),
        async *read(file, options) {
          for await (const e of sessionfoldJsonl.read(file, options)) yield e.type === 'usage' ? { ...e, dedupKey: `${tag}:${e.dedupKey}` } : e;
        },
      };
      registerCodec(c);
      return c;
    };
    const o = { agents: ['cache-versioned'], roots: { 'cache-versioned': [root] }, env: { HOME: dir }, cachePath: join(dir, 'v.db') };
    const run = async (extra: ScanOptions = {}) => {
      const out: UsageRecord[] = [];
      for await (const r of scanUsage({ ...o, ...extra })) out.push(r);
      return out;
    };
    make(1, 'v1');
    expect((await run()).every((r) => r.dedupKey.startsWith('v1:'))).toBe(true);
    await writeFile(paths[0] as string, sessionBody('s0', 1)); // a rewrite under v1 leaves a ledger
    await run();
    make(2, 'v2');
    const stats = newScanStats();
    const out = await run({ stats });
    expect(stats).toMatchObject({ fullReads: 2, unchanged: 0 });
    expect(out.filter((r) => !r.retained).every((r) => r.dedupKey.startsWith('v2:'))).toBe(true);
    // The ledger (v1 keys of usage no file holds any more) stays; the v1 live usage does not.
    expect(out.filter((r) => r.retained).map((r) => r.dedupKey).sort()).toEqual(['v1:sessionfold-jsonl:s0:s0-1', 'v1:sessionfold-jsonl:s0:s0-2']);
  });

  it('re-reads a file when a parse dependency changes, appears or disappears', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 2, () => 2);
    const sidecar = join(dir, 'sidecar.json');
    const c: Codec = { ...sessionfoldJsonl, id: 'cache-deps', aliases: [], discover: (roots) => sessionfoldJsonl.discover(roots), getParseDependencies: (f) => (f === paths[0] ? [sidecar] : []) };
    registerCodec(c);
    const o = { agents: ['cache-deps'], roots: { 'cache-deps': [root] }, env: { HOME: dir }, cachePath: join(dir, 'd.db') };
    const run = async () => {
      const stats = newScanStats();
      for await (const _ of scanUsage({ ...o, stats })) void _;
      return stats;
    };
    expect(await run()).toMatchObject({ fullReads: 2 });
    expect(await run()).toMatchObject({ unchanged: 2 });
    await writeFile(sidecar, '{}'); // appears
    expect(await run()).toMatchObject({ unchanged: 1, fullReads: 1 });
    expect(await run()).toMatchObject({ unchanged: 2 });
    await writeFile(sidecar, '{"changed":true}');
    expect(await run()).toMatchObject({ unchanged: 1, fullReads: 1 });
    await rm(sidecar); // disappears
    expect(await run()).toMatchObject({ unchanged: 1, fullReads: 1 });
  });
});

describe('event cache: location and safety', () => {
  it('lives at $SESSIONFOLD_CACHE, else under $XDG_CACHE_HOME, else ~/.cache', () => {
    expect(getCachePath({ SESSIONFOLD_CACHE: '/x/e.db', XDG_CACHE_HOME: '/c', HOME: '/h' })).toBe('/x/e.db');
    expect(getCachePath({ XDG_CACHE_HOME: '/c', HOME: '/h' })).toBe('/c/sessionfold/events.db');
    expect(getCachePath({ HOME: '/h' })).toBe('/h/.cache/sessionfold/events.db');
  });

  it('uses the env cache path when no cachePath is given', async () => {
    const dir = await tempDir();
    const { root } = await makeTree(dir, 1, () => 1);
    await collect({ agents: [AGENT], roots: { [AGENT]: [root] }, env: { HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg') } });
    expect((await stat(join(dir, 'xdg', 'sessionfold', 'events.db'))).isFile()).toBe(true);
  });

  it('never writes to agent files: bytes and mtimes unchanged after cold, warm and append scans', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 4, (i) => 20 + i * 300);
    const snapshot = async () =>
      Promise.all(paths.map(async (p) => [p, createHash('sha256').update(await readFile(p)).digest('hex'), (await stat(p)).mtimeMs, (await stat(p)).size] as const));
    const before = await snapshot();
    await collect(opts(dir, root, { workers: 2 }));
    await collect(opts(dir, root, { workers: 2 }));
    await collect(opts(dir, root, { cache: false, workers: 2 }));
    expect(await snapshot()).toEqual(before);
    await appendFile(paths[3] as string, `${usageLine('s3', 's3-more', 3)}\n`);
    const grown = await snapshot();
    await collect(opts(dir, root, { workers: 0 }));
    expect(await snapshot()).toEqual(grown);
  });

  it('falls back to reading without the cache when it cannot be created', async () => {
    const dir = await tempDir();
    const { root } = await makeTree(dir, 2, () => 2);
    const blocker = await put(join(dir, 'blocker'), 'a file, not a directory');
    const warnings: string[] = [];
    const stats = newScanStats();
    const out = await collect({ ...opts(dir, root), cachePath: join(blocker, 'events.db'), onWarning: (w) => warnings.push(w), stats });
    expect(out).toEqual(await collect(opts(dir, root, { cache: false })));
    expect(stats.cache).toBe('off');
    expect(warnings.join('\n')).toMatch(/without the event cache/);
  });
});

describe('the cache’s prefix fingerprint (hashed as the bytes are read)', () => {
  /** Each cached file's stored xxh64 against one computed here over its committed prefix. */
  async function fingerprints(cachePath: string): Promise<{ path: string; stored: string | null; offset: number; want: string }[]> {
    const { default: Database } = await import('better-sqlite3');
    const { createHash64 } = await import('../cursors/ids.js');
    const db = new Database(cachePath, { readonly: true });
    const rows = db.prepare('SELECT path, prefix_hash, cursor FROM files').all() as { path: string; prefix_hash: string | null; cursor: string }[];
    db.close();
    return Promise.all(
      rows.map(async (r) => {
        const offset = (JSON.parse(r.cursor) as { offset: number }).offset;
        const h = createHash64();
        h.update((await readFile(r.path)).subarray(0, offset));
        return { path: r.path, stored: r.prefix_hash, offset, want: h.digest() };
      }),
    );
  }

  it('equals the committed prefix’s after full reads, resumes, a read that ends mid-line and its completion', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 3);
    const o = opts(dir, root, { workers: 0 });
    const check = async () => {
      for (const f of await fingerprints(o.cachePath as string)) expect({ path: f.path, hash: f.stored }).toEqual({ path: f.path, hash: f.want });
    };
    await collect(o);
    await check();
    // Appended lines (resumes), one file cut mid-line (the stream runs past the committed bytes).
    await appendFile(paths[0] as string, `${usageLine('s0', 'grow-1', 5)}\n`);
    const half = usageLine('s1', 'grow-2', 6);
    await appendFile(paths[1] as string, half.slice(0, 40));
    const s1 = newScanStats();
    await collect({ ...o, stats: s1 });
    expect(s1).toMatchObject({ resumed: 2, fullReads: 0 });
    await check();
    // The line completed: both resume from the stored fingerprints.
    await appendFile(paths[1] as string, `${half.slice(40)}\n`);
    await appendFile(paths[0] as string, `${usageLine('s0', 'grow-3', 7)}\n`);
    const s2 = newScanStats();
    await collect({ ...o, stats: s2 });
    expect(s2).toMatchObject({ resumed: 2, fullReads: 0 });
    await check();
    await rm(dir, { recursive: true, force: true });
  });
});
