/**
 * The row memo of a reused connection (`sessionfold serve`, db.ts): the file rows `loadFiles` read, per
 * agent, with the `meta.changes` and `meta.instance` they were read at. A later `loadFiles` on the same
 * connection takes them while neither has moved, that is while no process wrote files since (every write of
 * the event cache counts in `meta.changes`). This connection's own writes patch the rows they touched,
 * inside the same IMMEDIATE transaction that read the count, so the memo stays exact across them; a write
 * that fails drops it. Rows are read-only to their users.
 */
import type { Db } from './db.js';
import { fileKey, type FileRow } from './rows.js';

/** A row as `SELECT ${BULK_COLUMNS}` returns it in raw mode. */
export type BulkRow = [number, string, string, string, string, number, number, string, string | null, number, number | null, string | null, number, number, number, number, number, number, number, number, string | null, number, string | null];

export interface RowMemo {
  instance: string;
  changes: number;
  agents: Map<string, Map<string, FileRow>>;
}

const memos = new WeakMap<Db, RowMemo>();

export function bulkRow(raw: BulkRow): FileRow {
  const [id, agent, path, root, parser, size, mtime_ms, deps, prefix_hash, session_events, cwd_index, cwd, live_count, segment_count, ledger_count, deleted, gen, skipped, ino, ctime_ms, error, retry, failed_as] = raw;
  return { id, agent, path, root, parser, size, mtime_ms, ino, ctime_ms, deps, has_cursor: -1, prefix_hash, session_events, cwd_index, cwd, live_count, segment_count, ledger_count, deleted, gen, skipped, error, retry, failed_as };
}

/** The connection's memo, emptied when the cache's instance or change count moved since it was filled. */
export function currentMemo(db: Db, instance: string, changes: number): RowMemo {
  let memo = memos.get(db);
  if (memo === undefined || memo.instance !== instance || memo.changes !== changes) {
    memo = { instance, changes, agents: new Map() };
    memos.set(db, memo);
  }
  return memo;
}

/** Inside a write transaction, before its writes: the memo if it is current (else it is dropped). */
export function memoAtStart(db: Db, changes: number): RowMemo | undefined {
  const memo = memos.get(db);
  if (memo === undefined) return undefined;
  if (memo.changes === changes) return memo;
  memos.delete(db);
  return undefined;
}

/** Inside the same transaction, after its writes: the touched rows as they are now, and the new count. */
export function patchMemo(memo: RowMemo, touched: readonly { agent: string; path: string }[], lookup: (agent: string, path: string) => BulkRow | undefined, changes: number): void {
  for (const { agent, path } of touched) {
    const rows = memo.agents.get(agent);
    if (rows === undefined) continue;
    const raw = lookup(agent, path);
    if (raw === undefined) rows.delete(fileKey(agent, path));
    else rows.set(fileKey(agent, path), bulkRow(raw));
  }
  memo.changes = changes;
}

export function dropMemo(db: Db): void {
  memos.delete(db);
}
