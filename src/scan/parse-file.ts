/**
 * One file → usage segments: the unit of work of the scan, run the same way on a worker thread and on the
 * main thread (so the two paths give identical records by construction).
 *
 * - It reads kinds ['session', 'usage'] without titles (`titles: false`: title records are left unread, as
 *   the native engines leave them) and tracks the file's session cwd: the cwd of the first session event that
 *   has one. Usage is held back until that cwd is known (usually from the first line) or the file ends,
 *   so every batch it posts carries the file's final cwd.
 * - Cached reads resume from the stored cursor with `verifyPrefix: false`: the cache keeps its own xxh64
 *   fingerprint of the cursor's prefix, verified here before the read and extended over the bytes the read
 *   takes as it takes them (`onBytes`: no second read), re-read only when a read ends mid-line (xxh64 15–23 ms
 *   vs sha256 77–98 ms per 100 MB on this machine: `npm run bench -- prefix`; see docs/cache.md).
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import type { Codec, ReadCursor, ReadInfo, ReadOptions, ResumeStart, UsageBlock } from '../../cursors/protocol/codec.js';
import { newReadInfo } from '../../cursors/protocol/codec.js';
import { eventChunks } from '../../cursors/protocol/chunks.js';
import type { KindCounts, SessionEvent, SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { isFileBytesError, isGoneError, isSessionfoldError } from '../../cursors/protocol/errors.js';
import { createHash64, hashesAreReady, hashesReady, type Hash64 } from '../../cursors/ids.js';
import { SegmentWriter } from './segment.js';

/** Usage events per posted segment. */
export const BATCH_EVENTS = 4096;
/** Where the file's cwd comes from: the first of its session events that has one. */
export interface SessionTrack {
  /** Session events the reads so far yielded. */
  events: number;
  /** Index (among them) of the first with a cwd, or null. */
  cwdIndex: number | null;
  cwd: string | null;
}

export function newSessionTrack(): SessionTrack {
  return { events: 0, cwdIndex: null, cwd: null };
}

/** A resumed read re-yields the last `replaced.session` session events: forget a cwd that came from one. */
export function dropReplacedSessions(track: SessionTrack, replaced: KindCounts): SessionTrack {
  const keep = Math.max(0, track.events - (replaced.session ?? 0));
  if (track.cwdIndex !== null && track.cwdIndex >= keep) return { events: keep, cwdIndex: null, cwd: null };
  return { ...track, events: keep };
}

export interface ParseTask {
  id: number;
  /** Codec id. */
  agent: string;
  path: string;
  /** Bytes this task expects to read (balancing, progress). */
  weight: number;
  /** Pass `resume` to the codec (cached reads of incremental codecs). */
  resume: boolean;
  /** Resume from this cursor. */
  cursor?: ReadCursor | undefined;
  /** xxh64 (hex) of the cursor's prefix [0, offset), verified before resuming. */
  prefixHash?: string | undefined;
  /** The session track of the stored state the cursor continues. */
  track?: SessionTrack | undefined;
  /**
   * A full read the pool may hand to the codec's native engine (`Codec.scanUsage`): it posts one `events`
   * message (or `block`, the engine's events undecoded) instead of segments, and its `done` has no cursor.
   */
  native?: boolean | undefined;
  /**
   * A batch: these tasks, files of one codec with one `batchKey` (sessions of one database), read together by
   * `Codec.readBatch` (`parseTask`); each posts its own messages under its own id. The batch's own `id` and
   * `path` are its first task's.
   */
  batch?: ParseTask[] | undefined;
}

export interface SerializedError {
  name: string;
  code?: string | undefined;
  message: string;
}

export type TaskMessage =
  | { type: 'start'; id: number; start: ResumeStart }
  | { type: 'batch'; id: number; data: Uint8Array; cwd: string | undefined; bytes: number }
  /** Usage as the events themselves: the native lane's (`Codec.scanUsage`), and a parse on the main thread's. */
  | { type: 'events'; id: number; events: readonly UsageEvent[]; cwd: string | undefined; bytes: number }
  /** Usage a native engine handed over undecoded (`UsageScanResult.block`): the native lane's, on the main thread. */
  | { type: 'block'; id: number; block: UsageBlock; cwd: string | undefined; bytes: number }
  | {
      type: 'done';
      id: number;
      cursor: ReadCursor | undefined;
      /** xxh64 of the new cursor's prefix (cached JSONL reads). */
      prefixHash: string | undefined;
      partialLine: boolean;
      info: ReadInfo;
      track: SessionTrack;
      bytesVerified: number;
      /** Read by the codec's native engine (the pool's native lane). */
      native?: true;
    }
  | { type: 'error'; id: number; error: SerializedError };

export type Post = (msg: TaskMessage, transfer?: ArrayBuffer[]) => void;

