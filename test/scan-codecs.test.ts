/**
 * The scan and the cache over the built-in Claude and Codex codecs, on the repo's fixture trees and the
 * shared real files: cached equals uncached, workers equal the main thread, and files that grow line by line
 * and mid-line (as an agent writes them) give, scan after scan, exactly what a fresh uncached scan gives.
 */
import { readdir, readFile, stat, writeFile, appendFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findCodec } from '../src/registry.js';
import type { ScanOptions, UsageRecord } from '../src/scan/types.js';
import { newScanStats } from '../src/scan/types.js';
import { canonical, put, tempDir } from './scan-helpers.js';
import { scanUsage } from '../src/scan/index.js';
import { nativeKernel } from '../cursors/native.js';
import { randomCuts } from './helpers/codec-harness.js';

const REPO_FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const REAL = fileURLToPath(new URL('../../shared/fixtures/real/', import.meta.url));
const haveCodecs = findCodec('claude') !== undefined && findCodec('codex') !== undefined;

async function jsonlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.jsonl')) out.push(join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
  }
  return out.sort();
}

/** A Claude projects root and a Codex home in `dir`, holding the repo fixtures and the shared real files. */
async function buildTree(dir: string): Promise<{ claudeRoot: string; codexRoot: string; files: string[] }> {
  const claudeRoot = join(dir, 'claude', 'projects');
  const codexRoot = join(dir, 'codex');
  const files: string[] = [];
  for (const src of await jsonlFiles(join(REPO_FIXTURES, 'claude', 'projects'))) {
    files.push(await put(join(claudeRoot, src.slice(join(REPO_FIXTURES, 'claude', 'projects').length + 1)), await readFile(src)));
  }
  for (const src of await jsonlFiles(join(REPO_FIXTURES, 'codex'))) {
    files.push(await put(join(codexRoot, src.slice(join(REPO_FIXTURES, 'codex').length + 1)), await readFile(src)));
  }
  let n = 0;
  for (const src of await jsonlFiles(join(REAL, 'claude'))) {
    if (src.includes('/subagents/')) continue;
    files.push(await put(join(claudeRoot, '-real-project', `${(++n).toString(16).padStart(8, '0')}-0000-4000-8000-000000000000.jsonl`), await readFile(src)));
  }
  for (const src of await jsonlFiles(join(REAL, 'codex'))) {
    n++;
    files.push(await put(join(codexRoot, 'sessions', '2025', '03', '04', `rollout-2025-03-04T10-00-${String(n).padStart(2, '0')}-0195${String(n).padStart(4, '0')}-0000-7000-8000-000000000000.jsonl`), await readFile(src)));
  }
  return { claudeRoot, codexRoot, files };
}

function scanOpts(dir: string, tree: { claudeRoot: string; codexRoot: string }, extra: ScanOptions = {}): ScanOptions {
  return {
    agents: ['claude', 'codex'],
    roots: { claude: [tree.claudeRoot], codex: [tree.codexRoot] },
    env: { HOME: dir },
    cachePath: join(dir, 'cache', 'events.db'),
    onWarning: (w) => {
      // The fixture transcript holds one malformed line on purpose: its skipped-line warning is expected.
      if (/^skipped 1 line of .*11111111-2222-4333-8444-555555555555\.jsonl: /.test(w)) return;
      throw new Error(`unexpected warning: ${w}`);
    },
    ...extra,
  };
}

async function collectAll(o: ScanOptions): Promise<UsageRecord[]> {
  const out: UsageRecord[] = [];
  for await (const r of scanUsage(o)) out.push(r);
  return canonical(out);
}

