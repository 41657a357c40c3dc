/**
 * The totals fold's snapshots (src/cost/incremental.ts): whatever happens to the history between runs, a
 * report through a restored snapshot equals a fresh fold over the same warm cache, and the cheap path is
 * taken exactly when the change is additive. Real Claude Code transcripts (its on-disk line shape, responses
 * spread over several lines, copies across resumed sessions), folded under several queries after each step.
 */
import { appendFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totalCost } from '../src/cost/total.js';
import type { FoldRunInfo } from '../src/cost/incremental.js';
import type { CostAggregationOptions, CostSummary } from '../src/cost/types.js';
import { MAX_FOLD_SNAPSHOTS } from '../src/cache/folds.js';
import { CACHE_SCHEMA_VERSION } from '../src/cache/db.js';
import { createCostFold } from '../src/cost/fold.js';
import { FOLD_STATE_VERSION } from '../src/cost/fold-state.js';
import { CHUNK_SLOTS, type StoredFoldState } from '../src/cost/fold-state.js';
import { usageRecord } from './helpers/usage-record.js';
import type { UsageRecord } from '../src/scan/types.js';
import { tempDir } from './scan-helpers.js';
import { claudeAssistant as assistant, claudeUser as user, SONNET } from './helpers/claude-lines.js';

const OPUS = 'claude-opus-4-1-20250805';

function uuid(n: number): string {
  const h = n.toString(16).padStart(12, '0');
  return `0000${h.slice(0, 4)}-0000-4000-8000-${h}`;
}

/** A turn: a prompt and a response written as two lines (a first snapshot, then the final count). */
function turn(sid: string, cwd: string, msg: string, day: number, out: number, model = SONNET): string[] {
  const ts = `2026-03-${String(day).padStart(2, '0')}T${String(8 + (out % 12)).padStart(2, '0')}:15:00.000Z`;
  return [user(sid, cwd, `prompt ${msg}`, ts), assistant(sid, cwd, msg, 1, ts, model), assistant(sid, cwd, msg, out, ts, model)];
}

const text = (lines: string[]) => `${lines.join('\n')}\n`;

interface Home {
  dir: string;
  projects: string;
  cachePath: string;
  env: NodeJS.ProcessEnv;
  file(project: string, sid: string): string;
}

function makeHome(dir: string): Home {
  const projects = join(dir, 'claude', 'projects');
  mkdirSync(projects, { recursive: true });
  return {
    dir,
    projects,
    cachePath: join(dir, 'cache', 'events.db'),
    env: { HOME: dir, CLAUDE_CONFIG_DIR: join(dir, 'claude'), XDG_CONFIG_HOME: join(dir, 'config'), TZ: 'UTC' },
    file(project, sid) {
      mkdirSync(join(projects, project), { recursive: true });
      return join(projects, project, `${sid}.jsonl`);
    },
  };
}

const QUERIES: CostAggregationOptions[] = [
  { groupBy: 'day' },
  { groupBy: 'session' },
  { groupBy: 'project', timeZone: 'Asia/Kolkata' },
  { groupBy: 'model', since: new Date('2026-03-03T00:00:00Z'), mode: 'calculate' },
  { model: 'opus', groupBy: 'week' },
];

async function both(h: Home, q: CostAggregationOptions): Promise<{ fresh: CostSummary; snap: CostSummary; info: FoldRunInfo }> {
  const base = { ...q, agents: ['claude'], env: h.env, cachePath: h.cachePath };
  const info = {} as FoldRunInfo;
  const snap = await totalCost(base, { workers: 0 }, info);
  const fresh = await totalCost({ ...base, snapshots: false }, { workers: 0 });
  return { fresh, snap, info };
}

/** Every query through its snapshot equals a fresh fold; returns each query's run info. */
async function check(h: Home): Promise<FoldRunInfo[]> {
  const infos: FoldRunInfo[] = [];
  for (const q of QUERIES) {
    const { fresh, snap, info } = await both(h, q);
    expect(snap).toEqual(fresh);
    infos.push(info);
  }
  return infos;
}

const kinds = (infos: FoldRunInfo[]) => infos.map((i) => i.snapshot);

