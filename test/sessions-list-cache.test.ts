/**
 * list()'s summary cache (src/sessions/summary-cache.ts): a warm list gives exactly what an uncached one
 * gives, for every option, without reading a file; a changed, new or deleted file, a new parser, a changed
 * dependency or a change of price data is seen.
 */
import { appendFile, readFile, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import type { SessionListOptions } from '../src/sessions/types.js';
import { asJson, cachePath, manager, optionMatrix, registerProbe, summaryRows, writeLargeSessions, writePrices, type Probe } from './sessions-list-cache-helpers.js';
import { buildExportFixtures, CLAUDE_SUBAGENT_PARENT, copyClaudeFixtures, copyCodexFixtures, EXPORT_IDS, FAKE_PRICER, HAS_CLAUDE, HAS_CODEX, makeHome, type Home } from './sessions-helpers.js';

let home: Home;
let largeRoot: string;
let jsonlRoots: Record<string, string[]>;

beforeAll(async () => {
  home = await makeHome();
  largeRoot = join(home.dir, 'large');
  await buildExportFixtures(home.exports);
  await writeLargeSessions(largeRoot, 34);
  await copyClaudeFixtures(home);
  await copyCodexFixtures(home);
  await writePrices(home, 1);
  await writeFile(home.env.SESSIONFOLD_TAGS as string, JSON.stringify({ 'probe-jsonl:fork-1': ['tagged'], 'cwd:/work/even': ['tagged'], 'cwd:/tmp': ['tagged'] }));
  jsonlRoots = { 'probe-jsonl': [home.exports, largeRoot] };
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

const uniq = (paths: string[]) => [...new Set(paths)].sort();

/** For every option set: cache:false, then cached (cold or partly warm), then cached again; the last reads nothing. */
async function checkEquivalence(probe: Probe, roots: Record<string, string[]>, matrix: SessionListOptions[]): Promise<void> {
  const expected: string[] = [];
  for (const o of matrix) {
    const plain = await manager(home, roots, { cache: false }).list(probe.id, o);
    const first = await manager(home, roots).list(probe.id, o);
    expect(first, JSON.stringify(o)).toEqual(plain);
    expect(asJson(first), JSON.stringify(o)).toBe(asJson(plain));
    expected.push(asJson(plain));
  }
  probe.reset();
  for (const [i, o] of matrix.entries()) expect(asJson(await manager(home, roots).list(probe.id, o)), `warm ${JSON.stringify(o)}`).toBe(expected[i]);
  expect(probe.reads).toEqual([]);
}

describe('a warm list is an uncached list without the reads', () => {
  it('sessionfold-jsonl sessions, small and large, 34 of them needing usage: every option', async () => {
    const probe = registerProbe('sessionfold-jsonl', 'probe-jsonl');
    const matrix = optionMatrix('/work/even', 'gpt');
    await checkEquivalence(probe, jsonlRoots, matrix);
    // The cases the matrix must reach: lazy summaries, exact ones, costs and a model filter that drops some.
    const rows = await manager(home, jsonlRoots).list(probe.id, { limit: 1000 });
    expect(rows.some((r) => !r.exact) && rows.some((r) => r.exact)).toBe(true);
    expect((await manager(home, jsonlRoots).list(probe.id, { sort: 'cost', limit: 1000 })).filter((r) => !r.exact && r.cost !== undefined).length).toBeGreaterThanOrEqual(34);
    expect((await manager(home, jsonlRoots).list(probe.id, { model: 'gpt', limit: 1000 })).length).toBeLessThan(rows.length);
  });

  it.runIf(HAS_CLAUDE)('real Claude fixtures, subagent transcript included', async () => {
    const probe = registerProbe('claude', 'probe-claude');
    await checkEquivalence(probe, {}, optionMatrix('/tmp', 'claude'));
  });

  it.runIf(HAS_CODEX)('real Codex fixtures', async () => {
    const probe = registerProbe('codex', 'probe-codex');
    await checkEquivalence(probe, {}, optionMatrix('/', 'gpt'));
  });
});

describe('what a warm list re-reads', () => {
  const all: SessionListOptions = { limit: 1000 };

  it('only a file that grew, was touched or is new; a deleted file leaves the list and the cache', async () => {
    const probe = registerProbe('sessionfold-jsonl', 'probe-inval');
    const roots = { 'probe-inval': [home.exports, largeRoot] };
    /** A cached list, checked against an uncached one; `reads` are the cached list's own. */
    let reads: string[] = [];
    const same = async () => {
      probe.reset();
      const got = await manager(home, roots).list(probe.id, all);
      reads = uniq(probe.reads);
      expect(asJson(got)).toBe(asJson(await manager(home, roots, { cache: false }).list(probe.id, all)));
      return got;
    };
    await same();
    await same();
    expect(reads).toEqual([]);

    const grown = join(largeRoot, 'large-3.jsonl');
    await appendFile(grown, `${JSON.stringify({ type: 'sessionfold.message', index: 120, role: 'user', content: 'one more question', timestamp: '2026-05-30T00:00:00.000Z' })}\n`);
    const afterAppend = await same();
    expect(reads).toEqual([grown]);
    expect(afterAppend.find((r) => r.sessionId === 'large-3')?.updatedAt.toISOString()).toBe('2026-05-30T00:00:00.000Z');

    const touched = join(largeRoot, 'large-5.jsonl');
    const later = new Date(Date.now() + 60_000);
    await utimes(touched, later, later);
    await same();
    expect(reads).toEqual([touched]);

    const added = join(home.exports, 'added-1.jsonl');
    await writeFile(added, (await readFile(join(home.exports, `${EXPORT_IDS.parent}.jsonl`), 'utf8')).replace(EXPORT_IDS.parent, 'added-1'));
    const gone = join(largeRoot, 'large-7.jsonl');
    await unlink(gone);
    const rows = await same();
    expect(reads).toEqual([added]);
    expect(rows.map((r) => r.sessionId)).toContain('added-1');
    expect(rows.map((r) => r.sessionId)).not.toContain('large-7');
    expect(summaryRows(home, probe.id).map((r) => r.path)).not.toContain(gone);
    await unlink(added);
  });

  it('every file under a new parser version', async () => {
    const roots = { 'probe-parser': [largeRoot] };
    let probe = registerProbe('sessionfold-jsonl', 'probe-parser', 7);
    await manager(home, roots).list(probe.id, all);
    probe.reset();
    await manager(home, roots).list(probe.id, all);
    expect(probe.reads).toEqual([]);
    probe = registerProbe('sessionfold-jsonl', 'probe-parser', 8);
    const rows = await manager(home, roots).list(probe.id, all);
    expect(uniq(probe.reads)).toEqual(uniq(rows.map((r) => r.file)));
    expect(asJson(rows)).toBe(asJson(await manager(home, roots, { cache: false }).list(probe.id, all)));
  });

  it.runIf(HAS_CLAUDE)('a subagent transcript whose sidecar (a parse dependency) changed, and nothing else', async () => {
    const probe = registerProbe('claude', 'probe-deps');
    const o: SessionListOptions = { subagents: true, limit: 1000 };
    await manager(home, {}).list(probe.id, o);
    const dir = join(home.claude, 'projects', '-tmp-proj', CLAUDE_SUBAGENT_PARENT, 'subagents');
    const transcript = join(dir, 'agent-a0ad4f44468bdf20d.jsonl');
    const meta = join(dir, 'agent-a0ad4f44468bdf20d.meta.json');
    expect(probe.codec.getParseDependencies(transcript)).toEqual([meta]);
    await writeFile(meta, JSON.stringify({ agentType: 'Explore', spawnDepth: 2 }));
    probe.reset();
    const rows = await manager(home, {}).list(probe.id, o);
    expect(uniq(probe.reads)).toEqual([transcript]);
    expect(asJson(rows)).toBe(asJson(await manager(home, {}, { cache: false }).list(probe.id, o)));
  });

  it('serves a row only for the stat it was written for', async () => {
    const probe = registerProbe('sessionfold-jsonl', 'probe-stat');
    const roots = { 'probe-stat': [largeRoot] };
    await manager(home, roots).list(probe.id, all);
    const file = join(largeRoot, 'large-1.jsonl');
    // Tamper with the stored summary: a warm list shows it, which proves the row is what is served …
    const db = new Database(cachePath(home));
    const row = db.prepare('SELECT peek FROM summaries WHERE agent = ? AND path = ?').get(probe.id, file) as { peek: string };
    db.prepare('UPDATE summaries SET peek = ? WHERE agent = ? AND path = ?').run(JSON.stringify({ ...JSON.parse(row.peek), title: 'tampered' }), probe.id, file);
    db.close();
    const title = async () => (await manager(home, roots).list(probe.id, all)).find((r) => r.file === file)?.title;
    expect(await title()).toBe('tampered');
    // … and once the file's mtime moves, the row no longer matches and the file is read again.
    const s = await stat(file);
    await utimes(file, s.atime, new Date(s.mtimeMs + 1000));
    expect(await title()).toBe(JSON.parse(row.peek).title);
  });

  it.each([
    ['turns', 'cost'],
    ['cost', 'turns'],
  ] as const)('keeps the levels a row has when a list adds one (%s, then %s), and drops them when the file changes', async (first, second) => {
    const probe = registerProbe('sessionfold-jsonl', `probe-levels-${first}`);
    const roots = { [probe.id]: [largeRoot] };
    const sm = () => manager(home, roots);
    const file = join(largeRoot, first === 'turns' ? 'large-2.jsonl' : 'large-4.jsonl');
    const levels = () => {
      const r = summaryRows(home, probe.id).find((x) => x.path === file);
      return { peek: r?.peek != null, usage: r?.usage != null, whole: r?.whole != null };
    };
    await sm().list(probe.id, all);
    expect(levels()).toEqual({ peek: true, usage: false, whole: false });
    await sm().list(probe.id, { ...all, sort: first });
    expect(levels()).toEqual({ peek: true, usage: first === 'cost', whole: first === 'turns' });
    await sm().list(probe.id, { ...all, sort: second });
    expect(levels()).toEqual({ peek: true, usage: true, whole: true });
    await appendFile(file, `${JSON.stringify({ type: 'sessionfold.message', index: 121, role: 'user', content: 'and another', timestamp: '2026-05-31T00:00:00.000Z' })}\n`);
    await sm().list(probe.id, all);
    expect(levels()).toEqual({ peek: true, usage: false, whole: false });
  });
});

describe('prices', () => {
  const o: SessionListOptions = { sort: 'cost', limit: 1000 };

  it('a changed price-override file re-prices (and re-reads): never a stale cost', async () => {
    const probe = registerProbe('sessionfold-jsonl', 'probe-prices');
    const roots = { 'probe-prices': [largeRoot] };
    await writePrices(home, 1);
    const before = await manager(home, roots).list(probe.id, o);
    await writePrices(home, 3);
    probe.reset();
    const after = await manager(home, roots).list(probe.id, o);
    expect(probe.reads.length).toBeGreaterThan(0);
    expect(asJson(after)).toBe(asJson(await manager(home, roots, { cache: false }).list(probe.id, o)));
    const cost = (rows: typeof before, id: string) => rows.find((r) => r.sessionId === id)?.cost?.totalUsd ?? NaN;
    expect(cost(after, 'large-0')).toBeCloseTo(3 * cost(before, 'large-0'), 12);
    await writePrices(home, 1);
  });

  it('each cost mode has its own rows', async () => {
    const probe = registerProbe('sessionfold-jsonl', 'probe-modes');
    const roots = { 'probe-modes': [home.exports] };
    for (const costMode of ['auto', 'calculate', 'display'] as const) {
      await manager(home, roots, { costMode }).list(probe.id, o);
      expect(asJson(await manager(home, roots, { costMode }).list(probe.id, o)), costMode).toBe(asJson(await manager(home, roots, { costMode, cache: false }).list(probe.id, o)));
    }
  });

  it('an invalid price-override file fails a warm list as it fails a cold one', async () => {
    const probe = registerProbe('sessionfold-jsonl', 'probe-badprices');
    const roots = { 'probe-badprices': [home.exports] };
    await manager(home, roots).list(probe.id);
    const path = join(home.env.XDG_CONFIG_HOME as string, 'sessionfold', 'prices.json');
    const good = await readFile(path, 'utf8');
    await writeFile(path, '{"models": {"x": {"input_mtok": "free"}}}');
    for (const cache of [true, false]) {
      const err = await manager(home, roots, { cache }).list(probe.id).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isSessionfoldError(err) && err.code).toBe('PRICE_ERROR');
    }
    await writeFile(path, good);
  });

  it('a caller-supplied pricer bypasses the cache (it has no fingerprint)', async () => {
    const probe = registerProbe('sessionfold-jsonl', 'probe-pricer');
    const roots = { 'probe-pricer': [home.exports] };
    const rows = await manager(home, roots, { pricer: FAKE_PRICER }).list(probe.id, o);
    expect(rows.length).toBeGreaterThan(0);
    expect(summaryRows(home, probe.id)).toEqual([]);
    probe.reset();
    await manager(home, roots, { pricer: FAKE_PRICER }).list(probe.id, o);
    expect(probe.reads.length).toBeGreaterThan(0);
  });
});

describe('cache: false', () => {
  it('creates no database and gives the same summaries', async () => {
    const other = await makeHome();
    try {
      await buildExportFixtures(other.exports);
      const roots = { 'probe-jsonl': [other.exports] };
      const plain = await manager(other, roots, { cache: false }).list('probe-jsonl', { limit: 1000 });
      await expect(stat(cachePath(other))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(asJson(await manager(other, roots).list('probe-jsonl', { limit: 1000 }))).toBe(asJson(plain));
      expect((await stat(cachePath(other))).size).toBeGreaterThan(0);
    } finally {
      await rm(other.dir, { recursive: true, force: true });
    }
  });
});
