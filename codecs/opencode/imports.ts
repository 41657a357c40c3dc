/**
 * Messages a fork copied into its database from another agent's transcripts. MiMo Code imports Claude Code's,
 * Codex's and OpenCode's sessions (`packages/opencode/src/session/claude-import.ts`, `codex-import.ts`,
 * `opencode-import.ts` in XiaomiMiMo/MiMo-Code) as OpenCode messages, each assistant message with the tokens of
 * its source, and lists
 * them in `external_import` (`source`, `session_id`, `message_ids` JSON; `external-import.sql.ts`). Those
 * tokens are the source agent's, which its own codec counts: read here they would count twice.
 *
 * A row whose `message_ids` is null names no message: MiMo's current importers refuse to re-sync such a row
 * ("Cannot resync: imported message ownership is missing", `codex-import.ts` and `opencode-import.ts` @
 * `806f00bc`); the only writer of one was the earlier `claude-import.ts` (@ `86da53ce`: "imported before
 * message_ids tracking"), which took it for the whole session as imported then. So the messages of its session
 * created at or before the row's `time_imported` are the imported ones, left out; those created after it are
 * MiMo's own continuation, read. A `message_ids` that is not a JSON array is read the same way and counted as a
 * malformed record of its session (a warning). codecs/mimo/README.md, "A row without `message_ids`".
 * MiMo's releases before `external_import` kept Claude Code's imports alone in `claude_import` (`source_uuid`,
 * `session_id`, `source_path`, `source_mtime`, `time_imported`, and in later ones `message_ids`); the migration
 * that made `external_import` copied its rows in as source `cc` and dropped it. A database of such a release is
 * read the same way: its rows are Claude Code's imports, a row without `message_ids` the earlier importer's.
 * OpenCode and Kilo CLI have no such table: nothing is left out of theirs.
 */
import type { SqliteDatabase } from '../../cursors/sqlite.js';
import type { Tables } from './v2.js';

export interface Imported {
  messages: ReadonlySet<string>;
  /** Per session with a row that names no messages: its latest `time_imported` (ms); its messages created until then are imported. */
  importedUntil: ReadonlyMap<string, number>;
  /** Per session: its rows whose `message_ids` is there but not a JSON array, counted as malformed. */
  malformed: ReadonlyMap<string, number>;
}

const NONE: Imported = { messages: new Set(), importedUntil: new Map(), malformed: new Map() };

/** `message_ids` as the list of ids it holds; undefined when it holds none (null, not JSON, not an array). */
function idsOf(list: unknown): unknown[] | undefined {
  if (typeof list !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(list);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The import lists of a database's tables `t` (v2.ts `tablesOf`) as one `SELECT session_id, message_ids,
 * time_imported`; undefined when it has none.
 */
function importRows(t: Tables): string | undefined {
  const parts: string[] = [];
  if (t.external_import === true) parts.push('SELECT session_id, message_ids, time_imported FROM external_import');
  if (t.claude_import !== undefined) parts.push(`SELECT session_id, ${t.claude_import === 'ids' ? 'message_ids' : 'NULL'}, time_imported FROM claude_import`);
  return parts.length === 0 ? undefined : parts.join(' UNION ALL ');
}

/**
 * What the import lists hold for the sessions `ids` (every session when undefined); `t`: the tables of the
 * database (v2.ts `tablesOf`, probed once per database state, not once per session read).
 */
export function importedOf(db: SqliteDatabase, t: Tables, ids?: readonly string[]): Imported {
  const select = importRows(t);
  if (select === undefined) return NONE;
  const rows = (ids === undefined
    ? db.prepare(select).raw().all()
    : db.prepare(`SELECT * FROM (${select}) WHERE session_id IN (SELECT value FROM json_each(?))`).raw().all(JSON.stringify(ids))) as [unknown, unknown, unknown][];
  const messages = new Set<string>();
  const importedUntil = new Map<string, number>();
  const malformed = new Map<string, number>();
  for (const [sessionValue, list, at] of rows) {
    const session = String(sessionValue);
    const listed = idsOf(list);
    if (listed !== undefined) {
      for (const id of listed) messages.add(String(id));
      continue;
    }
    if (list !== null && list !== undefined) malformed.set(session, (malformed.get(session) ?? 0) + 1);
    const ms = typeof at === 'number' && Number.isFinite(at) ? at : 0;
    importedUntil.set(session, Math.max(importedUntil.get(session) ?? -Infinity, ms));
  }
  return messages.size === 0 && importedUntil.size === 0 ? NONE : { messages, importedUntil, malformed };
}

/** The rows of `external_import` whose `message_ids` is not a list, of the sessions read: counted as malformed records. */
export const malformedIn = (i: Imported, sessions: readonly { id: string }[]): number => sessions.reduce((n, s) => n + (i.malformed.get(s.id) ?? 0), 0);

/** Whether a message is one MiMo imported: listed in `message_ids`, or of a session whose row names none, created by its import. */
export function isImported(i: Imported, messageId: string, sessionId: string, createdMs: unknown): boolean {
  if (i.messages.has(messageId)) return true;
  const until = i.importedUntil.get(sessionId);
  return until !== undefined && typeof createdMs === 'number' && createdMs <= until;
}
