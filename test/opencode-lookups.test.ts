/**
 * The lookups an OpenCode-engine read makes besides its rows, taken once where their answer is one: the 2.x
 * copies (v2.ts `copiesOf`) in one query per batch, not one per session; the tables present (v2.ts `tablesOf`,
 * with MiMo's `external_import`) once per database state (cursors/sqlite.ts `snapshotMemo`), not once per
 * session read, and again once the database changed. The events, cursors and skips stay those of each session
 * read alone. Real databases: OpenCode's 1.x and 2.x tables (a database 2.x migrated, its copies as 2.x's first
 * start writes them) and MiMo Code's.
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { mimo } from '../codecs/mimo/index.js';
import { opencode, readDatabase, readDatabaseSessions } from '../codecs/opencode/index.js';
import { getParserString } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { sqliteDriver } from '../cursors/sqlite.js';
import { buildMimoDb } from './helpers/mimo-db.js';
import { insertExchange, insertSession, writeDb } from './helpers/opencode-db.js';
import { copyMessages, copySession, opencode2Db } from './helpers/opencode2-db.js';
import { later, tempDirPerTest } from './helpers/sqlite-db.js';

let dir: string;
tempDirPerTest('sf-oc-lookups-', (d) => (dir = d));

const SESSIONS = ['ses_a', 'ses_b', 'ses_c', 'ses_d'];
const KINDS = new Set(['session', 'message', 'usage', 'tool_call', 'tool_result'] as const);
const parser = getParserString(opencode);

/** A database 2.x migrated: every session and message copied; `ses_d` then goes on in 1.x's tables, and `ses_b` in 2.x's. */
function migratedDb(): string {
  const path = join(dir, 'opencode.db');
  opencode2Db(path, true);
  writeDb(path, (d) => {
    SESSIONS.forEach((s, i) => insertSession(d, s, i + 1, 2));
    for (const s of SESSIONS) {
      copySession(d, s);
      copyMessages(d, s);
    }
    insertExchange(d, 'ses_d', 3);
    d.prepare('INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      'msg_v2_only', 'ses_b', 'assistant', 9, 1767000100000, 1767000100000,
      JSON.stringify({ agent: 'build', model: { providerID: 'anthropic', id: 'claude-sonnet-4-5' }, content: [], finish: 'stop', cost: 0.5, tokens: { input: 900, output: 10, reasoning: 0, cache: { read: 0, write: 0 } }, time: { created: 1767000100000, completed: 1767000101000 } }),
    );
  });
  return path;
}

/** `fn()` with every statement prepared on any connection recorded each time it runs. */
function counting<T>(fn: () => T): { value: T; runs: string[] } {
  const proto = sqliteDriver().prototype as Database.Database;
  const prepare = proto.prepare;
  const runs: string[] = [];
  proto.prepare = function (this: Database.Database, sql: string) {
    const st = prepare.call(this, sql);
    for (const m of ['get', 'all', 'run', 'iterate'] as const) {
      const f = st[m].bind(st) as (...a: unknown[]) => unknown;
      (st as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => (runs.push(sql), f(...a));
    }
    return st;
  } as typeof proto.prepare;
  try {
    return { value: fn(), runs };
  } finally {
    proto.prepare = prepare;
  }
}

interface Alone {
  events: SessionfoldEvent[];
  skipped: number;
  cursor: unknown;
}

function readAlone(file: string, key: string | undefined, agent = 'opencode'): Alone {
  const events: SessionfoldEvent[] = [];
  const r = readDatabase(file, key, undefined, parser, { kinds: KINDS, emit: (e) => events.push(e), agent });
  return { events, skipped: r.skipped, cursor: r.cursor };
}

function readBatch(file: string, keys: readonly string[], agent = 'opencode'): Alone[] {
  const events = keys.map((): SessionfoldEvent[] => []);
  const got = readDatabaseSessions(file, keys.map((key, i) => ({ key, from: undefined, out: { kinds: KINDS, emit: (e: SessionfoldEvent) => events[i]!.push(e), agent } })), parser, agent);
  return got.map((r, i) => {
    if (r instanceof Error) throw r;
    return { events: events[i]!, skipped: r.skipped, cursor: r.cursor };
  });
}

const copyQueries = (runs: readonly string[]): number => runs.filter((s) => /FROM message WHERE id IN \(SELECT value FROM json_each/.test(s)).length;
const schemaProbes = (runs: readonly string[]): number => runs.filter((s) => /sqlite_master|pragma_table_info/.test(s)).length;
const usageIds = (a: Alone): string[] => a.events.flatMap((e) => (e.type === 'usage' ? [e.dedupKey] : []));

describe('a batch asks for the 2.x copies once', () => {
  it('one copies query for every session of the batch; each session as read alone', () => {
    const db = migratedDb();
    const alone = SESSIONS.map((s) => readAlone(db, s));
    const { value: batch, runs } = counting(() => readBatch(db, SESSIONS));
    expect(copyQueries(runs)).toBe(1);
    expect(batch).toEqual(alone);
    // the copies are left out and 1.x's messages and 2.x's own reply count: two replies a session, three in ses_b and ses_d
    expect(alone.map((a) => usageIds(a).length)).toEqual([2, 3, 2, 3]);
    expect(usageIds(alone[1]!)).toContain('opencode:msg_v2_only');
  });
});

describe('the tables are probed once per database state', () => {
  it('reads of one session each, in turn: one probe for all of them, the answers as without the memo', () => {
    const db = migratedDb();
    const cold = SESSIONS.map((s) => readAlone(db, s));
    const { value, runs } = later(() => counting(() => SESSIONS.map((s) => readAlone(db, s))));
    expect(value).toEqual(cold);
    // one `sqlite_master` scan and one `pragma_table_info`, by the first read alone
    expect(schemaProbes(runs)).toBe(2);
    // the database changed: probed again, once
    writeDb(db, (d) => insertExchange(d, 'ses_a', 7));
    const again = later(() => counting(() => SESSIONS.map((s) => readAlone(db, s))));
    expect(schemaProbes(again.runs)).toBe(2);
    expect(usageIds(again.value[0]!)).toHaveLength(3);
  });

  it('MiMo: the external_import probe with them; imported messages as without the memo', async () => {
    const path = join(dir, 'mimocode.db');
    buildMimoDb(path);
    const ids = [...mimo.discoverSync!([dir])].map((f) => f.sessionId as string);
    const cold = ids.map((s) => readAlone(path, s, 'mimo'));
    const { value, runs } = later(() => counting(() => ids.map((s) => readAlone(path, s, 'mimo'))));
    expect(value).toEqual(cold);
    expect(schemaProbes(runs)).toBe(2);
    expect(cold.map((a) => [usageIds(a).length, a.skipped])).toEqual([
      [2, 0],
      [1, 0],
      [1, 0],
    ]);
    expect(readBatch(path, ids, 'mimo')).toEqual(cold);
  });
});
