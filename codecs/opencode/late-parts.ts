/**
 * The parts of a resumed OpenCode read's messages that are not rows of the read itself (db.ts calls it after
 * every resumed read): a part written before its message, or the earlier parts of a message taken again.
 */
import { groupBy, type Row, type RowReadResult } from '../../cursors/sqlite-rows.js';
import type { SqliteDatabase } from '../../cursors/sqlite.js';

/**
 * One read for `withLateParts`: `mark` the message watermark it resumed from; `orphansLeft` false when its
 * cursor says the rows last read whole held no part without its message and it read parts by rowid with
 * their tail checked (db.ts `lateRead`).
 */
export interface LateRead {
  read: RowReadResult;
  sessionId: string | undefined;
  mark: number;
  orphansLeft: boolean;
}

/**
 * The messages of a resumed read that may have parts at or below the part watermark: those at or below the
 * message watermark (taken again: the last message, `withTail`, or one that had not settled), and the new ones
 * only when the rows last read whole held a part without its message (`OpencodeCursorState.orphans`), for a
 * read of parts by rowid with its tail checked (`steps`). Why no other: a part at or below the watermark was
 * there at the last read (while the row at the watermark is, every row added takes a rowid above it:
 * cursors/sqlite-rows.ts `RowSource.tail`), and a new message was not, so such a part had no message then; a
 * resumed read that finds a new part without its message starts over (db.ts `appendsOnly`), so only a read of
 * every row leaves one behind, and it says so in the cursor.
 */
function mayHaveLateParts(r: LateRead): Row[] {
  const messages = r.read.rows.message ?? [];
  return r.orphansLeft ? messages : messages.filter((m) => m._rowid <= r.mark);
}

/** Whether rows read whole hold a part whose message is not among them (`OpencodeCursorState.orphans`). */
export function orphansIn(rows: RowReadResult['rows']): boolean {
  const ids = new Set((rows.message ?? []).map((m) => m.id));
  return (rows.part ?? []).some((p) => !ids.has(p.message_id));
}

/**
 * A read that resumed, of any kinds: the parts of the messages it takes that it did not take as rows of its
 * own (at or below the part watermarks: a part written before its message, which an earlier read found with
 * no message and started over on, or the earlier parts of a last message taken again, `withTail`), found
 * through `part_message_id_id_idx` (rowids only, from the index), then read whole. One index probe per
 * message that may have one (`mayHaveLateParts`). `partColumns`: the part columns a read selects.
 */
export function withLateParts(db: SqliteDatabase, reads: readonly LateRead[], partColumns: string): RowReadResult[] {
  const open = reads.filter((r) => !r.read.restarted && (r.read.rows.message?.length ?? 0) > 0);
  // one probe of the index for the messages of every read that may have late parts; rowids only (the index covers them)
  const ids = open.flatMap((r) => mayHaveLateParts(r).map((m) => m.id));
  if (ids.length === 0) return reads.map((r) => r.read);
  const found = db.prepare('SELECT rowid AS r, message_id AS m FROM part WHERE message_id IN (SELECT value FROM json_each(?))').raw().all(JSON.stringify(ids)) as [number, unknown][];
  const byMessage = groupBy(found, ([, m]) => m);
  const opened = new Set(open.map((r) => r.read));
  return reads.map(({ read, sessionId }) => {
    if (!opened.has(read)) return read;
    const have = new Set((read.rows.part ?? []).map((p) => p._rowid));
    const missing = (read.rows.message ?? []).flatMap((m) => (byMessage.get(m.id) ?? []).map(([r]) => r)).filter((r) => !have.has(r));
    if (missing.length === 0) return read;
    const where = sessionId === undefined ? '' : ' AND session_id = ?';
    const late = db
      .prepare(`SELECT rowid AS _rowid, ${partColumns} FROM part WHERE rowid IN (SELECT value FROM json_each(?))${where} ORDER BY rowid`)
      .all(JSON.stringify(missing), ...(sessionId === undefined ? [] : [sessionId])) as Row[];
    return { ...read, rows: { ...read.rows, part: [...(read.rows.part ?? []), ...late] } };
  });
}
