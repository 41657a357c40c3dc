/**
 * The OpenCode codec over every real fixture (the storage trees in ../shared/fixtures/real/opencode), over
 * generated databases with the real schema in WAL mode (closed, and written by another process while it
 * reads), and over `opencode export` JSON: golden events, token totals from a deliberately simple second
 * reader (plain JSON / plain SQL), RowCursor resume, and nothing written in the agent's folder.
 * Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/opencode.test.ts`.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { opencode } from '../codecs/opencode/index.js';
import type { ReadCursor } from '../cursors/protocol/codec.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { recordPath } from '../cursors/sqlite.js';
import { readEvents } from './helpers/codec-harness.js';
import { buildOpencodeDb, exchange, INSERT_MESSAGE, INSERT_PART, INSERT_SESSION, OPENCODE_DDL, sessionRow, writeDb, writeExchange } from './helpers/opencode-db.js';
import { expectGolden, readResumed, startWriter, tempDirPerTest, type Resumed } from './helpers/sqlite-db.js';
import { snapshotTree } from './sessions-helpers.js';

const REAL = new URL('../../shared/fixtures/real/opencode/agent-sessions-storage/', import.meta.url).pathname;
const EXPECTED = new URL('../fixtures/expected/opencode/', import.meta.url).pathname;

interface Totals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
}

const zero = (): Totals => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 });

/**
 * The second reader's rule, applied to one assistant message's JSON: its own tokens; output plus reasoning
 * for a database's record, the larger of the two for a tree's (whose output already held the reasoning).
 */
function addMessage(t: Totals, m: any, tree = false): void {
  if (m?.role !== 'assistant' || typeof m.tokens !== 'object' || m.tokens === null) return;
  t.input += m.tokens.input ?? 0;
  t.output += tree ? Math.max(m.tokens.output ?? 0, m.tokens.reasoning ?? 0) : (m.tokens.output ?? 0) + (m.tokens.reasoning ?? 0);
  t.cacheRead += m.tokens.cache?.read ?? 0;
  t.cacheWrite += m.tokens.cache?.write ?? 0;
  t.cost += typeof m.cost === 'number' ? m.cost : 0;
}

function codecTotals(events: readonly SessionfoldEvent[]): Totals {
  const t = zero();
  for (const e of events) {
    if (e.type !== 'usage') continue;
    t.input += e.inputTokens;
    t.output += e.outputTokens;
    t.cacheRead += e.cacheReadTokens;
    t.cacheWrite += e.cacheWriteTokens;
    t.cost += e.costUsd ?? 0;
  }
  return t;
}

/** Simple reader of a storage tree session: every message file of the session, JSON.parse, add. */
function treeTotals(storage: string, sessionFile: string): Totals {
  const id = JSON.parse(readFileSync(sessionFile, 'utf8')).id as string;
  const t = zero();
  const dir = join(storage, 'message', id);
  for (const f of readdirSync(dir)) addMessage(t, JSON.parse(readFileSync(join(dir, f), 'utf8')), true);
  return t;
}

/** Simple reader of a database: plain SQL over `message`, JSON.parse, add. */
function sqlTotals(db: string, session?: string): Totals {
  const d = new Database(`file:${db}?mode=ro&immutable=1`, { readonly: true });
  const rows = (session === undefined ? d.prepare('SELECT data FROM message').all() : d.prepare('SELECT data FROM message WHERE session_id = ?').all(session)) as { data: string }[];
  d.close();
  const t = zero();
  for (const r of rows) addMessage(t, JSON.parse(r.data));
  return t;
}

function expectTotals(a: Totals, b: Totals): void {
  expect({ ...a, cost: Math.round(a.cost * 1e9) }).toEqual({ ...b, cost: Math.round(b.cost * 1e9) });
}

const golden = (name: string, events: readonly SessionfoldEvent[]): void => expectGolden(EXPECTED, name, events);

const treeSessions = (storage: string): string[] => {
  const out: string[] = [];
  for (const p of readdirSync(join(storage, 'session'))) for (const f of readdirSync(join(storage, 'session', p))) out.push(join(storage, 'session', p, f));
  return out.sort();
};

