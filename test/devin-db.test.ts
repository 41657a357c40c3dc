/**
 * Devin's database read by session: a read of one session decodes that session's rows alone, a usage read
 * selects no message whole, each session has a stamp of its own, and a fork's copy of a reply without ids counts once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { devin, devinIndex, sessionOf } from '../codecs/devin/index.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import type { SqliteDatabase } from '../cursors/sqlite.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import { buildDevinDb } from './helpers/devin-db.js';

const TABLES = `CREATE TABLE sessions (id TEXT PRIMARY KEY, working_directory TEXT, model TEXT, agent_mode TEXT, created_at INTEGER, last_activity_at INTEGER);
  CREATE TABLE message_nodes (row_id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, node_id INTEGER, parent_node_id INTEGER, chat_message TEXT, created_at INTEGER);`;

const reply = (text: string, metadata: string) => `{"role":"assistant","content":"${text}","metadata":{${metadata}"generation_model":"swe-1-5","metrics":{"input_tokens":10,"output_tokens":2,"cache_read_tokens":100,"cache_creation_tokens":0}}}`;

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sf-devin-db-'));
  path = join(dir, 'sessions.db');
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** Two sessions: `a`, and `b` whose messages carry the text MARKER_B. */
const TWO_SESSIONS = `${TABLES}
  INSERT INTO sessions VALUES ('a', '/w', 'swe-1-5', 'normal', 1767600000, 1767600100), ('b', '/w', 'swe-1-5', 'normal', 1767600200, 1767600300);
  INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at) VALUES
    ('a', 1, NULL, '{"role":"user","message_id":"u1","content":"question A"}', 1767600001),
    ('b', 1, NULL, '{"role":"user","message_id":"u2","content":"MARKER_B question"}', 1767600201),
    ('a', 2, 1, '${reply('answer A', '"request_id":"r1",')}', 1767600002),
    ('b', 2, 1, '${reply('MARKER_B answer', '"request_id":"r2",')}', 1767600202);`;

const recordOf = (id: string) => `${path}#${id}`;

describe('devin reads one session at a time', () => {
  it("a read of one session decodes none of another session's messages", async () => {
    buildDevinDb(path, TWO_SESSIONS);
    const parse = vi.spyOn(JSON, 'parse');
    const events = await readEvents(devin, recordOf('a'));
    expect(byKind(events).message.map((m) => (m as { text: string }).text)).toEqual(['question A', 'answer A']);
    const decoded = parse.mock.calls.map((c) => String(c[0]));
    expect(decoded.some((t) => t.includes('question A')), 'the spy sees the messages decoded').toBe(true);
    expect(decoded.filter((t) => t.includes('MARKER_B'))).toEqual([]);
  });

  it('a usage read selects no message whole: only fields of it, through json_extract', () => {
    buildDevinDb(path, TWO_SESSIONS);
    const db = new Database(path, { readonly: true });
    const columns = new Set<string>();
    const sql: string[] = [];
    const spy = new Proxy(db, {
      get(target, p) {
        if (p !== 'prepare') return Reflect.get(target, p, target) as unknown;
        return (text: string) => {
          sql.push(text);
          const st = target.prepare(text);
          const note = (r: unknown) => (r !== undefined && Object.keys(r as object).forEach((k) => columns.add(k)), r);
          return new Proxy(st, {
            get(s, q) {
              const f = Reflect.get(s, q, s) as unknown;
              if (q === 'iterate') return (...a: unknown[]) => [...(s.iterate(...a) as IterableIterator<unknown>)].map(note)[Symbol.iterator]();
              if (q === 'all') return (...a: unknown[]) => (s.all(...a) as unknown[]).map(note);
              if (q === 'get') return (...a: unknown[]) => note(s.get(...a));
              return typeof f === 'function' ? f.bind(s) : f;
            },
          });
        };
      },
    }) as SqliteDatabase;
    try {
      const index = devinIndex(spy);
      const s = sessionOf(spy, 'b', index, false);
      expect(s.nodes.map((n) => n.msg.role)).toEqual(['assistant']);
      expect(columns.size, 'the spy sees rows').toBeGreaterThan(0);
      expect([...columns]).not.toContain('chat_message');
      for (const text of sql.filter((t) => t.includes('message_nodes'))) expect(text.replace(/json_\w+\(chat_message/g, '')).not.toMatch(/chat_message|\*/);
    } finally {
      db.close();
    }
  });
});

describe('devin usage keys', () => {
  it("counts a fork's copy of a reply with no request or message id once, whatever the copy's row time", async () => {
    const copied = reply('done', '"created_at":"2026-01-05T08:00:20.000Z",');
    const bare = reply('bare', '');
    buildDevinDb(
      path,
      `${TABLES}
      INSERT INTO sessions VALUES ('a', '/w', 'swe-1-5', 'normal', 1767600000, 1767600100), ('fork', '/w', 'swe-1-5', 'normal', 1767603600, 1767603700);
      INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at) VALUES
        ('a', 1, NULL, '${copied}', 1767600020), ('a', 2, 1, '${bare}', 1767600030),
        ('fork', 1, NULL, '${copied}', 1767603600), ('fork', 2, 1, '${bare}', 1767603600);`,
    );
    const fork = byKind(await readEvents(devin, recordOf('fork'))).usage as UsageEvent[];
    expect(fork.map((u) => u.copied)).toEqual([true, true]);
    const all = byKind(await readEvents(devin, path)).usage as UsageEvent[];
    expect(all.filter((u) => u.copied !== true)).toHaveLength(2);
  });
});

describe('devin stamps each session', () => {
  it("a write to one session leaves another's stamp as it was, unless it takes over that session's request", () => {
    buildDevinDb(path, TWO_SESSIONS);
    const stamps = () => ['a', 'b'].map((id) => devin.dependencyStamp!(recordOf(id), path));
    const [a0, b0] = stamps();
    expect(a0).toEqual(expect.any(String));
    expect(a0).not.toBe(b0);
    const writer = new Database(path);
    try {
      writer.prepare('INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at) VALUES (?, ?, ?, ?, ?)').run('b', 3, 2, reply('more', '"request_id":"r3",'), 1767600203);
      const [a1, b1] = stamps();
      expect(a1).toBe(a0);
      expect(b1).not.toBe(b0);
      // the older session now holds b's request r2 too: b's copy of it is the copied one, so b's stamp moves
      writer.prepare('INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at) VALUES (?, ?, ?, ?, ?)').run('a', 3, 2, reply('MARKER_B answer', '"request_id":"r2",'), 1767600003);
      const [a2, b2] = stamps();
      expect(a2).not.toBe(a1);
      expect(b2).not.toBe(b1);
    } finally {
      writer.close();
    }
  });
});
