/**
 * OpenCode's whole database by RowCursor: messages sort within their session, so appends to several sessions
 * (an earlier session's new message older than a later session's last one) resume without starting over, and
 * the resumed events equal a full read's; the rows a warm read takes are the new ones and the sessions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { opencode } from '../codecs/opencode/index.js';
import { newReadInfo, type ReadCursor, type ResumeStart } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { buildOpencodeDb, insertExchange, writeDb } from './helpers/opencode-db.js';

const TMP = mkdtempSync(join(tmpdir(), 'sf-oc-resume-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

async function readFrom(path: string, from?: ReadCursor): Promise<{ events: SessionfoldEvent[]; start: ResumeStart | undefined; cursor: ReadCursor | undefined; rows: number }> {
  const info = newReadInfo();
  const r = { events: [] as SessionfoldEvent[], start: undefined as ResumeStart | undefined, cursor: undefined as ReadCursor | undefined, rows: 0 };
  for await (const e of opencode.read(path, { info, resume: { ...(from && { from }), onStart: (s) => (r.start = s), onCursor: (u) => (r.cursor = u.cursor) } })) r.events.push(e);
  r.rows = info.lines;
  return r;
}

describe('opencode database RowCursor', () => {
  it('appends to two sessions at once resume the whole database without starting over', async () => {
    const db = join(TMP, 'opencode.db');
    buildOpencodeDb(db, 3); // ses_main and ses_child, three exchanges each
    const first = await readFrom(db);
    let held = first.events;
    let cursor = first.cursor;
    // ses_main runs ahead; then ses_child's next message is older than ses_main's last one
    const rounds: [string, number][][] = [
      [['ses_main', 4], ['ses_main', 5]],
      [['ses_child', 4], ['ses_main', 6]],
    ];
    for (const round of rounds) {
      writeDb(db, (w) => {
        for (const [s, n] of round) insertExchange(w, s, n);
      });
      const warm = await readFrom(db, cursor);
      expect(warm.start).toMatchObject({ restarted: false });
      expect(warm.rows).toBe(2 * (2 + 6) + 2); // two messages and six parts per exchange, and the two session rows
      held = [...held, ...warm.events];
      cursor = warm.cursor;
      const full = await readFrom(db);
      expect(held.map((e) => JSON.stringify(e)).sort()).toEqual(full.events.map((e) => JSON.stringify(e)).sort());
    }
  });
});
