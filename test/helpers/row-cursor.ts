/**
 * A batch read's cursor carries, per walked table, the table's marks (cursors/sqlite-rows.ts `TableMark`)
 * besides what a read of the session alone keeps: tests that hold the two equal compare them without those.
 */
import type { ReadCursor } from '../../cursors/protocol/codec.js';

/** `cursor` (a RowCursor, or anything else as it is) without the table marks of its sources. */
export function withoutTableMarks<C extends ReadCursor | undefined>(cursor: C): C {
  const state = (cursor as { state?: { sources?: Record<string, Record<string, unknown>> } } | undefined)?.state;
  if (cursor === undefined || cursor.format !== 'sqlite' || state?.sources === undefined) return cursor;
  const sources = Object.fromEntries(Object.entries(state.sources).map(([k, { table: _t, ...m }]) => [k, m]));
  return { ...cursor, state: { ...state, sources } };
}

/** A read (anything with a `cursor`) as a read of its session alone gives it: its cursor without table marks. */
export const asAlone = <R extends { cursor: ReadCursor | undefined }>(r: R): R => ({ ...r, cursor: withoutTableMarks(r.cursor) });
