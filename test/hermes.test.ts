/**
 * The Hermes codec over every real fixture (the per-session JSON logs in ../shared/fixtures/real/hermes) and
 * over a generated `state.db` with the real schema in WAL mode (its relations: compression continuation,
 * branch, delegate): golden events, totals from a deliberately simple second reader (JSON / plain SQL),
 * RowCursor resume, a live writer, and search through Hermes's own FTS5 index and its titles, alone and merged with
 * another agent's hits. Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/hermes.test.ts`.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { getHermesRoots, hermes, relationOf, type HermesSessionRow } from '../codecs/hermes/index.js';
import { ftsQuery, hitRelevance, relevanceOf, TITLE_WEIGHT } from '../codecs/hermes/db.js';
import type { ReadCursor } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import type { SearchStats } from '../src/sessions/types.js';
import { recordPath } from '../cursors/sqlite.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { readEvents } from './helpers/codec-harness.js';
import { buildHermesDb, INSERT_MESSAGE, turn, UPSERT_USAGE, usage } from './helpers/hermes-db.js';
import { buildOpencodeDb } from './helpers/opencode-db.js';
import { expectGolden, readResumed, startWriter, tempDirPerTest, type Resumed } from './helpers/sqlite-db.js';
import { snapshotTree } from './sessions-helpers.js';

const REAL = new URL('../../shared/fixtures/real/hermes/', import.meta.url).pathname;
const EXPECTED = new URL('../fixtures/expected/hermes/', import.meta.url).pathname;

const golden = (name: string, events: readonly SessionfoldEvent[]): void => expectGolden(EXPECTED, name, events);

const kinds = (events: readonly SessionfoldEvent[]) => {
  const c: Record<string, number> = {};
  for (const e of events) c[e.type === 'message' ? `message:${e.role}` : e.type] = (c[e.type === 'message' ? `message:${e.role}` : e.type] ?? 0) + 1;
  return c;
};

describe('hermes session logs (every real fixture)', () => {
  for (const name of readdirSync(REAL).sort()) {
    it(`${name}: golden events; messages and tool calls as the simple reader counts them`, async () => {
      const file = join(REAL, name);
      const events = await readEvents(hermes, file);
      golden(basename(name, '.json'), events);
      // the simple reader: JSON.parse, count roles and tool_calls entries; logs record no tokens
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { session_id: string; messages: { role: string; tool_calls?: unknown[] }[] };
      const want: Record<string, number> = { session: 1 };
      for (const m of doc.messages) {
        const k = m.role === 'tool' ? 'tool_result' : ['user', 'assistant', 'system'].includes(m.role) ? `message:${m.role}` : undefined;
        if (k !== undefined) want[k] = (want[k] ?? 0) + 1;
        if (m.tool_calls?.length) want.tool_call = (want.tool_call ?? 0) + m.tool_calls.length;
      }
      expect(kinds(events)).toEqual(want);
      expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set([doc.session_id]));
    });
  }

  it('takes a zoneless session_start as UTC', async () => {
    const events = await readEvents(hermes, join(REAL, 'agent-sessions-session-schema_drift.json'));
    expect(events[0]).toMatchObject({ type: 'session', startedAt: '2026-04-29T20:10:00.000Z', cwd: '/tmp/hermes-drift' });
  });
});

let dir: string;
let db: string;
const writers = tempDirPerTest('sf-hermes-', (d) => {
  dir = d;
  db = join(d, 'state.db');
});

interface Totals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  cost: number;
}

/** Plain SQL over session_model_usage (a plain read-only connection: this test folder may gain a -shm). */
function sqlTotals(session: string): Totals {
  const d = new Database(db, { readonly: true });
  const r = d
    .prepare(
      `SELECT sum(input_tokens) AS input, sum(output_tokens) AS output, sum(cache_read_tokens) AS cacheRead, sum(cache_write_tokens) AS cacheWrite,
        sum(reasoning_tokens) AS reasoning, sum(CASE WHEN actual_cost_usd > 0 THEN actual_cost_usd ELSE estimated_cost_usd END) AS cost
       FROM session_model_usage WHERE session_id = ?`,
    )
    .get(session) as Totals;
  d.close();
  return { ...r, cost: Math.round(r.cost * 1e9) };
}

