/**
 * What the web app's database says of a conversation (README.md, "The web app"): `<persistence>/openhands.db`,
 * table `conversation_metadata`, one row per conversation keyed by its dashed uuid (`conversation_id`), with
 * its `title`, `created_at` (UTC: `utc_now`, kept by SQLAlchemy on SQLite as text without a zone) and
 * `llm_model`. Opened as a read-only snapshot (cursors/sqlite.ts): nothing is created beside it.
 */
import { existsSync } from 'node:fs';
import { withSqliteSnapshot } from '../../cursors/sqlite.js';
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

/**
 * The row of conversation `uuid` (dashed), or undefined when there is no database, no such table or row, or
 * the database cannot be read: the conversation is then read from its events alone.
 */
export function readAppMetadata(db: string, uuid: string): AppMetadata | undefined {
  if (!existsSync(db)) return undefined;
  try {
    const row = withSqliteSnapshot(db, (d) => d.prepare('SELECT title, created_at, llm_model FROM conversation_metadata WHERE conversation_id = ? OR conversation_id = ?').get(uuid.toLowerCase(), uuid)) as Record<string, unknown> | undefined;
    return row === undefined ? undefined : { title: str(row.title), createdMs: utcMs(row.created_at), model: str(row.llm_model) };
  } catch {
    return undefined;
  }
}