describe('opencode storage trees (every real fixture)', () => {
  for (const tree of ['storage_v2', 'storage_legacy']) {
    const storage = join(REAL, tree);
    for (const file of treeSessions(storage)) {
      it(`${tree}/${basename(file)}: golden events, totals from the simple reader`, async () => {
        const events = await readEvents(opencode, file);
        expect(events[0]?.type).toBe('session');
        golden(`${tree}-${basename(file, '.json')}`, events);
        expectTotals(codecTotals(events), treeTotals(storage, file));
      });
    }
  }

  it('discovers every tree session from a storage root, and from a data folder holding storage/', () => {
    const v2 = [...opencode.discoverSync!([join(REAL, 'storage_v2')])].map((f) => f.path);
    expect(v2).toEqual(treeSessions(join(REAL, 'storage_v2')));
    expect([...opencode.discoverSync!([join(REAL, 'storage_legacy')])]).toHaveLength(1);
  });

  it('a tree session\u2019s output holds its reasoning; a database session\u2019s does not', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'sf-octree-'));
    try {
      const tokens = { input: 10, output: 50, reasoning: 20, cache: { read: 1, write: 2 } };
      mkdirSync(join(tmp, 'session', 'p'), { recursive: true });
      mkdirSync(join(tmp, 'message', 'ses_t'), { recursive: true });
      writeFileSync(join(tmp, 'session', 'p', 'ses_t.json'), JSON.stringify({ id: 'ses_t', directory: '/t', title: 't', time: { created: 1 } }));
      writeFileSync(join(tmp, 'message', 'ses_t', 'msg_a.json'), JSON.stringify({ id: 'msg_a', sessionID: 'ses_t', role: 'assistant', time: { created: 2 }, modelID: 'o3', tokens }));
      const [tree] = (await readEvents(opencode, join(tmp, 'session', 'p', 'ses_t.json'))).filter((e) => e.type === 'usage');
      expect(tree).toMatchObject({ outputTokens: 50, reasoningTokens: 20, inputTokens: 10 });
      const d = new Database(join(tmp, 'opencode.db'));
      d.exec(OPENCODE_DDL);
      d.prepare("INSERT INTO project VALUES ('prj_1', '/t', 1, 1)").run();
      d.prepare(INSERT_SESSION).run(...sessionRow('ses_d', 1));
      // made after its session (sessionRow: created at 1767000000001), as a reply of its own is
      d.prepare(INSERT_MESSAGE).run('msg_d', 'ses_d', 2, 2, JSON.stringify({ role: 'assistant', time: { created: 1767000000002 }, modelID: 'o3', tokens }));
      d.close();
      const [db] = (await readEvents(opencode, recordPath(join(tmp, 'opencode.db'), 'ses_d'))).filter((e) => e.type === 'usage');
      expect(db).toMatchObject({ outputTokens: 70, reasoningTokens: 20, inputTokens: 10 });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('reads the legacy tree whose parts lie flat under part/', async () => {
    const [file] = treeSessions(join(REAL, 'storage_legacy'));
    const events = await readEvents(opencode, file as string);
    expect(events.filter((e) => e.type === 'tool_result').map((e) => (e as { output: unknown }).output)).toEqual(['# Title\n\nBody\n']);
    expect(events.find((e) => e.type === 'message' && e.role === 'assistant')).toMatchObject({ text: 'Read README and extracted the title.' });
  });
});

let dir: string;
let db: string;
const writers = tempDirPerTest('sf-opencode-', (d) => {
  dir = d;
  db = join(d, 'opencode.db');
});

const readFrom = (path: string, from?: ReadCursor, kinds?: SessionfoldEvent['type'][]): Promise<Resumed> => readResumed(opencode, path, from, kinds);

