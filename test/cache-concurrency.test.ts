import { spawn } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../src/scan/types.js';
import { totalCost } from '../src/cost/total.js';
import type { FoldRunInfo } from '../src/cost/incremental.js';
import type { CostSummary } from '../src/cost/types.js';
import { collect, dedup, makeTree, opts, tempDir, usageLine } from './scan-helpers.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));

interface ChildResult {
  records: number;
  keys: number;
  tokens: number;
  stats: { cache: string; conflicts: number; unchanged: number };
}

function child(root: string, cachePath: string, workers: number): Promise<ChildResult> {
  return run<ChildResult>('test/scan-child.ts', [root, cachePath, String(workers)], root);
}

function run<T>(script: string, args: string[], root: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', './src/scan/dev-register.mjs', script, ...args], {
      cwd: REPO,
      env: { PATH: process.env.PATH, HOME: join(root, '..'), NO_COLOR: '1', TZ: 'UTC' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) reject(new Error(`child exited ${code}: ${err}`));
      else if (err.includes('warning')) reject(new Error(`child warned: ${err}`));
      else resolve(JSON.parse(out) as T);
    });
  });
}

/** What the ledger promises: every key any earlier uncached scan saw, counted once. */
function totals(records: readonly UsageRecord[]) {
  const m = dedup(records);
  let tokens = 0;
  for (const r of m.values()) tokens += r.outputTokens + r.inputTokens;
  return { keys: m.size, tokens };
}

describe('event cache: two processes at once', () => {
  it('a status line and a report scanning together get the same totals and leave a sound database', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 24, (i) => 50 + ((i * 137) % 400));
    const cachePath = join(dir, 'shared', 'events.db');

    const everSeen: UsageRecord[] = [];
    for (let round = 0; round < 3; round++) {
      if (round === 1) for (const p of paths.slice(0, 8)) await appendFile(p, `${usageLine('x', `append-${p}`, 7)}\n`);
      if (round === 2) {
        // A rewrite that drops a usage line, and more appends.
        const p = paths[9] as string;
        const lines = (await readFile(p, 'utf8')).trimEnd().split('\n');
        await writeFile(p, `${lines.filter((_, i) => i !== 2).join('\n')}\n`);
        for (const q of paths.slice(12, 16)) await appendFile(q, `${usageLine('y', `more-${q}`, 9)}\n`);
      }
      const now = await collect(opts(dir, root, { cache: false }));
      everSeen.push(...now);
      const want = totals(everSeen);
      if (round === 2) expect(want.keys).toBe(totals(now).keys + 1); // the dropped line lives on in the ledger
      const [a, b] = await Promise.all([child(root, cachePath, 1), child(root, cachePath, 0)]);
      for (const r of [a, b]) {
        expect(r.stats.cache).toBe('used');
        expect({ keys: r.keys, tokens: r.tokens }).toEqual(want);
      }
    }
    const db = new Database(cachePath, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
    // A third scan agrees with the uncached totals plus the ledger, and reads nothing.
    const after = await child(root, cachePath, 0);
    expect(after.stats.unchanged).toBe(24);
  });

  it('reports through fold snapshots, several at once, equal a fresh fold after every change', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 16, (i) => 40 + ((i * 97) % 300));
    const cachePath = join(dir, 'shared', 'events.db');
    const kinds: string[] = [];
    for (let round = 0; round < 4; round++) {
      if (round === 1 || round === 3) for (const p of paths.slice(0, 6)) await appendFile(p, `${usageLine('x', `append-${round}-${p}`, 7)}\n`);
      if (round === 2) {
        const p = paths[9] as string;
        const lines = (await readFile(p, 'utf8')).trimEnd().split('\n');
        await writeFile(p, `${lines.filter((_, i) => i !== 2).join('\n')}\n`);
      }
      const reports = await Promise.all(
        (['day', 'day', 'model'] as const).map((g) => run<{ summary: CostSummary; info: FoldRunInfo }>('test/fold-child.ts', [root, cachePath, g], root)),
      );
      for (const [i, g] of (['day', 'day', 'model'] as const).entries()) {
        const fresh = await totalCost({ agents: ['sessionfold-jsonl'], roots: { 'sessionfold-jsonl': [root] }, cachePath, groupBy: g, timeZone: 'UTC', snapshots: false }, { workers: 0 });
        expect(reports[i]?.summary).toEqual(fresh);
        kinds.push(reports[i]?.info.snapshot as string);
      }
    }
    // The first round stores snapshots; later rounds restore them (some may fall back after a race).
    expect(kinds.slice(3)).toContain('hit');
    const db = new Database(cachePath, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });
});
