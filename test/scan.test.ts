import { appendFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Codec, ReadOptions } from '../cursors/protocol/codec.js';
import { registerCodec } from '../src/registry.js';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { scanUsage, scanUsageBatches } from '../src/scan/index.js';
import { BATCH_EVENTS } from '../src/scan/parse-file.js';
import { newScanStats, type UsageRecord } from '../src/scan/types.js';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import { AGENT, canonical, collect, header, makeTree, opts, put, sessionBody, tempDir, usageLine, userLine } from './scan-helpers.js';

/** sessionfold-jsonl under another id, registered as a plugin (so it cannot run on a worker). */
function pluginCodec(id: string, overrides: Partial<Codec> = {}): Codec {
  const c: Codec = { ...sessionfoldJsonl, id, aliases: [], discover: (roots) => sessionfoldJsonl.discover(roots), ...overrides };
  registerCodec(c);
  return c;
}

describe('scanUsage', () => {
  it('yields the usage of every file with its path and the session cwd', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 3, () => 4);
    const records = await collect(opts(dir, root, { cache: false, workers: 0 }));
    expect(records).toHaveLength(12);
    for (const r of records) {
      expect(r.type).toBe('usage');
      expect(paths).toContain(r.file);
      const sid = r.file.replace(/.*\/(s\d+)\.jsonl$/, '$1');
      expect(r.sessionId).toBe(sid);
      expect(r.cwd).toBe(`/work/${sid}`);
      expect(r.dedupKey).toMatch(new RegExp(`^${AGENT}:${sid}:${sid}-\\d$`));
    }
  });

  it('gives usage that precedes the session header the cwd of the first session event with one', async () => {
    const dir = await tempDir();
    const root = join(dir, 'exports');
    const body = [usageLine('late', 'late-0', 5), header('late'), usageLine('late', 'late-1', 6), header('late', '/first/cwd'), header('late', '/second/cwd'), usageLine('late', 'late-2', 7)];
    await put(join(root, 'late.jsonl'), `${body.join('\n')}\n`);
    for (const workers of [0, 1]) {
      const records = await collect(opts(dir, root, { cache: false, workers }));
      expect(records.map((r) => r.cwd)).toEqual(['/first/cwd', '/first/cwd', '/first/cwd']);
    }
  });

  it('leaves cwd unset when no session event has one', async () => {
    const dir = await tempDir();
    const root = join(dir, 'exports');
    await put(join(root, 'x.jsonl'), `${[header('x'), usageLine('x', 'x-0', 1)].join('\n')}\n`);
    const [r] = await collect(opts(dir, root, { cache: false, workers: 0 }));
    expect(r).toBeDefined();
    expect('cwd' in (r as UsageRecord)).toBe(false);
  });

  it('parses on worker threads with the same records as the main thread', async () => {
    const dir = await tempDir();
    // Sizes from a few lines to several posted batches.
    const { root } = await makeTree(dir, 7, (i) => (i === 6 ? BATCH_EVENTS * 2 + 17 : 3 + i * 40));
    const main = await collect(opts(dir, root, { cache: false, workers: 0 }));
    expect(main.length).toBe(BATCH_EVENTS * 2 + 17 + [0, 1, 2, 3, 4, 5].reduce((n, i) => n + 3 + i * 40, 0));
    for (const workers of [1, 2, 3]) {
      const stats = newScanStats();
      const pooled = await collect(opts(dir, root, { cache: false, workers, stats }));
      expect(stats.workers).toBe(workers);
      expect(pooled).toEqual(main);
    }
  });

  it('keeps one file\'s records in file order, parse batches never mixing files', async () => {
    const dir = await tempDir();
    const { root } = await makeTree(dir, 4, (i) => 30 + i * 900);
    for (const workers of [0, 2]) {
      const lastOffset = new Map<string, number>();
      for await (const batch of scanUsageBatches(opts(dir, root, { cache: false, workers }))) {
        expect(new Set(batch.map((r) => r.file)).size).toBe(1);
        for (const r of batch) {
          expect(r.offset).toBeGreaterThan(lastOffset.get(r.file) ?? -1);
          lastOffset.set(r.file, r.offset);
        }
      }
      expect(lastOffset.size).toBe(4);
    }
  });

  it('runs a plugin codec on the main thread even with workers, with the same records', async () => {
    const dir = await tempDir();
    const { root } = await makeTree(dir, 3);
    pluginCodec('scan-plugin');
    const base = { agents: ['scan-plugin'], roots: { 'scan-plugin': [root] }, env: { HOME: dir }, cache: false };
    const a: UsageRecord[] = [];
    for await (const r of scanUsage({ ...base, workers: 0 })) a.push(r);
    const stats = newScanStats();
    const b: UsageRecord[] = [];
    for await (const r of scanUsage({ ...base, workers: 2, stats })) b.push(r);
    expect(canonical(b)).toEqual(canonical(a));
    expect(a.length).toBeGreaterThan(0);
    expect(stats.workers).toBe(0);
  });

  it('skips files older than since only for codecs whose events precede the mtime', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 3, () => 2);
    const old = new Date('2025-01-01T00:00:00Z');
    await utimes(paths[0] as string, old, old);
    const since = new Date('2025-06-01T00:00:00Z');

    const statsA = newScanStats();
    const notDeclared = await collect(opts(dir, root, { cache: false, workers: 0, since, stats: statsA }));
    expect(notDeclared).toHaveLength(6);
    expect(statsA.skippedSince).toBe(0);

    pluginCodec('scan-since', { capabilities: { ...sessionfoldJsonl.capabilities, eventsPrecedeMtime: true } });
    for (const cache of [false, true]) {
      const stats = newScanStats();
      const records: UsageRecord[] = [];
      for await (const r of scanUsage({ agents: ['scan-since'], roots: { 'scan-since': [root] }, env: { HOME: dir }, since, cache, cachePath: join(dir, 'c.db'), stats })) records.push(r);
      expect(records).toHaveLength(4);
      expect(records.some((r) => r.file === paths[0])).toBe(false);
      expect(stats).toMatchObject({ files: 3, skippedSince: 1 });
    }
  });

  it('warns about a file it cannot read and still yields the others', async () => {
    const dir = await tempDir();
    const { root, paths } = await makeTree(dir, 3, () => 2);
    const bad = paths[1] as string;
    pluginCodec('scan-failing', {
      read(file: string, options?: ReadOptions) {
        if (file === bad) throw new Error('boom: cannot read');
        return sessionfoldJsonl.read(file, options);
      },
    });
    for (const cache of [false, true]) {
      const warnings: string[] = [];
      const stats = newScanStats();
      const records: UsageRecord[] = [];
      for await (const r of scanUsage({ agents: ['scan-failing'], roots: { 'scan-failing': [root] }, env: { HOME: dir }, cache, cachePath: join(dir, 'c.db'), onWarning: (w) => warnings.push(w), stats })) records.push(r);
      expect(records).toHaveLength(4);
      expect(stats.failed).toBe(1);
      expect(warnings.join('\n')).toContain(bad);
      expect(warnings.join('\n')).toContain('boom');
    }
  });

  it('reports progress up to the bytes it read', async () => {
    const dir = await tempDir();
    const { root } = await makeTree(dir, 4);
    const calls: [number, number][] = [];
    const stats = newScanStats();
    await collect(opts(dir, root, { cache: false, workers: 2, stats, onProgress: (d, t) => calls.push([d, t]) }));
    const last = calls[calls.length - 1] as [number, number];
    expect(last[0]).toBe(stats.bytesRead);
    expect(last[1]).toBe(stats.bytesRead);
    for (const [d, t] of calls) expect(d).toBeLessThanOrEqual(t);
  });

  it('discovers nothing under a missing root', async () => {
    const dir = await tempDir();
    expect(await collect(opts(dir, join(dir, 'nope'), { cache: false }))).toEqual([]);
    expect(await collect(opts(dir, join(dir, 'nope')))).toEqual([]);
  });

  it('rejects bad options with INVALID_OPTION or AGENT_NOT_FOUND', async () => {
    const run = async (o: object) => {
      for await (const _ of scanUsage(o)) void _;
    };
    await expect(run({ workers: -1 })).rejects.toSatisfy((e) => isSessionfoldError(e, 'INVALID_OPTION'));
    await expect(run({ since: new Date('x') })).rejects.toSatisfy((e) => isSessionfoldError(e, 'INVALID_OPTION'));
    await expect(run({ roots: { nope: ['/x'] } })).rejects.toSatisfy((e) => isSessionfoldError(e, 'INVALID_OPTION'));
    await expect(run({ agents: ['no-such-agent'] })).rejects.toSatisfy((e) => isSessionfoldError(e, 'AGENT_NOT_FOUND'));
  });

  it('ignores a trailing line without a line feed until it is complete', async () => {
    const dir = await tempDir();
    const root = join(dir, 'exports');
    const file = await put(join(root, 'p.jsonl'), `${sessionBody('p', 2)}${usageLine('p', 'p-x', 9)}`);
    expect(await collect(opts(dir, root, { cache: false }))).toHaveLength(2);
    await appendFile(file, `\n${userLine('after')}\n`);
    expect(await collect(opts(dir, root, { cache: false }))).toHaveLength(3);
  });
});
