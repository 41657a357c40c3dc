/**
 * Messages a fork copied into its database from another agent's transcripts. MiMo Code imports Claude Code's,
 * Codex's and OpenCode's sessions (`packages/opencode/src/session/claude-import.ts`, `codex-import.ts`,
 * `opencode-import.ts` in XiaomiMiMo/MiMo-Code) as OpenCode messages, each assistant message with the tokens of
 * its source, and lists
 * them in `external_import` (`source`, `session_id`, `message_ids` JSON; `external-import.sql.ts`). Those
 * tokens are the source agent's, which its own codec counts: read here they would count twice. A row without
 * `message_ids` (imported before MiMo recorded them) stands for its whole session, as MiMo's re-sync takes it.
 * OpenCode and Kilo CLI have no such table: nothing is left out of theirs.
 */
import type { SqliteDatabase } from '../../cursors/sqlite.js';
import type { Tables } from './v2.js';

export interface Imported {
  messages: ReadonlySet<string>;
  sessions: ReadonlySet<string>;
}

const NONE: Imported = { messages: new Set(), sessions: new Set() };

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
  const sessions = new Set<string>();
  for (const [session, list] of rows) {
    let parsed: unknown;
    try {
      parsed = typeof list === 'string' ? JSON.parse(list) : undefined;
    } catch {
      parsed = undefined;
    }
    if (Array.isArray(parsed)) for (const id of parsed) messages.add(String(id));
    else if (list === null || list === undefined) sessions.add(String(session));
  }
  return messages.size === 0 && sessions.size === 0 ? NONE : { messages, sessions };
}

export const isImported = (i: Imported, messageId: string, sessionId: string): boolean => i.messages.has(messageId) || i.sessions.has(sessionId);