describe('fold snapshots over a changing Claude history', () => {
  let h: Home;
  const sid = (n: number) => uuid(n);
  const A = () => h.file('-work-alpha', sid(1));
  const B = () => h.file('-work-alpha', sid(2));
  const C = () => h.file('-work-beta', sid(3));
  const D = () => h.file('-work-beta', sid(4));

  beforeAll(async () => {
    h = makeHome(await tempDir('sf-foldsnap-'));
    const a: string[] = [];
    for (let i = 0; i < 10; i++) a.push(...turn(sid(1), '/work/alpha', `a${i}`, 1 + (i % 5), 100 + i, i % 3 === 0 ? OPUS : SONNET));
    writeFileSync(A(), text(a));
    // B resumes A: its first five turns copied (same ids), then its own.
    const b = a.slice(0, 15).map((l) => l.replaceAll(sid(1), sid(2)));
    for (let i = 0; i < 6; i++) b.push(...turn(sid(2), '/work/alpha', `b${i}`, 2 + i, 200 + i));
    writeFileSync(B(), text(b));
    const c: string[] = [];
    for (let i = 0; i < 8; i++) c.push(...turn(sid(3), '/work/beta', `c${i}`, 3 + (i % 4), 300 + i, OPUS));
    writeFileSync(C(), text(c));
    const d: string[] = [];
    for (let i = 0; i < 5; i++) d.push(...turn(sid(4), '/work/beta', `d${i}`, 6, 400 + i));
    writeFileSync(D(), text(d));
  });
  afterAll(() => rmSync(h.dir, { recursive: true, force: true }));

  it('stores a snapshot on the first run, then folds nothing when nothing changed', async () => {
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'miss'));
    const again = await check(h);
    expect(kinds(again)).toEqual(QUERIES.map(() => 'hit'));
    expect(again.map((i) => [i.folded, i.removed])).toEqual(QUERIES.map(() => [0, 0]));
    // Once a run saw the files as they are with no cache write since, the next does not even scan.
    const third = await check(h);
    expect(third.map((i) => [i.snapshot, i.scanned, i.saved])).toEqual(QUERIES.map(() => ['hit', false, false]));
  });

  it('a touched file or another process’s write to the cache makes the run scan again', async () => {
    const t = statSync(A()).mtime;
    utimesSync(A(), t, new Date(t.getTime() + 1000));
    expect((await check(h)).map((i) => i.scanned)).toEqual(QUERIES.map(() => true));
    // The run that wrote the touched file's row counted its own write: none scans now.
    expect((await check(h)).map((i) => i.scanned)).toEqual(QUERIES.map(() => false));
    // Another process applies an append first: the files' stats changed too, and the cache did.
    appendFileSync(D(), text(turn(sid(4), '/work/beta', 'd9', 6, 409)));
    await totalCost({ agents: ['claude'], env: h.env, cachePath: h.cachePath, snapshots: false }, { workers: 0 });
    const after = await check(h);
    expect(after.map((i) => [i.snapshot, i.scanned])).toEqual(QUERIES.map(() => ['hit', true]));
    // A write to the cache alone (the stats the same as a snapshot saw): scanned as well.
    const db = new Database(h.cachePath);
    db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'changes'").run();
    db.close();
    expect((await check(h)).map((i) => i.scanned)).toEqual(QUERIES.map(() => true));
  });

  it('appended turns and a response that grows across the resume point: only the new records, still exact', async () => {
    // The last response of A gets a larger final record, and three turns follow.
    const more = [assistant(sid(1), '/work/alpha', 'a9', 999, '2026-03-05T17:15:00.000Z', OPUS)];
    for (let i = 10; i < 13; i++) more.push(...turn(sid(1), '/work/alpha', `a${i}`, 7, 100 + i));
    appendFileSync(A(), text(more));
    const infos = await check(h);
    expect(kinds(infos)).toEqual(QUERIES.map(() => 'hit'));
    expect(infos[0]?.folded).toBeGreaterThan(0);
    expect(infos[0]?.folded).toBeLessThan(20);
    expect(infos.every((i) => i.saved)).toBe(true);
  });

  it('a resumed copy that outgrows the original copy of a response', async () => {
    appendFileSync(B(), text([assistant(sid(2), '/work/alpha', 'a2', 5000, '2026-03-03T10:15:00.000Z')]));
    const infos = await check(h);
    expect(kinds(infos)).toEqual(QUERIES.map(() => 'hit'));
  });

  it('a new session file', async () => {
    const e: string[] = [];
    for (let i = 0; i < 4; i++) e.push(...turn(sid(5), '/work/gamma', `e${i}`, 8, 500 + i, OPUS));
    writeFileSync(h.file('-work-gamma', sid(5)), text(e));
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'hit'));
  });

  it('a deleted file keeps its usage (ledger) and needs no fresh fold', async () => {
    rmSync(D());
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'hit'));
  });

  it('a file rewritten in place without a response: the later records move up and win their ties, no fresh fold', async () => {
    const lines = readFileSync(C(), 'utf8').trimEnd().split('\n');
    writeFileSync(C(), text([...lines.slice(0, 6), ...lines.slice(9)]));
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'hit'));
  });

  it('a file rewritten with a summary line on top (compaction): its records move down, a fresh fold, same totals', async () => {
    const lines = readFileSync(C(), 'utf8').trimEnd().split('\n');
    const summary = JSON.stringify({ type: 'summary', summary: 'Compacted: the work so far', leafUuid: 'u-c1-301' });
    writeFileSync(C(), text([summary, ...lines.slice(0, 3), ...lines.slice(6)]));
    const infos = await check(h);
    expect(kinds(infos)).toContain('fallback');
    // The fallback stored a new snapshot: the next run is a hit again.
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'hit'));
  });

  it('a covered file another process updated first: caught up from the change log', async () => {
    appendFileSync(A(), text(turn(sid(1), '/work/alpha', 'a13', 9, 113)));
    // Another process (without snapshots) reads the grown file into the cache first, twice.
    await totalCost({ agents: ['claude'], env: h.env, cachePath: h.cachePath, snapshots: false }, { workers: 0 });
    appendFileSync(A(), text(turn(sid(1), '/work/alpha', 'a14', 9, 114)));
    await totalCost({ agents: ['claude'], env: h.env, cachePath: h.cachePath, snapshots: false }, { workers: 0 });
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'hit'));
  });

  it('a change the log cannot bridge (entries pruned): a fresh fold', async () => {
    appendFileSync(A(), text(turn(sid(1), '/work/alpha', 'a15', 9, 115)));
    await totalCost({ agents: ['claude'], env: h.env, cachePath: h.cachePath, snapshots: false }, { workers: 0 });
    const db = new Database(h.cachePath);
    db.prepare('DELETE FROM file_changes').run();
    db.close();
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'fallback'));
  });

  it('a rewrite read by another process first is caught up as a diff', async () => {
    const lines = readFileSync(B(), 'utf8').trimEnd().split('\n');
    writeFileSync(B(), text([...lines.slice(0, 3), ...lines.slice(6)]));
    await totalCost({ agents: ['claude'], env: h.env, cachePath: h.cachePath, snapshots: false }, { workers: 0 });
    // Same totals either way; whether the fast path holds depends on which copies the rewrite removed.
    await check(h);
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'hit'));
  });

  it('a truncated file', async () => {
    const lines = readFileSync(B(), 'utf8').trimEnd().split('\n');
    writeFileSync(B(), text(lines.slice(0, 10)));
    await check(h);
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'hit'));
  });

  it('nothing changed: the stored summary answers without reading the state; a state that does not decode is dropped', async () => {
    const db = new Database(h.cachePath);
    db.prepare('UPDATE fold_chunks SET data = ?').run(Buffer.from('garbage'));
    db.close();
    // Nothing to fold: the state is not read, the stored summary is the answer.
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'hit'));
    // Something to fold: the state is read, does not decode, and the fold starts over.
    appendFileSync(A(), text(turn(sid(1), '/work/alpha', 'a16', 10, 116)));
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'miss'));
    expect(kinds(await check(h))).toEqual(QUERIES.map(() => 'hit'));
  });

  it('a covered file that leaves the selection (its mtime moved before --since): a fresh fold', async () => {
    const q: CostAggregationOptions = { groupBy: 'day', since: new Date('2026-01-01T00:00:00Z') };
    const run = () => both(h, q);
    const first = await run();
    expect(first.snap).toEqual(first.fresh);
    const t = new Date('2025-06-01T00:00:00Z');
    utimesSync(C(), t, t);
    const r = await run();
    expect(r.snap).toEqual(r.fresh);
    expect(r.info.snapshot).toBe('fallback');
  });

  it('price overrides and tags are part of the key: a changed file is a new snapshot, never a stale one', async () => {
    const config = join(h.dir, 'config', 'sessionfold');
    mkdirSync(config, { recursive: true });
    const q: CostAggregationOptions = { groupBy: 'tag' };
    const before = await both(h, q);
    expect(before.snap).toEqual(before.fresh);
    writeFileSync(join(config, 'tags.json'), JSON.stringify({ 'cwd:/work/alpha': ['alpha'] }));
    const tagged = await both(h, q);
    expect(tagged.info.snapshot).toBe('miss');
    expect(tagged.snap).toEqual(tagged.fresh);
    expect(Object.keys(tagged.snap.breakdowns ?? {})).toContain('alpha');

    const total = await both(h, {});
    writeFileSync(join(config, 'prices.json'), JSON.stringify({ models: { 'claude-sonnet-4-5': { input_mtok: 100, output_mtok: 100 } } }));
    const repriced = await both(h, {});
    expect(repriced.info.snapshot).toBe('miss');
    expect(repriced.snap).toEqual(repriced.fresh);
    expect(repriced.snap.totalUsd).not.toBe(total.snap.totalUsd);
    rmSync(join(config, 'prices.json'));
    rmSync(join(config, 'tags.json'));
    // Back to the bundled prices: the earlier snapshot is found again.
    expect((await both(h, {})).info.snapshot).toBe('hit');
  });

  it(`keeps at most ${MAX_FOLD_SNAPSHOTS} snapshots, the most recently used`, async () => {
    for (let i = 0; i < MAX_FOLD_SNAPSHOTS + 3; i++) await both(h, { groupBy: 'day', until: new Date(Date.UTC(2026, 3, 1 + i)) });
    const db = new Database(h.cachePath, { readonly: true });
    const n = db.prepare('SELECT count(*) FROM folds').pluck().get();
    const orphans = db.prepare('SELECT count(*) FROM fold_chunks WHERE key NOT IN (SELECT key FROM folds)').pluck().get();
    db.close();
    expect(n).toBe(MAX_FOLD_SNAPSHOTS);
    expect(orphans).toBe(0);
  });

  it('never writes to the agent files', async () => {
    const files = [A(), B(), C()];
    const before = files.map((f) => [readFileSync(f).toString('base64'), statSync(f).mtimeMs]);
    await check(h);
    expect(files.map((f) => [readFileSync(f).toString('base64'), statSync(f).mtimeMs])).toEqual(before);
  });
});

