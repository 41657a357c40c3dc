/**
 * OpenClaw's per-agent database, `<state dir>/agents/<agentId>/agent/openclaw-agent.sqlite` (openclaw/openclaw
 * `src/state/openclaw-agent-schema.sql`), where OpenClaw writes its transcripts since its SQLite switch
 * (README.md "The agent database"). `transcript_events(session_id, seq, event_json, created_at)` holds each
 * session's transcript, one row per entry, `event_json` being the JSONL record pi's SessionManager would have
 * written; since 2026.9.6 a large entry is zstd-compressed in `event_zstd` (`event_utf8_bytes` its size) with
 * `event_json` NULL. A session's rows, by `seq`, are read as the lines of its transcript by pi's engine; its
 * key, title, channel and parent come from the index tables, under either of their two names (`indexTables`).
 * Read-only, through a snapshot (cursors/sqlite.ts): nothing beside the database is created or changed.
 */
import { parseSessionsIndex } from './meta.js';
import type { AgentDbListed } from './paths.js';
import type { PiSessionMeta } from '../pi/index.js';
import { createHash64, hashText128, type Hash64 } from '../../cursors/ids.js';
import { hashRow } from '../../cursors/record-stamps.js';
import { decompressZstdBytes } from '../../cursors/read-zstd.js';
import { columnsOf, hasTable, withSqliteSnapshot, type SqliteDatabase } from '../../cursors/sqlite.js';

/** One session's transcript: its rows as JSONL text, the rows that could not be read, and its index entry. */
export interface AgentDbTranscript {
  text: string;
  skipped: number;
  meta?: PiSessionMeta;
}

function hasColumn(db: SqliteDatabase, table: string, column: string): boolean {
  return hasColumns(db, table, [column]);
}

function hasColumns(db: SqliteDatabase, table: string, columns: readonly string[]): boolean {
  const names = columnsOf(db, table);
  return columns.every((c) => names.has(c));
}

/** The index tables of a database, by their names in it; undefined where it has none of that shape. */
interface IndexTables {
  /** Session key -> `entry_json` (the `SessionEntry` sessions.json held): `session_nodes` or `session_entries`. */
  entries: string | undefined;
  /** One row per session id, with its key, channel, display name and `spawned_by`: `session_windows` or `sessions`. */
  windows: string | undefined;
}

const ENTRY_COLUMNS = ['session_key', 'entry_json'] as const;
const WINDOW_COLUMNS = ['session_id', 'session_key', 'channel', 'display_name', 'spawned_by'] as const;

/** The first of `names` that is a table with `columns`. */
function tableOf(db: SqliteDatabase, names: readonly string[], columns: readonly string[]): string | undefined {
  return names.find((n) => hasTable(db, n) && hasColumns(db, n, columns));
}

/**
 * Where a database keeps its index. Schema 14 on (openclaw 2026.7.2-beta.4 and every stable release that writes
 * transcripts here) names the tables `session_nodes` and `session_windows`; the schema before it (the
 * prereleases 2026.7.2-beta.1 to beta.3, schemas 8 to 11; `src/state/openclaw-agent-schema.sql` @ b8a4997 on
 * the switch's branch) names the same rows `session_entries(session_key, session_id, entry_json)` and
 * `sessions`, which schema 14's migration turns into the new ones (`src/state/openclaw-agent-db-session-nodes-
 * migration.ts` @ 410b1a6). The new names win; an old name is read only with the columns read from it.
 */
function indexTables(db: SqliteDatabase): IndexTables {
  return { entries: tableOf(db, ['session_nodes', 'session_entries'], ENTRY_COLUMNS), windows: tableOf(db, ['session_windows', 'sessions'], WINDOW_COLUMNS) };
}

/** `created_at`, epoch milliseconds as OpenClaw writes it (seconds taken for an older value that small). */
const msOf = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? (v < 1e11 ? v * 1000 : v) : 0);

/**
 * The sessions of an agent database that have transcript rows, oldest first, with a fingerprint standing for
 * a stat (count and highest `seq` of the rows, which OpenClaw appends, and the latest time); a subagent's
 * (a `:subagent:` key or a `spawned_by`, as meta.ts reads an index entry) marked. None without the table.
 */
