/**
 * Reading Antigravity's conversation databases (`conversations/<id>.db`): the token attempts of every
 * `gen_metadata` row as usage events, through a read-only snapshot (cursors/sqlite.ts: nothing in the agent's
 * folder is created or changed). A conversation read from its database alone is a session event and its usage;
 * a step log whose conversation has a database is read whole, its steps then the database's usage (README.md).
 */
import { readFileSync, statSync } from 'node:fs';
import type { CollectedRead } from '../../cursors/read-collected.js';
import { feedLine, kindFilter } from '../../cursors/core.js';
import type { NormalizedReadOptions, RowCursor } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { agentSnapshot } from '../../cursors/sqlite-events.js';
import { databaseIdentity, hasTable, type SqliteDatabase } from '../../cursors/sqlite.js';
import { readRowsSince, withCodecState, type RowSource } from '../../cursors/sqlite-rows.js';
import { decodeGenRow, decodeTrajectory, enumName, priceModelName } from './gen-metadata.js';
import { createAntigravityCore } from './parse.js';
import { CODEC_ID } from './paths.js';

/** The model of a generation that names none, before any row of the conversation named one (ccusage's name). */
export const FALLBACK_MODEL = 'gemini-internal-model';

/** What one database holds for its conversation. */
export interface ConversationUsage {
  /** Usage events, offsets from 0 in row order (the caller shifts them). */
  usage: UsageEvent[];
  /** `gen_metadata` rows whose blob did not decode. */
  skipped: number;
  rows: number;
  bytes: number;
  startMs: number | undefined;
  cwd: string | undefined;
}

function trajectoryOf(db: SqliteDatabase): { startMs: number | undefined; cwd: string | undefined } {
  if (!hasTable(db, 'trajectory_metadata_blob')) return { startMs: undefined, cwd: undefined };
  for (const r of db.prepare('SELECT data FROM trajectory_metadata_blob ORDER BY rowid').iterate() as Iterable<{ data: unknown }>) {
    if (!(r.data instanceof Uint8Array)) continue;
    try {
      const t = decodeTrajectory(r.data);
      if (t.startMs !== undefined || t.cwd !== undefined) return t;
    } catch {
      // a blob of another shape: the start falls back to the first generation's time
    }
  }
  return { startMs: undefined, cwd: undefined };
}

/** What a read of a database carries from one generation row to the next (and, resumed, from one read to the next). */
export interface UsageFold {
  /** The last model a row named. */
  model: string | undefined;
  /** The last generation time (epoch ms). */
  lastMs: number;
  /** Usage events so far (the next one's offset from 0). */
  count: number;
  /** The first usage event's time (epoch ms): a resumed read's session start when no trajectory gives one. */
  firstMs?: number;
}

/** Whether a row read before this read (a resumed one) had an attempt with this id; never, for a whole read. */
type SeenBefore = (id: string) => boolean;

/**
 * Fold generation rows (`{idx, data}`, in `idx` order) into `out.usage`, from `fold` on. An attempt whose id an
 * earlier one had (a retry the final usage repeats, a response saved again) counts once: the ids of this read's
 * rows are kept while it lasts, the earlier rows' asked of the database (`seenBefore`), so no cursor holds them.
 * The model: the attempt's enum, else the row's name, else the last one an earlier row named.
 */
