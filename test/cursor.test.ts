/**
 * The cursor codec over every real fixture in shared/fixtures/real/cursor (read in place) and over real
 * databases built here with the real schemas (test/cursor-helpers.ts): golden events, counts checked by a
 * deliberately simple second reader (JSON.parse per line, plain SQL), chunk invariance and resume of the
 * transcript engine, record paths of the IDE database, and proof that no read writes a byte in the agent's
 * folder. Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/cursor.test.ts`.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { cursor, transcriptCore } from '../codecs/cursor/index.js';
import type { Codec } from '../cursors/protocol/codec.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import { EVENT_KINDS, type SessionfoldEvent } from '../cursors/protocol/events.js';
import { recordPath } from '../cursors/sqlite.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { expectGolden } from './helpers/golden.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { startWriter } from './helpers/sqlite-db.js';
import { snapshotTree } from './sessions-helpers.js';
import { CHAT_ID, COMPOSER_A, COMPOSER_B, COMPOSER_EMPTY, COMPOSER_MISSING, WORKSPACE_HASH, writeChatStore, writeStateDb } from './cursor-helpers.js';

const REAL = fileURLToPath(new URL('../../shared/fixtures/real/cursor/', import.meta.url));
const EXPECTED = fileURLToPath(new URL('../fixtures/expected/cursor/', import.meta.url));
const REAL_FILES = readdirSync(REAL).sort();
const TRANSCRIPTS = REAL_FILES.filter((f) => f.endsWith('.jsonl'));
const LIVE = '77777777-7777-4777-8777-777777777777';
const TMP = mkdtempSync(join(tmpdir(), 'sf-cursor-'));

afterAll(() => rmSync(TMP, { recursive: true, force: true }));

interface Counts {
  user: number;
  assistant: number;
  calls: number;
  results: number;
}

function codecCounts(events: readonly SessionfoldEvent[]): Counts {
  const k = byKind(events);
  const role = (r: string) => k.message.filter((e) => e.type === 'message' && e.role === r).length;
  return { user: role('user'), assistant: role('assistant'), calls: k.tool_call.length, results: k.tool_result.length };
}

/** The simple transcript reader: a line is a message of its role when it has a block with text. */
function naiveTranscript(text: string): Counts {
  const c: Counts = { user: 0, assistant: 0, calls: 0, results: 0 };
  for (const l of text.split('\n')) {
    if (l === '') continue;
    const r = JSON.parse(l) as { role: 'user' | 'assistant'; message: { content: { type: string; text?: string; thinking?: string }[] } };
    const blocks = r.message.content;
    if (blocks.some((b) => typeof b.text === 'string' || typeof b.thinking === 'string')) c[r.role]++;
    c.calls += blocks.filter((b) => b.type === 'tool_use' || b.type === 'tool_call').length;
    c.results += blocks.filter((b) => b.type === 'tool_result' || b.type === 'tool-result').length;
  }
  return c;
}

/** Every cursor session says it records no usage, and no usage event appears. */
function expectNoUsage(events: readonly SessionfoldEvent[]): void {
  const sessions = events.filter((e) => e.type === 'session');
  expect(sessions.length).toBeGreaterThan(0);
  for (const s of sessions) expect(s).toMatchObject({ usageRecorded: false });
  expect(byKind(events).usage).toEqual([]);
}

const transcriptCodec: Codec = { ...cursor, lineCore: transcriptCore, capabilities: { ...cursor.capabilities, incremental: true } };

