/**
 * Cursor's databases by RowCursor (codecs/cursor/store-rows.ts): a warm read of a chat store takes only the
 * blobs added since (the rows read are counted), and what it yields, applied as the event cache applies it
 * (the `replaced` last events of each kind dropped, the rest appended), equals a full read; an old blob
 * changed in place, an edit that forks the conversation and a replaced database start over, with a reason;
 * no read changes a byte or mtime of the database or leaves a -wal or -shm beside it.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { cursor } from '../codecs/cursor/index.js';
import type { ReadCursor } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { applyRead, readCounted, type Read } from './helpers/row-resume.js';
import { appendBubble, appendChatTurn, CHAT_ID, COMPOSER_A, WORKSPACE_HASH, writeChatStore, writeStateDb } from './cursor-helpers.js';
import { recordPath } from '../cursors/sqlite.js';
import { REAL_FIXTURES } from './helpers/real-fixtures.js';

const TMP = mkdtempSync(join(tmpdir(), 'sf-cursor-rows-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const readFrom = (path: string, from?: ReadCursor, kinds?: SessionfoldEvent['type'][]): Promise<Read> => readCounted(cursor, path, from, kinds);
const apply = applyRead;

const sorted = (events: readonly SessionfoldEvent[]) => events.map((e) => JSON.stringify(e)).sort();

/** Name, size, mtime and bytes of every file in `dir`. */
function snapshotDir(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((n) => {
      const st = statSync(join(dir, n));
      return `${n} ${st.size} ${st.mtimeMs} ${readFileSync(join(dir, n)).toString('base64')}`;
    });
}

function chatStorePath(name: string): string {
  return join(TMP, name, 'chats', WORKSPACE_HASH, CHAT_ID, 'store.db');
}

/** A chat store written and closed (no -wal left), in a folder of its own. */
function closedStore(name: string): string {
  const path = chatStorePath(name);
  writeChatStore(path, { wal: false }).close();
  return path;
}

function withDb(path: string, fn: (db: Database.Database) => void): void {
  const db = new Database(path);
  try {
    fn(db);
  } finally {
    db.close();
  }
}

const turn = (n: number) => [
  { id: '1', role: 'assistant', content: [{ type: 'text', text: `step ${n}` }, { type: 'tool-call', toolCallId: `call_${n}`, toolName: 'Shell', args: { command: `ls ${n}` } }] },
  // the result names its call only by id: its tool name comes from the cursor's state
  { role: 'tool', id: `call_${n}`, content: [{ type: 'tool-result', toolCallId: `call_${n}`, result: `out ${n}`, isError: false }] },
];