function foldRows(rows: Iterable<Record<string, unknown>>, conversation: string, fold: UsageFold, out: ConversationUsage, seenBefore: SeenBefore = () => false): void {
  const seen = new Set<string>();
  // a conversation names a few models over many rows: each raw name is mapped once per read
  const names = new Map<string | number, string | undefined>();
  const nameOf = (raw: string | number): string | undefined => {
    if (!names.has(raw)) names.set(raw, priceModelName(typeof raw === 'number' ? enumName(raw) : raw));
    return names.get(raw);
  };
  for (const r of rows) {
    out.rows++;
    if (!(r.data instanceof Uint8Array)) {
      out.skipped++;
      continue;
    }
    out.bytes += r.data.length;
    let row;
    try {
      row = decodeGenRow(r.data);
    } catch {
      out.skipped++;
      continue;
    }
    const named = row.model === undefined ? undefined : nameOf(row.model);
    if (named !== undefined) fold.model = named;
    if (row.timeMs !== undefined) fold.lastMs = row.timeMs;
    for (const a of row.attempts) {
      if (a.id !== undefined && (seen.has(a.id) || seenBefore(a.id))) continue;
      if (a.id !== undefined) seen.add(a.id);
      // the attempt's own model enum first: a retry may have gone to another model than the row names
      const m = (a.modelEnum === undefined ? undefined : nameOf(a.modelEnum)) ?? fold.model;
      fold.firstMs ??= fold.lastMs;
      out.usage.push(
        usageEventOf(CODEC_ID, conversation, fold.count++, {
          model: m ?? FALLBACK_MODEL,
          modelFallback: m === undefined,
          provider: undefined,
          timestamp: new Date(fold.lastMs).toISOString(),
          inputTokens: a.input,
          outputTokens: a.output,
          reasoningTokens: a.thinking,
          cacheReadTokens: a.cacheRead,
          cacheWriteTokens: a.cacheWrite,
          singleRequest: true,
          dedupKey: a.id !== undefined ? `${CODEC_ID}:${a.id}` : `${CODEC_ID}:${conversation}:${String(r.idx)}:${a.attempt}`,
          messageId: a.id,
        }),
      );
    }
  }
}

/** A fresh fold: no model yet, times from the conversation's start, else the database's mtime. */
const newFold = (startMs: number | undefined, mtimeMs: number): UsageFold => ({ model: undefined, lastMs: startMs ?? mtimeMs, count: 0 });

/**
 * `SeenBefore` over the rows at or below `watermark` (those a resumed read read before): the rows whose blob
 * holds the id's bytes, decoded, name it as an attempt's id. The same rows a whole read would have seen first.
 */
function seenAtOrBelow(db: SqliteDatabase, watermark: number): SeenBefore {
  const candidates = db.prepare('SELECT data FROM gen_metadata WHERE rowid <= ? AND instr(data, ?) > 0');
  return (id) =>
    (candidates.all(watermark, Buffer.from(id, 'utf8')) as { data: unknown }[]).some((r) => {
      if (!(r.data instanceof Uint8Array)) return false;
      try {
        return decodeGenRow(r.data).attempts.some((a) => a.id === id);
      } catch {
        return false; // a row a whole read skips
      }
    });
}

/** The fold a cursor carries, without what older cursors kept beside it (the ids seen). */
const foldOf = (f: UsageFold): UsageFold => ({ model: f.model, lastMs: f.lastMs, count: f.count, ...(f.firstMs !== undefined && { firstMs: f.firstMs }) });

/** Every token-bearing attempt of `conversation`'s generations, read whole (`foldRows`). */
export function conversationUsage(db: SqliteDatabase, conversation: string, mtimeMs: number): ConversationUsage {
  const out: ConversationUsage = { usage: [], skipped: 0, rows: 0, bytes: 0, ...trajectoryOf(db) };
  if (!hasTable(db, 'gen_metadata')) return out;
  foldRows(db.prepare('SELECT idx, data FROM gen_metadata ORDER BY idx').iterate() as Iterable<{ idx: unknown; data: unknown }>, conversation, newFold(out.startMs, mtimeMs), out);
  return out;
}