describe('cursor real fixtures', () => {
  it('covers every file of the fixture folder', () => {
    expect(REAL_FILES.length).toBeGreaterThanOrEqual(5);
    expect(REAL_FILES.every((f) => f.endsWith('.jsonl') || f.endsWith('.db'))).toBe(true);
  });

  it.each(REAL_FILES)('%s: a fresh read equals the checked-in events, with no usage', async (name) => {
    const events = await readEvents(cursor, join(REAL, name));
    expectNoUsage(events);
    await expectGolden(EXPECTED, name, events);
  });

  it.each(TRANSCRIPTS)('%s: counts agree with a deliberately simple second reader', async (name) => {
    const events = await readEvents(cursor, join(REAL, name));
    expect(codecCounts(events)).toEqual(naiveTranscript(await readFile(join(REAL, name), 'utf8')));
  });

  it('the CLI chat store: the session is what plain SQL finds in meta, and the empty blobs table gives no message', async () => {
    const file = join(REAL, 'agent-sessions-cli-chat-store.db');
    const db = new Database(`file:${file}?mode=ro&immutable=1`, { readonly: true });
    let meta: { agentId: string; name: string; createdAt: number; lastUsedModel: string };
    let blobs: number;
    try {
      const row = db.prepare("SELECT value FROM meta WHERE key = '0'").get() as { value: string };
      meta = JSON.parse(Buffer.from(row.value, 'hex').toString('utf8'));
      blobs = (db.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n;
    } finally {
      db.close();
    }
    const events = await readEvents(cursor, file);
    expect(events).toEqual([
      { type: 'session', agent: 'cursor', sessionId: meta.agentId, offset: 0, nativeId: meta.agentId, startedAt: new Date(meta.createdAt).toISOString(), title: meta.name, model: meta.lastUsedModel, usageRecorded: false },
    ]);
    expect(blobs).toBe(0);
  });

  it.each(TRANSCRIPTS)('%s: the transcript engine gives the same events in chunks of 1, 2, 3, 7, 64 bytes', async (name) => {
    const events = await expectChunkInvariant(transcriptCodec, join(REAL, name));
    expect(events.length).toBeGreaterThan(2);
  });

  it.each(TRANSCRIPTS)('%s: resuming at every line boundary and random cuts equals a full read', async (name) => {
    const content = await readFile(join(REAL, name));
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 30, content.length)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(transcriptCodec, content, cuts, {}, name);
    expect(run.full.message.length).toBeGreaterThan(0);
  });

  it('pairs a result with the open call it answers even when their ids disagree', async () => {
    const events = await readEvents(cursor, join(REAL, 'agent-sessions-transcript-large.jsonl'));
    const k = byKind(events);
    expect(k.tool_result.map((e) => (e.type === 'tool_result' ? [e.callId, e.toolName] : []))).toEqual(k.tool_call.map((e) => (e.type === 'tool_call' ? [e.callId, e.name] : [])));
  });

  it('skips and counts a malformed line instead of failing the file', async () => {
    const good = await readFile(join(REAL, 'agent-sessions-agent-transcript.jsonl'), 'utf8');
    const lines = good.split('\n');
    const file = join(TMP, 'damaged.jsonl');
    await writeFile(file, [lines[0], '{"role":"user","message":', ...lines.slice(1)].join('\n'));
    const info = newReadInfo();
    const events = await readEvents(cursor, file, { info });
    expect(info.skippedLines).toBe(1);
    expect(codecCounts(events)).toEqual(naiveTranscript(good));
  });
});

describe('cursor CLI chat store (generated with the real schema)', () => {
  it('walks the blob tree from latestRootBlobId: golden events, the orphan blob left out', async () => {
    const file = join(TMP, 'chats', WORKSPACE_HASH, CHAT_ID, 'store.db');
    writeChatStore(file).close();
    const events = await readEvents(cursor, file);
    expectNoUsage(events);
    await expectGolden(EXPECTED, 'generated-chat-store', events);
    const texts = byKind(events).message.map((e) => (e.type === 'message' ? e.text : ''));
    expect(texts).not.toContain('an edited-away prompt');
    expect(texts).toContain('Why does the build fail?');
    expect(texts[texts.length - 1]).toBe('Fix it.');
  });

  it('tool calls and results agree with plain SQL over the JSON blobs', async () => {
    const file = join(TMP, 'plain', 'store.db');
    writeChatStore(file).close();
    const db = new Database(file, { readonly: true });
    const blocks = (db.prepare("SELECT data FROM blobs WHERE hex(substr(data, 1, 1)) = '7B'").all() as { data: Buffer }[]).flatMap((r) => {
      const m = JSON.parse(r.data.toString('utf8')) as { content: unknown };
      return Array.isArray(m.content) ? (m.content as { type: string }[]) : [];
    });
    db.close();
    const k = byKind(await readEvents(cursor, file));
    expect(k.tool_call.length).toBe(blocks.filter((b) => b.type === 'tool-call').length);
    expect(k.tool_result.length).toBe(blocks.filter((b) => b.type === 'tool-result').length);
    expect(k.tool_call.length).toBeGreaterThan(0);
  });

  it('without a root takes every JSON blob in rowid order; a missing child is skipped and counted', async () => {
    const noRoot = join(TMP, 'noroot', 'store.db');
    writeChatStore(noRoot, { noRoot: true }).close();
    const texts = byKind(await readEvents(cursor, noRoot)).message.map((e) => (e.type === 'message' ? e.text : ''));
    expect(texts[0]).toBe('an edited-away prompt');
    const missing = join(TMP, 'missing', 'store.db');
    writeChatStore(missing, { missingChild: true }).close();
    const info = newReadInfo();
    await readEvents(cursor, missing, { info });
    expect(info.skippedLines).toBe(1);
  });

  it('a file that is not a chat store is a PARSE_ERROR, not a crash', async () => {
    const file = join(TMP, 'notastore', 'store.db');
    await mkdir(join(TMP, 'notastore'), { recursive: true });
    new Database(file).close();
    await expect(readEvents(cursor, file)).rejects.toMatchObject({ code: 'PARSE_ERROR' });
  });
});

