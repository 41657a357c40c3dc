import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { registerCodec } from '../src/registry.js';
import { createSessionManager, type SessionManager } from '../src/sessions/manager.js';
import { makeSnippet, mayContainAll, parseTerms, SearchScorer } from '../src/sessions/search-match.js';
import type { SearchStats } from '../src/sessions/types.js';
import { buildExportFixtures, copyClaudeFixtures, EXPORT_IDS, FAKE_PRICER, HAS_CLAUDE, makeHome, writeExportSession, type Home } from './sessions-helpers.js';

const AGENT = 'sessionfold-jsonl';
let home: Home;
let sm: SessionManager;

beforeAll(async () => {
  home = await makeHome();
  await buildExportFixtures(home.exports);
  await copyClaudeFixtures(home);
  await writeFile(home.env.SESSIONFOLD_TAGS as string, JSON.stringify({ 'cwd:/work/big': ['bulk'] }));
  sm = createSessionManager({ env: home.env, pricer: FAKE_PRICER });
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

describe('query terms and scoring', () => {
  it('splits on whitespace, keeps quoted phrases, lowercases and dedupes', () => {
    expect(parseTerms('Auth  "token CHECK" auth').terms).toEqual(['auth', 'token check']);
    expect(() => parseTerms('   ')).toThrow(/Invalid option text/);
    expect(parseTerms('foo.bar {x} a/b "q"').prefilterWords).toEqual(['foo.bar', 'a/b', 'q']);
  });

  it('needs every term somewhere (texts or title) and scores within [0, 1]', () => {
    const t = parseTerms('token middleware');
    const s = new SearchScorer(t);
    s.text('The token check lives here.');
    expect(s.result('Refactor')).toBeUndefined();
    const r = s.result('Refactor the auth middleware');
    expect(r?.score).toBeGreaterThan(0);
    expect(r?.score).toBeLessThanOrEqual(1);
    expect(r?.snippet).toBe('The token check lives here.');
  });

  it('ranks more hits, a title match and the phrase higher, saturating below 1', () => {
    const score = (texts: string[], title: string, q = 'auth token') => {
      const s = new SearchScorer(parseTerms(q));
      for (const x of texts) s.text(x);
      return s.result(title)?.score ?? -1;
    };
    const few = score(['auth and token', 'unrelated', 'unrelated', 'unrelated', 'unrelated', 'unrelated'], 'x');
    const many = score(['auth token auth token', 'auth token', 'token auth', 'unrelated', 'unrelated', 'unrelated'], 'x');
    const titled = score(['auth and token', 'unrelated', 'unrelated', 'unrelated', 'unrelated', 'unrelated'], 'auth token');
    expect(many).toBeGreaterThan(few);
    expect(titled).toBeGreaterThan(few);
    expect(score(['token then auth'], 'x', '"auth token"')).toBe(-1);
    const saturated = score(Array.from({ length: 50 }, () => 'auth token '.repeat(20)), 'auth token');
    expect(saturated).toBeLessThanOrEqual(1);
    expect(saturated).toBeGreaterThan(0.95);
  });

  it('matches case-insensitively, phrases across any whitespace', () => {
    const s = new SearchScorer(parseTerms('"add  tests"'));
    s.text('Now ADD\n  Tests please');
    expect(s.result('')).toBeDefined();
  });

  it('quotes the text around the first hit, cut with ellipses, never inside a surrogate pair', () => {
    const text = `${'😀'.repeat(40)} needle ${'x '.repeat(100)}`;
    const snip = makeSnippet(text, text.indexOf('needle'), 6);
    expect(snip.startsWith('…')).toBe(true);
    expect(snip.endsWith('…')).toBe(true);
    expect(snip).toContain('needle');
    expect(snip).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it('pre-filters raw bytes without ever dropping a file that matches', async () => {
    const dir = join(home.dir, 'pf');
    await mkdir(dir, { recursive: true });
    const plain = join(dir, 'plain.jsonl');
    await writeFile(plain, '{"content":"Find the NeedLe here"}\n');
    expect(await mayContainAll(plain, ['needle'])).toBe(true);
    expect(await mayContainAll(plain, ['needle', 'absent'])).toBe(false);
    const escaped = join(dir, 'esc.jsonl');
    await writeFile(escaped, '{"content":"n\\u0065edle"}\n');
    expect(await mayContainAll(escaped, ['needle'])).toBe(true); // inconclusive: parsed
    const slash = join(dir, 'slash.jsonl');
    await writeFile(slash, '{"content":"src\\/auth.ts"}\n');
    expect(await mayContainAll(slash, ['src/auth.ts'])).toBe(true);
    // A word across the 1 MiB chunk edge.
    const edge = join(dir, 'edge.jsonl');
    await writeFile(edge, `${'a'.repeat((1 << 20) - 3)}needle\n`);
    expect(await mayContainAll(edge, ['needle'])).toBe(true);
    expect(await mayContainAll(edge, ['needles'])).toBe(false);
  });
});

describe('search', () => {
  it('finds sessions by message text and title, with a snippet and a score', async () => {
    const rows = await sm.search({ text: 'verifyToken', agent: AGENT });
    expect(rows.map((r) => r.sessionId).sort()).toEqual([EXPORT_IDS.fork, EXPORT_IDS.parent]);
    for (const r of rows) {
      expect(r.snippet).toContain('verifyToken');
      expect(r.relevanceScore).toBeGreaterThan(0);
      expect(r.relevanceScore).toBeLessThanOrEqual(1);
      expect(r.exact).toBe(true);
    }
  });

  it('searches tool outputs and finds text the file only holds behind JSON escapes', async () => {
    expect((await sm.search({ text: 'middleware.ts', agent: AGENT })).map((r) => r.sessionId).sort()).toEqual([EXPORT_IDS.fork, EXPORT_IDS.parent]);
    const [hit] = await sm.search({ text: 'QUOKKA', agent: AGENT });
    expect(hit?.sessionId).toBe(EXPORT_IDS.escaped);
    expect(hit?.snippet).toBe('Where does the quokka live?');
  });

  it('ranks the fork, which mentions docs twice, above the parent for "docs"', async () => {
    const rows = await sm.search({ text: 'docs', agent: AGENT });
    expect(rows.map((r) => r.sessionId)).toEqual([EXPORT_IDS.fork]);
    const both = await sm.search({ text: 'auth', agent: AGENT });
    expect(both[0]?.relevanceScore).toBeGreaterThanOrEqual(both[1]?.relevanceScore ?? 0);
  });

  it('filters by since, until, model and tags; sorts by date and cost; honours limit', async () => {
    expect((await sm.search({ text: 'auth', agent: AGENT, since: new Date('2026-01-02T00:00:00Z') })).map((r) => r.sessionId)).toEqual([EXPORT_IDS.fork]);
    expect((await sm.search({ text: 'auth', agent: AGENT, until: new Date('2026-01-01T23:00:00Z') })).map((r) => r.sessionId)).toEqual([EXPORT_IDS.parent]);
    expect((await sm.search({ text: 'auth', agent: AGENT, model: 'opus' })).map((r) => r.sessionId)).toEqual([EXPORT_IDS.fork]);
    expect((await sm.search({ text: 'lorem', agent: AGENT, tags: ['bulk'] })).map((r) => r.sessionId)).toEqual([EXPORT_IDS.big]);
    expect((await sm.search({ text: 'auth', agent: AGENT, sort: 'date' })).map((r) => r.sessionId)).toEqual([EXPORT_IDS.fork, EXPORT_IDS.parent]);
    expect((await sm.search({ text: 'the', agent: AGENT, sort: 'cost', limit: 2 })).map((r) => r.sessionId)).toEqual([EXPORT_IDS.fork, EXPORT_IDS.parent]);
  });

  it('gives [] for an unknown agent instead of throwing', async () => {
    expect(await sm.search({ text: 'auth', agent: 'nope' })).toEqual([]);
  });

  it('searches every agent with storage when no agent is given', async () => {
    const rows = await sm.search({ text: 'the', limit: 100 });
    const agents = new Set(rows.map((r) => r.agent));
    expect(agents.has(AGENT)).toBe(true);
    if (HAS_CLAUDE) expect(agents.has('claude')).toBe(true);
    const scores = rows.map((r) => r.relevanceScore ?? -1);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('skips files without every word unparsed', async () => {
    let stats: SearchStats | undefined;
    await sm.search({ text: 'verifyToken', agent: AGENT, onStats: (s) => (stats = s) });
    expect(stats).toMatchObject({ files: 6, read: 3, prefiltered: 3 }); // read: parent, fork, and the escaped file
  });
});

describe('search early stop (date sort)', () => {
  it('stops opening older files once limit results are held, with the same results as a full walk', async () => {
    const root = join(home.dir, 'dated');
    await mkdir(root, { recursive: true });
    for (let i = 0; i < 12; i++) {
      const t = new Date(Date.UTC(2026, 1, 1 + i));
      await writeExportSession(root, { agent: 'x', sessionId: `d-${i}`, createdAt: t.toISOString() }, [{ role: 'user', content: `needle number ${i}`, timestamp: t.toISOString() }], t);
    }
    // An old file whose timestamps are newer than its mtime cannot exist for this codec (events precede mtime).
    registerCodec({ ...sessionfoldJsonl, id: 'dated-agent', aliases: [], capabilities: { ...sessionfoldJsonl.capabilities, eventsPrecedeMtime: true }, defaultRoots: () => [root] });
    let stats: SearchStats | undefined;
    const early = await sm.search({ text: 'needle', agent: 'dated-agent', sort: 'date', limit: 3, onStats: (s) => (stats = s) });
    expect(early.map((r) => r.sessionId)).toEqual(['d-11', 'd-10', 'd-9']);
    expect(stats?.stoppedEarly).toBe(true);
    expect(stats?.skippedEarly).toBeGreaterThan(0);
    expect((stats?.read ?? 0) + (stats?.skippedEarly ?? 0) + (stats?.prefiltered ?? 0)).toBe(12);
    const all = await sm.search({ text: 'needle', agent: 'dated-agent', sort: 'date', limit: 100 });
    expect(all.slice(0, 3).map((r) => r.sessionId)).toEqual(early.map((r) => r.sessionId));

    let relevanceStats: SearchStats | undefined;
    await sm.search({ text: 'needle', agent: 'dated-agent', limit: 3, onStats: (s) => (relevanceStats = s) });
    expect(relevanceStats).toMatchObject({ read: 12, stoppedEarly: false });
  });

  it('never stops early for a codec whose events may postdate mtime', async () => {
    const root = join(home.dir, 'undated');
    await mkdir(root, { recursive: true });
    for (let i = 0; i < 5; i++) {
      const t = new Date(Date.UTC(2026, 2, 1 + i));
      const p = await writeExportSession(root, { agent: 'x', sessionId: `u-${i}` }, [{ role: 'user', content: 'needle', timestamp: t.toISOString() }]);
      await utimes(p, new Date(Date.UTC(2020, 0, 5 - i)), new Date(Date.UTC(2020, 0, 5 - i))); // mtime order opposite to content
    }
    let stats: SearchStats | undefined;
    const rows = await createSessionManager({ env: { ...home.env, SESSIONFOLD_EXPORT_DIR: root }, pricer: FAKE_PRICER }).search({ text: 'needle', agent: AGENT, sort: 'date', limit: 1, onStats: (s) => (stats = s) });
    expect(rows.map((r) => r.sessionId)).toEqual(['u-4']);
    expect(stats).toMatchObject({ read: 5, stoppedEarly: false });
  });
});
