/**
 * OpenCode 2.x's tables beside 1.x's (README.md, "OpenCode 2.x"): sessions in `session_v2`, messages in
 * `session_message` (one row per message, its `type` a column and its content inside `data`, rewritten in
 * place with a new `time_updated` as a reply streams). The first 2.x start copies every 1.x session into them
 * (`packages/core/src/database/v1-migration.bun.ts`): the session under its id, each user and assistant message
 * under its 1.x message id. So a `session_message` row whose id is a `message` id is such a copy, and is not
 * read: the 1.x row stands for it (the copy drops the usage of compaction summaries and subtask replies, and
 * 1.x may go on writing its own tables).
 *
 * A database may hold either generation or both, so the sources and the session rows read depend on the tables
 * present (`tablesOf`).
 */
import type { PartitionedSource, Row, RowReadResult } from '../../cursors/sqlite-rows.js';
import { columnsOf, jsonObject, snapshotMemo, tableNames, type SqliteDatabase } from '../../cursors/sqlite.js';
import type { OpencodeMessageInfo, OpencodeMessageRecord, OpencodePart } from './schema.js';

/** The tables of OpenCode's two generations this codec reads, as present in one database. */
export interface Tables {
  session: boolean;
  message: boolean;
  part: boolean;
  session_v2: boolean;
  session_message: boolean;
  /** The `session` table has no `model` column: MiMo Code's (codecs/mimo/README.md) reads it as null. */
  noSessionModel?: boolean;
  /** MiMo Code's list of the messages it imported from other agents (imports.ts). */
  external_import?: boolean;
  /** The list's name before MiMo renamed it (Claude Code's imports only): with its `message_ids` column or without. */
  claude_import?: 'ids' | 'bare';
}

export const V1_ONLY: Tables = { session: true, message: true, part: true, session_v2: false, session_message: false };

/**
 * The tables of the database in `db`'s snapshot, probed once per database state (cursors/sqlite.ts
 * `snapshotMemo`): a cold report reads each session in a snapshot of its own, and every one of them, and the
 * listing before them, asked the schema the same two questions.
 */
export function tablesOf(db: SqliteDatabase): Tables {
  return snapshotMemo(db, 'opencode:tables', () => probeTables(db));
}

function probeTables(db: SqliteDatabase): Tables {
  const names = tableNames(db);
  const noSessionModel = names.has('session') && !columnsOf(db, 'session').has('model');
  const external_import = names.has('external_import');
  const claude_import = names.has('claude_import') ? claudeImportShape(db) : undefined;
  return {
    session: names.has('session'),
    message: names.has('message'),
    part: names.has('part'),
    session_v2: names.has('session_v2'),
    session_message: names.has('session_message'),
    ...(noSessionModel && { noSessionModel }),
    ...(external_import && { external_import }),
    ...(claude_import && { claude_import }),
  };
}

/** Whether MiMo's earlier `claude_import` has `message_ids` (added after the table; codecs/opencode/imports.ts). */
function claudeImportShape(db: SqliteDatabase): 'ids' | 'bare' {
  return columnsOf(db, 'claude_import').has('message_ids') ? 'ids' : 'bare';
}

/** `session_message` per session: every row added or rewritten (`time_updated` has no index, so a walk). */
export const V2_SOURCE: PartitionedSource = { name: 'session_message', table: 'session_message', columns: 'id, session_id, type, time_created, data', updated: 'time_updated', partition: 'session_id' };

/**
 * SQL for the session rows (`where`: a condition on `id`, with its parameters): a session in both tables is
 * `session_v2`'s (the row 2.x goes on writing), once.
 */
export function sessionSql(t: Tables, where: string): string {
  const base = 'rowid AS _rowid, id, parent_id, directory, title, version, time_created, time_updated';
  const cols = `${base}, model`;
  const v1 = t.noSessionModel === true ? `${base}, NULL AS model` : cols;
  // neither table: the query fails as it did before 2.x (not OpenCode's database)
  if (!t.session_v2) return `SELECT ${v1} FROM session${where}`;
  const v2 = `SELECT ${cols} FROM session_v2${where}`;
  return t.session ? `${v2} UNION ALL SELECT ${v1} FROM session${where === '' ? ' WHERE' : `${where} AND`} id NOT IN (SELECT id FROM session_v2)` : v2;
}

/**
 * The ids of the `session_message` rows of the reads that copy a 1.x message (a `message` row of that id), in
 * one query for all of them: a batch's sessions asked one query each. An id is a primary key, so one set
 * serves every read of the batch (each looks up its own rows' ids only).
 */
