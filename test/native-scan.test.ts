/**
 * The cold scan with the native engines (the pool's native lane, discovery streaming into it) against the
 * scan without any native code: the same usage records and the same cost report, on a generated Claude +
 * Codex history with every quirk the generator has (duplicated responses, resumed copies, forks, malformed and
 * truncated lines, counter resets). The engines read most files; what they leave, `read()` reads.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { NATIVE_CACHE_MAX_BYTES, SETTLED_MS } from '../src/scan/classify.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCorpus } from '../fixtures/generate/index.js';
import { scanUsageBatches } from '../src/scan/index.js';
import { discoverUsageFiles } from '../src/scan/index.js';
import { KEY_HI, KEY_LO, TIME_MS, newScanStats, type ScanOptions, type ScanStats, type UsageRecord } from '../src/scan/types.js';
import { totalCost } from '../src/cost/total.js';
import { foldCost } from '../src/cost/fold.js';
import { nativeKernel } from '../cursors/native.js';
import { TaskRunner } from '../src/scan/runner.js';
import { normalizeScanOptions } from '../src/scan/options.js';
import { eventTime } from '../src/cost/filter.js';
import { hashKey } from '../src/key-table.js';

let dir: string;
let roots: ScanOptions['roots'];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sf-native-scan-'));
  generateCorpus({ out: dir, seed: 'native-scan', scale: 0.004, agents: ['claude', 'codex'] });
  roots = { claude: [join(dir, 'claude')], codex: [join(dir, 'codex')] };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function withEnv<T>(env: Record<string, string>, f: () => Promise<T>): Promise<T> {
  const was = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  return f().finally(() => {
    for (const [k, v] of Object.entries(was)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

const JS_ONLY = { SESSIONFOLD_NATIVE_ENGINES: '0', SESSIONFOLD_NATIVE_LINES: '0' };

/**
 * Every record of a scan, in a canonical order (files interleave in completion order), without the fold hints
 * the engines add (each checked here against what the fold computes); `hinted` counts the records with both.
 */
async function records(options: ScanOptions, discovered = false): Promise<{ records: string[]; stats: ScanStats; hinted: number }> {
  const stats = newScanStats();
  const opts: ScanOptions = { agents: ['claude', 'codex'], roots, cache: false, stats, ...options };
  const out: UsageRecord[] = [];
  for await (const b of scanUsageBatches(opts, discovered ? await discoverUsageFiles(opts) : undefined)) out.push(...b);
  let hinted = 0;
  const plain = out.map((r) => {
    const keyHi = r[KEY_HI];
    const timeMs = r[TIME_MS];
    if (keyHi !== undefined && !Number.isNaN(keyHi)) expect([keyHi, r[KEY_LO]]).toEqual(hashKey(r.dedupKey));
    if (timeMs !== undefined && !Number.isNaN(timeMs)) expect(timeMs).toBe(eventTime(r.timestamp));
    if (keyHi !== undefined && !Number.isNaN(keyHi) && timeMs !== undefined && !Number.isNaN(timeMs)) hinted++;
    return JSON.stringify(r, Object.keys(r).sort()); // the hints are symbols: not in the JSON
  });
  return { records: plain.sort(), stats, hinted };
}

const describeNative = nativeKernel() === undefined ? describe.skip : describe;

describeNative('the cold scan with the native engines', () => {
  it('yields the records of the scan without native code, on the main thread and with a worker', async () => {
    const want = await withEnv(JS_ONLY, () => records({ workers: 0 }, true));
    expect(want.stats.nativeReads).toBe(0);
    expect(want.records.length).toBeGreaterThan(200);
    for (const workers of [0, 1]) {
      const got = await records({ workers });
      expect(got.records).toEqual(want.records);
      expect(got.stats.fullReads).toBe(want.stats.fullReads);
      expect(got.stats.bytesRead).toBe(want.stats.bytesRead);
      expect(got.stats.skippedLines).toBe(want.stats.skippedLines);
      // Most files go to the engines; forks, subagents and odd lines go to read().
      expect(got.stats.nativeReads).toBeGreaterThan(got.stats.fullReads / 2);
      expect(got.hinted).toBeGreaterThan(got.records.length / 2);
      expect(want.hinted).toBe(0);
    }
    // Discovery handed over in one piece (a discovery cache answers) reads the same.
    expect((await records({ workers: 0 }, true)).records).toEqual(want.records);
  });

  it('hints never stand for another key or time: a copy with its own takes its own; none shows in JSON', async () => {
    const got: UsageRecord[] = [];
    for await (const b of scanUsageBatches({ agents: ['claude'], roots, cache: false })) got.push(...b);
    const r = got.find((x) => x[KEY_HI] !== undefined && !Number.isNaN(x[KEY_HI])) as UsageRecord;
    expect(r).toBeDefined();
    expect(Object.keys(JSON.parse(JSON.stringify(r)) as object).some((k) => /hi|lo|time(ms|of)|keyof/i.test(k))).toBe(false);
    const copy: UsageRecord = { ...r, dedupKey: 'mine:distinct', file: `${r.file}.b`, timestamp: '2020-02-02T00:00:00.000Z' };
    const opts = { groupBy: 'day' as const, timeZone: 'UTC' };
    const folded = await foldCost([r, copy], opts);
    expect(folded.requestCount).toBe(2);
    expect(Object.keys(folded.breakdowns ?? {})).toContain('2020-02-02');
    expect(folded).toEqual(await foldCost([r, copy].map(({ [KEY_HI]: _a, [KEY_LO]: _b, [TIME_MS]: _c, ...x }) => x as UsageRecord), opts));
  });

  it('folds to the same cost report, and leaves every file as it was', async () => {
    const files = [join(dir, 'claude'), join(dir, 'codex')];
    const fingerprint = (): string =>
      files
        .flatMap((root) => walkSync(root))
        .map((f) => `${f}:${statSync(f).mtimeMs}:${readFileSync(f).length}:${readFileSync(f).subarray(0, 64).toString('hex')}`)
        .join('\n');
    const before = fingerprint();
    const opts = { agents: ['claude', 'codex'], groupBy: 'day' as const, timeZone: 'UTC', cache: false };
    const want = await withEnv(JS_ONLY, () => totalCost(opts, { roots }));
    const got = await totalCost(opts, { roots });
    expect(got).toEqual(want);
    expect(want.inputTokens).toBeGreaterThan(0);
    expect(Object.keys(want.breakdowns ?? {}).length).toBeGreaterThan(3);
    expect(fingerprint()).toBe(before);
  });
});

