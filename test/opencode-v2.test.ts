/**
 * OpenCode 2.x's tables (`session_v2`, `session_message`) read beside 1.x's, on databases made from OpenCode's
 * own DDL (test/helpers/opencode2-db.ts): a session 2.x copied from 1.x counts once, its copied messages not
 * again; a session only 2.x wrote is found and read; a 2.x reply's usage counts its cache apart and its
 * reasoning as output; a reply rewritten in place as it streams resumes to what a full read gives; and reading
 * leaves the data folder as it was.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { opencode } from '../codecs/opencode/index.js';
import { kilo } from '../codecs/kilo/index.js';
import type { Codec, ReadCursor } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { recordPath, withSqliteSnapshot } from '../cursors/sqlite.js';
import { fileId, fullListing, nextListing, sessionsOf } from '../codecs/opencode/listing.js';
import { treeListing } from './helpers/files.js';
import { buildOpencodeDb, writeDb } from './helpers/opencode-db.js';
import { assistantV2Data, copyMessages, copySession, INSERT_V2, insertSessionV2, opencode2Db, REWRITE_V2, userV2, V2_TOKENS } from './helpers/opencode2-db.js';
import { applyRead, readCounted } from './helpers/row-resume.js';

const TMP = mkdtempSync(join(tmpdir(), 'sf-oc2-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const T1 = 1767000100000;
let n = 0;
const dirOf = (): string => {
  const dir = join(TMP, `d${n++}`);
  mkdirSync(dir);
  return dir;
};

/** A 1.x database (ses_main and ses_child, three exchanges each) that 2.x migrated, then wrote: ses_main continued, ses_new started. */
function migratedDb(path: string): void {
  buildOpencodeDb(path, 3);
  opencode2Tables(path);
  writeDb(path, (d) => {
    for (const s of ['ses_main', 'ses_child']) {
      copySession(d, s);
      copyMessages(d, s);
    }
    d.prepare(INSERT_V2).run(...userV2('msg_v2_u1', 'ses_main', 6, T1, 'after the upgrade'));
    d.prepare(INSERT_V2).run('msg_v2_a1', 'ses_main', 'assistant', 7, T1 + 100, T1 + 1000, JSON.stringify(assistantV2Data(T1 + 100, 'done', true)));
    insertSessionV2(d, 'ses_new', 9);
    d.prepare(INSERT_V2).run(...userV2('msg_v2_u2', 'ses_new', 0, T1 + 2000, 'a new session'));
    d.prepare(INSERT_V2).run('msg_v2_a2', 'ses_new', 'assistant', 1, T1 + 2100, T1 + 3000, JSON.stringify(assistantV2Data(T1 + 2100, 'new answer', true)));
  });
}

/** The 2.x tables added to a 1.x database, as 2.x's migrations add them. */
function opencode2Tables(path: string): void {
  const tmp = join(TMP, `ddl-${n++}.db`);
  opencode2Db(tmp, false);
  writeDb(path, (d) => {
    d.exec(`ATTACH DATABASE '${tmp}' AS src`);
    const stmts = d.prepare("SELECT sql FROM src.sqlite_master WHERE sql IS NOT NULL AND name NOT IN ('project') ORDER BY type = 'index', rowid").all() as { sql: string }[];
    d.exec('DETACH DATABASE src');
    for (const { sql } of stmts) d.exec(sql);
  });
}

async function readAll(codec: Codec, path: string): Promise<SessionfoldEvent[]> {
  return (await readCounted(codec, path)).events;
}

const usages = (events: readonly SessionfoldEvent[]): UsageEvent[] => events.filter((e): e is UsageEvent => e.type === 'usage');
const sorted = (events: readonly SessionfoldEvent[]): string[] => events.map((e) => JSON.stringify(e)).sort();

async function discovered(codec: Codec, root: string): Promise<string[]> {
  const out: string[] = [];
  for await (const f of codec.discover([root])) out.push(f.sessionId ?? f.path);
  return out.sort();
}

