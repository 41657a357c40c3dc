/**
 * Discovery's fingerprint of each session of an OpenCode database (db.ts `listDatabaseSessions`): equal to the
 * same figures computed here from every row in plain JavaScript, and moved by each change a RowCursor read can
 * see (a row added, a reply completing, a row deleted) for the session changed and for no other. A message
 * counts in its session's time with one no rewrite of a settled message changes (a user message's
 * `time_created`, a completed reply's `time.completed`, an open one's `time_updated`), so OpenCode's rewrites of
 * settled messages (a summary, an error) move nothing; without that trust (Kilo) every `time_updated` counts. Real databases with OpenCode's tables in WAL mode (test/helpers/opencode-db.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDatabaseSessions, type DbSession } from '../codecs/opencode/db.js';
import { buildOpencodeDb, INSERT_PART, INSERT_SESSION, insertExchange, sessionRow, writeDb } from './helpers/opencode-db.js';

let dir: string;
let db: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sf-opencode-discovery-'));
  db = join(dir, 'opencode.db');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Row = { rowid: number; session_id: string; time_updated: number; time_created?: number; data?: string };

/** A message's time in its session's: see the header (`settled` false: its `time_updated`). */
function timeOf(r: Row, settled: boolean): number {
  if (!settled) return r.time_updated;
  const data = JSON.parse(r.data as string) as { role?: string; time?: { completed?: unknown } };
  if (data.role === 'user') return r.time_created as number;
  return data.role === 'assistant' && typeof data.time?.completed === 'number' ? data.time.completed : r.time_updated;
}

/** The fingerprints computed from every row, without SQL grouping. */
function plainFingerprints(settled = true): Map<string, { size: number; mtimeMs: number }> {
  const d = new Database(db, { readonly: true });
  const sessions = d.prepare('SELECT id, time_updated FROM session').all() as { id: string; time_updated: number }[];
  const messages = d.prepare('SELECT rowid, session_id, time_updated, time_created, data FROM message').all() as Row[];
  const parts = d.prepare('SELECT rowid, session_id, time_updated FROM part').all() as Row[];
  d.close();
  const out = new Map<string, { size: number; mtimeMs: number }>();
  for (const s of sessions) {
    const own = (rows: Row[]) => rows.filter((r) => r.session_id === s.id);
    const m = own(messages);
    const p = own(parts);
    const top = (rows: Row[]) => rows.reduce((a, r) => Math.max(a, r.rowid), 0);
    out.set(s.id, {
      size: m.length + top(m) + p.length + top(p),
      mtimeMs: m.reduce((a, r) => Math.max(a, timeOf(r, settled)), s.time_updated),
    });
  }
  return out;
}

function fingerprints(settled = true): Map<string, DbSession> {
  return new Map(listDatabaseSessions(db, settled).map((s) => [s.id, s]));
}

/** Run `fn` on the database as OpenCode would (a writer of its own, closed after). */
const write = (fn: (d: Database.Database) => void): void => writeDb(db, fn);

describe('listDatabaseSessions', () => {
  it('equals a plain computation over every row, a session without messages included', () => {
    buildOpencodeDb(db, 4);
    write((d) => d.prepare(INSERT_SESSION).run(...sessionRow('ses_empty', 3)));
    const got = fingerprints();
    const want = plainFingerprints();
    expect([...got.keys()].sort()).toEqual(['ses_child', 'ses_empty', 'ses_main']);
    for (const [id, w] of want) expect({ size: got.get(id)?.size, mtimeMs: got.get(id)?.mtimeMs }).toEqual(w);
    expect(got.get('ses_empty')?.size).toBe(0);
    expect(got.get('ses_child')?.parentId).toBe('ses_main');
  });

  it('moves for the session changed, and for no other, with each change a RowCursor read sees', () => {
    buildOpencodeDb(db, 4);
    // a reply still streaming
    write((d) => d.prepare("UPDATE message SET data = json_remove(data, '$.time.completed') WHERE id = ?").run('msg_ses_child_0002b'));
    const changes: [string, string, (d: Database.Database) => void][] = [
      ['a new exchange', 'ses_main', (d) => insertExchange(d, 'ses_main', 5)],
      ['an open reply completing, later', 'ses_child', (d) => {
        d.prepare("UPDATE message SET time_updated = time_updated + 900000000, data = json_set(data, '$.cost', 2, '$.time.completed', time_updated + 900000000) WHERE id = ?").run('msg_ses_child_0002b');
      }],
      ['a part of an old message added', 'ses_child', (d) => {
        d.prepare(INSERT_PART).run('prt_late', 'msg_ses_child_0001b', 'ses_child', 1, 1, JSON.stringify({ type: 'text', text: 'late' }));
      }],
      ['a part deleted', 'ses_main', (d) => d.prepare('DELETE FROM part WHERE id = ?').run('prt_msg_ses_main_0002b_3')],
    ];
    for (const [what, changed, fn] of changes) {
      const before = fingerprints();
      write(fn);
      const after = fingerprints();
      const moved = [...after].filter(([id, s]) => s.size !== before.get(id)?.size || s.mtimeMs !== before.get(id)?.mtimeMs).map(([id]) => id);
      expect(moved, what).toEqual([changed]);
      const want = plainFingerprints().get(changed);
      expect({ size: after.get(changed)?.size, mtimeMs: after.get(changed)?.mtimeMs }, what).toEqual(want);
    }
  });

  it('moves for no session when OpenCode rewrites settled messages; without that trust (Kilo), with every time_updated', () => {
    buildOpencodeDb(db, 4);
    for (const settled of [true, false]) expect(new Map([...fingerprints(settled)].map(([id, f]) => [id, { size: f.size, mtimeMs: f.mtimeMs }]))).toEqual(plainFingerprints(settled));
    const before = fingerprints();
    const beforeKilo = fingerprints(false);
    write((d) => {
      d.prepare(`UPDATE message SET data = json_set(data, '$.summary', json('{"diffs":[]}')), time_updated = time_updated + 900000000 WHERE id = ?`).run('msg_ses_main_0003a');
      d.prepare(`UPDATE message SET data = json_set(data, '$.error', json('{"name":"x"}')), time_updated = time_updated + 900000000 WHERE id = ?`).run('msg_ses_child_0001b');
    });
    expect(fingerprints()).toEqual(before);
    const kilo = fingerprints(false);
    expect([...kilo].filter(([id, f]) => f.mtimeMs !== beforeKilo.get(id)?.mtimeMs).map(([id]) => id).sort()).toEqual(['ses_child', 'ses_main']);
    expect(new Map([...kilo].map(([id, f]) => [id, { size: f.size, mtimeMs: f.mtimeMs }]))).toEqual(plainFingerprints(false));
  });
});
