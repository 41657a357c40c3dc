/**
 * OpenClaw's per-agent database (`agents/<agentId>/agent/openclaw-agent.sqlite`, codecs/openclaw/README.md "The
 * agent database"), made from OpenClaw's own DDL (helpers/openclaw-db.ts) and holding a real pi transcript
 * (../shared/fixtures/real/pi/agent-sessions-v3-tree.jsonl) as rows: each session's rows read exactly as the
 * same lines in a transcript file; compressed rows (2026.9.6) decode to the same; a transcript restored beside
 * the rows imported from it counts once; the index read from the tables of either schema (session_nodes and
 * session_windows, or before schema 14 session_entries and sessions); nothing in the agent's folder changes.
 */
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { openclaw } from '../codecs/openclaw/index.js';
import { parseSessionsIndex } from '../codecs/openclaw/meta.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { recordPath } from '../cursors/record-path.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { readEvents } from './helpers/codec-harness.js';
import { buildOpenclawAgentDb, zstdStored } from './helpers/openclaw-db.js';
import { sessionStamps } from '../codecs/openclaw/db.js';
import type { SqliteDatabase } from '../cursors/sqlite.js';
import { tempDirPerTest } from './helpers/sqlite-db.js';
import { snapshotTree } from './sessions-helpers.js';

// The parses of an index (sessions.json, or the database's session_nodes), counted: the real function, observed.
vi.mock('../codecs/openclaw/meta.js', async (original) => {
  const m = await original<typeof import('../codecs/openclaw/meta.js')>();
  return { ...m, parseSessionsIndex: vi.fn(m.parseSessionsIndex) };
});

const LINES = readFileSync(new URL('../../shared/fixtures/real/pi/agent-sessions-v3-tree.jsonl', import.meta.url), 'utf8').split('\n').filter((l) => l !== '');

let root: string;
tempDirPerTest('sf-openclaw-db-', (d) => {
  root = d;
});

const agentDir = (): string => join(root, 'agents', 'main');
const dbPath = (): string => join(agentDir(), 'agent', 'openclaw-agent.sqlite');

function build(o: { compressed?: boolean; zstd?: number[] } = {}): void {
  mkdirSync(join(agentDir(), 'agent'), { recursive: true });
  mkdirSync(join(agentDir(), 'sessions'), { recursive: true });
  buildOpenclawAgentDb(
    dbPath(),
    [
      { id: 'sess-a', key: 'agent:main:main', entry: { sessionId: 'sess-a', label: 'Fixture greeting', channel: 'webchat', updatedAt: 1 }, lines: LINES, ...(o.zstd !== undefined && { zstd: o.zstd }) },
      { id: 'sess-b', key: 'agent:main:subagent:x1', entry: { sessionId: 'sess-b', spawnedBy: 'agent:main:main', updatedAt: 1 }, lines: LINES.slice(0, 5) },
    ],
    o,
  );
}

/** Events without what names their source (the file, its session id): what a row read and a file read share. */
const bare = (events: readonly SessionfoldEvent[]) => events.map(({ sessionId: _s, ...rest }) => ({ ...rest, ...('nativeId' in rest && rest.type === 'session' && { nativeId: '-' }) }));