export function serializeError(e: unknown): SerializedError {
  if (e instanceof Error) return { name: e.name, code: isSessionfoldError(e) ? e.code : (e as NodeJS.ErrnoException).code, message: e.message };
  return { name: 'Error', message: String(e) };
}

/** Where a parse takes the file's events from: `codec.read()`, or its share of a batch read. */
type EventSource = (options: ReadOptions) => AsyncIterable<SessionfoldEvent>;

/**
 * Parse one file, posting start / batch… / done (or error) messages. Never throws. `source` stands for
 * `codec.read(task.path, options)` (a batch's read). `inline`: the messages stay on this thread (the pool's
 * main-thread runner), so usage goes out as `events` messages holding the events themselves: a segment is
 * for crossing to another thread, and encoding one (columns, dictionary, checksum) to decode it right back
 * cost the main thread more than its reads of a cold report's files.
 */
export async function parseFile(codec: Codec, task: ParseTask, post: Post, source?: EventSource, inline = false): Promise<void> {
  try {
    await run(codec, task, post, source ?? ((options) => codec.read(task.path, options)), inline);
  } catch (e) {
    post({ type: 'error', id: task.id, error: serializeError(e) });
  }
}

/** A promise with its resolve function. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function* later(events: Promise<AsyncIterable<SessionfoldEvent>>): AsyncGenerator<SessionfoldEvent> {
  yield* await events;
}

/**
 * Run a task: one file (`parseFile`), or a batch (`ParseTask.batch`): each of its files is parsed as alone up
 * to its read, whose options go to one `codec.readBatch`; each then takes its events from that read. When
 * the batch read fails (its database is gone), each file is read by `codec.read()` instead and fails or not
 * on its own. Never throws.
 */
export async function parseTask(codec: Codec, task: ParseTask, post: Post, inline = false): Promise<void> {
  if (!hashesAreReady()) await hashesReady(); // xxhash-wasm before a file's ids are hashed (cursors/ids.ts)
  const batch = task.batch;
  if (batch === undefined) return parseFile(codec, task, post, undefined, inline);
  const readBatch = codec.readBatch?.bind(codec);
  if (readBatch === undefined) {
    for (const t of batch) await parseFile(codec, t, post, undefined, inline);
    return;
  }
  const asked = batch.map(() => deferred<ReadOptions | undefined>());
  const given = batch.map(() => deferred<AsyncIterable<SessionfoldEvent>>());
  const runs = batch.map((t, i) =>
    parseFile(
      codec,
      t,
      post,
      (options) => {
        asked[i]?.resolve(options);
        return later((given[i] as { promise: Promise<AsyncIterable<SessionfoldEvent>> }).promise);
      },
      inline,
    ).then(() => asked[i]?.resolve(undefined)), // a parse that failed before its read asks nothing
  );
  const options = await Promise.all(asked.map((d) => d.promise));
  const reads = batch.flatMap((t, i) => (options[i] === undefined ? [] : [{ file: t.path, options: options[i], i }]));
  let shared: AsyncIterable<SessionfoldEvent>[] | undefined;
  try {
    shared = reads.length === 0 ? [] : await readBatch(reads);
  } catch {
    shared = undefined;
  }
  reads.forEach((r, k) => given[r.i]?.resolve(shared?.[k] ?? codec.read(r.file, r.options)));
  await Promise.all(runs);
}

