/**
 * A resumed OpenCode read looks for late parts (a part written before its message, at or below the part
 * watermark: codecs/opencode/db.ts `withLateParts`) of its new messages only when the rows last read whole held
 * a part without its message (the cursor's `orphans`), for a usage read (parts by rowid, their tail checked).
 * Without one, the probe of `part_message_id_id_idx` for the new messages is skipped, and the read still equals
 * a cold one; with one, or from a cursor that does not say (written before it was kept), or for a read of the
 * whole conversation, the probe runs and the late parts come with their message. Real databases with
 * OpenCode's tables.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { opencode } from '../codecs/opencode/index.js';
import type { ReadCursor } from '../cursors/protocol/codec.js';
import type { EventKind, SessionfoldEvent } from '../cursors/protocol/events.js';
import { recordPath } from '../cursors/sqlite.js';
import { buildOpencodeDb, exchange, INSERT_MESSAGE, INSERT_PART, insertExchange, writeDb } from './helpers/opencode-db.js';
import { readResumed, tempDirPerTest } from './helpers/sqlite-db.js';

let db: string;
tempDirPerTest('sf-late-parts-', (d) => {
  db = join(d, 'opencode.db');
  buildOpencodeDb(db, 3);
});
afterEach(() => vi.restoreAllMocks());

const USAGE: EventKind[] = ['session', 'usage'];
const FULL: EventKind[] = ['session', 'message', 'usage', 'tool_call', 'tool_result'];
const PROBE = /FROM part WHERE message_id IN/;

/** A read of ses_main from `from`, with the SQL it prepared. */
async function read(from: ReadCursor | undefined, kinds: EventKind[]): Promise<Awaited<ReturnType<typeof readResumed>> & { sql: string[] }> {
  const sql: string[] = [];
  const prepare = Database.prototype.prepare;
  const spy = vi.spyOn(Database.prototype, 'prepare').mockImplementation(function (this: Database.Database, text: string) {
    sql.push(text);
    return prepare.call(this, text);
  });
  try {
    return { ...(await readResumed(opencode, recordPath(db, 'ses_main'), from, kinds)), sql };
  } finally {
    spy.mockRestore();
  }
}

const orphansOf = (c: ReadCursor | undefined): unknown => ((c?.state as { codec?: { orphans?: unknown } }).codec ?? {}).orphans;
const usage = (events: readonly SessionfoldEvent[]) => events.filter((e) => e.type === 'usage');

describe('late parts are looked for only where a part without its message was left', () => {
  it('none left: a usage read of new messages skips the probe and equals a cold read', async () => {
    const cold = await read(undefined, USAGE);
    expect(orphansOf(cold.cursor)).toBe(false);
    writeDb(db, (d) => {
      insertExchange(d, 'ses_main', 4);
      insertExchange(d, 'ses_main', 5);
    });
    const warm = await read(cold.cursor, USAGE);
    expect(warm.start).toMatchObject({ restarted: false });
    expect(warm.sql.filter((s) => PROBE.test(s))).toEqual([]);
    const again = await read(undefined, USAGE);
    expect([...usage(cold.events), ...usage(warm.events)]).toEqual(usage(again.events));
    expect(usage(warm.events)).toHaveLength(2);
    expect(orphansOf(warm.cursor)).toBe(false);
  });

  it('a part written before its message: the read over it keeps orphans, the next probes and takes it', async () => {
    const first = await read(undefined, USAGE);
    const x = exchange('ses_main', 4);
    // its reply without tokens: its usage comes from its step-finish part alone, one of the late parts
    const reply = x.messages[1] as unknown[];
    const { tokens: _t, cost: _c, ...rest } = JSON.parse(reply[4] as string) as Record<string, unknown>;
    reply[4] = JSON.stringify(rest);
    // a part of no message yet: only without the foreign key OpenCode's schema declares (as the codec's tests write it)
    writeDb(
      db,
      (d) => {
        for (const p of x.parts) d.prepare(INSERT_PART).run(...p);
      },
      false,
    );
    const over = await read(first.cursor, USAGE);
    expect(over.start).toMatchObject({ restarted: true });
    expect(orphansOf(over.cursor)).toBe(true);
    writeDb(db, (d) => {
      for (const m of x.messages) d.prepare(INSERT_MESSAGE).run(...m);
    });
    const warm = await read(over.cursor, USAGE);
    expect(warm.start).toMatchObject({ restarted: false });
    expect(warm.sql.filter((s) => PROBE.test(s))).toHaveLength(1);
    expect(usage(warm.events)).toEqual([expect.objectContaining({ outputTokens: 40 + 4 + 7, singleRequest: true })]);
    expect(usage((await read(undefined, USAGE)).events).at(-1)).toEqual(usage(warm.events)[0]);
  });

  it('a cursor that does not say, and a read of the whole conversation: the probe runs', async () => {
    const cold = await read(undefined, USAGE);
    const codec = (cold.cursor?.state as { codec: Record<string, unknown> }).codec;
    const { orphans: _o, ...older } = codec;
    const unsaid = { ...cold.cursor, state: { ...(cold.cursor?.state as object), codec: older } } as ReadCursor;
    const full = await read(undefined, FULL);
    expect(orphansOf(full.cursor)).toBe(false);
    writeDb(db, (d) => insertExchange(d, 'ses_main', 4));
    for (const [from, kinds] of [
      [unsaid, USAGE],
      [full.cursor, FULL],
    ] as const) {
      const warm = await read(from, kinds);
      expect(warm.start).toMatchObject({ restarted: false });
      expect(warm.sql.filter((s) => PROBE.test(s))).toHaveLength(1);
      expect(usage(warm.events)).toHaveLength(1);
    }
  });
});