describe('OpenCode 2.x tables', () => {
  it('a migrated database: each session once, each message once, the sessions only 2.x wrote found', async () => {
    const dir = dirOf();
    const db = join(dir, 'opencode.db');
    migratedDb(db);
    expect(await discovered(opencode, dir)).toEqual(['ses_child', 'ses_main', 'ses_new']);
    const events = await readAll(opencode, db);
    const sessions = events.filter((e) => e.type === 'session').map((e) => e.sessionId);
    expect(sessions.sort()).toEqual(['ses_child', 'ses_main', 'ses_new']);
    const keys = usages(events).map((u) => u.dedupKey);
    expect(new Set(keys).size, 'no message counted twice').toBe(keys.length);
    // three 1.x replies per 1.x session (read from 1.x's rows, their copies not again), one 2.x reply each in ses_main and ses_new
    expect(keys.length).toBe(3 + 3 + 1 + 1);
    expect(keys).toContain('opencode:msg_v2_a1');
    expect(keys).toContain('opencode:msg_v2_a2');
    const texts = events.filter((e) => e.type === 'message').map((e) => (e as { text?: string }).text);
    expect(texts).not.toContain('copied answer');
    expect(texts).toContain('after the upgrade');
  });

  it("a 2.x reply's usage: input without the cache, output with the reasoning, cost as recorded, one request", async () => {
    const dir = dirOf();
    const db = join(dir, 'opencode.db');
    migratedDb(db);
    const u = usages(await readAll(opencode, recordPath(db, 'ses_new')))[0];
    expect(u).toMatchObject({
      sessionId: 'ses_new',
      model: 'claude-sonnet-4-5',
      inputTokens: V2_TOKENS.input,
      outputTokens: V2_TOKENS.output + V2_TOKENS.reasoning,
      reasoningTokens: V2_TOKENS.reasoning,
      cacheReadTokens: V2_TOKENS.cache.read,
      cacheWriteTokens: V2_TOKENS.cache.write,
      costUsd: 0.5,
      singleRequest: true,
      dedupKey: 'opencode:msg_v2_a2',
    });
  });

  it('a database only 2.x wrote (no 1.x tables) is found and read', async () => {
    const dir = dirOf();
    const db = join(dir, 'opencode.db');
    opencode2Db(db, false);
    writeDb(db, (d) => {
      insertSessionV2(d, 'ses_only', 1);
      d.prepare(INSERT_V2).run(...userV2('msg_u', 'ses_only', 0, T1, 'hi'));
      d.prepare(INSERT_V2).run('msg_a', 'ses_only', 'assistant', 1, T1 + 100, T1 + 900, JSON.stringify(assistantV2Data(T1 + 100, 'hello', true)));
      d.prepare(INSERT_V2).run('msg_i', 'ses_only', 'idle', 2, T1 + 901, T1 + 901, JSON.stringify({ outcome: 'succeeded', time: { created: T1 + 901 } }));
    });
    expect(await discovered(opencode, dir)).toEqual(['ses_only']);
    const events = await readAll(opencode, recordPath(db, 'ses_only'));
    expect(events.map((e) => e.type)).toEqual(['session', 'message', 'message', 'usage', 'tool_call', 'tool_result']);
  });

  it.each([
    ['every kind', undefined],
    ['session and usage', ['session', 'usage'] as SessionfoldEvent['type'][]],
  ])('a reply rewritten in place as it streams resumes to a full read (%s)', async (_name, kinds) => {
    const dir = dirOf();
    const db = join(dir, 'opencode.db');
    migratedDb(db);
    for (const path of [recordPath(db, 'ses_main'), db]) {
      let r = await readCounted(opencode, path, undefined, kinds);
      let held = r.events;
      let cursor: ReadCursor | undefined = r.cursor;
      const steps: ((k: number) => void)[] = [
        // a new turn: the prompt, then the reply's row as its step starts
        (k) => writeDb(db, (d) => {
          d.prepare(INSERT_V2).run(...userV2(`msg_s_u${k}`, 'ses_main', 100 + 2 * k, T1 + 10_000 * k, `turn ${k}`));
          d.prepare(INSERT_V2).run(`msg_s_a${k}`, 'ses_main', 'assistant', 101 + 2 * k, T1 + 10_000 * k + 1, T1 + 10_000 * k + 1, JSON.stringify(assistantV2Data(T1 + 10_000 * k + 1, '', false)));
        }),
        // the reply streams, then settles with its tokens: its row rewritten in place
        (k) => writeDb(db, (d) => d.prepare(REWRITE_V2).run(JSON.stringify(assistantV2Data(T1 + 10_000 * k + 1, 'partial', false)), T1 + 10_000 * k + 5, `msg_s_a${k}`)),
        (k) => writeDb(db, (d) => d.prepare(REWRITE_V2).run(JSON.stringify(assistantV2Data(T1 + 10_000 * k + 1, 'the whole answer', true)), T1 + 10_000 * k + 9, `msg_s_a${k}`)),
        // and written once more after it settled (an error noted): still one reply
        (k) => writeDb(db, (d) => d.prepare(REWRITE_V2).run(JSON.stringify({ ...assistantV2Data(T1 + 10_000 * k + 1, 'the whole answer', true), error: { type: 'aborted', message: 'x' } }), T1 + 10_000 * k + 12, `msg_s_a${k}`)),
      ];
      for (const k of [1, 2]) {
        for (const [i, step] of steps.entries()) {
          step(k + (path === db ? 10 : 0));
          const warm = await readCounted(opencode, path, cursor, kinds);
          if (i === 0) expect(warm.start, 'an append resumes').toMatchObject({ restarted: false });
          held = applyRead(held, warm);
          cursor = warm.cursor;
          const full = await readCounted(opencode, path, undefined, kinds);
          expect(sorted(held), `after step ${i} of turn ${k}`).toEqual(sorted(full.events));
        }
        // the settled reply counts once, with its tokens
        const key = `opencode:msg_s_a${k + (path === db ? 10 : 0)}`;
        expect(usages(held).filter((u) => u.dedupKey === key).map((u) => u.outputTokens)).toEqual([V2_TOKENS.output + V2_TOKENS.reasoning]);
      }
      r = await readCounted(opencode, path, cursor, kinds);
      expect(r.start).toMatchObject({ restarted: false });
      expect(r.events).toEqual([]);
    }
  });

  it('a 1.x session copied while a cursor held it resumes to a full read, its copies not counted', async () => {
    const dir = dirOf();
    const db = join(dir, 'opencode.db');
    buildOpencodeDb(db, 3);
    opencode2Tables(db);
    const cold = await readCounted(opencode, recordPath(db, 'ses_main'));
    writeDb(db, (d) => {
      copySession(d, 'ses_main');
      copyMessages(d, 'ses_main');
    });
    const warm = await readCounted(opencode, recordPath(db, 'ses_main'), cold.cursor);
    const held = applyRead(cold.events, warm);
    expect(sorted(held)).toEqual(sorted((await readCounted(opencode, recordPath(db, 'ses_main'))).events));
    expect(sorted(held.filter((e) => e.type !== 'session'))).toEqual(sorted(cold.events.filter((e) => e.type !== 'session')));
  });

  it('a batch of sessions reads what each read alone gives', async () => {
    const dir = dirOf();
    const db = join(dir, 'opencode.db');
    migratedDb(db);
    const files = [];
    for await (const f of opencode.discover([dir])) files.push(f);
    const streams = await opencode.readBatch!(files.map((f) => ({ file: f.path, options: {} })));
    for (const [i, f] of files.entries()) {
      const got: SessionfoldEvent[] = [];
      for await (const e of streams[i]!) got.push(e);
      expect(sorted(got), f.path).toEqual(sorted(await readAll(opencode, f.path)));
    }
  });

  it('discovery moves a session when its 2.x row is rewritten', async () => {
    const dir = dirOf();
    const db = join(dir, 'opencode.db');
    migratedDb(db);
    const stat = async (): Promise<string> => {
      for await (const f of opencode.discover([dir])) if (f.sessionId === 'ses_new') return `${f.size}:${f.mtimeMs}`;
      return '';
    };
    const before = await stat();
    writeDb(db, (d) => d.prepare(REWRITE_V2).run(JSON.stringify(assistantV2Data(T1 + 2100, 'rewritten', true)), T1 + 5000, 'msg_v2_a2'));
    expect(await stat()).not.toBe(before);
  });

  it("a stored listing of a 2.x database is brought up to date as a full listing gives it", async () => {
    const dir = dirOf();
    const db = join(dir, 'opencode.db');
    migratedDb(db);
    const full = () => withSqliteSnapshot(db, (d) => fullListing(d, fileId(db)));
    const old = full();
    writeDb(db, (d) => d.prepare(REWRITE_V2).run(JSON.stringify(assistantV2Data(T1 + 2100, 'rewritten', true)), T1 + 5000, 'msg_v2_a2'));
    const next = withSqliteSnapshot(db, (d) => nextListing(d, fileId(db), old));
    expect(sessionsOf(next)).toEqual(sessionsOf(full()));
    expect(sessionsOf(next)).not.toEqual(sessionsOf(old));
  });

  it('Kilo CLI reads the 2.x tables of its own database the same way', async () => {
    const dir = dirOf();
    const db = join(dir, 'kilo.db');
    migratedDb(db);
    const keys = usages(await readAll(kilo, db)).map((u) => u.dedupKey);
    expect(keys.length).toBe(8);
    expect(keys).toContain('kilo:msg_v2_a2');
  });

  it('reading leaves the data folder as it was', async () => {
    const dir = dirOf();
    const db = join(dir, 'opencode.db');
    migratedDb(db);
    const before = await treeListing(dir);
    for await (const f of opencode.discover([dir])) await readAll(opencode, f.path);
    await readAll(opencode, db);
    expect(await treeListing(dir), 'same files, sizes and mtimes, no -wal or -shm').toEqual(before);
  });
});
