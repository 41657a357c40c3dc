/**
 * Kiro CLI over fixtures/kiro (codecs/kiro/README.md documents the formats and their sources): the session
 * files of `~/.kiro/sessions/cli` (metadata `<id>.json` with its `<id>.jsonl` log) and `data.sqlite3` built
 * from the CLI's own DDL. Golden events; no usage event and `usageRecorded: false` everywhere (Kiro records no
 * token counts); bad records skipped and counted; discovery and roots; the agent's folders left as they were
 * (bytes, mtimes, listing; no `-wal` or `-shm` beside the database).
 * Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/kiro.test.ts`.
 */
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getKiroRoots, kiro, parseKiroSession } from '../codecs/kiro/index.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { SessionEvent, SessionfoldEvent } from '../cursors/protocol/events.js';
import { byKind, discoverAll, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { buildKiroDb, KIRO_SESSIONS, layOutKiro } from './helpers/kiro-layout.js';

const EXPECTED_DIR = new URL('../fixtures/expected/kiro/', import.meta.url).pathname;
const A = '5b9c3f1e-2d4a-4c8e-9f10-6a7b8c9d0e1f';
const B = 'c2d3e4f5-a6b7-4c8d-9e0f-1a2b3c4d5e6f';
const C1 = '0f1e2d3c-4b5a-4968-8776-655443322110';
const C2 = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

let home: string;
let sessions: string;
let db: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-kiro-'));
  ({ sessions, db } = layOutKiro(home));
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

const trees = async (): Promise<string[]> => [...(await treeListing(join(home, '.kiro'))), ...(await treeListing(join(home, '.local', 'share', 'kiro-cli')))];

describe('kiro golden events', () => {
  it('the session files and the database read to the checked-in events; nothing changes on disk', async () => {
    const before = await trees();
    const files = await discoverAll(kiro, kiro.defaultRoots({ HOME: home }));
    const cli: SessionfoldEvent[] = [];
    for (const f of files.filter((x) => !x.path.includes('data.sqlite3'))) cli.push(...(await readEvents(kiro, f.path)));
    await expectGolden(EXPECTED_DIR, 'sessions', cli);
    await expectGolden(EXPECTED_DIR, 'data.sqlite3', await readEvents(kiro, db));
    expect(await trees()).toEqual(before);
  });

  it('discovers every session file and every conversation (a record path each), and nothing else', async () => {
    writeFileSync(join(home, '.local', 'share', 'kiro-cli', 'settings.json'), '{"chat.defaultModel": "auto"}');
    const files = await discoverAll(kiro, kiro.defaultRoots({ HOME: home }));
    expect(files.map((f) => f.sessionId)).toEqual([A, B, C1, C2]);
    expect(files.map((f) => f.path)).toEqual([join(sessions, `${A}.json`), join(sessions, `${B}.json`), `${db}#${C1}`, `${db}#${C2}`]);
    expect(kiro.getParseDependencies!(files[0]!.path)).toEqual([join(sessions, `${A}.jsonl`)]);
    rmSync(join(home, '.local', 'share', 'kiro-cli', 'settings.json'));
  });

  it('records no usage: no usage event, every session says usageRecorded false, credits are not tokens', async () => {
    const files = await discoverAll(kiro, kiro.defaultRoots({ HOME: home }));
    const all = (await Promise.all(files.map((f) => readEvents(kiro, f.path)))).flat();
    expect(byKind(all).usage).toEqual([]);
    const s = byKind(all).session as SessionEvent[];
    expect(s.map((e) => [e.sessionId, e.usageRecorded, e.cwd, e.model, e.startedAt])).toEqual([
      [A, false, '/home/dev/shop', 'claude-sonnet-4.5', '2026-01-08T09:00:00.123Z'],
      [B, false, '/home/dev/notes', 'auto', '2026-01-09T14:30:00.000Z'],
      [C1, false, '/home/dev/api', 'claude-sonnet-4', '2026-01-06T09:00:00.500Z'],
      [C2, false, '/home/dev/web', 'claude-3.7-sonnet', '2026-01-07T16:20:00.200Z'],
    ]);
    expect(s[0]!.title).toBe('Fix the cart total');
  });

  it('reads one conversation of the database by its record path, with its prompts and replies in order', async () => {
    const events = await readEvents(kiro, `${db}#${C1}`);
    expect(events.map((e) => [e.type, e.offset, e.type === 'message' ? e.role : ''])).toEqual([
      ['session', 0, ''],
      ['message', 1, 'user'],
      ['message', 2, 'assistant'],
      ['message', 4, 'assistant'],
    ]);
    expect(events[3]).toMatchObject({ text: expect.stringContaining('lockfile'), timestamp: '2026-01-06T09:00:09.000Z', model: 'claude-sonnet-4', nativeId: 'm-2' });
  });
});

describe('kiro log growth', () => {
  it('a log read at any line boundary gives a prefix of the full read: lines appended never change earlier events', () => {
    const meta = readFileSync(join(KIRO_SESSIONS, `${A}.json`), 'utf8');
    const log = readFileSync(join(KIRO_SESSIONS, `${A}.jsonl`), 'utf8');
    const full = parseKiroSession(meta, log, A);
    expect(full.skipped).toBe(0);
    const cuts = [...log.matchAll(/\n/g)].map((m) => m.index + 1);
    expect(cuts.length).toBe(5);
    for (const cut of cuts) {
      const part = parseKiroSession(meta, log.slice(0, cut), A);
      expect(part.skipped).toBe(0);
      expect(full.events.slice(0, part.events.length)).toEqual(part.events);
    }
    // CRLF line ends read as LF ones
    expect(parseKiroSession(meta, log.replaceAll('\n', '\r\n'), A).events).toEqual(full.events);
  });
});

describe('kiro bad input', () => {
  it('a torn log line is skipped and counted; the rest of the session reads', async () => {
    const dir = join(home, 'torn');
    cpSync(KIRO_SESSIONS, dir, { recursive: true });
    appendFileSync(join(dir, `${A}.jsonl`), '{"version":"v1","kind":"AssistantMessage","data":{"message_id":"a-3","con');
    const file = join(dir, `${A}.json`);
    const info = newReadInfo();
    const events = await readEvents(kiro, file, { info });
    expect(info.skippedLines).toBe(1);
    expect(byKind(events).message).toHaveLength(5);
    const skips: unknown[] = [];
    await readEvents(kiro, file, { onSkip: (e) => skips.push(e) });
    expect(skips).toHaveLength(1);
    await expect(readEvents(kiro, file, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    // a session read leaves the log unread: nothing to skip, the same session event
    const only = newReadInfo();
    expect(await readEvents(kiro, file, { kinds: ['session'], info: only })).toEqual(events.filter((e) => e.type === 'session'));
    expect(only.skippedLines).toBe(0);
  });

  it('unreadable metadata counts one skip and keeps the file name as the id; non-entry lines count too', () => {
    const got = parseKiroSession('{"session_id": "x", "cw', '{"version":"v1","kind":"Prompt","data":{"message_id":"p","content":[{"kind":"text","data":"hi"}]}}\n[1,2]\n{"kind":"Prompt"}\n', 'stem-id');
    expect(got.skipped).toBe(3);
    expect(got.events.map((e) => [e.type, e.sessionId])).toEqual([
      ['session', 'stem-id'],
      ['message', 'stem-id'],
    ]);
  });

  it('a conversation row whose value is not JSON is skipped and counted; the others read', async () => {
    const dir = join(home, 'bad-db');
    const path = buildKiroDb(dir);
    const d = new Database(path);
    d.prepare('INSERT INTO conversations_v2 (key, conversation_id, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run('/x', 'broken', '{"conversation_id": "broken", "hist', 1767900000000, 1767900000000);
    d.close();
    const info = newReadInfo();
    const events = await readEvents(kiro, path, { info });
    expect(info.skippedLines).toBe(1);
    expect(byKind(events).session.map((e) => e.sessionId)).toEqual([C1, C2]);
    await expect(readEvents(kiro, `${path}#broken`, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
  });

  it('a conversation kept under two folders is listed and read once, from its latest row', async () => {
    const dir = join(home, 'moved');
    const path = buildKiroDb(dir);
    const d = new Database(path);
    const row = d.prepare('SELECT value FROM conversations_v2 WHERE conversation_id = ?').get(C2) as { value: string };
    d.prepare('INSERT INTO conversations_v2 (key, conversation_id, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run('/home/dev/web2', C2, row.value, 1767802800000, 1767900000000);
    d.close();
    const files = await discoverAll(kiro, [dir]);
    expect(files.map((f) => f.sessionId)).toEqual([C1, C2]);
    const s = byKind(await readEvents(kiro, `${path}#${C2}`)).session as SessionEvent[];
    expect(s.map((e) => e.cwd)).toEqual(['/home/dev/web2']);
  });

  it('a file that is not a database is a PARSE_ERROR, and gives no sessions at discovery', async () => {
    const dir = join(home, 'not-db');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'data.sqlite3'), 'not sqlite');
    expect(await discoverAll(kiro, [dir])).toEqual([]);
    await expect(readEvents(kiro, join(dir, 'data.sqlite3'))).rejects.toMatchObject({ code: 'PARSE_ERROR' });
  });
});

describe('kiro roots and read-only reads', () => {
  it('default roots: the sessions folder, then the kiro-cli data folders of each platform', () => {
    expect(getKiroRoots({ HOME: '/h' })).toEqual(['/h/.kiro/sessions/cli', '/h/.local/share/kiro-cli', '/h/Library/Application Support/kiro-cli']);
    expect(getKiroRoots({ HOME: '/h', XDG_DATA_HOME: '/x', LOCALAPPDATA: 'C:\\L' })).toEqual(['/h/.kiro/sessions/cli', '/x/kiro-cli', '/h/Library/Application Support/kiro-cli', join('C:\\L', 'kiro-cli')]);
    expect(getKiroRoots({ HOME: '/h', XDG_DATA_HOME: 'relative' })[1]).toBe('/h/.local/share/kiro-cli');
  });

  it('KIRO_HOME moves the sessions folder (each entry of a list, ~ expanded), not the kiro-cli data folders', () => {
    const data = ['/h/.local/share/kiro-cli', '/h/Library/Application Support/kiro-cli'];
    expect(getKiroRoots({ HOME: '/h', KIRO_HOME: '/k' })).toEqual(['/k/sessions/cli', ...data]);
    expect(getKiroRoots({ HOME: '/h', KIRO_HOME: '~/profiles/work' })).toEqual(['/h/profiles/work/sessions/cli', ...data]);
    expect(getKiroRoots({ HOME: '/h', KIRO_HOME: '/a, /b' })).toEqual(['/a/sessions/cli', '/b/sessions/cli', ...data]);
    expect(getKiroRoots({ HOME: '/h', KIRO_HOME: '  ' })).toEqual(['/h/.kiro/sessions/cli', ...data]);
  });

  it('discovers the session files under KIRO_HOME and leaves ~/.kiro to a root named for it', async () => {
    const dir = join(home, 'kiro-home');
    cpSync(KIRO_SESSIONS, join(dir, 'sessions', 'cli'), { recursive: true });
    const files = await discoverAll(kiro, kiro.defaultRoots({ HOME: join(home, 'nobody'), KIRO_HOME: dir }));
    expect(files.map((f) => f.path).sort()).toEqual([A, B].map((id) => join(dir, 'sessions', 'cli', `${id}.json`)).sort());
    expect(await discoverAll(kiro, kiro.defaultRoots({ HOME: home, KIRO_HOME: join(home, 'nowhere') }))).toEqual(
      await discoverAll(kiro, [join(home, '.local', 'share', 'kiro-cli')]),
    );
  });

  it('a database in WAL mode is read without a byte, mtime or file changing in its folder', async () => {
    const dir = join(home, 'wal');
    const path = buildKiroDb(dir, { wal: true });
    const before = await treeListing(dir);
    const bytes = readFileSync(path);
    const files = await discoverAll(kiro, [dir]);
    for (const f of files) await readEvents(kiro, f.path);
    await readEvents(kiro, path);
    expect(await treeListing(dir)).toEqual(before);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });
});