describeNative('files the engines hand back, and a scan stopped early', () => {
  it('reads the files the engines leave on the workers asked for, not on the main thread', async () => {
    // Transcripts renamed away from their session ids: the engine leaves every one to read().
    const renamed = mkdtempSync(join(tmpdir(), 'sf-native-renamed-'));
    try {
      const project = join(renamed, 'projects', '-home-dev-app');
      mkdirSync(project, { recursive: true });
      const sources = walkSync(join(dir, 'claude')).filter((f) => f.endsWith('.jsonl') && !f.includes('subagents'));
      expect(sources.length).toBeGreaterThan(5);
      sources.forEach((f, i) => writeFileSync(join(project, `copy-${i}.jsonl`), readFileSync(f)));
      const scan = async () => {
        const stats = newScanStats();
        const out: UsageRecord[] = [];
        for await (const b of scanUsageBatches({ agents: ['claude'], roots: { claude: [renamed] }, cache: false, workers: 2, stats })) out.push(...b);
        return { stats, n: out.length };
      };
      const want = await withEnv(JS_ONLY, scan);
      const got = await scan();
      expect(got.n).toBe(want.n);
      expect(got.n).toBeGreaterThan(0);
      expect(got.stats.nativeReads).toBe(0);
      expect(got.stats.workers).toBe(2);
    } finally {
      rmSync(renamed, { recursive: true, force: true });
    }
  });

  it('a runner closed while discovery goes on starts no worker for what discovery adds after', async () => {
    // A consumer that stops after its first batch closes the runner; discovery, still listing, then sizes the
    // workers and adds the files for them (here a codec without an engine). Before the guard, those workers
    // started and kept the process alive.
    const runner = new TaskRunner(normalizeScanOptions({ agents: ['sessionfold-jsonl'], cache: false }), undefined);
    await runner.close();
    runner.setWorkers(2);
    runner.add([{ id: 0, agent: 'sessionfold-jsonl', path: join(dir, 'none.jsonl'), weight: 10, resume: false }]);
    expect(runner.workers).toBe(0);
  });
});