/** An export's pieces, encoded. */
function encoded(pieces: Map<number, () => Buffer>): Map<number, Buffer> {
  return new Map([...pieces].map(([q, encode]) => [q, encode()]));
}

/** A stored state as the driver gives it to a restore, counting which column pieces are read. */
function stored(st: { header: string; pieces: Map<number, Buffer | (() => Buffer)>; seqCount: number }, reads: number[] = []): StoredFoldState {
  const piece = (q: number): Buffer => {
    const p = st.pieces.get(q) as Buffer | (() => Buffer);
    return typeof p === 'function' ? p() : p;
  };
  const hashes: Buffer[] = [];
  for (let q = 0; q < st.seqCount; q += 2) hashes.push(piece(q));
  return {
    header: st.header,
    hashes,
    columns: (c) => {
      reads.push(c);
      return piece(2 * c + 1);
    },
  };
}

describe('fold state chunks', () => {
  it('a restored fold reads and rewrites only the chunks it touches, and restoring those gives the same fold', () => {
    const n = CHUNK_SLOTS * 3 + 17;
    const recs = Array.from({ length: n }, (_, i) => usageRecord(i, { dedupKey: `k${i}`, outputTokens: 10 + (i % 7), sessionId: `s${i % 11}` }));
    const opts = { groupBy: 'day' as const, timeZone: 'UTC' };
    const a = createCostFold(opts);
    for (const r of recs) a.add(r);
    const exported = a.exportState();
    const full = { ...exported, pieces: encoded(exported.pieces) };
    expect([...full.pieces.keys()]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);

    const reads: number[] = [];
    const b = createCostFold(opts, stored(full, reads));
    expect(b.result()).toEqual(a.result());
    expect(b.exportState(true).pieces.size).toBe(0);
    expect(reads).toEqual([]); // the summary comes from the totals
    // A larger copy of a response in chunk 1, and new responses past the end.
    const more = [usageRecord(CHUNK_SLOTS + 5, { dedupKey: `k${CHUNK_SLOTS + 5}`, outputTokens: 10_000 }), ...Array.from({ length: 40 }, (_, i) => usageRecord(n + i, { dedupKey: `new${i}` }))];
    for (const r of more) b.add(r);
    const delta = b.exportState(true);
    const changed = { ...delta, pieces: encoded(delta.pieces) };
    // Chunk 1's columns (a slot rewritten), chunk 3's hashes and columns (it grew).
    expect([...changed.pieces.keys()].sort((x, y) => x - y)).toEqual([3, 6, 7]);
    expect([...new Set(reads)].sort()).toEqual([1, 3]);

    const merged = new Map(full.pieces);
    for (const [q, data] of changed.pieces) merged.set(q, data);
    const c = createCostFold(opts, stored({ header: changed.header, pieces: merged, seqCount: changed.seqCount }));
    const fresh = createCostFold(opts);
    for (const r of [...recs, ...more]) fresh.add(r);
    expect(c.result()).toEqual(fresh.result());
    expect(b.result()).toEqual(fresh.result());
    expect(encoded(c.exportState().pieces)).toEqual(encoded(fresh.exportState().pieces));
  });

  it('a fold kept in memory and rebased after each store writes only what changed since, and the store restores to a fresh fold', () => {
    const n = CHUNK_SLOTS * 3 + 17;
    const rec = (i: number, out = 10 + (i % 7)) => usageRecord(i, { dedupKey: `k${i}`, outputTokens: out, sessionId: `s${i % 11}` });
    const opts = { groupBy: 'session' as const, timeZone: 'UTC' };
    const all = Array.from({ length: n }, (_, i) => rec(i));
    const a = createCostFold(opts);
    for (const r of all) a.add(r);
    const first = a.exportState();
    const store = { header: first.header, pieces: encoded(first.pieces) as Map<number, Buffer>, seqCount: first.seqCount };
    const save = (e: ReturnType<typeof a.exportState>) => {
      for (const [q, data] of encoded(e.pieces)) store.pieces.set(q, data);
      for (const q of [...store.pieces.keys()]) if (q >= e.seqCount) store.pieces.delete(q);
      Object.assign(store, { header: e.header, seqCount: e.seqCount });
    };
    // Restored lazily from the store (its reader always sees the store as it is now), then kept across rounds.
    const reads: number[] = [];
    const kept = createCostFold(opts, stored(store, reads));
    const rounds: UsageRecord[][] = [
      [rec(CHUNK_SLOTS + 5, 10_000), ...Array.from({ length: 40 }, (_, i) => rec(n + i))], // a slot in chunk 1, growth
      [rec(2 * CHUNK_SLOTS + 1, 20_000), rec(n + 3, 30_000)], // a chunk never read yet, a slot made in round 1
      [rec(n - 1, 40_000), ...Array.from({ length: CHUNK_SLOTS }, (_, i) => rec(n + 100 + i))], // the old boundary chunk, a new chunk
      [],
    ];
    for (const [k, round] of rounds.entries()) {
      for (const r of round) kept.add(r);
      all.push(...round);
      const e = kept.exportState(true);
      const seqs = [...e.pieces.keys()];
      save(e);
      kept.rebase();
      if (k === 1) expect(seqs.sort((x, y) => x - y)).toEqual([5, 7]); // chunk 2's columns (rewritten), chunk 3's (the made slot)
      if (k === 3) expect(seqs).toEqual([]);
      const fresh = createCostFold(opts);
      for (const r of all) fresh.add(r);
      expect(kept.result()).toEqual(fresh.result());
      const restored = createCostFold(opts, stored(store));
      expect(restored.result()).toEqual(fresh.result());
      const b64 = (e: ReturnType<typeof fresh.exportState>) => [...encoded(e.pieces)].map(([q, d]) => `${q}:${d.toString('base64')}`).join('\n');
      expect(b64(restored.exportState()) === b64(fresh.exportState())).toBe(true);
    }
    expect(reads.includes(0)).toBe(false); // chunk 0 was never needed
  });

  it('a restored fold given many records (copies of counted keys, larger and smaller, and new ones) equals a fresh fold', () => {
    for (const groupBy of ['session', 'day', undefined] as const) {
      const opts = { groupBy, timeZone: 'UTC' };
      const base = Array.from({ length: 3000 }, (_, i) => usageRecord(i, { dedupKey: `k${i % 2500}`, outputTokens: 10 + (i % 13), sessionId: `s${i % 7}`, model: i % 9 === 0 ? 'nobody-prices-this' : 'alpha', file: `/h/f${i % 4}.jsonl` }));
      const a = createCostFold(opts);
      for (const r of base) a.add(r);
      const st = a.exportState();
      for (const n of [1, 50, 4095, 4096, 4097, 9000]) {
        // Copies of counted keys (some larger, some smaller), copies among themselves, and new keys.
        const more = Array.from({ length: n }, (_, i) =>
          usageRecord(5000 + i, { dedupKey: `k${(i * 7) % 6000}`, outputTokens: (i * 31) % 40, sessionId: `s${i % 5}`, timestamp: `2026-01-${String(10 + (i % 9)).padStart(2, '0')}T12:00:00.000Z` }),
        );
        const b = createCostFold(opts, stored(st));
        for (const r of more) b.add(r);
        const fresh = createCostFold(opts);
        for (const r of [...base, ...more]) fresh.add(r);
        expect(b.result()).toEqual(fresh.result());
        expect(b.holds(more[0] as UsageRecord)).toBe(fresh.holds(more[0] as UsageRecord));
      }
    }
  });

  it('holds() names the copy the fold counts', () => {
    const f = createCostFold({});
    const small = usageRecord(1, { dedupKey: 'k', outputTokens: 5, file: '/a' });
    const big = usageRecord(2, { dedupKey: 'k', outputTokens: 50, file: '/b' });
    f.add(small);
    expect(f.holds(small)).toBe(true);
    f.add(big);
    expect(f.holds(small)).toBe(false);
    expect(f.holds(big)).toBe(true);
    expect(f.holds(usageRecord(3, { dedupKey: 'other' }))).toBe(false);
  });

  it('a state of another version or with missing chunks does not decode', () => {
    const f = createCostFold({});
    f.add(usageRecord(1));
    const s = f.exportState();
    const st = stored(s);
    expect(() => createCostFold({}, { ...st, header: s.header.replace(`"version":${FOLD_STATE_VERSION}`, `"version":${FOLD_STATE_VERSION - 1}`) })).toThrow(RangeError);
    expect(() => createCostFold({}, { ...st, hashes: [] })).toThrow(RangeError);
    const broken = createCostFold({}, { ...st, columns: () => Buffer.from('garbage') });
    expect(() => broken.add(usageRecord(2, { dedupKey: 'k1', outputTokens: 1e6 }))).not.toThrow(); // held back
    expect(() => broken.result()).toThrow(RangeError); // compared: its chunk is read, and does not decode
  });
});

