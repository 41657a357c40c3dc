/**
 * A resumed OpenCode read places each new or changed message in OpenCode's order (db.ts `rowKey`) before it
 * takes its events (`records`): both from one parse of the message's `data` (db.ts `dataOf`), never two or three.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

describe('OpenCode message order and events from one parse', () => {
  it('parses each message’s data once at most in a resumed read, of one session and of the whole database', async () => {
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
