/**
 * What the web app's database says of a conversation (README.md, "The web app"): `<persistence>/openhands.db`,
 * table `conversation_metadata`, one row per conversation keyed by its dashed uuid (`conversation_id`), with
 * its `title`, `created_at` (UTC: `utc_now`, kept by SQLAlchemy on SQLite as text without a zone) and
 * `llm_model`. Opened as a read-only snapshot (cursors/sqlite.ts): nothing is created beside it. The table
 * is read whole, once per state of the database, and its rows kept for the next conversation's read.
 */
import { existsSync } from 'node:fs';
import { withSqliteSnapshot } from '../../cursors/sqlite.js';
import { databaseState } from '../../cursors/sqlite-events.js';
import { str } from './schema.js';

export interface AppMetadata {
  title: string | undefined;
  /** Epoch ms. */
  createdMs: number | undefined;
  model: string | undefined;
}

/** `YYYY-MM-DD HH:MM:SS[.ffffff][zone]` as epoch ms, a time without a zone read as UTC. */
function utcMs(v: unknown): number | undefined {
  const s = str(v)?.trim().replace(' ', 'T');
  if (s === undefined) return undefined;
  const ms = Date.parse(/(?:Z|[+-]\d{2}:?\d{2})$/.test(s) ? s : `${s}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The rows of the table, by `conversation_id` as stored; undefined when the database cannot be read or has no such table. */
type Rows = Map<string, AppMetadata> | undefined;

function readRows(db: string): Rows {
  try {
    const rows = withSqliteSnapshot(db, (d) => d.prepare('SELECT conversation_id, title, created_at, llm_model FROM conversation_metadata ORDER BY rowid').all()) as Record<string, unknown>[];
    const out = new Map<string, AppMetadata>();
    for (const row of rows) {
      const id = str(row.conversation_id);
      if (id !== undefined && !out.has(id)) out.set(id, { title: str(row.title), createdMs: utcMs(row.created_at), model: str(row.llm_model) });
    }
    return out;
  } catch {
    return undefined;
  }
}

/**
 * The last database read, by its state (cursors/sqlite-events.ts `databaseState`: the header's change counter,
 * the `-wal`'s stamp). A scan reads every conversation of a home in turn: the table is read once while the
 * database stays as it was, not in a snapshot of its own per conversation (codecs/copilot/store.ts keeps its
 * store the same way).
 */
let last: { db: string; state: string; rows: Rows } | undefined;

/**
 * The row of conversation `uuid` (dashed), or undefined when there is no database, no such table or row, or
 * the database cannot be read: the conversation is then read from its events alone.
 */
export function readAppMetadata(db: string, uuid: string): AppMetadata | undefined {
  if (!existsSync(db)) return undefined;
  const state = databaseState(db);
  if (state === undefined) return undefined;
  let rows: Rows;
  if (last?.db === db && last.state === state) rows = last.rows;
  else {
    rows = readRows(db);
    // a commit during the read moved the state: keep the rows for this read only
    if (databaseState(db) === state) last = { db, state, rows };
  }
  return rows?.get(uuid.toLowerCase()) ?? rows?.get(uuid);
}