describe('fold snapshots over a changing Codex history (real rollouts and a growing one)', () => {
  it('equal a fresh fold after appends, a rewrite and a new rollout, and take the cheap path for appends', async () => {
    const { count, meta, turn, tu, jsonl, REAL_DIR } = await import('./codex-helpers.js');
    const { cpSync, readdirSync } = await import('node:fs');
    const dir = await tempDir('sf-foldsnap-codex-');
    const day = join(dir, 'codex', 'sessions', '2025', '11', '05');
    mkdirSync(day, { recursive: true });
    // The real rollouts of ../shared, in place of a history.
    for (const name of readdirSync(REAL_DIR)) if (name.endsWith('.jsonl')) cpSync(join(REAL_DIR, name), join(day, name.startsWith('rollout-') ? name : `rollout-2025-11-05T00-00-00-${name.replace(/\W/g, '').slice(0, 8).padEnd(8, '0')}-0000-7000-8000-000000000000.jsonl`));
    const live = join(day, 'rollout-2025-11-05T12-00-00-0199a000-0000-7000-8000-000000000099.jsonl');
    let total = { i: 0, c: 0, o: 0, r: 0 };
    const step = (second: number) => {
      const last = { i: 1000 + second, c: 500, o: 40 + second, r: 10 };
      total = { i: total.i + last.i, c: total.c + last.c, o: total.o + last.o, r: total.r + last.r };
      return count(second, tu(total.i, total.c, total.o, total.r), tu(last.i, last.c, last.o, last.r));
    };
    writeFileSync(live, jsonl([meta('0199a000-0000-7000-8000-000000000099', 0), turn(1, 'gpt-5-codex'), step(2), step(3)]));
    const env = { HOME: dir, CODEX_HOME: join(dir, 'codex'), XDG_CONFIG_HOME: join(dir, 'config'), TZ: 'UTC' };
    const cachePath = join(dir, 'cache', 'events.db');
    const run = async (q: CostAggregationOptions) => {
      const base = { ...q, agents: ['codex'], env, cachePath };
      const info = {} as FoldRunInfo;
      const snap = await totalCost(base, { workers: 0 }, info);
      expect(snap).toEqual(await totalCost({ ...base, snapshots: false }, { workers: 0 }));
      expect(snap.requestCount).toBeGreaterThan(0);
      return info.snapshot;
    };
    const queries: CostAggregationOptions[] = [
      { groupBy: 'day' },
      { groupBy: 'session' },
      { groupBy: 'project', timeZone: 'Asia/Kolkata' },
      { groupBy: 'model', since: new Date('2025-01-01T00:00:00Z'), mode: 'calculate' },
      { model: 'gpt-5', groupBy: 'week' },
    ];
    const all = async () => {
      const out: string[] = [];
      for (const q of queries) out.push(await run(q));
      return out;
    };
    expect(await all()).toEqual(queries.map(() => 'miss'));
    appendFileSync(live, jsonl([step(4), turn(5, 'gpt-5.1-codex'), step(6)]));
    expect(await all()).toEqual(queries.map(() => 'hit'));
    appendFileSync(live, jsonl([step(7)]));
    expect(await all()).toEqual(queries.map(() => 'hit'));
    // A rollout rewritten shorter (its last turn gone): same totals as a fresh fold whichever path is taken.
    const lines = readFileSync(live, 'utf8').trimEnd().split('\n');
    writeFileSync(live, `${lines.slice(0, -2).join('\n')}\n`);
    await all();
    writeFileSync(join(day, 'rollout-2025-11-05T13-00-00-0199a000-0000-7000-8000-0000000000aa.jsonl'), jsonl([meta('0199a000-0000-7000-8000-0000000000aa', 0), turn(1, 'gpt-5'), step(9)]));
    expect(await all()).toEqual(queries.map(() => 'hit'));
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('a cache of the previous schema (version 2)', () => {
  it('is migrated in place: its rows kept, the fold tables and a database instance id added', async () => {
    const h = makeHome(await tempDir('sf-foldsnap-v2-'));
    const lines: string[] = [];
    for (let i = 0; i < 4; i++) lines.push(...turn(uuid(7), '/work/m', `m${i}`, 2, 70 + i));
    writeFileSync(h.file('-work-m', uuid(7)), text(lines));
    const q = { agents: ['claude'], env: h.env, cachePath: h.cachePath, groupBy: 'day' as const };
    const before = await totalCost(q, { workers: 0 });
    // What a version-2 build left: no fold tables, no instance id.
    const w = new Database(h.cachePath);
    w.exec("DROP TABLE folds; DROP TABLE fold_chunks; DROP TABLE file_changes; DELETE FROM meta WHERE key = 'instance'");
    w.pragma('user_version = 2');
    const files = w.prepare('SELECT count(*) FROM files').pluck().get();
    w.close();
    const info = {} as FoldRunInfo;
    expect(await totalCost(q, { workers: 0 }, info)).toEqual(before);
    expect(info.snapshot).toBe('miss');
    const r = new Database(h.cachePath, { readonly: true });
    expect(r.pragma('user_version', { simple: true })).toBe(CACHE_SCHEMA_VERSION);
    expect(r.prepare("SELECT count(*) FROM meta WHERE key = 'instance'").pluck().get()).toBe(1);
    expect(r.prepare('SELECT count(*) FROM files').pluck().get()).toBe(files);
    expect(r.prepare('SELECT count(*) FROM folds').pluck().get()).toBe(1);
    r.close();
    const again = {} as FoldRunInfo;
    expect(await totalCost(q, { workers: 0 }, again)).toEqual(before);
    expect(again.snapshot).toBe('hit');

    // Fold tables of another shape (a development build's): replaced, and snapshots work again.
    const d = new Database(h.cachePath);
    d.exec('DROP TABLE folds; CREATE TABLE folds (key TEXT PRIMARY KEY, version INTEGER NOT NULL, state BLOB)');
    d.close();
    const healed = {} as FoldRunInfo;
    expect(await totalCost(q, { workers: 0 }, healed)).toEqual(before);
    expect([healed.snapshot, healed.saved]).toEqual(['miss', true]);
    const third = {} as FoldRunInfo;
    await totalCost(q, { workers: 0 }, third);
    expect(third.snapshot).toBe('hit');
    rmSync(h.dir, { recursive: true, force: true });
  });
});