describe('cursor IDE state.vscdb (generated with the real schema)', () => {
  const user = join(TMP, 'Cursor', 'User');
  const state = join(user, 'globalStorage', 'state.vscdb');
  writeStateDb(state).close();

  it('discovers each composer with a conversation as a record path of the database', async () => {
    const files: { path: string; sessionId?: string }[] = [];
    for await (const f of cursor.discover([user])) files.push(f);
    expect(files.map((f) => f.sessionId)).toEqual([COMPOSER_A, COMPOSER_B, COMPOSER_MISSING]);
    expect(files.map((f) => f.path)).toEqual([COMPOSER_A, COMPOSER_B, COMPOSER_MISSING].map((id) => recordPath(state, id)));
    expect(cursor.getParseDependencies(files[0]!.path)).toEqual([state, `${state}-wal`]);
    expect(cursor.getParseDependencies(state)).toEqual([`${state}-wal`]);
    expect(files.map((f) => f.sessionId)).not.toContain(COMPOSER_EMPTY);
  });

  it('a record path reads its composer only; the database path reads all of them (golden)', async () => {
    const all = await readEvents(cursor, state);
    expectNoUsage(all);
    await expectGolden(EXPECTED, 'generated-state-vscdb', all);
    const one = await readEvents(cursor, recordPath(state, COMPOSER_A));
    expect(new Set(one.map((e) => e.sessionId))).toEqual(new Set([COMPOSER_A]));
    expect(one.map(({ offset: _o, ...e }) => e)).toEqual(all.filter((e) => e.sessionId === COMPOSER_A).map(({ offset: _o, ...e }) => e));
    expect(byKind(await readEvents(cursor, recordPath(state, COMPOSER_B))).message).toHaveLength(2);
  });

  it('a session-only or usage-only read (the cost scan) gives the same session events and reads no bubble', async () => {
    const full = await readEvents(cursor, state);
    expect(await readEvents(cursor, state, { kinds: ['session', 'usage'] })).toEqual(byKind(full).session);
    const info = newReadInfo();
    await readEvents(cursor, state, { kinds: ['session'], info });
    expect(info.skippedLines).toBe(0); // the missing bubble is never looked for
    const store = join(TMP, 'chats', WORKSPACE_HASH, CHAT_ID, 'store.db');
    expect(await readEvents(cursor, store, { kinds: ['session'] })).toEqual(byKind(await readEvents(cursor, store)).session);
  });

  it('counts agree with plain SQL over the bubbles the headers name; a missing bubble is counted', async () => {
    const db = new Database(state, { readonly: true });
    const naive: Counts = { user: 0, assistant: 0, calls: 0, results: 0 };
    for (const c of db.prepare("SELECT value FROM cursorDiskKV WHERE key LIKE 'composerData:%'").all() as { value: string }[]) {
      const composer = JSON.parse(c.value) as { composerId: string; fullConversationHeadersOnly?: { bubbleId: string }[]; conversation?: { type: number; text: string }[] };
      const bubbles = composer.conversation ?? (composer.fullConversationHeadersOnly ?? []).flatMap((h) => {
        const row = db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(`bubbleId:${composer.composerId}:${h.bubbleId}`) as { value: string | Buffer } | undefined;
        return row === undefined ? [] : [JSON.parse(String(row.value)) as { type: number; text: string; toolFormerData?: { result?: string } }];
      });
      for (const b of bubbles as { type: number; text: string; toolFormerData?: { result?: string } }[]) {
        if (b.text !== '') naive[b.type === 1 ? 'user' : 'assistant']++;
        if (b.toolFormerData) naive.calls++;
        if (b.toolFormerData?.result !== undefined) naive.results++;
      }
    }
    db.close();
    const info = newReadInfo();
    expect(codecCounts(await readEvents(cursor, state, { info }))).toEqual(naive);
    expect(info.skippedLines).toBe(1);
  });

  it('resumes CLI chats with cursor-agent; an IDE composer has no command-line resume', () => {
    expect(cursor.resumeCommand!(CHAT_ID, { agent: 'cursor', path: '/h/.cursor/chats/x/y/store.db', root: '/h/.cursor' })).toEqual(['cursor-agent', '--resume', CHAT_ID]);
    expect(() => cursor.resumeCommand!(COMPOSER_A, { agent: 'cursor', path: recordPath(state, COMPOSER_A), root: user })).toThrow(/only be reopened in the Cursor app/);
  });

  it('marks a failed tool as an error and parses the JSON text of its arguments', async () => {
    const k = byKind(await readEvents(cursor, recordPath(state, COMPOSER_A)));
    expect(k.tool_call.map((e) => (e.type === 'tool_call' ? e.input : undefined))).toEqual([{ target_file: 'src/limiter.ts' }, { command: 'npm test' }]);
    expect(k.tool_result.map((e) => (e.type === 'tool_result' ? [e.callId, e.isError, e.output] : []))).toEqual([
      ['call_1', false, { diff: '+export const limiter' }],
      ['call_2', true, '1 failing'],
    ]);
  });
});