function codecTotals(events: readonly SessionfoldEvent[]): Totals {
  const t: Totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 };
  for (const e of events) {
    if (e.type !== 'usage') continue;
    t.input += e.inputTokens;
    t.output += e.outputTokens;
    t.cacheRead += e.cacheReadTokens;
    t.cacheWrite += e.cacheWriteTokens;
    t.reasoning += e.reasoningTokens;
    t.cost += e.costUsd ?? 0;
  }
  return { ...t, cost: Math.round(t.cost * 1e9) };
}

const readFrom = (path: string, from?: ReadCursor, kinds?: SessionfoldEvent['type'][]): Promise<Resumed> => readResumed(hermes, path, from, kinds);

describe('state.db', () => {
  it('one record path per session with its relation; golden events; usage totals from plain SQL', async () => {
    buildHermesDb(db);
    const files = [...hermes.discoverSync!([dir])];
    expect(files.map((f) => f.sessionId)).toEqual(['s_root', 's_cont', 's_branch', 's_task']);
    expect(files.map((f) => f.subagent === true)).toEqual([false, false, false, true]);
    const all: SessionfoldEvent[] = [];
    for (const f of files) {
      const events = await readEvents(hermes, f.path);
      expect(codecTotals(events)).toEqual(sqlTotals(f.sessionId as string));
      all.push(...events);
    }
    golden('generated-state-db', all);
    const sessions = all.filter((e) => e.type === 'session');
    expect(sessions.map((e) => [e.sessionId, e.type === 'session' ? e.forkedFrom : undefined])).toEqual([
      ['s_root', undefined],
      ['s_cont', 's_root'],
      ['s_branch', 's_root'],
      ['s_task', 's_root'],
    ]);
    expect(await readEvents(hermes, db)).toEqual(all);
  });

  it('locate: a database session by its id, a session log by the id inside it (its listing names none)', async () => {
    buildHermesDb(db);
    mkdirSync(join(dir, 'sessions'));
    const log = join(dir, 'sessions', 'renamed.json');
    writeFileSync(log, readFileSync(join(REAL, 'agent-sessions-session-small.json')));
    expect([...hermes.discoverSync!([dir])].find((f) => f.path === log)?.sessionId).toBeUndefined();
    expect(await hermes.locate!([dir], 's_task')).toMatchObject({ path: recordPath(db, 's_task'), sessionId: 's_task', subagent: true });
    expect(await hermes.locate!([dir], '20260429_hermes_small')).toMatchObject({ path: log, root: dir });
    expect(await hermes.locate!([dir], 'renamed')).toBeUndefined();
  });

  it('resumes by RowCursor: new messages only; a usage change or a deleted message restarts', async () => {
    buildHermesDb(db);
    const path = recordPath(db, 's_cont');
    const first = await readFrom(path);
    expect(first.start).toMatchObject({ restarted: true, reason: 'no-cursor' });
    const w = await startWriter(db);
    writers.push(w);
    expect(await readFrom(path, first.cursor)).toMatchObject({ events: [], start: { restarted: false } });

    await w.run(INSERT_MESSAGE, turn('s_cont', 8));
    const added = await readFrom(path, first.cursor);
    expect(added.start).toMatchObject({ restarted: false });
    expect(added.events.map((e) => e.type)).toEqual(['message', 'message', 'tool_call', 'tool_result', 'message']);
    expect([...first.events, ...added.events]).toEqual(await readEvents(hermes, path));

    await w.run(UPSERT_USAGE, [usage('s_cont', 'claude-sonnet-4-6', 9)]);
    const usageChanged = await readFrom(path, added.cursor);
    expect(usageChanged.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(codecTotals(usageChanged.events)).toEqual(sqlTotals('s_cont'));

    await w.exec("DELETE FROM messages WHERE id = (SELECT max(id) FROM messages WHERE session_id = 's_cont')");
    expect((await readFrom(path, usageChanged.cursor)).start).toMatchObject({ restarted: true, reason: 'row-deleted' });
  });

  it('a live database: reads while Hermes writes, the writer never waits, nothing written beside it', async () => {
    buildHermesDb(db);
    const w = await startWriter(db);
    writers.push(w);
    await w.loop([`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s_task', 'user', 'more', 1777009999)`]);
    const path = recordPath(db, 's_task');
    let cursor: ReadCursor | undefined;
    let users = 0;
    for (let i = 0; i < 6; i++) {
      const r = await readFrom(path, cursor);
      cursor = r.cursor;
      const n = r.events.filter((e) => e.type === 'message' && e.role === 'user').length;
      users = r.start?.restarted === true ? n : users + n;
      await new Promise((res) => setTimeout(res, 10));
    }
    const result = await w.stop();
    expect(result.errors).toBe(0);
    const before = await snapshotTree(dir);
    const last = await readFrom(path, cursor);
    users += last.events.filter((e) => e.type === 'message' && e.role === 'user').length;
    expect(users).toBe(1 + result.commits);
    expect(await snapshotTree(dir)).toEqual(before);
  });
});

describe('the session row\u2019s totals beside its per-model rows', () => {
  const AUX = `INSERT INTO session_model_usage (session_id, model, billing_provider, task, api_call_count, input_tokens, output_tokens, estimated_cost_usd, first_seen, last_seen)
    VALUES (?, 'gemini-2.5-flash', 'openrouter', ?, 1, ?, ?, ?, 1777000100, 1777000100)`;
  const SET_TOTALS = `UPDATE sessions SET input_tokens = ?, output_tokens = ?, cache_read_tokens = ?, cache_write_tokens = ?, reasoning_tokens = ?, estimated_cost_usd = ?, api_call_count = ? WHERE id = ?`;
  const usageOf = async (id: string) => (await readEvents(hermes, recordPath(db, id))).filter((e): e is UsageEvent => e.type === 'usage');

  it('a gateway session (totals set on its row alone) with an auxiliary row counts both', async () => {
    buildHermesDb(db);
    const d = new Database(db);
    d.prepare('DELETE FROM session_model_usage WHERE session_id = ?').run('s_branch');
    // the gateway's absolute path sets the row; a title generation writes only its own usage row
    d.prepare(SET_TOTALS).run(50_000, 2000, 10_000, 500, 100, 0.25, 7, 's_branch');
    d.prepare(AUX).run('s_branch', 'title_generation', 300, 20, 0.0001);
    d.close();
    const events = await usageOf('s_branch');
    expect(events.map((e) => [e.model, e.inputTokens, e.outputTokens, e.cacheReadTokens, e.cacheWriteTokens, e.reasoningTokens, e.costUsd])).toEqual([
      ['gpt-5.2', 50_000, 2000, 10_000, 500, 100, 0.25],
      ['gemini-2.5-flash', 300, 20, 0, 0, 0, 0.0001],
    ]);
    expect(new Set(events.map((e) => e.dedupKey)).size).toBe(2);
  });

  it('a CLI session (every call in both) counts its rows once; a gateway update after them adds the rest', async () => {
    buildHermesDb(db);
    const d = new Database(db);
    // the per-call path: the row's totals are the sum of its main-loop rows
    d.exec(`UPDATE sessions SET (input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd) =
      (SELECT sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens), sum(reasoning_tokens), sum(estimated_cost_usd)
       FROM session_model_usage u WHERE u.session_id = sessions.id)`);
    d.prepare(AUX).run('s_root', 'compression', 4000, 300, 0.002);
    d.close();
    const rows = await usageOf('s_root');
    expect(rows).toHaveLength(3); // two models and the compression: no residual
    expect(codecTotals(rows)).toEqual({ ...sqlTotals('s_root') });
    const root = new Database(db);
    root.prepare('UPDATE sessions SET input_tokens = input_tokens + 777, output_tokens = output_tokens + 33 WHERE id = ?').run('s_root');
    // a row below its main-loop rows (a reset of the gateway's counters) leaves no negative residual
    root.prepare('UPDATE sessions SET input_tokens = 1, output_tokens = 1, cache_read_tokens = 0 WHERE id = ?').run('s_cont');
    root.close();
    const after = await usageOf('s_root');
    expect(after[0]).toMatchObject({ inputTokens: 777, outputTokens: 33, cacheReadTokens: 0, dedupKey: 'hermes:s_root:residual' });
    expect(after.slice(1)).toEqual(rows);
    expect(codecTotals(await usageOf('s_cont'))).toEqual(sqlTotals('s_cont'));
  });

  it('a resumed read starts over when only the row\u2019s totals changed', async () => {
    buildHermesDb(db);
    const path = recordPath(db, 's_task');
    const first = await readFrom(path);
    const w = await startWriter(db);
    writers.push(w);
    await w.exec("UPDATE sessions SET input_tokens = 90000 WHERE id = 's_task'");
    const next = await readFrom(path, first.cursor);
    expect(next.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(next.events).toEqual(await readEvents(hermes, path));
  });
});

describe('a reset session (model_config._reset_from)', () => {
  it('is a session of its own: listed without --subagents, forked from the session it reset, only its own rows', async () => {
    buildHermesDb(db, { reset: true });
    const files = [...hermes.discoverSync!([dir])];
    expect(files.map((f) => [f.sessionId, f.subagent === true])).toEqual([['s_root', false], ['s_cont', false], ['s_branch', false], ['s_task', true], ['s_reset', false]]);
    const d = new Database(db, { readonly: true });
    const rows = d.prepare('SELECT id, source, model_config, parent_session_id FROM sessions ORDER BY started_at').all() as HermesSessionRow[];
    d.close();
    expect(rows.map((r) => [r.id, relationOf(r) ?? null])).toEqual([['s_root', null], ['s_cont', 'continuation'], ['s_branch', 'branch'], ['s_task', 'delegate'], ['s_reset', 'reset']]);
    const events = await readEvents(hermes, recordPath(db, 's_reset'));
    expect(events[0]).toMatchObject({ type: 'session', sessionId: 's_reset', forkedFrom: 's_cont', title: 'Start over' });
    expect(events[0]).not.toHaveProperty('subagent');
    expect(codecTotals(events)).toEqual(sqlTotals('s_reset'));
    // the chain, as the SessionManager lists it: s_reset → s_cont → s_root
    const m = createSessionManager({ roots: { hermes: [dir] }, cache: false, env: { HOME: dir } });
    const listed = new Map((await m.list('hermes')).map((s) => [s.sessionId, s]));
    expect([...listed.keys()].sort()).toEqual(['s_branch', 's_cont', 's_reset', 's_root']);
    const chain: string[] = [];
    for (let id: string | undefined = 's_reset'; id !== undefined; id = listed.get(id)?.forkedFrom) chain.push(id);
    expect(chain).toEqual(['s_reset', 's_cont', 's_root']);
    // its messages are its own turn only: nothing of the session it reset is repeated
    const session = await m.get('hermes', 's_reset');
    expect(session.messages.map((x) => x.content)).toEqual(turn('s_reset', 8).map((r) => r[2]));
    expect((await m.get('hermes', 's_cont')).messages.map((x) => x.content)).not.toContain('question 8');
  });
});

describe('named profiles (`profiles/<name>/state.db`, hermes_cli/profiles.py)', () => {
  it('reads every live profile beside the home, its ids carrying the profile; resumes in it; writes nothing', async () => {
    buildHermesDb(db);
    for (const name of ['coder', 'gone', 'default', 'Bad.Name']) {
      mkdirSync(join(dir, 'profiles', name), { recursive: true });
      buildHermesDb(join(dir, 'profiles', name, 'state.db'));
    }
    // `hermes profile delete` leaves a tombstone beside the profiles (named_profile_is_deleted)
    mkdirSync(join(dir, 'profiles', '.deleted', 'gone'), { recursive: true });
    const before = await snapshotTree(dir);
    const files = [...hermes.discoverSync!([dir])];
    const ids = ['s_root', 's_cont', 's_branch', 's_task'];
    expect(files.map((f) => f.sessionId)).toEqual([...ids, ...ids.map((id) => `coder:${id}`)]);
    // the home listed again as a root, or the profile itself, reads each database once
    expect([...hermes.discoverSync!([dir, join(dir, 'profiles', 'coder')])].map((f) => f.path)).toEqual(files.map((f) => f.path));
    const coder = files.slice(4);
    const events = (await Promise.all(coder.map((f) => readEvents(hermes, f.path)))).flat();
    expect(events.every((e) => e.sessionId.startsWith('coder:'))).toBe(true);
    expect(events.find((e) => e.type === 'session' && e.sessionId === 'coder:s_cont')).toMatchObject({ forkedFrom: 'coder:s_root', profile: 'coder' });
    const keys = (evs: readonly SessionfoldEvent[]) => evs.flatMap((e) => (e.type === 'usage' ? [e.dedupKey] : []));
    const home = (await Promise.all(files.slice(0, 4).map((f) => readEvents(hermes, f.path)))).flat();
    expect(keys(events).filter((k) => keys(home).includes(k))).toEqual([]);
    expect(codecTotals(events)).toEqual(codecTotals(home));
    expect(hermes.resumeCommand!('coder:s_root')).toEqual(['hermes', '-p', 'coder', '--resume', 's_root']);
    expect(hermes.resumeCommand!('s_root')).toEqual(['hermes', '--resume', 's_root']);
    expect((await hermes.locate!([dir], 'coder:s_task'))?.path).toBe(recordPath(join(dir, 'profiles', 'coder', 'state.db'), 's_task'));
    expect(await snapshotTree(dir)).toEqual(before);
  });
});

describe('the default homes (hermes_constants.py `_get_platform_default_hermes_home`)', () => {
  const H = '/home/u';
  it('is ~/.hermes on Linux and macOS, whatever LOCALAPPDATA says', () => {
    for (const platform of ['linux', 'darwin'] as const) expect(getHermesRoots({ HOME: H, LOCALAPPDATA: '/la' }, platform)).toEqual([join(H, '.hermes')]);
  });

  it('is %LOCALAPPDATA%\\hermes on Windows, then the ~/.hermes older releases wrote', () => {
    expect(getHermesRoots({ HOME: H, LOCALAPPDATA: 'C:/Users/u/AppData/Local' }, 'win32')).toEqual([join('C:/Users/u/AppData/Local', 'hermes'), join(H, '.hermes')]);
    // unset or blank LOCALAPPDATA: Path.home() / "AppData" / "Local"
    for (const env of [{ HOME: H }, { HOME: H, LOCALAPPDATA: '  ' }]) expect(getHermesRoots(env, 'win32')).toEqual([join(H, 'AppData', 'Local', 'hermes'), join(H, '.hermes')]);
    expect(getHermesRoots({ USERPROFILE: 'C:/Users/u' }, 'win32')).toEqual([join('C:/Users/u', 'AppData', 'Local', 'hermes'), join('C:/Users/u', '.hermes')]);
  });

  it('appends HERMES_DATA_DIR_SUFFIX to the default folder, and HERMES_HOME replaces both', () => {
    expect(getHermesRoots({ HOME: H, HERMES_DATA_DIR_SUFFIX: '-dev' }, 'linux')).toEqual([join(H, '.hermes-dev')]);
    expect(getHermesRoots({ HOME: H, LOCALAPPDATA: '/la', HERMES_DATA_DIR_SUFFIX: '-dev' }, 'win32')).toEqual([join('/la', 'hermes-dev'), join(H, '.hermes-dev')]);
    for (const platform of ['linux', 'win32'] as const) expect(getHermesRoots({ HOME: H, LOCALAPPDATA: '/la', HERMES_HOME: '/custom', HERMES_DATA_DIR_SUFFIX: '-dev' }, platform)).toEqual(['/custom']);
  });

  it('on Windows lists the sessions of both homes, the new one first', () => {
    const env = { HOME: join(dir, 'profile'), LOCALAPPDATA: join(dir, 'local') };
    const roots = getHermesRoots(env, 'win32');
    mkdirSync(join(dir, 'local', 'hermes'), { recursive: true });
    mkdirSync(join(dir, 'profile', '.hermes'), { recursive: true });
    buildHermesDb(join(dir, 'local', 'hermes', 'state.db'), { reset: true });
    buildHermesDb(join(dir, 'profile', '.hermes', 'state.db'));
    const files = [...hermes.discoverSync!(roots)];
    const ids = ['s_root', 's_cont', 's_branch', 's_task'];
    expect(files.map((f) => f.path)).toEqual([
      ...[...ids, 's_reset'].map((id) => recordPath(join(dir, 'local', 'hermes', 'state.db'), id)),
      ...ids.map((id) => recordPath(join(dir, 'profile', '.hermes', 'state.db'), id)),
    ]);
  });
});

describe('search through messages_fts', () => {
  it('quotes every term as an FTS5 prefix phrase and maps bm25 into [0, 1)', () => {
    expect(ftsQuery(['tokenizer', 'say "hi" now'])).toBe('"tokenizer"* "say ""hi"" now"*');
    expect(relevanceOf(0)).toBe(0);
    expect(relevanceOf(10)).toBe(0.5);
    expect(relevanceOf(1e9)).toBeLessThanOrEqual(1);
  });

  it('Hermes alone: the FTS5 hits, best bm25 first, with snippets, read only for their summaries', async () => {
    buildHermesDb(db);
    const before = await snapshotTree(dir);
    const m = createSessionManager({ roots: { hermes: [dir] }, cache: false, env: { HOME: dir } });
    const hits = await m.search({ text: 'tokenizer', agent: 'hermes' });
    expect(hits.map((h) => h.sessionId)).toEqual(['s_cont']);
    expect(hits[0]?.snippet).toContain('tokenizer');
    const answers = await m.search({ text: 'answer', agent: 'hermes' });
    expect(answers.map((h) => h.sessionId)).toEqual(['s_root', 's_cont', 's_branch']); // s_task is a subagent
    const scores = answers.map((h) => h.relevanceScore as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const s of scores) expect(s > 0 && s < 1).toBe(true);
    expect(answers[0]?.turnCount).toBeGreaterThan(0);
    expect(await snapshotTree(dir)).toEqual(before);
  });

  /** Plain SQL over messages_fts: each session's sum of its matching messages' -bm25 (FTS5's own ranking). */
  function bm25Sums(match: string): Map<string, number> {
    const d = new Database(db, { readonly: true });
    try {
      const rows = d.prepare('SELECT m.session_id AS sid, -bm25(messages_fts) AS r FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ?').all(match) as { sid: string; r: number }[];
      const out = new Map<string, number>();
      for (const { sid, r } of rows) out.set(sid, (out.get(sid) ?? 0) + r);
      return out;
    } finally {
      d.close();
    }
  }
  /** The README's mapping, written out again: s / (s + 10), plus 0.25 per share of the terms in the title. */
  const mapped = (s: number, titleShare = 0) => s / (s + 10) + 0.25 * titleShare;

  async function searchWithStats(text: string): Promise<{ hits: Awaited<ReturnType<ReturnType<typeof createSessionManager>['search']>>; stats: SearchStats }> {
    const m = createSessionManager({ roots: { hermes: [dir] }, cache: false, env: { HOME: dir } });
    let stats: SearchStats | undefined;
    const hits = await m.search({ text, agent: 'hermes', onStats: (s) => (stats = s) });
    return { hits, stats: stats as SearchStats };
  }

  it('the relevance is FTS5\u2019s bm25 as plain SQL computes it, and only the index\u2019s hits are read', async () => {
    buildHermesDb(db);
    const { hits, stats } = await searchWithStats('answer');
    const sums = bm25Sums('"answer"*');
    sums.delete('s_task'); // a subagent: not searched without `subagents`
    expect(hits.map((h) => h.sessionId).sort()).toEqual([...sums.keys()].sort());
    for (const h of hits) expect(h.relevanceScore, h.sessionId).toBeCloseTo(mapped(sums.get(h.sessionId) as number), 3);
    expect(new Set(hits.map((h) => h.relevanceScore)).size).toBe(3); // three different sums, three scores
    expect(stats).toMatchObject({ files: 3, read: 3 });
    // one session holds the word: it alone is a candidate, and it alone is read
    const one = await searchWithStats('tokenizer');
    expect(one.hits.map((h) => h.sessionId)).toEqual(['s_cont']);
    expect(one.stats).toMatchObject({ files: 1, read: 1 });
  });

  it('without messages_fts every session is read and scored by sessionfold\u2019s own matching', async () => {
    buildHermesDb(db);
    const d = new Database(db);
    d.exec('DROP TRIGGER messages_fts_insert; DROP TRIGGER messages_fts_delete; DROP TABLE messages_fts;');
    d.close();
    const { hits, stats } = await searchWithStats('tokenizer');
    expect(hits.map((h) => h.sessionId)).toEqual(['s_cont']);
    expect(stats).toMatchObject({ files: 3, read: 3 });
  });

  it('matches titles too: a title alone, and a title holding one term with a message holding the other', async () => {
    buildHermesDb(db);
    // "Fix the parser", "Fix the parser (continued)": no message says "parser"
    const parser = await searchWithStats('parser');
    expect(parser.hits.map((h) => [h.sessionId, h.relevanceScore, h.snippet])).toEqual([
      ['s_cont', hitRelevance(0, 1), 'Fix the parser (continued)'],
      ['s_root', hitRelevance(0, 1), 'Fix the parser'],
    ]);
    expect(hitRelevance(0, 1)).toBe(TITLE_WEIGHT);
    // "parser" in s_cont's title, "tokenizer" in one of its messages: half the terms from the title
    const both = await searchWithStats('parser tokenizer');
    const tok = bm25Sums('"tokenizer"*');
    expect(both.hits.map((h) => h.sessionId)).toEqual(['s_cont']);
    expect(both.hits[0]?.relevanceScore).toBeCloseTo(mapped(tok.get('s_cont') as number, 0.5), 3);
    expect(both.hits[0]?.snippet).toContain('tokenizer');
    // "fix" in two titles, "answer" in the messages of three sessions: the two whose titles say "fix"
    const fix = await searchWithStats('fix answer');
    const answers = bm25Sums('"answer"*');
    expect(fix.hits.map((h) => h.sessionId).sort()).toEqual(['s_cont', 's_root']);
    for (const h of fix.hits) expect(h.relevanceScore, h.sessionId).toBeCloseTo(mapped(answers.get(h.sessionId) as number, 0.5), 3);
    // a term neither a title nor a message holds matches nothing
    expect((await searchWithStats('parser zebra')).hits).toEqual([]);
  });

  it('several agents: the FTS5 hits merge with the other agents\u2019 results', async () => {
    buildHermesDb(db);
    const oc = join(dir, 'oc');
    mkdirSync(oc);
    buildOpencodeDb(join(oc, 'opencode.db'), 2);
    const m = createSessionManager({ roots: { hermes: [dir], opencode: [oc], claude: [], codex: [], 'sessionfold-jsonl': [] }, cache: false, env: { HOME: dir } });
    const hits = await m.search({ text: 'answer' });
    expect(new Set(hits.map((h) => h.agent))).toEqual(new Set(['hermes', 'opencode']));
    const scores = hits.map((h) => h.relevanceScore as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });
});
