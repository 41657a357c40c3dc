/**
 * Messages a fork copied into its database from another agent's transcripts. MiMo Code imports Claude Code's,
 * Codex's and OpenCode's sessions (`packages/opencode/src/session/claude-import.ts`, `codex-import.ts`,
 * `opencode-import.ts` in XiaomiMiMo/MiMo-Code) as OpenCode messages, each assistant message with the tokens of
 * its source, and lists
 * them in `external_import` (`source`, `session_id`, `message_ids` JSON; `external-import.sql.ts`). Those
 * tokens are the source agent's, which its own codec counts: read here they would count twice.
 *
 * A row whose `message_ids` is null (or not a JSON array) names no message: MiMo's own importers refuse to
 * re-sync such a row ("Cannot resync: imported message ownership is missing", `codex-import.ts` and
 * `opencode-import.ts` @ `806f00bc`), since they cannot tell the messages they wrote from MiMo's own
 * continuation. So its session's messages are read as MiMo's (none left out), and the row is counted as a
 * malformed record of that session (a warning), rather than the whole session taken as imported and its
 * own replies silenced. codecs/mimo/README.md, "Imported sessions".
 * OpenCode and Kilo CLI have no such table: nothing is left out of theirs.
 */
import type { SqliteDatabase } from '../../cursors/sqlite.js';
import type { Tables } from './v2.js';

export interface Imported {
  messages: ReadonlySet<string>;
  /** Per session: its rows that name no messages (`message_ids` null or not an array), counted as malformed. */
  malformed: ReadonlyMap<string, number>;
}

const NONE: Imported = { messages: new Set(), malformed: new Map() };

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
 * What `external_import` lists for the sessions `ids` (every session when undefined); `t`: the tables of the
 * database (v2.ts `tablesOf`, probed once per database state, not once per session read).
 */
export function importedOf(db: SqliteDatabase, t: Tables, ids?: readonly string[]): Imported {
  if (t.external_import !== true) return NONE;
  const rows = (ids === undefined
    ? db.prepare('SELECT session_id, message_ids FROM external_import').raw().all()
    : db.prepare('SELECT session_id, message_ids FROM external_import WHERE session_id IN (SELECT value FROM json_each(?))').raw().all(JSON.stringify(ids))) as [unknown, unknown][];
  const messages = new Set<string>();
  const malformed = new Map<string, number>();
  for (const [session, list] of rows) {
    const listed = idsOf(list);
    if (listed !== undefined) for (const id of listed) messages.add(String(id));
    else malformed.set(String(session), (malformed.get(String(session)) ?? 0) + 1);
  }
  return messages.size === 0 && malformed.size === 0 ? NONE : { messages, malformed };
}

/** The rows of `external_import` that name no messages, of the sessions read: counted as malformed records. */
export const malformedIn = (i: Imported, sessions: readonly { id: string }[]): number => sessions.reduce((n, s) => n + (i.malformed.get(s.id) ?? 0), 0);

export const isImported = (i: Imported, messageId: string): boolean => i.messages.has(messageId);