export function copiesOf(db: SqliteDatabase, t: Tables, reads: readonly RowReadResult['rows'][]): Set<string> {
  const ids = reads.flatMap((rows) => (rows.session_message ?? []).map((r) => r.id));
  if (!t.message || ids.length === 0) return new Set();
  const found = db.prepare('SELECT id FROM message WHERE id IN (SELECT value FROM json_each(?))').raw().all(JSON.stringify(ids)) as [string][];
  return new Set(found.map(([id]) => id));
}

const obj = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** The text of a tool's output content (`[{type: 'text', text}]`), joined. */
function contentText(v: unknown): string | undefined {
  if (!Array.isArray(v)) return typeof v === 'string' ? v : undefined;
  const texts = v.flatMap((c) => (typeof obj(c)?.text === 'string' ? [obj(c)?.text as string] : []));
  return texts.length === 0 ? undefined : texts.join('\n');
}

/** An assistant's `content` item as the 1.x part it stands for. */
function partOf(c: unknown, id: string): OpencodePart | undefined {
  const item = obj(c);
  if (item === undefined) return undefined;
  if (item.type === 'text' || item.type === 'reasoning') return { id, type: item.type, text: item.text };
  if (item.type !== 'tool') return undefined;
  const state = obj(item.state) ?? {};
  const time = obj(item.time) ?? {};
  const error = obj(state.error);
  return {
    id,
    type: 'tool',
    callID: item.callID ?? item.id,
    tool: item.name,
    state: { status: state.status, input: state.input, output: contentText(state.content ?? state.output), error: error?.message ?? state.error, time: { start: time.ran, end: time.completed } },
  };
}

/**
 * A `session_message` row as a 1.x message record: `user`, `synthetic` and `shell` rows as user messages,
 * `assistant` and `compaction` rows (the ones with tokens) as assistant messages; other types (`system`,
 * `idle`, `agent-switched`, ...) are no message. Undefined for those, and for data that is not a JSON object
 * (`bad` then true).
 */
export function v2Record(r: Row): { rec?: OpencodeMessageRecord; bad?: true } {
  const data = jsonObject(r.data);
  if (data === undefined) return { bad: true };
  const id = String(r.id);
  const time = obj(data.time) ?? {};
  const created = typeof time.created === 'number' ? time.created : r.time_created;
  const completed = typeof time.completed === 'string' ? Date.parse(time.completed) : time.completed;
  const base = { id, sessionID: String(r.session_id), time: { created, completed } };
  const rec = (info: OpencodeMessageInfo, parts: OpencodePart[]): { rec: OpencodeMessageRecord } => ({ rec: { info, parts, offset: r._rowid, partOffsets: parts.map(() => r._rowid) } });
  const text = (t: unknown, synthetic?: true): OpencodePart[] => (typeof t === 'string' ? [{ id: `${id}:0`, type: 'text', text: t, ...(synthetic && { synthetic }) }] : []);
  switch (r.type) {
    case 'user':
      return rec({ ...base, role: 'user' }, text(data.text));
    case 'synthetic':
      return rec({ ...base, role: 'user' }, text(data.text, true));
    case 'shell':
      return rec({ ...base, role: 'user' }, text(typeof data.command === 'string' ? `! ${data.command}` : undefined));
    case 'assistant': {
      const model = obj(data.model) ?? {};
      const content = Array.isArray(data.content) ? data.content : [];
      const parts = content.flatMap((c, i) => partOf(c, `${id}:${String(i).padStart(4, '0')}`) ?? []);
      return rec({ ...base, role: 'assistant', modelID: model.id, providerID: model.providerID, cost: data.cost, tokens: obj(data.tokens) ?? null }, parts);
    }
    case 'compaction':
      return rec({ ...base, role: 'assistant', summary: true, modelID: obj(data.model)?.id, providerID: obj(data.model)?.providerID, cost: data.cost, tokens: obj(data.tokens) ?? null }, text(data.summary));
    default:
      return {};
  }
}

/** The records of `session_message` rows into `bySession` (not yet sorted), copies left out; what was skipped and read. */
export function v2Records(rows: readonly Row[], copies: ReadonlySet<string>, bySession: Map<string, OpencodeMessageRecord[]>): { skipped: number; bytes: number } {
  let skipped = 0;
  let bytes = 0;
  for (const r of rows) {
    if (copies.has(String(r.id))) continue;
    bytes += typeof r.data === 'string' ? r.data.length : 0;
    const { rec, bad } = v2Record(r);
    if (bad === true) skipped++;
    if (rec === undefined) continue;
    const sid = String(r.session_id);
    bySession.set(sid, [...(bySession.get(sid) ?? []), rec]);
  }
  return { skipped, bytes };
}
