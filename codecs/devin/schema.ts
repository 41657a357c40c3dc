/**
 * What the codec reads of `sessions.db`, in its own types (README.md "Tables" has the columns): a row of either
 * table as SQLite returns it, a `message_nodes` row with its `chat_message` decoded, and a session.
 */
import type { JsonRecord } from '../../cursors/json-value.js';

export type Row = Record<string, unknown>;

/** One `message_nodes` row, its `chat_message` decoded (whole, or the fields a usage read selects). */
export interface DevinNode {
  /** The row's id: the offset of its events. */
  row: number;
  nodeId: number | undefined;
  parentNodeId: number | undefined;
  /** The row's `created_at` (Unix seconds) as ISO-8601. */
  createdAt: string | undefined;
  msg: JsonRecord;
}

/** A session: its `sessions` row (none for nodes of a session the table does not list) and its nodes in row order (all, or its replies alone). */
export interface DevinSession {
  id: string;
  row: Row | undefined;
  nodes: DevinNode[];
  /** Rows of the session that are not a chat message this codec can read (README "Skipped"). */
  skipped: number;
  /** The row time of its first chat message, when its nodes are not all of them (a usage read keeps replies only). */
  firstAt?: string;
}