export function listAgentDbSessions(file: string): AgentDbListed[] {
  return withSqliteSnapshot(file, (db) => {
    if (!hasTable(db, 'transcript_events')) return [];
    const { windows } = indexTables(db);
    const rows = db
      .prepare(
        `SELECT e.session_id AS id, count(*) AS n, max(e.seq) AS mx, max(e.created_at) AS t,
           ${windows !== undefined ? 'w.session_key AS key, w.spawned_by AS spawnedBy' : 'NULL AS key, NULL AS spawnedBy'}
         FROM transcript_events e ${windows !== undefined ? `LEFT JOIN ${windows} w ON w.session_id = e.session_id` : ''}
         GROUP BY e.session_id ORDER BY min(e.created_at), e.session_id`,
      )
      .all() as { id: unknown; n: number; mx: number; t: unknown; key: unknown; spawnedBy: unknown }[];
    return rows.flatMap((r) => {
      if (typeof r.id !== 'string' || r.id === '') return [];
      const sub = (typeof r.key === 'string' && r.key.includes(':subagent:')) || (typeof r.spawnedBy === 'string' && r.spawnedBy !== '');
      return [{ id: r.id, size: r.n + r.mx, mtimeMs: msOf(r.t), ...(sub && { subagent: true }) }];
    });
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * One row's JSON text: `event_json`, else the decompressed `event_zstd`; undefined when neither reads, or when
 * the row decompresses to more than `maxBytes` (skipped like a line over `maxLineBytes`).
 */
function eventText(row: { event_json?: unknown; event_zstd?: unknown }, maxBytes: number): string | undefined {
  if (typeof row.event_json === 'string') return row.event_json;
  if (!(row.event_zstd instanceof Uint8Array) || row.event_zstd.byteLength === 0) return undefined;
  const bytes = decompressZstdBytes(row.event_zstd, maxBytes);
  if (bytes === undefined) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A parsed index (meta.ts `parseSessionsIndex`): by session id and by transcript file name. */
export type SessionsIndex = ReturnType<typeof parseSessionsIndex>;

/**
 * The index `session_nodes` (or `session_entries`, `indexTables`) holds: each row's `entry_json` (the
 * `SessionEntry` sessions.json held, keyed by session key), parsed as sessions.json is; undefined without the
 * table. A value of the whole database, which index.ts reads once per state of it (cursors/sqlite-events.ts
 * `databaseValue`), not once per session.
 */
export function sessionNodesIndex(db: SqliteDatabase): SessionsIndex | undefined {
  const { entries } = indexTables(db);
  if (entries === undefined) return undefined;
  const nodes = db.prepare(`SELECT session_key AS key, entry_json AS entry FROM ${entries}`).all() as { key: string; entry: string }[];
  const doc: Record<string, unknown> = {};
  for (const n of nodes) {
    try {
      doc[n.key] = JSON.parse(n.entry) as unknown;
    } catch {
      // an entry OpenClaw has not validated yet: the window row still names the session (metaOf)
    }
  }
  return parseSessionsIndex(JSON.stringify(doc));
}

/**
 * The index entry of a session: its `session_nodes.entry_json` (`index`, `sessionNodesIndex`) when the node's
 * current session is this one, else what its `session_windows` row says (`session_entries` and `sessions` in
 * the older schema, `indexTables`).
 */
function metaOf(db: SqliteDatabase, sessionId: string, index: SessionsIndex | undefined, windows: string | undefined): PiSessionMeta | undefined {
  const meta = index?.get(`id:${sessionId}`);
  if (meta !== undefined) return meta;
  if (windows === undefined) return undefined;
  const w = db.prepare(`SELECT session_key AS key, channel, display_name AS title, spawned_by AS spawnedBy FROM ${windows} WHERE session_id = ?`).get(sessionId) as
    | { key: string; channel: string | null; title: string | null; spawnedBy: string | null }
    | undefined;
  if (w === undefined) return undefined;
  const m: PiSessionMeta = { sessionKey: w.key };
  if (w.title) m.title = w.title;
  if (w.channel) m.channel = w.channel;
  if (w.key.includes(':subagent:') || w.spawnedBy) m.subagent = true;
  return m;
}

/**
 * Every session's stamp (`Codec.dependencyStamp`, cursors/record-stamps.ts): what `readAgentDbTranscript` takes
 * of the database for it, its rows by `seq` (each row's text or compressed bytes) and its index entry, digested.
 * Equal stamps, equal reads: a row appended to one session changes that session's stamp alone.
 */
export function sessionStamps(db: SqliteDatabase): Record<string, string> {
  if (!hasTable(db, 'transcript_events')) return {};
  const zstd = hasColumn(db, 'transcript_events', 'event_zstd');
  const rows = db.prepare(`SELECT session_id AS id, seq, CAST(event_json AS BLOB) AS event_json${zstd ? ', event_zstd' : ''} FROM transcript_events ORDER BY session_id, seq`).iterate() as IterableIterator<{ id: unknown; seq: unknown; event_json?: unknown; event_zstd?: unknown }>;
  const digests = new Map<string, { h: Hash64; n: number }>();
  for (const { id, ...row } of rows) {
    if (typeof id !== 'string') continue;
    let d = digests.get(id);
    if (d === undefined) digests.set(id, (d = { h: createHash64(), n: 0 }));
    hashRow(d.h, row);
    d.n++;
  }
  const index = sessionNodesIndex(db);
  const { windows } = indexTables(db);
  const out: Record<string, string> = {};
  for (const [id, d] of digests) out[id] = `${d.n}:${d.h.digest()}:${hashText128(JSON.stringify(metaOf(db, id, index, windows) ?? null))}`;
  return out;
}

/**
 * A session's transcript rows by `seq`, as JSONL (a row is one line: raw line breaks cannot be inside valid
 * JSON), with its entry of `index` (the database's `sessionNodesIndex`).
 */
export function readAgentDbTranscript(db: SqliteDatabase, sessionId: string, maxBytes: number, index: SessionsIndex | undefined): AgentDbTranscript {
  const zstd = hasColumn(db, 'transcript_events', 'event_zstd');
  const rows = db.prepare(`SELECT event_json${zstd ? ', event_zstd' : ''} FROM transcript_events WHERE session_id = ? ORDER BY seq`).all(sessionId) as { event_json?: unknown; event_zstd?: unknown }[];
  const lines: string[] = [];
  let skipped = 0;
  for (const r of rows) {
    const text = eventText(r, maxBytes);
    if (text === undefined) skipped++;
    else lines.push(text.replace(/\r?\n/g, ' '));
  }
  const meta = metaOf(db, sessionId, index, indexTables(db).windows);
  return { text: lines.length === 0 ? '' : `${lines.join('\n')}\n`, skipped, ...(meta !== undefined && { meta }) };
}