describeNative('the cache built by the native engines', () => {
  it('stores what read() would, without cursors; a grown file is read again by the engine, or by read() and then resumed', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sf-native-cache-'));
    try {
      const cachePath = join(scratch, 'events.db');
      const run = async (env: Record<string, string> = {}): Promise<{ records: string[]; stats: ScanStats }> => withEnv(env, () => records({ cache: true, cachePath }));
      const want = await withEnv(JS_ONLY, () => records({ workers: 0 }, true));
      const first = await run();
      expect(first.records).toEqual(want.records);
      expect(first.stats.nativeReads).toBeGreaterThan(first.stats.fullReads / 2);
      const again = await run();
      expect(again.records).toEqual(want.records);
      expect(again.stats).toMatchObject({ unchanged: first.stats.files, fullReads: 0, nativeReads: 0 });

      // Grow a small file the engine read: its row has no cursor, so the engine reads it whole again...
      const grown = walkSync(join(dir, 'claude')).find((f) => f.endsWith('.jsonl') && !f.includes('subagents')) as string;
      const sid = grown.slice(grown.lastIndexOf('/') + 1, -'.jsonl'.length);
      const line = (n: number): string =>
        `${JSON.stringify({ type: 'assistant', sessionId: sid, requestId: `req_grow_${n}`, timestamp: '2026-05-01T10:00:00.000Z', message: { id: `msg_grow_${n}`, model: 'claude-opus-4-1-20250805', usage: { input_tokens: 10, output_tokens: 20 } } })}\n`;
      appendFileSync(grown, line(1));
      const third = await run();
      expect(third.stats).toMatchObject({ fullReads: 1, resumed: 0, nativeReads: 1 });
      expect(third.records).toEqual((await withEnv(JS_ONLY, () => records({ workers: 0 }, true))).records);
      // ...without the engines read() reads it whole and leaves a cursor...
      appendFileSync(grown, line(2));
      const fourth = await run({ SESSIONFOLD_NATIVE_ENGINES: '0' });
      expect(fourth.stats).toMatchObject({ fullReads: 1, resumed: 0, nativeReads: 0 });
      expect(fourth.records).toEqual((await withEnv(JS_ONLY, () => records({ workers: 0 }, true))).records);
      // ...and the next append resumes from it, engines or not.
      appendFileSync(grown, line(3));
      const fifth = await run();
      expect(fifth.stats).toMatchObject({ fullReads: 0, resumed: 1, nativeReads: 0 });
      expect(fifth.records).toEqual((await withEnv(JS_ONLY, () => records({ workers: 0 }, true))).records);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describeNative('which files the cache build hands to the native engines', () => {
  it('small or settled files; a large live session is read by read() (with a cursor)', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sf-native-rule-'));
    try {
      const projects = join(scratch, 'claude', 'projects', '-w');
      mkdirSync(projects, { recursive: true });
      const session = (sid: string, pad: number): string =>
        [
          JSON.stringify({ type: 'user', cwd: '/w', sessionId: sid, message: { role: 'user', content: 'x'.repeat(pad) } }),
          JSON.stringify({ type: 'assistant', sessionId: sid, requestId: `r-${sid}`, timestamp: '2026-05-01T10:00:00.000Z', message: { id: `m-${sid}`, model: 'claude-opus-4-1-20250805', usage: { input_tokens: 1, output_tokens: 2 } } }),
        ].join('\n') + '\n';
      const small = '11111111-1111-4111-8111-111111111111';
      const large = '22222222-2222-4222-8222-222222222222';
      writeFileSync(join(projects, `${small}.jsonl`), session(small, 100));
      writeFileSync(join(projects, `${large}.jsonl`), session(large, NATIVE_CACHE_MAX_BYTES + 1000));
      const scan = async (cachePath: string): Promise<ScanStats> => {
        const stats = newScanStats();
        for await (const _ of scanUsageBatches({ agents: ['claude'], roots: { claude: [join(scratch, 'claude')] }, cache: true, cachePath, stats }));
        return stats;
      };
      expect(await scan(join(scratch, 'a.db'))).toMatchObject({ fullReads: 2, nativeReads: 1, records: 2 });
      const old = (Date.now() - SETTLED_MS - 60_000) / 1000;
      utimesSync(join(projects, `${large}.jsonl`), old, old);
      expect(await scan(join(scratch, 'b.db'))).toMatchObject({ fullReads: 2, nativeReads: 2, records: 2 });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

function walkSync(root: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(root, { withFileTypes: true })) {
    const p = join(root, e.name);
    if (e.isDirectory()) out.push(...walkSync(p));
    else if (e.isFile()) out.push(p);
  }
  return out.sort();
}

describe.runIf(nativeKernel() !== undefined)('a streaming scan whose discovery fails', () => {
  it('fails with discovery\'s error, also after the engines handed files back to read()', async () => {
    const { claude } = await import('../codecs/claude/index.js');
    const { scanStreaming } = await import('../src/scan/streaming.js');
    const root = mkdtempSync(join(tmpdir(), 'sf-discovery-fails-'));
    const project = join(root, '-w');
    mkdirSync(project);
    const usage = (i: number, key: string) =>
      `{"type":"assistant","sessionId":"s","requestId":"r${i}","timestamp":"2025-01-01T00:00:00.000Z","message":{"id":"m${i}","model":"claude-sonnet-4-20250514",${key}:{"input_tokens":1,"output_tokens":2}}}`;
    for (let i = 0; i < 12; i++) {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      // a tab before the colon: only JSON.parse can read the line, so the engine hands the file back to read()
      const line = usage(i, i % 2 === 0 ? '"usage"' : '"usage"\t');
      writeFileSync(join(project, `${id}.jsonl`), `{"type":"user","cwd":"/w","sessionId":"s","message":{"role":"user","content":"go"}}\n${line}\n`);
    }
    const failing = {
      ...claude,
      discoverSync: undefined,
      async *discover(roots: readonly string[]) {
        yield* claude.discoverSync!(roots);
        await new Promise((r) => setTimeout(r, 300)); // the engines answer meanwhile
        throw new Error('listing failed');
      },
    };
    const opts = normalizeScanOptions({ agents: ['claude'], cache: false });
    opts.sources = [{ codec: failing, roots: [root] }];
    let records = 0;
    const scan = (async () => {
      for await (const batch of scanStreaming(opts)) records += batch.length;
    })();
    await expect(scan).rejects.toThrow('listing failed');
    expect(records).toBeGreaterThan(0);
  }, 20_000);
});