describe('cursor chat store by RowCursor', () => {
  it('the real chat store: a warm read of an unchanged copy reads no blob row and yields nothing', async () => {
    const path = chatStorePath('real');
    mkdirSync(dirname(path), { recursive: true });
    copyFileSync(join(REAL_FIXTURES, 'cursor', 'agent-sessions-cli-chat-store.db'), path);
    const before = snapshotDir(dirname(path));
    const first = await readFrom(path);
    expect(first.start).toMatchObject({ restarted: true, reason: 'no-cursor' });
    expect(first.events.filter((e) => e.type === 'session')).toHaveLength(1);
    const warm = await readFrom(path, first.cursor);
    expect(warm.start).toMatchObject({ restarted: false });
    expect(warm.events).toEqual([]);
    expect(warm.rows).toBe(2); // the meta row, and a look-up of the root it names (the copy holds no blob)
    expect(snapshotDir(dirname(path))).toEqual(before);
  });

  it('a warm read after new turns takes only the new blobs, and resumed equals a full read', async () => {
    const path = closedStore('append');
    const first = await readFrom(path);
    let held = first.events;
    let from = first.cursor;
    for (let n = 1; n <= 3; n++) {
      let added = 0;
      withDb(path, (db) => (added = appendChatTurn(db, turn(n), n === 2 ? 'Renamed chat' : undefined)));
      expect(added).toBe(3); // two messages and the new root
      const before = snapshotDir(dirname(path));
      const warm = await readFrom(path, from);
      expect(warm.start).toMatchObject({ restarted: false });
      expect(warm.rows).toBe(added + 1); // the new blobs and the meta row, nothing older
      expect(warm.start?.replaced).toEqual(n === 2 ? { session: 1 } : {});
      held = apply(held, warm);
      const full = await readFrom(path);
      expect(sorted(held)).toEqual(sorted(full.events));
      expect(warm.events.some((e) => e.type === 'tool_result' && e.toolName === 'Shell')).toBe(true);
      expect(snapshotDir(dirname(path))).toEqual(before);
      expect(readdirSync(dirname(path))).toEqual(['store.db']);
      from = warm.cursor;
    }
  });

  it('a turn repeating an earlier message (the same blob, content-addressed) resumes as a full read walks it', async () => {
    const path = closedStore('repeat');
    const first = await readFrom(path);
    let added = 0;
    withDb(path, (db) => (added = appendChatTurn(db, [{ role: 'user', content: 'an edited-away prompt' }, ...turn(1)])));
    expect(added).toBe(3); // the repeated prompt is an old blob (the orphan): two messages and the root are new
    const warm = await readFrom(path, first.cursor);
    expect(warm.start).toMatchObject({ restarted: false });
    expect(warm.rows).toBe(added + 2); // the new blobs, the meta row, and a look-up of the old blob by id
    expect(sorted(apply(first.events, warm))).toEqual(sorted((await readFrom(path)).events));
    expect(warm.events.some((e) => e.type === 'message' && e.text === 'an edited-away prompt')).toBe(true);
    // the same turn again: its blobs are in the conversation already, and a walk visits a blob once
    withDb(path, (db) => (added = appendChatTurn(db, turn(1))));
    expect(added).toBe(1);
    const again = await readFrom(path, warm.cursor);
    expect(again.start).toMatchObject({ restarted: false });
    expect(again.events).toEqual([]);
    expect(sorted(apply(apply(first.events, warm), again))).toEqual(sorted((await readFrom(path)).events));
  });

  it('an old blob changed in place starts the read over, with a reason, and equals a full read', async () => {
    const path = closedStore('changed');
    const first = await readFrom(path);
    withDb(path, (db) => db.prepare("UPDATE blobs SET data = ? WHERE instr(CAST(data AS TEXT), 'edited-away') > 0").run(Buffer.from(JSON.stringify({ role: 'user', content: 'a longer edited-away prompt' }))));
    const warm = await readFrom(path, first.cursor);
    expect(warm.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(sorted(warm.events)).toEqual(sorted((await readFrom(path)).events));
  });

  it('a root that no longer extends the conversation (an edit) starts over; a replaced database too', async () => {
    const path = closedStore('forked');
    const first = await readFrom(path);
    withDb(path, (db) => {
      const id = (db.prepare("SELECT id FROM blobs WHERE instr(CAST(data AS TEXT), 'edited-away') > 0").get() as { id: string }).id;
      const root = Buffer.concat([Buffer.from([0x0a, 0x20]), Buffer.from(id, 'hex')]);
      db.prepare('INSERT INTO blobs (id, data) VALUES (?, ?)').run('ab'.repeat(32), root);
      const meta = JSON.parse(Buffer.from((db.prepare("SELECT value FROM meta WHERE key = '0'").get() as { value: string }).value, 'hex').toString('utf8'));
      db.prepare("UPDATE meta SET value = ? WHERE key = '0'").run(Buffer.from(JSON.stringify({ ...meta, latestRootBlobId: 'ab'.repeat(32) })).toString('hex'));
    });
    const warm = await readFrom(path, first.cursor);
    expect(warm.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    const full = await readFrom(path);
    expect(sorted(warm.events)).toEqual(sorted(full.events));
    expect(full.events.filter((e) => e.type === 'message')).toHaveLength(1);

    const copy = `${path}.new`;
    copyFileSync(path, copy);
    renameSync(copy, path);
    const replaced = await readFrom(path, warm.cursor);
    expect(replaced.start).toMatchObject({ restarted: true, reason: 'database-replaced' });
  });

  it('a read for other kinds starts over; a cost-scan read (no conversation kind) reads no blob', async () => {
    const path = closedStore('kinds');
    const meta = await readFrom(path, undefined, ['session']);
    expect(meta.rows).toBe(1);
    const again = await readFrom(path, meta.cursor, ['session', 'message']);
    expect(again.start).toMatchObject({ restarted: true, reason: 'kinds-changed' });
    expect(again.events.some((e) => e.type === 'message')).toBe(true);
  });
});

/** The IDE's state.vscdb written and closed (no -wal left), in a folder of its own. */
function closedState(name: string): string {
  const path = join(TMP, name, 'User', 'globalStorage', 'state.vscdb');
  writeStateDb(path, { wal: false }).close();
  return path;
}

describe('cursor IDE state.vscdb by RowCursor', () => {
  it.each([
    ['one composer (a record path)', (db: string) => recordPath(db, COMPOSER_A), 1],
    ['the whole database', (db: string) => db, 4],
  ])('%s: a warm read takes only the new bubbles, and resumed equals a full read', async (name, pathOf, composers) => {
    const db = closedState(name.replace(/\W+/g, '-'));
    const path = pathOf(db);
    const first = await readFrom(path);
    expect(first.start).toMatchObject({ restarted: true, reason: 'no-cursor' });
    let held = first.events;
    let from = first.cursor;
    for (let n = 1; n <= 3; n++) {
      withDb(db, (d) => {
        appendBubble(d, COMPOSER_A, `nu${n}`, { type: 1, text: `question ${n}` });
        appendBubble(d, COMPOSER_A, `na${n}`, { type: 2, text: `answer ${n}`, toolFormerData: { toolCallId: `c${n}`, name: 'read_file', rawArgs: '{}', result: '"ok"', status: 'completed' } });
      });
      const before = snapshotDir(dirname(db));
      const warm = await readFrom(path, from);
      expect(warm.start).toMatchObject({ restarted: false, replaced: {} });
      expect(warm.rows).toBe(2 + composers); // the two new bubble rows and the composer rows, nothing older
      expect(warm.events.filter((e) => e.type === 'message')).toHaveLength(2);
      held = apply(held, warm);
      expect(sorted(held)).toEqual(sorted((await readFrom(path)).events));
      expect(snapshotDir(dirname(db))).toEqual(before);
      expect(readdirSync(dirname(db))).toEqual(['state.vscdb']);
      from = warm.cursor;
    }
  });

  it('a bubble already read, written again or changed in place, starts over with a reason', async () => {
    const db = closedState('rewritten');
    const path = recordPath(db, COMPOSER_A);
    const first = await readFrom(path);
    // cursorDiskKV keys are UNIQUE ON CONFLICT REPLACE: a rewrite is a new row for an old key
    withDb(db, (d) => d.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)').run(`bubbleId:${COMPOSER_A}:u1`, JSON.stringify({ type: 1, text: 'Add a limiter.' })));
    const rewritten = await readFrom(path, first.cursor);
    expect(rewritten.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(sorted(rewritten.events)).toEqual(sorted((await readFrom(path)).events));
    expect(rewritten.events.some((e) => e.type === 'message' && e.text === 'Add a limiter.')).toBe(true);

    withDb(db, (d) => d.prepare('UPDATE cursorDiskKV SET value = ? WHERE key = ?').run(JSON.stringify({ type: 1, text: 'Add a rate limiter, please.' }), `bubbleId:${COMPOSER_A}:u1`));
    const updated = await readFrom(path, rewritten.cursor);
    expect(updated.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(updated.events.some((e) => e.type === 'message' && e.text === 'Add a rate limiter, please.')).toBe(true);
  });

  it('a renamed composer yields its session event again (replaced), and a new composer is read whole', async () => {
    const db = closedState('renamed');
    const first = await readFrom(db);
    withDb(db, (d) => {
      const row = d.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(`composerData:${COMPOSER_A}`) as { value: string };
      d.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)').run(`composerData:${COMPOSER_A}`, JSON.stringify({ ...JSON.parse(row.value), name: 'Token bucket' }));
      d.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)').run('composerData:c0ffee00-0000-4000-8000-000000000000', JSON.stringify({ composerId: 'c0ffee00-0000-4000-8000-000000000000', fullConversationHeadersOnly: [{ bubbleId: 'x', type: 1 }] }));
      d.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)').run('bubbleId:c0ffee00-0000-4000-8000-000000000000:x', JSON.stringify({ type: 1, text: 'new composer' }));
    });
    const warm = await readFrom(db, first.cursor);
    expect(warm.start).toMatchObject({ restarted: false, replaced: { session: 4 } });
    expect(sorted(apply(first.events, warm))).toEqual(sorted((await readFrom(db)).events));
  });
});