/** The same lines as a transcript file `sessions/<id>.jsonl`, read by the file codec. */
async function asFile(id: string, lines: readonly string[]): Promise<SessionfoldEvent[]> {
  const dir = join(root, 'as-file', 'agents', 'main', 'sessions');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${id}.jsonl`), `${lines.join('\n')}\n`);
  return readEvents(openclaw, join(dir, `${id}.jsonl`));
}

describe('openclaw-agent.sqlite', () => {
  it('lists each session with rows as a record path and reads its rows as its transcript; writes nothing', async () => {
    build();
    const before = await snapshotTree(agentDir());
    const files = [...openclaw.discoverSync!([root])];
    expect(files.map((f) => [f.path, f.sessionId, f.subagent === true])).toEqual([
      [recordPath(dbPath(), 'sess-a'), 'sess-a', false],
      [recordPath(dbPath(), 'sess-b'), 'sess-b', true],
    ]);
    const events = await readEvents(openclaw, recordPath(dbPath(), 'sess-a'));
    expect(events.every((e) => e.sessionId === 'sess-a')).toBe(true);
    expect(events[0]).toMatchObject({ type: 'session', sessionKey: 'agent:main:main', title: 'Fixture greeting', channel: 'webchat' });
    const usage = events.filter((e) => e.type === 'usage');
    expect(usage.map((e) => [e.inputTokens, e.outputTokens])).toEqual([[12, 7], [12, 7]]);
    const file = await asFile('sess-a', LINES);
    expect(bare(events.filter((e) => e.type !== 'session'))).toEqual(bare(file.filter((e) => e.type !== 'session')));
    expect((await readEvents(openclaw, recordPath(dbPath(), 'sess-b')))[0]).toMatchObject({ type: 'session', subagent: true, forkedFrom: 'sess-a' });
    // a session list folds a database session whole (no line core for a record path)
    const m = createSessionManager({ roots: { openclaw: [root] }, cache: false, env: { HOME: root } });
    expect((await m.list('openclaw')).map((x) => [x.sessionId, x.title])).toEqual([['sess-a', 'Fixture greeting']]);
    expect(await snapshotTree(agentDir())).toEqual(before);
  });

  it('discover gives the sync listing, and locate finds a database session by its id as its record path', async () => {
    build();
    writeFileSync(join(agentDir(), 'sessions', 'sess-file.jsonl'), `${LINES.slice(0, 3).join('\n')}\n`);
    const sync = [...openclaw.discoverSync!([root])];
    const all = [];
    for await (const f of openclaw.discover([root])) all.push(f);
    expect(all).toEqual(sync);
    expect(sync.map((f) => f.sessionId)).toEqual(expect.arrayContaining(['sess-a', 'sess-b', 'sess-file']));
    expect((await openclaw.locate!([root], 'sess-b'))?.path).toBe(recordPath(dbPath(), 'sess-b'));
    expect((await openclaw.locate!([root], 'sess-file'))?.path).toBe(join(agentDir(), 'sessions', 'sess-file.jsonl'));
    expect(await openclaw.locate!([root], 'sess-none')).toBeUndefined();
  });

  it('a compressed row (event_zstd, OpenClaw 2026.9.6) reads as its text; one that does not decode is skipped and counted', async () => {
    build({ compressed: true, zstd: [4, 6] });
    const plain = await asFile('sess-a', LINES);
    const skipped: unknown[] = [];
    const events = await readEvents(openclaw, recordPath(dbPath(), 'sess-a'), { onSkip: (e) => skipped.push(e) });
    expect(bare(events.filter((e) => e.type !== 'session'))).toEqual(bare(plain.filter((e) => e.type !== 'session')));
    expect(skipped).toEqual([]);
    const d = new Database(dbPath());
    d.prepare('UPDATE transcript_events SET event_zstd = ? WHERE session_id = ? AND seq = 5').run(zstdStored('x').subarray(0, 6), 'sess-a');
    d.close();
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const damaged = await readEvents(openclaw, recordPath(dbPath(), 'sess-a'), { info });
    expect(info.skippedLines).toBe(1);
    expect(damaged.filter((e) => e.type === 'usage')).toHaveLength(1);
  });

  it("a transcript file of a session the database holds (restored after OpenClaw imported it) counts once, from the rows", async () => {
    build();
    writeFileSync(join(agentDir(), 'sessions', 'sess-a.jsonl'), `${LINES.join('\n')}\n`);
    writeFileSync(join(agentDir(), 'sessions', 'older.jsonl'), `${LINES.join('\n')}\n`);
    const files = [...openclaw.discoverSync!([root])];
    expect(files.map((f) => f.sessionId)).toEqual(['sess-a', 'sess-b', 'older']);
    expect(files.some((f) => f.path.endsWith('sess-a.jsonl'))).toBe(false);
  });

  it('parses session_nodes once per state of the database, not once per session read', async () => {
    build();
    vi.mocked(parseSessionsIndex).mockClear();
    const a = await readEvents(openclaw, recordPath(dbPath(), 'sess-a'));
    const b = await readEvents(openclaw, recordPath(dbPath(), 'sess-b'));
    expect(a[0]).toMatchObject({ type: 'session', title: 'Fixture greeting' });
    expect(b[0]).toMatchObject({ type: 'session', subagent: true, forkedFrom: 'sess-a' });
    expect(vi.mocked(parseSessionsIndex)).toHaveBeenCalledTimes(1);
    const d = new Database(dbPath());
    d.prepare('UPDATE session_nodes SET entry_json = ? WHERE session_key = ?').run(JSON.stringify({ sessionId: 'sess-a', label: 'Renamed', updatedAt: 2 }), 'agent:main:main');
    d.close();
    const past = new Date(Date.now() - 60_000);
    utimesSync(dbPath(), past, past); // its mtime put back: the state still moved (ctime, change counter)
    expect((await readEvents(openclaw, recordPath(dbPath(), 'sess-a')))[0], 'a changed entry is read').toMatchObject({ title: 'Renamed' });
  });
});

describe('openclaw-agent.sqlite before schema 14 (session_entries and sessions: openclaw 2026.7.2-beta.1 to beta.3)', () => {
  function buildOld(schema: 'entries-v11' | 'entries-v1'): void {
    mkdirSync(join(agentDir(), 'agent'), { recursive: true });
    buildOpenclawAgentDb(
      dbPath(),
      [
        { id: 'sess-a', key: 'agent:main:main', entry: { sessionId: 'sess-a', label: 'Fixture greeting', channel: 'webchat', updatedAt: 1 }, lines: LINES },
        { id: 'sess-b', key: 'agent:main:subagent:x1', entry: { sessionId: 'sess-b', spawnedBy: 'agent:main:main', updatedAt: 1 }, lines: LINES.slice(0, 5) },
        // older windows: no entry names them, their sessions row does
        { id: 'sess-c', key: 'agent:main:worker', window: { spawnedBy: 'agent:main:main' }, lines: LINES.slice(0, 5) },
        { id: 'sess-old', key: 'agent:main:main', window: { displayName: 'Older window' }, lines: LINES.slice(0, 5) },
      ],
      { schema },
    );
  }

  it.each(['entries-v11', 'entries-v1'] as const)('%s: the key, title, channel and subagent flag of each session, its rows as its transcript; writes nothing', async (schema) => {
    buildOld(schema);
    const before = await snapshotTree(agentDir());
    expect([...openclaw.discoverSync!([root])].map((f) => [f.sessionId, f.subagent === true])).toEqual([
      ['sess-a', false],
      ['sess-b', true],
      ['sess-c', true],
      ['sess-old', false],
    ]);
    const a = await readEvents(openclaw, recordPath(dbPath(), 'sess-a'));
    expect(a[0]).toMatchObject({ type: 'session', sessionKey: 'agent:main:main', title: 'Fixture greeting', channel: 'webchat' });
    expect(bare(a.filter((e) => e.type !== 'session'))).toEqual(bare((await asFile('sess-a', LINES)).filter((e) => e.type !== 'session')));
    expect((await readEvents(openclaw, recordPath(dbPath(), 'sess-b')))[0]).toMatchObject({ type: 'session', sessionKey: 'agent:main:subagent:x1', subagent: true, forkedFrom: 'sess-a' });
    expect((await readEvents(openclaw, recordPath(dbPath(), 'sess-c')))[0]).toMatchObject({ type: 'session', sessionKey: 'agent:main:worker', subagent: true, channel: 'webchat' });
    expect((await readEvents(openclaw, recordPath(dbPath(), 'sess-old')))[0]).toMatchObject({ type: 'session', sessionKey: 'agent:main:main', title: 'Older window', channel: 'webchat' });
    const m = createSessionManager({ roots: { openclaw: [root] }, cache: false, env: { HOME: root } });
    expect((await m.list('openclaw')).map((x) => [x.sessionId, x.title]).sort()).toEqual([
      ['sess-a', 'Fixture greeting'],
      ['sess-old', 'Older window'],
    ]);
    expect(await snapshotTree(agentDir())).toEqual(before);
  });

  it("one session's entry changed: that session's stamp alone changes", () => {
    buildOld('entries-v11');
    const stamps = () => {
      const d = new Database(dbPath(), { readonly: true });
      try {
        return sessionStamps(d as unknown as SqliteDatabase);
      } finally {
        d.close();
      }
    };
    const first = stamps();
    const d = new Database(dbPath());
    d.prepare('UPDATE session_entries SET entry_json = ? WHERE session_key = ?').run(JSON.stringify({ sessionId: 'sess-a', label: 'Renamed', updatedAt: 2 }), 'agent:main:main');
    d.close();
    const second = stamps();
    expect(Object.keys(second).filter((id) => second[id] !== first[id])).toEqual(['sess-a']);
  });

  it('tables of those names but another shape are not read as the index: the rows still read, with no metadata', async () => {
    mkdirSync(join(agentDir(), 'agent'), { recursive: true });
    const d = new Database(dbPath());
    d.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT);
      CREATE TABLE session_entries (session_key TEXT PRIMARY KEY, payload TEXT);
      CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (session_id, seq));`);
    d.prepare('INSERT INTO sessions VALUES (?, ?)').run('sess-a', 'not a title we read');
    d.prepare('INSERT INTO session_entries VALUES (?, ?)').run('agent:main:main', JSON.stringify({ sessionId: 'sess-a', label: 'not an entry we read' }));
    LINES.forEach((line, i) => d.prepare('INSERT INTO transcript_events VALUES (?, ?, ?, ?)').run('sess-a', i + 1, line, 1_778_547_747_000 + i));
    d.close();
    expect([...openclaw.discoverSync!([root])].map((f) => [f.sessionId, f.subagent === true])).toEqual([['sess-a', false]]);
    const events = await readEvents(openclaw, recordPath(dbPath(), 'sess-a'));
    expect(events[0]).toMatchObject({ type: 'session' });
    expect(events[0]).not.toHaveProperty('sessionKey');
    expect(events.filter((e) => e.type === 'usage')).toHaveLength(2);
  });
});
