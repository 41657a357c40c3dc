/**
 * `read()` for a codec whose parse is synchronous and whole (a database snapshot, a JSON document): the
 * codec's parse fills an array, and this turns it into the `read()` contract: options normalized once, the
 * kinds filter handed to the parse, `onStart`/`onCursor` for a RowCursor, `info` counts, and skipped
 * records reported through `onSkip` (or a PARSE_ERROR when strict).
 */
import type { BatchRead, NormalizedReadOptions, ReadOptions, RowCursor } from './protocol/codec.js';
import { normalizeReadOptions } from './protocol/codec.js';
import { SessionfoldError } from './protocol/errors.js';
import type { KindCounts, SessionfoldEvent } from './protocol/events.js';
import type { RowRestartReason } from './sqlite-rows.js';
import { readRegularFileSync } from './read-file.js';
import { splitRecordPath } from './record-path.js';

/** What one parse reports. */
export interface CollectedRead {
  /**
   * How a RowCursor read started; absent for a source read whole (restarted, `no-cursor`). `replaced`: per
   * kind, how many of the last events the previous read yielded this one yields again.
   */
  start?: { restarted: boolean; reason: RowRestartReason | undefined; replaced?: KindCounts };
  /** The cursor after the read; absent for a source read whole (no cursor to resume from). */
  cursor?: RowCursor;
  /** Records (rows, files, array items) and bytes of text read. */
  records: number;
  bytes: number;
  /** Records skipped as malformed. */
  skipped: number;
}

/**
 * The text of a whole-read session file: `SESSION_NOT_FOUND` when it is missing, `PARSE_ERROR` when it cannot be
 * read; an `optional` file (a log beside the session's metadata) that is missing is undefined instead.
 */
export function readSessionText(agent: string, file: string, optional: boolean): string | undefined {
  try {
    return readRegularFileSync(file);
  } catch (cause) {
    if (optional && (cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    const code = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'SESSION_NOT_FOUND' : 'PARSE_ERROR';
    throw new SessionfoldError(code, `Cannot read ${file}: ${(cause as Error).message}`, { agent, file, cause });
  }
}

/**
 * Yield what `parse` emits. `parse` gets the normalized options (their `resume.from` included) and an emit
 * function; it must honour `options.kinds`.
 */
export async function* readCollected(
  agent: string,
  file: string,
  user: ReadOptions | undefined,
  parse: (options: NormalizedReadOptions, emit: (e: SessionfoldEvent) => void) => CollectedRead | Promise<CollectedRead>,
): AsyncGenerator<SessionfoldEvent> {
  const o = normalizeReadOptions(user);
  const events: SessionfoldEvent[] = [];
  const r = await parse(o, (e) => events.push(e));
  yield* replay(agent, file, o, r, events);
}

/** `skipped` malformed records of a whole read: counted and told to `onSkip`, or a PARSE_ERROR when the read is strict. */
export function reportSkipped(agent: string, file: string, o: NormalizedReadOptions, skipped: number): void {
  if (skipped === 0) return;
  const message = `${skipped} malformed record(s) in ${file}`;
  if (o.strict) throw new SessionfoldError('PARSE_ERROR', message, { agent, file });
  o.info.skippedLines += skipped;
  const err = new SessionfoldError('MALFORMED_LINE', message, { agent, file });
  for (let i = 0; i < skipped; i++) o.onSkip?.(err);
}

/** What one parse gave, as `read()` hands it over: `onStart`, the `info` counts and skips, the events, `onCursor`. */
function* replay(agent: string, file: string, o: NormalizedReadOptions, r: CollectedRead, events: readonly SessionfoldEvent[]): Generator<SessionfoldEvent> {
  const start = r.start ?? { restarted: true, reason: 'no-cursor' as const };
  o.resume?.onStart?.({ restarted: start.restarted, ...(start.reason !== undefined && { reason: start.reason }), replaced: start.restarted ? {} : (start.replaced ?? {}) });
  o.info.bytes += r.bytes;
  o.info.lines += r.records;
  reportSkipped(agent, file, o, r.skipped);
  for (const e of events) {
    o.info.events++;
    yield e;
  }
  if (r.cursor !== undefined) o.resume?.onCursor?.({ cursor: r.cursor, partialLine: false, info: o.info });
}

/**
 * `Codec.readBatch` for a codec whose parse is synchronous and whole: `parse` reads every file at once (each
 * with its normalized options and emit function) and gives one result per read, or that read's error. Each
 * iterable then hands its read over as `readCollected` does; nothing is called back before the parse is done.
 */
export async function readCollectedBatch(
  agent: string,
  reads: readonly BatchRead[],
  parse: (options: readonly NormalizedReadOptions[], emits: readonly ((e: SessionfoldEvent) => void)[]) => (CollectedRead | Error)[],
): Promise<AsyncIterable<SessionfoldEvent>[]> {
  const options = reads.map((r) => normalizeReadOptions(r.options));
  const events = reads.map((): SessionfoldEvent[] => []);
  const results = parse(
    options,
    events.map((list) => (e: SessionfoldEvent) => list.push(e)),
  );
  return reads.map((read, i) => {
    const r = results[i];
    return (async function* () {
      if (r === undefined || r instanceof Error) throw r ?? new SessionfoldError('IO_ERROR', `No result for ${read.file}`, { agent, file: read.file });
      yield* replay(agent, read.file, options[i] as NormalizedReadOptions, r, events[i] as SessionfoldEvent[]);
    })();
  });
}

/** One session of a batch of record paths (`readRecordBatch`). */
export interface RecordRead {
  key: string;
  from: RowCursor | undefined;
  options: NormalizedReadOptions;
  emit: (e: SessionfoldEvent) => void;
}

/**
 * `Codec.readBatch` for record paths `<db>#<key>` of one database (cursors/record-path.ts): `read` gets the
 * database and each read's key, RowCursor and kinds, and gives each read's result or error.
 */
export function readRecordBatch(
  agent: string,
  reads: readonly BatchRead[],
  read: (db: string, records: RecordRead[]) => (CollectedRead | Error)[],
): Promise<AsyncIterable<SessionfoldEvent>[]> {
  return readCollectedBatch(agent, reads, (options, emits) => {
    const split = reads.map((r) => splitRecordPath(r.file));
    const db = split[0]?.db;
    if (db === undefined || split.some((p) => p.key === undefined || p.db !== db)) {
      throw new SessionfoldError('INVALID_OPTION', `${agent} reads a batch of sessions of one database only`, { agent });
    }
    return read(
      db,
      options.map((o, i) => ({
        key: split[i]?.key as string,
        from: o.resume?.from?.format === 'sqlite' ? (o.resume.from as RowCursor) : undefined,
        options: o,
        emit: emits[i] as (e: SessionfoldEvent) => void,
      })),
    );
  });
}

/** `Codec.batchKey` of a codec whose record paths read together: a record's database; undefined for a plain file. */
export function recordBatchKey(file: string): string | undefined {
  const { db, key } = splitRecordPath(file);
  return key === undefined ? undefined : db;
}