async function run(codec: Codec, task: ParseTask, post: Post, source: EventSource, inline: boolean): Promise<void> {
  const info = newReadInfo();
  // Events parsed on the main thread go out as they are: only a worker encodes segments.
  const writer: SegmentWriter | undefined = inline ? undefined : new SegmentWriter();
  const held: Uint8Array[] = [];
  let events: UsageEvent[] = [];
  let track = task.track ?? newSessionTrack();
  let cwdKnown = false;
  let from = task.cursor;
  let startReason: ResumeStart['reason'];
  let hasher: Hash64 | undefined;
  let bytesVerified = 0;
  const jsonl = task.resume && from?.format === 'jsonl';

  if (jsonl && from?.format === 'jsonl') {
    // The cache's own prefix check (the codec is told not to re-hash with sha256).
    const fd = openSync(task.path, 'r');
    try {
      const size = fstatSync(fd).size;
      if (task.prefixHash === undefined) {
        from = undefined;
        startReason = 'no-cursor';
      } else if (size < from.offset) {
        from = undefined;
        startReason = 'file-shrunk';
      } else {
        const h = createHash64();
        bytesVerified = h.updateFromFile(fd, 0, from.offset);
        if (bytesVerified !== from.offset || h.digest() !== task.prefixHash) {
          from = undefined;
          startReason = 'prefix-changed';
        } else hasher = h;
      }
    } finally {
      closeSync(fd);
    }
  }

  const flush = (final: boolean): void => {
    if (writer !== undefined && writer.count > 0) held.push(writer.finish());
    if (!cwdKnown && !final) return;
    const cwd = track.cwd ?? undefined;
    if (events.length > 0) {
      post({ type: 'events', id: task.id, events, cwd, bytes: info.bytes });
      events = [];
    }
    for (const data of held) post({ type: 'batch', id: task.id, data, cwd, bytes: info.bytes }, [data.buffer as ArrayBuffer]);
    held.length = 0;
  };

  let start: ResumeStart | undefined;
  let cursor: ReadCursor | undefined;
  let partialLine = false;
  const onStart = (s: ResumeStart): void => {
    start = s.restarted && startReason !== undefined && s.reason === 'no-cursor' ? { ...s, reason: startReason } : s;
    if (s.restarted) {
      track = newSessionTrack();
      hasher = undefined;
    } else track = dropReplacedSessions(track, s.replaced);
    cwdKnown = track.cwd !== null;
    post({ type: 'start', id: task.id, start });
  };
  // A codec that ignores `resume` never calls onStart: its read is a full one.
  const ensureStart = (): void => {
    if (start === undefined) onStart({ restarted: true, reason: 'no-cursor', replaced: {} });
  };
  if (!task.resume) ensureStart();

  // The fingerprint of the bytes read, hashed as they go by (a read from 0, or the verified prefix extended
  // by the appended bytes), so a first read does not read every file twice.
  let stream: { h: Hash64; next: number } | undefined;
  const onBytes = (chunk: Uint8Array, position: number): void => {
    if (stream === undefined || position !== stream.next) {
      if (position === 0) stream = { h: createHash64(), next: 0 };
      else if (hasher !== undefined && from?.format === 'jsonl' && position === from.offset && stream === undefined) stream = { h: hasher, next: position };
      else {
        stream = undefined;
        return;
      }
    }
    stream.h.update(chunk);
    stream.next += chunk.byteLength;
  };

  const take = (e: SessionfoldEvent): void => {
    if (start === undefined) ensureStart();
    if (e.type === 'usage') {
      if (writer === undefined) events.push(e as UsageEvent); // on blankUsageEvent's shape, as the native lane's
      else writer.add(e);
      if ((writer !== undefined && writer.count >= BATCH_EVENTS) || events.length >= BATCH_EVENTS) flush(false);
    } else if (e.type === 'session') {
      const cwd = (e as SessionEvent).cwd;
      if (track.cwdIndex === null && typeof cwd === 'string') {
        track = { events: track.events + 1, cwdIndex: track.events, cwd };
        cwdKnown = true;
        flush(false);
      } else track = { ...track, events: track.events + 1 };
    }
  };
  const read = source({
    kinds: ['session', 'usage'],
    titles: false,
    info,
    resume: task.resume
      ? {
          from,
          verifyPrefix: false,
          onStart,
          onCursor: (u) => {
            cursor = u.cursor;
            partialLine = u.partialLine;
          },
          onBytes,
        }
      : undefined,
  });
  // By chunk where the read offers it (a JSONL read: no promise and turn per event), else event by event.
  const chunks = eventChunks(read);
  if (chunks !== undefined) for await (const chunk of chunks) for (const e of chunk) take(e);
  else for await (const e of read) take(e);
  ensureStart();
  flush(true);

  let prefixHash: string | undefined;
  if (cursor?.format === 'jsonl' && stream !== undefined && stream.next === cursor.offset && (start?.restarted !== false || stream.h === hasher)) {
    // Every byte read was committed (the file ends with LF): the streamed fingerprint is the prefix's.
    prefixHash = stream.h.digest();
  } else if (cursor?.format === 'jsonl') {
    const fd = openSync(task.path, 'r');
    try {
      const resumedFrom = !start?.restarted && from?.format === 'jsonl' ? from.offset : 0;
      // The verified prefix's hasher, unless the stream already took it past the committed bytes.
      const usable = hasher !== undefined && stream?.h !== hasher;
      const h = resumedFrom > 0 && usable ? (hasher as Hash64) : createHash64();
      const begin = h === hasher ? resumedFrom : 0;
      const want = cursor.offset - begin;
      const n = h.updateFromFile(fd, begin, cursor.offset);
      // A file rewritten under us leaves the fingerprint short: store none, so the next run reads from 0.
      prefixHash = n === want ? h.digest() : undefined;
    } finally {
      closeSync(fd);
    }
  }
  post({ type: 'done', id: task.id, cursor, prefixHash, partialLine, info, track, bytesVerified });
}

/** True when a task error means the file is gone. */
export function isMissingFileError(e: SerializedError): boolean {
  return isGoneError(e);
}

/** Whether a failed read is one of the file's bytes, not of the system (I/O, permissions): `isFileBytesError`. */
export function isFileError(e: SerializedError): boolean {
  return isFileBytesError(e);
}
