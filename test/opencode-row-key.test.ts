/**
 * A resumed OpenCode read places each new or changed message in OpenCode's order (db.ts `rowKey`) from the
 * columns selected with the row (`CREATED`), not from its `data` parsed again: the creation time SQLite takes
 * out of `data` must be the one `JSON.parse` gives the read's records, to the last bit, and each message's data
 * is parsed once per read at most.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CREATED } from '../codecs/opencode/db.js';
import { opencode } from '../codecs/opencode/index.js';
import { newReadInfo, type ReadCursor, type ResumeStart } from '../cursors/protocol/codec.js';
import type { EventKind } from '../cursors/protocol/events.js';
import { recordPath } from '../cursors/sqlite.js';
import { buildOpencodeDb, exchange, insertRows, writeDb } from './helpers/opencode-db.js';

let dir: string;
let db: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sf-oc-rowkey-'));
  db = join(dir, 'opencode.db');
  buildOpencodeDb(db, 3);
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** What the read's records take as the creation time: a number at `time.created` of a JSON object, else none. */
function parsed(data: unknown): number | undefined {
  if (typeof data !== 'string') return undefined;
  try {
    const v = JSON.parse(data) as { time?: { created?: unknown } } | null;
    const c = v !== null && typeof v === 'object' && !Array.isArray(v) ? v.time?.created : undefined;
    return typeof c === 'number' ? c : undefined;
  } catch {
    return undefined;
  }
}

describe('OpenCode message order from the selected columns', () => {
  it('takes the creation time JSON.parse takes, to the last bit, and none where it takes none', () => {
    const datas: unknown[] = [
      '{"time":{"created":1767000001000}}',
      '{"time":{"created":1.767e12}}',
      '{"time":{"created":0.1}}',
      '{"time":{"created":9007199254740993}}',
      '{"time":{"created":123456789012345678901234567890}}',
      '{"time":{"created":1e400}}',
      '{"time":{"created":-0}}',
      '{"time":{"created":5e-324}}',
      '{"time":{"created":1767000001000.0000001}}',
      '{"role":"user","time":{"completed":5}}',
      '{"time":{"created":"1767000001000"}}',
      '{"time":[1]}',
      '[{"time":{"created":1}}]',
      '{"time":{"created":1}',
      '{"time":{"created":0x10}}',
      '',
      'null',
      '5',
      Buffer.from('{"time":{"created":7}}'),
      null,
      42,
    ];
    const d = new Database(':memory:');
    try {
      const sql = d.prepare(`SELECT ${CREATED} AS c FROM (SELECT ? AS data)`);
      for (const data of datas) {
        const c = (sql.get(data) as { c: unknown }).c;
        const got = typeof c === 'string' ? Number(c) : undefined;
        expect([String(data), got]).toEqual([String(data), parsed(data)]);
        if (got !== undefined) expect(Object.is(got, parsed(data))).toBe(true);
      }
    } finally {
      d.close();
    }
  });

  it('parses each message’s data once at most in a resumed read, for every way of reading', async () => {
    const read = async (path: string, kinds: EventKind[], from?: ReadCursor) => {
      let cursor: ReadCursor | undefined;
      let start: ResumeStart | undefined;
      const resume = { ...(from && { from }), onStart: (s: ResumeStart) => (start = s), onCursor: (u: { cursor: ReadCursor }) => (cursor = u.cursor) };
      for await (const _ of opencode.read(path, { kinds, info: newReadInfo(), resume }));
      return { cursor, start };
    };
    let n = 3; // each exchange added later than every one before: the warm reads resume
    for (const kinds of [['session', 'usage'], ['session', 'message', 'usage', 'tool_call', 'tool_result']] as EventKind[][]) {
      for (const path of [recordPath(db, 'ses_main'), db]) {
        const first = await read(path, kinds);
        const x = exchange('ses_main', ++n);
        writeDb(db, (w) => insertRows(w, x));
        const datas = new Set(x.messages.map((m) => m[4] as string));
        expect(datas.size).toBe(2);
        const parses = new Map<string, number>();
        const parse = JSON.parse;
        vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
          if (datas.has(text)) parses.set(text, (parses.get(text) ?? 0) + 1);
          return parse(text, reviver);
        });
        const warm = await read(path, kinds, first.cursor);
        vi.restoreAllMocks();
        expect(warm.start).toMatchObject({ restarted: false });
        // the new messages were parsed (for their events), each once
        expect([...parses.values()]).toEqual([1, 1]);
      }
    }
  });
});