describe('opencode.db', () => {
  it('one record path per session, subagents marked, golden events, totals from plain SQL', async () => {
    const { sessions } = buildOpencodeDb(db);
    const files = [...opencode.discoverSync!([dir])];
    expect(files.map((f) => f.path)).toEqual(sessions.map((s) => recordPath(db, s)));
    expect(files.map((f) => f.subagent === true)).toEqual([false, true]);
    const all: SessionfoldEvent[] = [];
    for (const f of files) {
      const events = await readEvents(opencode, f.path);
      expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set([f.sessionId]));
      expectTotals(codecTotals(events), sqlTotals(db, f.sessionId));
      all.push(...events);
    }
    golden('generated-db', all);
    expect(all.find((e) => e.type === 'session' && e.sessionId === 'ses_child')).toMatchObject({ forkedFrom: 'ses_main', subagent: true });
    // the whole database, read as one path, gives the same events
    expect(await readEvents(opencode, db)).toEqual(all);
    expect(opencode.getParseDependencies(db)).toEqual([`${db}-wal`]);
  });

  it('finds opencode-<channel>.db beside opencode.db', () => {
    buildOpencodeDb(db, 1);
    buildOpencodeDb(join(dir, 'opencode-beta.db'), 1);
    buildOpencodeDb(join(dir, 'other.db'), 1);
    expect(new Set([...opencode.discoverSync!([dir])].map((f) => basename(f.path).split('#')[0]))).toEqual(new Set(['opencode.db', 'opencode-beta.db']));
  });

  it('resumes by RowCursor: only new messages; a changed row, a new part of an old message, a kinds change restart', async () => {
    buildOpencodeDb(db, 2);
    const path = recordPath(db, 'ses_main');
    const first = await readFrom(path);
    expect(first.start).toMatchObject({ restarted: true, reason: 'no-cursor' });
    const w = await startWriter(db);
    writers.push(w);

    const none = await readFrom(path, first.cursor);
    expect(none).toMatchObject({ events: [], start: { restarted: false } });

    const x = await writeExchange(w, 'ses_main', 3);
    const added = await readFrom(path, none.cursor);
    expect(added.start).toMatchObject({ restarted: false });
    expect(added.events.map((e) => e.type)).toEqual(['message', 'message', 'usage', 'tool_call', 'tool_result']);
    const full = await readEvents(opencode, path);
    expect([...first.events, ...added.events]).toEqual(full);

    await w.run(INSERT_PART, [[`prt_late`, x.ids.asst, 'ses_main', 1, 1, JSON.stringify({ type: 'text', text: 'late' })]]);
    const late = await readFrom(path, added.cursor);
    expect(late.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(late.events).toEqual(await readEvents(opencode, path));

    await w.exec(`UPDATE message SET time_updated = time_updated + 99999, data = json_set(data, '$.cost', 1.5) WHERE id = '${x.ids.asst}'`);
    const changed = await readFrom(path, late.cursor);
    expect(changed.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(changed.events.filter((e): e is UsageEvent => e.type === 'usage').at(-1)?.costUsd).toBe(1.5);

    expect((await readFrom(path, changed.cursor, ['usage'])).start).toMatchObject({ restarted: true, reason: 'kinds-changed' });
    // the other session's rows do not move this session's cursor
    const y = exchange('ses_child', 9);
    await w.run(INSERT_MESSAGE, y.messages);
    expect(await readFrom(path, changed.cursor)).toMatchObject({ events: [], start: { restarted: false } });
  });

  it('a live database: consistent reads while OpenCode writes, the writer never waits, nothing written beside it', async () => {
    buildOpencodeDb(db, 1);
    const w = await startWriter(db);
    writers.push(w);
    await w.exec('CREATE TABLE IF NOT EXISTS counter (n INTEGER)');
    // each commit: a user message and its part, in one transaction (ids from the rowid count)
    await w.loop([
      `INSERT INTO message (id, session_id, time_created, time_updated, data) SELECT 'msg_loop_' || (SELECT count(*) FROM message), 'ses_main', 1767100000000 + (SELECT count(*) FROM message), 1, '{"role":"user"}'`,
      `INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) SELECT 'prt_loop_' || (SELECT count(*) FROM part), (SELECT id FROM message ORDER BY rowid DESC LIMIT 1), 'ses_main', 1, 1, '{"type":"text","text":"hi"}'`,
    ]);
    const path = recordPath(db, 'ses_main');
    let cursor: ReadCursor | undefined;
    let seen = 0;
    for (let i = 0; i < 8; i++) {
      const r = await readFrom(path, cursor);
      cursor = r.cursor;
      const messages = r.events.filter((e) => e.type === 'message');
      // every message the snapshot holds has its part: the text is never missing
      for (const m of messages) if (m.type === 'message' && m.nativeId?.startsWith('msg_loop_')) expect(m.text).toBe('hi');
      seen = r.start?.restarted === true ? messages.length : seen + messages.length;
      await new Promise((res) => setTimeout(res, 10));
    }
    const result = await w.stop();
    expect(result.errors).toBe(0);
    expect(seen).toBeGreaterThan(2);
    const before = await snapshotTree(dir);
    const again = await readFrom(path, cursor);
    seen = again.start?.restarted === true ? again.events.filter((e) => e.type === 'message').length : seen + again.events.filter((e) => e.type === 'message').length;
    expect(seen).toBe(2 + result.commits);
    expect(await snapshotTree(dir)).toEqual(before);
  });

  it('skips and counts a row whose data is not JSON', async () => {
    buildOpencodeDb(db, 1);
    writeDb(db, (d) => d.prepare(INSERT_MESSAGE).run('msg_bad', 'ses_main', 1767000000500, 1, '{not json'));
    const info = newReadInfo();
    const events = await readEvents(opencode, recordPath(db, 'ses_main'), { info });
    expect(info.skippedLines).toBe(1);
    expect(events.filter((e) => e.type === 'message')).toHaveLength(2);
  });
  it('a reply left at its placeholder `cost: 0` and zero tokens takes its steps\u2019 tokens and their cost', async () => {
    buildOpencodeDb(db, 1);
    writeDb(db, (d) => {
      const asst = 'msg_ses_main_0001b';
      const row = d.prepare('SELECT data FROM message WHERE id = ?').get(asst) as { data: string };
      const zeroed = { ...JSON.parse(row.data), cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } } };
      d.prepare('UPDATE message SET data = ? WHERE id = ?').run(JSON.stringify(zeroed), asst);
      const step = { type: 'step-finish', reason: 'stop', cost: 0.01, tokens: { input: 1000, output: 200, reasoning: 0, cache: { read: 0, write: 0 } } };
      d.prepare(`UPDATE part SET data = ? WHERE id = 'prt_${asst}_5'`).run(JSON.stringify(step));
    });
    const usage = (await readEvents(opencode, recordPath(db, 'ses_main'))).filter((e): e is UsageEvent => e.type === 'usage');
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ inputTokens: 1000, outputTokens: 200, costUsd: 0.01 });
  });
});