describe('cursor reads write nothing in the agent folder', () => {
  it('live WAL databases written by another process: bytes, mtimes and listing unchanged; the -wal content is read', async () => {
    const home = join(TMP, 'live-home');
    const store = join(home, '.cursor', 'chats', WORKSPACE_HASH, CHAT_ID, 'store.db');
    const ide = join(home, '.config', 'Cursor', 'User', 'globalStorage', 'state.vscdb');
    writeChatStore(store).close();
    writeStateDb(ide).close();
    const agents = [await startWriter(store), await startWriter(ide)];
    try {
      // Commits that live only in the -wal while the agents keep their databases open.
      const renamed = Buffer.from(JSON.stringify({ agentId: CHAT_ID, name: 'Renamed live', createdAt: 1768862746153 })).toString('hex');
      await agents[0]!.exec(`UPDATE meta SET value = '${renamed}' WHERE key = '0'`);
      await agents[1]!.run('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)', [
        [`composerData:${LIVE}`, JSON.stringify({ composerId: LIVE, createdAt: 1766538343722, fullConversationHeadersOnly: [{ bubbleId: 'x', type: 1 }] })],
        [`bubbleId:${LIVE}:x`, JSON.stringify({ type: 1, text: 'written while read' })],
      ]);
      expect(readdirSync(dirname(store)).sort()).toEqual(['store.db', 'store.db-shm', 'store.db-wal']);
      const before = await snapshotTree(home);
      const seen: string[] = [];
      const titles: string[] = [];
      for await (const f of cursor.discover(cursor.defaultRoots({ HOME: home }))) {
        seen.push(f.sessionId ?? '');
        for (const e of await readEvents(cursor, f.path)) if (e.type === 'session' && e.title !== undefined) titles.push(e.title);
        await readEvents(cursor, f.path, { kinds: ['session'] });
      }
      await readEvents(cursor, ide);
      expect(seen).toEqual([CHAT_ID, COMPOSER_A, COMPOSER_B, COMPOSER_MISSING, LIVE]);
      expect(titles).toContain('Renamed live');
      expect(await snapshotTree(home)).toEqual(before);
    } finally {
      for (const a of agents) await a.close();
    }
    // The agents closed their databases (no -wal, no -shm left): a read must not bring them back.
    const closed = await snapshotTree(home);
    expect([...closed.keys()].map((p) => basename(p)).sort()).toEqual(['state.vscdb', 'store.db']);
    for await (const f of cursor.discover(cursor.defaultRoots({ HOME: home }))) await readEvents(cursor, f.path);
    expect(await snapshotTree(home)).toEqual(closed);
  });

  it('the real fixture folder is unchanged by reading every file in it', async () => {
    const before = await snapshotTree(REAL);
    for (const name of REAL_FILES) for (const k of [...EVENT_KINDS.map((x) => [x]), undefined]) await readEvents(cursor, join(REAL, name), k === undefined ? {} : { kinds: k });
    expect(await snapshotTree(REAL)).toEqual(before);
  });
});

