/**
 * A resumed OpenCode read places each new or changed message in OpenCode's order (db.ts `rowKey`) before it
 * takes its events (`records`): both from one parse of the message's `data` (db.ts `dataOf`), never two or three;
 * a read that starts over after all parses its rows once more, as new rows.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { opencode } from '../codecs/opencode/index.js';
import type { ReadCursor } from '../cursors/protocol/codec.js';
import type { EventKind } from '../cursors/protocol/events.js';
import { recordPath } from '../cursors/sqlite.js';
import { buildOpencodeDb, exchange, insertRows, writeDb } from './helpers/opencode-db.js';
import { readCounted } from './helpers/row-resume.js';
import { tempDirPerTest } from './helpers/sqlite-db.js';

const read = (path: string, kinds: EventKind[], from?: ReadCursor) => readCounted(opencode, path, from, kinds);

/** The reads `fn` makes, with how often each of `texts` went through JSON.parse meanwhile. */
async function parsesOf<T>(texts: readonly string[], fn: () => Promise<T>): Promise<{ got: T; parses: number[] }> {
  const counts = new Map<string, number>(texts.map((t) => [t, 0]));
  const parse = JSON.parse;
  vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (counts.has(text)) counts.set(text, (counts.get(text) ?? 0) + 1);
    return parse(text, reviver);
  });
  try {
    return { got: await fn(), parses: texts.map((t) => counts.get(t) ?? 0) };
  } finally {
    vi.restoreAllMocks();
  }
}

let db: string;
tempDirPerTest('sf-oc-rowkey-', (dir) => {
  db = join(dir, 'opencode.db');
  buildOpencodeDb(db, 3);
});
afterEach(() => vi.restoreAllMocks());

describe('OpenCode message order and events from one parse', () => {
  it('parses each message’s data once at most in a resumed read, of one session and of the whole database', async () => {
    let n = 3; // each exchange added later than every one before: the warm reads resume
    for (const kinds of [['session', 'usage'], ['session', 'message', 'usage', 'tool_call', 'tool_result']] as EventKind[][]) {
      for (const path of [recordPath(db, 'ses_main'), db]) {
        const first = await read(path, kinds);
        const x = exchange('ses_main', ++n);
        writeDb(db, (w) => insertRows(w, x));
        const datas = new Set(x.messages.map((m) => m[4] as string));
        expect(datas.size).toBe(2);
        const { got: warm, parses } = await parsesOf([...datas], () => read(path, kinds, first.cursor));
        expect(warm.start).toMatchObject({ restarted: false });
        // the new messages were parsed (for their events), each once
        expect(parses).toEqual([1, 1]);
      }
    }
  });

  // a reply streaming: no `time.completed` yet, so its row is read again by key when its update time moves
  const streamingReply = (n: number) => {
    const x = exchange('ses_main', n, { open: true });
    writeDb(db, (w) => insertRows(w, x));
    const reply = x.messages[1] as unknown[];
    const data = JSON.parse(reply[4] as string) as { tokens: { output: number } };
    const rewritten = JSON.stringify({ ...data, tokens: { ...data.tokens, output: data.tokens.output + 5 } });
    const rewrite = () => writeDb(db, (w) => w.prepare('UPDATE message SET data = ?, time_updated = time_updated + 1000 WHERE id = ?').run(rewritten, x.ids.asst));
    return { rewritten, rewrite };
  };

  it('parses the last message taken again (`withTail`) once, to place it and to take its usage', async () => {
    const path = recordPath(db, 'ses_main');
    const tail = streamingReply(4);
    const first = await read(path, ['session', 'usage']);
    tail.rewrite();
    const { got, parses } = await parsesOf([tail.rewritten], () => read(path, ['session', 'usage'], first.cursor));
    expect(got.start).toEqual({ restarted: false, replaced: { usage: 1 } });
    expect(parses).toEqual([1]);
  });

  it('parses a changed row below the watermark once to judge it and once in the read started over', async () => {
    const path = recordPath(db, 'ses_main');
    const older = streamingReply(4);
    writeDb(db, (w) => insertRows(w, exchange('ses_main', 5)));
    const first = await read(path, ['session', 'usage']);
    older.rewrite(); // no longer the last message: its change starts the read over
    const { got, parses } = await parsesOf([older.rewritten], () => read(path, ['session', 'usage'], first.cursor));
    expect(got.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(parses).toEqual([2]);
  });
});