describe('opencode export JSON', () => {
  it('reads what `opencode export` prints: the same events as the database session', async () => {
    buildOpencodeDb(db, 2);
    const d = new Database(db, { readonly: true });
    const s = d.prepare("SELECT * FROM session WHERE id = 'ses_child'").get() as Record<string, any>;
    const messages = (d.prepare("SELECT * FROM message WHERE session_id = 'ses_child' ORDER BY time_created, id").all() as Record<string, any>[]).map((m) => ({
      info: { id: m.id, sessionID: m.session_id, ...JSON.parse(m.data) },
      parts: (d.prepare('SELECT * FROM part WHERE message_id = ? ORDER BY id').all(m.id) as Record<string, any>[]).map((p) => ({ id: p.id, sessionID: p.session_id, messageID: p.message_id, ...JSON.parse(p.data) })),
    }));
    d.close();
    const info = { id: s.id, slug: s.slug, projectID: s.project_id, directory: s.directory, parentID: s.parent_id, title: s.title, version: s.version, time: { created: s.time_created, updated: s.time_updated }, model: JSON.parse(s.model) };
    const file = join(dir, 'export.json');
    writeFileSync(file, JSON.stringify({ info, messages }, null, 2));
    const fromExport = await readEvents(opencode, file);
    const fromDb = await readEvents(opencode, recordPath(db, 'ses_child'));
    const noOffset = (es: SessionfoldEvent[]) => es.map(({ offset: _o, ...rest }) => rest);
    expect(noOffset(fromExport)).toEqual(noOffset(fromDb));
    expect(fromExport.length).toBeGreaterThan(8);
  });
});