function mtimeOf(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

/** `gen_metadata` as a row source: read past its watermark; a row deleted or rewritten to another length below it restarts the read. */
const GEN_SOURCE: RowSource = { name: 'gen_metadata', table: 'gen_metadata', columns: 'idx, data', fingerprint: 'length(data)' };

/** The codec's part of a database's cursor: the fold after the last row read, the last model and the kinds read. */
interface DbCursorState {
  fold: UsageFold;
  kinds: string;
}

function isDbState(v: unknown): v is DbCursorState {
  const s = v as DbCursorState | null;
  return s !== null && typeof s === 'object' && typeof s.kinds === 'string' && typeof s.fold === 'object' && s.fold !== null && typeof s.fold.count === 'number' && typeof s.fold.lastMs === 'number' && (s.fold.firstMs === undefined || typeof s.fold.firstMs === 'number');
}

/**
 * A conversation's database as `read()` gives it: a session event, then its usage (offsets 1, 2, …). Resumed
 * from its RowCursor, it reads only the generation rows past the watermark, and yields the session event again
 * (it replaces the last one: the model and `usageRecorded` move with new rows).
 */
export function readDbSession(file: string, conversation: string, parser: string, o: NormalizedReadOptions, emitAll: (e: SessionfoldEvent) => void): CollectedRead {
  const emit = kindFilter(o, emitAll);
  const kinds = [...o.kinds].sort().join(',');
  const from = o.resume?.from?.format === 'sqlite' ? (o.resume.from as RowCursor) : undefined;
  const got = agentSnapshot(CODEC_ID, file, (d) => {
    const out: ConversationUsage = { usage: [], skipped: 0, rows: 0, bytes: 0, ...trajectoryOf(d) };
    if (!hasTable(d, 'gen_metadata')) return { out, read: undefined, fold: undefined };
    const identity = databaseIdentity(file) ?? { dev: 0, ino: 0 };
    let read = readRowsSince(d, [GEN_SOURCE], from, parser, identity);
    if (!read.restarted && (!isDbState(read.codecState) || read.codecState.kinds !== kinds)) read = { ...readRowsSince(d, [GEN_SOURCE], undefined, parser, identity), reason: 'kinds-changed' };
    // a copy: the fold moves as rows are read, and the cursor resumed from (the caller's) must stay as it was
    const resumed = !read.restarted && isDbState(read.codecState);
    const fold = resumed ? foldOf((read.codecState as DbCursorState).fold) : newFold(out.startMs, mtimeOf(file));
    const below = resumed ? from?.watermark[GEN_SOURCE.name] : undefined;
    foldRows(read.rows.gen_metadata ?? [], conversation, fold, out, below === undefined ? undefined : seenAtOrBelow(d, below));
    return { out, read, fold };
  });
  const { out, read, fold } = got;
  const resumed = read !== undefined && !read.restarted;
  const startMs = out.startMs ?? fold?.firstMs;
  const startedAt = startMs !== undefined ? new Date(startMs).toISOString() : undefined;
  const recorded = (fold?.count ?? 0) > 0;
  emit(sessionEventOf(CODEC_ID, conversation, 0, { startedAt, cwd: out.cwd, model: fold?.model ?? out.usage.at(-1)?.model, usageRecorded: recorded || undefined, usageUnknown: !recorded || undefined }));
  for (const u of out.usage) emit({ ...u, offset: u.offset + 1 });
  const base = { records: out.rows, bytes: out.bytes, skipped: out.skipped };
  if (read === undefined || fold === undefined) return base;
  return {
    ...base,
    start: { restarted: read.restarted, reason: read.reason, ...(resumed && { replaced: { session: 1 } }) },
    cursor: withCodecState(read.cursor, { fold, kinds } satisfies DbCursorState),
  };
}

/**
 * A step log whose conversation has a database, read whole: its steps (the session event says whether the
 * database recorded tokens), then the database's usage at offsets past the log's end. A database that cannot
 * be read counts as one skipped record, and the steps still come.
 */
export function readStepLogWithDb(file: string, dbFile: string, conversation: string, o: NormalizedReadOptions, emitAll: (e: SessionfoldEvent) => void): CollectedRead {
  const emit = kindFilter(o, emitAll);
  let got: ConversationUsage | undefined;
  try {
    got = agentSnapshot(CODEC_ID, dbFile, (d) => conversationUsage(d, conversation, mtimeOf(dbFile)));
  } catch {
    got = undefined;
  }
  const bytes = readFileSync(file);
  const core = createAntigravityCore(conversation, (got?.usage.length ?? 0) > 0, got?.cwd);
  const state = core.init({ file, options: o });
  let skipped = got === undefined ? 1 : got.skipped;
  let records = got?.rows ?? 0;
  for (let start = 0, lf = bytes.indexOf(10); lf !== -1; start = lf + 1, lf = bytes.indexOf(10, start)) {
    const end = lf > start && bytes[lf - 1] === 13 ? lf - 1 : lf;
    records++;
    // over the read's limit: skipped and counted, as a step log read without its database skips it
    if (end - start > o.maxLineBytes) skipped++;
    else if (end > start) feedLine(core, state, bytes.subarray(start, end), start, emit, () => skipped++);
  }
  core.end(state, emit);
  for (const u of got?.usage ?? []) emit({ ...u, offset: bytes.length + u.offset });
  return { records, bytes: bytes.length + (got?.bytes ?? 0), skipped };
}