describe('cursor paths', () => {
  it('default roots: the CLI home and the Linux, macOS and Windows IDE user folders', () => {
    expect(cursor.defaultRoots({ HOME: '/h' })).toEqual(['/h/.cursor', '/h/.config/Cursor/User', '/h/Library/Application Support/Cursor/User']);
    expect(cursor.defaultRoots({ HOME: '/h', XDG_CONFIG_HOME: '/x', APPDATA: '/w' })).toEqual(['/h/.cursor', '/x/Cursor/User', '/h/Library/Application Support/Cursor/User', '/w/Cursor/User']);
    expect(cursor.defaultRoots({ HOME: '/h', XDG_CONFIG_HOME: 'relative' })[1]).toBe('/h/.config/Cursor/User');
  });

  it('tells the workspace folder of a chat store and a transcript only when its md5 matches', async () => {
    const root = join(TMP, 'cwd-home', '.cursor');
    const hash = createHash('md5').update('/Users/dev/app').digest('hex');
    const store = join(root, 'chats', hash, CHAT_ID, 'store.db');
    await mkdir(dirname(store), { recursive: true });
    await writeFile(store, readFileSync(join(REAL, 'agent-sessions-cli-chat-store.db')));
    for (const ws of ['Users-dev-app', 'Users-dev-other']) {
      await mkdir(join(root, 'projects', ws, 'agent-transcripts'), { recursive: true });
      await writeFile(join(root, 'projects', ws, 'agent-transcripts', `${ws}.jsonl`), readFileSync(join(REAL, 'agent-sessions-agent-transcript.jsonl')));
    }
    const cwdOf = async (file: string) => (await readEvents(cursor, file, { kinds: ['session'] })).map((e) => (e.type === 'session' ? e.cwd : 'none'));
    expect(await cwdOf(store)).toEqual(['/Users/dev/app']);
    expect(await cwdOf(join(root, 'projects', 'Users-dev-app', 'agent-transcripts', 'Users-dev-app.jsonl'))).toEqual(['/Users/dev/app']);
    expect(await cwdOf(join(root, 'projects', 'Users-dev-other', 'agent-transcripts', 'Users-dev-other.jsonl'))).toEqual([undefined]);
  });

  it('a cached list sees a transcript\u2019s cwd once the CLI\u2019s chat folder of its workspace appears (a parse dependency)', async () => {
    const home = join(TMP, 'dep-home');
    const root = join(home, '.cursor');
    const transcript = join(root, 'projects', 'tmp-proj', 'agent-transcripts', 't1.jsonl');
    await mkdir(dirname(transcript), { recursive: true });
    await writeFile(transcript, readFileSync(join(REAL, 'agent-sessions-agent-transcript.jsonl')));
    const chats = join(root, 'chats', createHash('md5').update('/tmp/proj').digest('hex'));
    expect(cursor.getParseDependencies(transcript)).toEqual([chats]);
    const listed = async (cache: boolean) =>
      (await createSessionManager({ env: { HOME: home }, roots: { cursor: [root] }, cache, cachePath: join(home, 'cache.db') }).list('cursor', { cwd: '/tmp/proj' })).map((x) => x.sessionId);
    expect(await listed(true)).toEqual([]);
    await mkdir(chats, { recursive: true });
    expect(await listed(false)).toEqual(['t1']);
    expect(await listed(true)).toEqual(['t1']);
  });

  it('discovers transcripts and subagent transcripts under projects/<ws>/agent-transcripts', async () => {
    const root = join(TMP, 'tx-home', '.cursor');
    const dir = join(root, 'projects', 'Users-dev-app', 'agent-transcripts');
    await mkdir(join(dir, 'p1', 'subagents'), { recursive: true });
    await writeFile(join(dir, 'p1.jsonl'), readFileSync(join(REAL, 'agent-sessions-agent-transcript.jsonl')));
    await writeFile(join(dir, 'p1', 'subagents', 's1.jsonl'), readFileSync(join(REAL, 'agent-sessions-agent-transcript-subagent.jsonl')));
    const files = [];
    for await (const f of cursor.discover([root])) files.push(f);
    expect(files.map((f) => [f.sessionId, f.subagent === true])).toEqual([
      ['s1', true],
      ['p1', false],
    ]);
    const sub = await readEvents(cursor, join(dir, 'p1', 'subagents', 's1.jsonl'), { kinds: ['session'] });
    expect(sub).toEqual([{ type: 'session', agent: 'cursor', sessionId: 's1', offset: 0, nativeId: 's1', subagent: true, forkedFrom: 'p1', usageRecorded: false }]);
    expect(await cursor.locate!([root], 'p1')).toMatchObject({ path: join(dir, 'p1.jsonl') });
  });
});