describe.skipIf(!haveCodecs)('scan over the Claude and Codex codecs', () => {
  it('gives the same records cached and uncached, cold and warm, on workers and on the main thread', async () => {
    const dir = await tempDir();
    const tree = await buildTree(dir);
    const reference = await collectAll(scanOpts(dir, tree, { cache: false, workers: 0 }));
    expect(reference.length).toBeGreaterThan(20);
    expect(new Set(reference.map((r) => r.agent))).toEqual(new Set(['claude', 'codex']));
    expect(reference.some((r) => r.cwd !== undefined)).toBe(true);
    expect(await collectAll(scanOpts(dir, tree, { cache: false, workers: 2 }))).toEqual(reference);
    const cold = newScanStats();
    expect(await collectAll(scanOpts(dir, tree, { workers: 2, stats: cold }))).toEqual(reference);
    const warm = newScanStats();
    expect(await collectAll(scanOpts(dir, tree, { workers: 2, stats: warm }))).toEqual(reference);
    expect(cold.files).toBeGreaterThan(10);
    expect(warm).toMatchObject({ files: cold.files, unchanged: cold.files, bytesRead: 0 });
  });

  // With the native engines (when the addon loaded) a small file they read first goes back to them whole when
  // it grows (src/scan/classify.ts makeTask); without them every grown file resumes from its cursor.
  it.each([
    ['as the kernel allows', undefined],
    ['without the native engines', '0'],
  ])('follows files that grow line by line and mid-line exactly as a fresh scan would (%s)', async (_, engines) => {
    const saved = process.env.SESSIONFOLD_NATIVE_ENGINES;
    if (engines === undefined) delete process.env.SESSIONFOLD_NATIVE_ENGINES;
    else process.env.SESSIONFOLD_NATIVE_ENGINES = engines;
    try {
      await growAndCompare(engines === '0');
    } finally {
      if (saved === undefined) delete process.env.SESSIONFOLD_NATIVE_ENGINES;
      else process.env.SESSIONFOLD_NATIVE_ENGINES = saved;
    }
  });

  async function growAndCompare(enginesOff: boolean): Promise<void> {
    const dir = await tempDir();
    const tree = await buildTree(dir);
    const contents = new Map<string, Buffer>();
    for (const f of tree.files) contents.set(f, await readFile(f));
    // Every file grows through the same number of steps, cut at pseudo-random points.
    const STEPS = 7;
    const cuts = new Map<string, number[]>();
    let seed = 1;
    for (const [f, c] of contents) {
      const pts = randomCuts(c.length, STEPS - 1, seed++);
      cuts.set(f, [...pts, c.length]);
      await writeFile(f, '');
    }
    let resumed = 0;
    let reread = 0;
    for (let step = 0; step < STEPS; step++) {
      for (const [f, c] of contents) {
        const at = cuts.get(f) as number[];
        const from = step === 0 ? 0 : (at[step - 1] as number);
        await appendFile(f, c.subarray(from, at[step] as number));
      }
      const stats = newScanStats();
      const cached = await collectAll(scanOpts(dir, tree, { workers: step % 2, stats }));
      const fresh = await collectAll(scanOpts(dir, tree, { cache: false, workers: 0 }));
      expect(cached.filter((r) => r.retained !== true)).toEqual(fresh);
      resumed += stats.resumed;
      if (step > 0) reread += stats.nativeReads;
    }
    // every grown file was resumed or, small and first read by an engine, read by it again
    expect(resumed + reread).toBeGreaterThan(tree.files.length * 2);
    if (enginesOff || nativeKernel() === undefined) {
      expect(reread).toBe(0);
      expect(resumed).toBeGreaterThan(tree.files.length * 2);
    }
  }

  it('reads the repo fixtures in place without changing a byte or an mtime', async () => {
    const dir = await tempDir();
    const files = [...(await jsonlFiles(join(REPO_FIXTURES, 'claude'))), ...(await jsonlFiles(join(REPO_FIXTURES, 'codex')))];
    const snap = async () => Promise.all(files.map(async (f) => [f, createHash('sha256').update(await readFile(f)).digest('hex'), (await stat(f)).mtimeMs] as const));
    const before = await snap();
    const o = scanOpts(dir, { claudeRoot: join(REPO_FIXTURES, 'claude', 'projects'), codexRoot: join(REPO_FIXTURES, 'codex') });
    const cold = await collectAll({ ...o, workers: 2 });
    const warm = await collectAll({ ...o, workers: 2 });
    expect(warm).toEqual(cold);
    expect(cold.length).toBeGreaterThan(0);
    expect(await snap()).toEqual(before);
  });
});
