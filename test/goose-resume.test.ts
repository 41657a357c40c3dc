/**
 * Goose by RowCursor (codecs/goose/db.ts): a warm read of a session, or of the whole database, reads only the
 * messages added since (the rows read are counted), and what it yields, applied as the event cache applies it
 * (the `replaced.usage` last usage events dropped, the rest appended), equals a full read; so does one after
 * Goose records a call (a `usage_ledger` row and the totals, schema 17), and a read with nothing new yields
 * no usage event again; messages deleted (Goose rewrites a conversation by deleting and inserting its
 * messages), a replaced database and a kinds change start over.
 */
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { goose } from '../codecs/goose/index.js';
import type { ReadCursor } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { applyRead, readCounted, type Read } from './helpers/row-resume.js';
import { recordPath } from '../cursors/sqlite.js';
import { S_LEDGER, S_MAIN, S_SUB, writeGooseDb } from './goose-helpers.js';

const TMP = mkdtempSync(join(tmpdir(), 'sf-goose-resume-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const readFrom = (path: string, from?: ReadCursor, kinds?: SessionfoldEvent['type'][]): Promise<Read> => readCounted(goose, path, from, kinds);
const apply = applyRead;

const sorted = (events: readonly SessionfoldEvent[]) => events.map((e) => JSON.stringify(e)).sort();

/** A Goose turn: an assistant message calling a tool, the tool's result (naming a call of an earlier read). */
function appendTurn(file: string, n: number, sessionId = S_MAIN): void {
  const db = new Database(file);
  try {
    const msg = db.prepare('INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json, message_id) VALUES (?, ?, ?, ?, ?, ?)');
    const call = { type: 'toolRequest', id: `toolu_n${n}`, toolCall: { status: 'success', value: { name: 'developer__shell', arguments: { command: `ls ${n}` } } } };
    msg.run(sessionId, 'assistant', JSON.stringify([{ type: 'text', text: `turn ${n}` }, call]), 1779700000 + n, '{}', `m_${n}_a`);
    // a result for the first read's call toolu_01: its name comes from the cursor's state
    msg.run(sessionId, 'user', JSON.stringify([{ type: 'toolResponse', id: n === 1 ? 'toolu_01' : `toolu_n${n}`, toolResult: { status: 'success', value: [{ type: 'text', text: 'ok' }] } }]), 1779700001 + n, '{}', `m_${n}_u`);
    db.prepare('UPDATE sessions SET accumulated_input_tokens = accumulated_input_tokens + 100, accumulated_output_tokens = accumulated_output_tokens + 10 WHERE id = ?').run(sessionId);
  } finally {
    db.close();
  }
}

/**
 * A call as Goose's `record_usage_metrics` records it: a ledger row (input holding the cache reads) and the
 * same counts added to the session's totals, with its reply.
 */
function recordCall(file: string, sessionId: string, n: number): void {
  const db = new Database(file);
  try {
    db.prepare('INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json, message_id) VALUES (?, ?, ?, ?, ?, ?)').run(
      sessionId, 'assistant', JSON.stringify([{ type: 'text', text: `call ${n}` }]), 1779900000 + n, '{}', `m_call_${n}`,
    );
    db.prepare(
      `INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source, is_compaction)
       VALUES (?, ?, 'claude-sonnet-4-5-20250929', 1000, 50, 1050, 600, 100, 0.01, 'provider_reported', 0)`,
    ).run(sessionId, 1779900000 + n);
    db.prepare(
      `UPDATE sessions SET accumulated_input_tokens = coalesce(accumulated_input_tokens, 0) + 1000, accumulated_output_tokens = coalesce(accumulated_output_tokens, 0) + 50,
         accumulated_cache_read_tokens = coalesce(accumulated_cache_read_tokens, 0) + 600, accumulated_cache_write_tokens = coalesce(accumulated_cache_write_tokens, 0) + 100,
         updated_at = datetime(1779900000 + ?, 'unixepoch') WHERE id = ?`,
    ).run(n, sessionId);
  } finally {
    db.close();
  }
}

describe('goose RowCursor', () => {
  it.each([
    ['one session (a record path)', (db: string) => recordPath(db, S_MAIN)],
    ['the whole database', (db: string) => db],
  ])('%s: a warm read takes only the new messages, and resumed equals a full read', async (name, pathOf) => {
    const db = join(TMP, name.replace(/\W+/g, '-'), 'sessions.db');
    writeGooseDb(db);
    const path = pathOf(db);
    const first = await readFrom(path);
    expect(first.start).toMatchObject({ restarted: true, reason: 'no-cursor' });
    let held = first.events;
    let cursor = first.cursor;
    const none = await readFrom(path, cursor);
    expect(none).toMatchObject({ events: [], start: { restarted: false, replaced: {} } });
    const sessions = path === db ? 4 : 1;
    expect(none.rows).toBe(sessions); // the session rows; no message
    for (let n = 1; n <= 3; n++) {
      appendTurn(db, n);
      const warm = await readFrom(path, cursor);
      expect(warm.start).toMatchObject({ restarted: false });
      expect(warm.rows).toBe(2 + sessions);
      expect(warm.events.filter((e) => e.type === 'message').length).toBe(1);
      held = apply(held, warm);
      cursor = warm.cursor;
      expect(sorted(held)).toEqual(sorted((await readFrom(path)).events));
    }
    const result = held.find((e) => e.type === 'tool_result' && e.callId === 'toolu_01' && e.offset > 7);
    expect(result).toMatchObject({ toolName: 'developer__shell' });
    // the other session's messages: a record path's cursor does not move; the database's reads them
    appendTurn(db, 9, S_SUB);
    const other = await readFrom(path, cursor);
    expect(other.start).toMatchObject({ restarted: false });
    expect(other.rows).toBe(path === db ? 2 + sessions : sessions);
    expect(sorted(apply(held, other))).toEqual(sorted((await readFrom(path)).events));
  });

  it.each([
    ['one session (a record path)', (db: string) => recordPath(db, S_LEDGER)],
    ['the whole database', (db: string) => db],
  ])('schema 17, %s: after calls Goose recorded, resumed equals a full read; with nothing new, no usage again', async (name, pathOf) => {
    const db = join(TMP, `v17-${name.replace(/\W+/g, '-')}`, 'sessions.db');
    writeGooseDb(db, { version: 17 });
    const path = pathOf(db);
    for (const kinds of [undefined, ['usage']] as (SessionfoldEvent['type'][] | undefined)[]) {
      const first = await readFrom(path, undefined, kinds);
      let held = first.events;
      let cursor = first.cursor;
      expect(await readFrom(path, cursor, kinds)).toMatchObject({ events: [], start: { restarted: false, replaced: {} } });
      for (const sessionId of [S_LEDGER, S_SUB, S_LEDGER]) {
        recordCall(db, sessionId, held.length);
        const warm = await readFrom(path, cursor, kinds);
        expect(warm.start).toMatchObject({ restarted: false });
        held = apply(held, warm);
        cursor = warm.cursor;
        expect(sorted(held)).toEqual(sorted((await readFrom(path, undefined, kinds)).events));
        // another session's call leaves a record path's usage as it was
        if (path !== db && sessionId !== S_LEDGER) expect(warm.events).toEqual([]);
      }
      const calls = (events: readonly SessionfoldEvent[]) => events.filter((e) => e.type === 'usage' && e.sessionId === S_LEDGER && e.singleRequest).length;
      expect(calls(held)).toBe(calls(first.events) + 2);
    }
  });

  it('starts over when messages went away (a rewritten conversation), the database was replaced, or the kinds changed', async () => {
    const db = join(TMP, 'restart', 'sessions.db');
    writeGooseDb(db);
    const path = recordPath(db, S_MAIN);
    const first = await readFrom(path);
    const edit = (sql: string) => {
      const d = new Database(db);
      d.exec(sql);
      d.close();
    };
    // Goose rewrites a conversation (compaction, an edit) by deleting its messages and inserting them anew
    edit(`INSERT INTO messages (session_id, role, content_json, created_timestamp) SELECT session_id, role, replace(content_json, 'cargo', 'edited cargo'), created_timestamp FROM messages WHERE session_id = '${S_MAIN}' ORDER BY id; DELETE FROM messages WHERE session_id = '${S_MAIN}' AND id <= 7`); // the fixture's seven messages
    const rewritten = await readFrom(path, first.cursor);
    expect(rewritten.start).toMatchObject({ restarted: true, reason: 'row-deleted' });
    expect(rewritten.events).toEqual((await readFrom(path)).events);
    expect(JSON.stringify(rewritten.events)).toContain('edited cargo');
    edit(`DELETE FROM messages WHERE id = (SELECT max(id) FROM messages WHERE session_id = '${S_MAIN}')`);
    const deleted = await readFrom(path, rewritten.cursor);
    expect(deleted.start).toMatchObject({ restarted: true, reason: 'row-deleted' });
    const copy = join(TMP, 'restart', 'copy.db');
    copyFileSync(db, copy);
    renameSync(copy, db);
    expect((await readFrom(path, deleted.cursor)).start).toMatchObject({ restarted: true, reason: 'database-replaced' });
    expect((await readFrom(path, deleted.cursor, ['usage'])).start).toMatchObject({ restarted: true });
    const usageOnly = await readFrom(db, undefined, ['usage']);
    expect((await readFrom(db, usageOnly.cursor, ['usage', 'message'])).start).toMatchObject({ restarted: true, reason: 'kinds-changed' });
  });
});
