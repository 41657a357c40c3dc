/**
 * The file adapter around a LineCore: `fs.read` into one reused buffer, lines through the LineSplitter,
 * events out of the core, and byte-exact resume (cursors-and-versioning):
 *
 * - A cursor is valid when its parser string matches, the file is at least `offset` bytes long and the
 *   sha256 of the first `offset` bytes equals `prefixHash`. The check reads the prefix once without parsing
 *   it, and the same running hash is extended over the new bytes for the next cursor.
 * - `onStart` fires once before any event, even for an empty file; `onCursor` once when the read completes,
 *   never when the consumer breaks out or the read throws.
 * - File I/O is synchronous (`readSync` into the reused buffer, one call per chunk) inside the async
 *   generator, which still yields after every chunk. Measured on 511 MB / 1,177 files of a generated history,
 *   usage-only: the promise API spent ~25% of the wall time waiting on libuv's thread pool (open, fstat,
 *   read, close per file); a page-cached 1 MiB readSync takes a fraction of a millisecond.
 * - A resumed read buffers its events until it completes (the tail is usually small), because an id whose
 *   32-bit hash was already seen forces a restart from byte 0, and `onStart` must tell the truth before the
 *   first event. A tail larger than RESUME_BUFFER_LIMIT restarts directly (its cost is then close to a full
 *   read anyway).
 */
import { closeSync, readSync } from 'node:fs';
import { openSessionFile } from './open-file.js';
import type { Hash } from 'node:crypto';
import { nodeCrypto } from './builtins.js';
import type { Codec, JsonlCursor, NormalizedReadOptions, ReadOptions, ResumeStart } from './protocol/codec.js';
import { getParserString, normalizeReadOptions } from './protocol/codec.js';
import { withEventChunks, type EventChunks } from './protocol/chunks.js';
import type { EventKind, KindCounts, SessionfoldEvent } from './protocol/events.js';
import { SessionfoldError } from './protocol/errors.js';
import { feedLine, kindFilter, RESTART, type CoreContext, type Emit, type LineCore } from './core.js';
import { LineSplitter } from './line-splitter.js';
import { createLineFeed, keepWanted, LoneCrCounter, reportLoneCrs, type FeedEnd, type LineFeed } from './line-feed.js';
import { canReadNatively, scanNativeLines, type NativeScanEnd } from './native-lines.js';
import { hashesAreReady, hashesReady } from './ids.js';
import { wasmKernel } from './native.js';
import { readZstdJsonl } from './read-zstd.js';
import { isZstdPath } from './zstd-name.js';

/**
 * Read buffers are reused across reads (a free list, one buffer per read in flight): allocating 1 MiB per file
 * showed up as GC and copy time over thousands of small session files. A file smaller than the buffer size
 * gets a buffer of its own size rounded up to 64 KiB, so small-file reads do not pin 1 MiB each.
 */
const FREE_BUFFERS: Buffer[] = [];
const MAX_FREE_BUFFERS = 8;
/** Only buffers this module allocated (never Node's shared small-buffer pool) go back on the free list. */
const OWN = new WeakSet<ArrayBufferLike>();

function takeBuffer(bufferSize: number, fileSize: number): Buffer {
  const want = Math.max(1, Math.min(bufferSize, Math.ceil((fileSize + 1) / 65536) * 65536));
  // With the WebAssembly kernel, read straight into its memory: the marker search and the walk then run where
  // the bytes lie (a copy into it would cost half the search's speed). All its buffers taken: a plain one.
  const w = wasmKernel()?.takeReadBuffer(want);
  if (w !== undefined) return w;
  for (let i = FREE_BUFFERS.length - 1; i >= 0; i--) {
    const b = FREE_BUFFERS[i] as Buffer;
    if (b.length >= want && b.length <= bufferSize) {
      FREE_BUFFERS.splice(i, 1);
      return b.length === want ? b : b.subarray(0, want);
    }
  }
  const fresh = Buffer.allocUnsafeSlow(want);
  OWN.add(fresh.buffer);
  return fresh;
}

function giveBuffer(b: Buffer): void {
  if (wasmKernel()?.giveReadBuffer(b) === true) return;
  if (!OWN.has(b.buffer) || FREE_BUFFERS.length >= MAX_FREE_BUFFERS) return;
  FREE_BUFFERS.push(Buffer.from(b.buffer, 0, b.buffer.byteLength));
}

/** Tails larger than this are not buffered: the read restarts from byte 0 instead. */
export const RESUME_BUFFER_LIMIT = 256 * (1 << 20);

/** What a JSONL cursor's `state` holds: the core's snapshot, the events it left open, the kinds read. */
export interface StoredState {
  core: unknown;
  replaced: KindCounts;
  kinds: EventKind[];
}

export function isStoredState(v: unknown): v is StoredState {
  if (v === null || typeof v !== 'object') return false;
  const s = v as Record<string, unknown>;
  return typeof s.replaced === 'object' && s.replaced !== null && Array.isArray(s.kinds);
}

/** Whether `c` has the shape of a JSONL cursor (an empty prefixHash only for a read that does not verify it). */
export function isJsonlCursor(c: unknown, allowEmptyHash = false): c is JsonlCursor {
  const o = c as Record<string, unknown> | null;
  return !(
    o === null ||
    typeof o !== 'object' ||
    o.format !== 'jsonl' ||
    typeof o.parser !== 'string' ||
    typeof o.offset !== 'number' ||
    !Number.isSafeInteger(o.offset) ||
    o.offset < 0 ||
    typeof o.prefixHash !== 'string' ||
    !(/^[0-9a-f]{64}$/.test(o.prefixHash) || (allowEmptyHash && o.prefixHash === ''))
  );
}

/** Throw CURSOR_INVALID unless `c` has the shape of a JSONL cursor. */
export function assertJsonlCursor(c: unknown, allowEmptyHash = false): asserts c is JsonlCursor {
  if (!isJsonlCursor(c, allowEmptyHash)) {
    throw new SessionfoldError('CURSOR_INVALID', `Invalid cursor: expected {format:"jsonl", parser, offset, prefixHash}, got ${JSON.stringify(c)?.slice(0, 200)}`);
  }
}

/** sha256 of the first `length` bytes of an open file, as a live Hash (so it can be extended). */
export function hashPrefix(fd: number, length: number, buf: Buffer): Hash {
  const h = nodeCrypto().createHash('sha256');
  let pos = 0;
  while (pos < length) {
    const want = Math.min(buf.length, length - pos);
    const bytesRead = readSync(fd, buf, 0, want, pos);
    if (bytesRead === 0) break;
    h.update(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return h;
}

/** Whether a cursor stored for `stored` kinds serves a read of `wanted` ones. */
export function coversKinds(stored: readonly EventKind[], wanted: ReadonlySet<EventKind>): boolean {
  const set = new Set(stored);
  for (const k of wanted) if (!set.has(k)) return false;
  return true;
}

/** The core's state from a cursor's, or undefined when the core cannot use it (CURSOR_INVALID). */
export function restoreState<S>(core: LineCore<S>, stored: unknown, ctx: CoreContext): S | undefined {
  try {
    return core.restore(stored, ctx);
  } catch (e) {
    if (e instanceof SessionfoldError && e.code === 'CURSOR_INVALID') return undefined;
    throw e;
  }
}

/** Where a read starts: from its cursor, checked against the file (`resumePoint`), or from byte 0 and why. */
export interface ResumePoint<S> {
  start: ResumeStart;
  /** The core's restored state; undefined when the read starts from byte 0. */
  state: S | undefined;
  offset: number;
  /** The running sha256 of the bytes before `offset` (verified), or a fresh one; undefined when the read does not hash. */
  hash: Hash | undefined;
  /** The cursor's state, when the read resumes from it. */
  stored: StoredState | undefined;
}

/**
 * The cursor contract for a JSONL cursor over a file of `size` bytes open as `fd`: a cursor of another parser
 * or shape, of other kinds, past the file's end, over a tail too large to hold, or whose prefix changed
 * restarts the read, saying why; it never fails it. `buf` is a read buffer for the prefix's hash.
 */
export function resumePoint<S>(core: LineCore<S>, parser: string, fd: number, size: number, buf: Buffer, options: NormalizedReadOptions, ctx: CoreContext): ResumePoint<S> {
  const resume = options.resume;
  const verify = resume?.verifyPrefix !== false;
  const fresh = (reason: ResumeStart['reason']): ResumePoint<S> => ({
    start: { restarted: true, reason, replaced: {} },
    state: undefined,
    offset: 0,
    hash: resume && verify ? nodeCrypto().createHash('sha256') : undefined,
    stored: undefined,
  });
  const from = resume?.from;
  // A stored "no cursor" may be JSON null: the same as none.
  if (from === undefined || from === null) return fresh('no-cursor');
  if (from.format !== 'jsonl') return fresh('parser-changed');
  if (!isJsonlCursor(from, !verify)) return fresh('cursor-invalid');
  const stored = from.state;
  if (from.parser !== parser || !isStoredState(stored)) return fresh('parser-changed');
  if (!coversKinds(stored.kinds, options.kinds)) return fresh('kinds-changed');
  if (size < from.offset) return fresh('file-shrunk');
  if (size - from.offset > RESUME_BUFFER_LIMIT) return fresh('prefix-changed');
  const h = verify ? hashPrefix(fd, from.offset, buf) : undefined;
  if (h !== undefined && h.copy().digest('hex') !== from.prefixHash) return fresh('prefix-changed');
  const state = restoreState(core, stored.core, ctx);
  if (state === undefined) return fresh('cursor-invalid');
  return { start: { restarted: false, replaced: keepWanted(stored.replaced, options) }, state, offset: from.offset, hash: h, stored };
}

/**
 * Build a codec's `read()` from its LineCore. The read yields events one by one, and offers them by chunk
 * (`EventChunks`: the events of each chunk of the file, as the read hands them over anyway). A `.zst` file
 * is decompressed on the way (read-zstd.ts), never read as raw lines.
 */
export function createJsonlRead<S>(
  codec: Pick<Codec, 'id' | 'parserVersion'>,
  core: LineCore<S>,
): (file: string, options?: ReadOptions) => AsyncGenerator<SessionfoldEvent> & EventChunks {
  return readByChunks(codec, core, (file) => (isZstdPath(file) ? readZstdJsonl : readJsonl));
}

/** A read of a file by chunks of events, as `createJsonlRead` and the zstd frame reader (read-zstd-frames.ts) run one. */
export type ChunkRead = <S>(codec: Pick<Codec, 'id' | 'parserVersion'>, core: LineCore<S>, file: string, options: NormalizedReadOptions) => AsyncGenerator<SessionfoldEvent[]>;

/** A codec's `read()` over the chunk read `readFor(file)` picks: events one by one, and by chunk (`EventChunks`). */
export function readByChunks<S>(
  codec: Pick<Codec, 'id' | 'parserVersion'>,
  core: LineCore<S>,
  readFor: (file: string) => ChunkRead,
): (file: string, options?: ReadOptions) => AsyncGenerator<SessionfoldEvent> & EventChunks {
  return (file, options) => {
    const o = normalizeReadOptions(options);
    const read = readFor(file);
    return withEventChunks(oneByOne(() => read(codec, core, file, o)), () => read(codec, core, file, o));
  };
}

/** The events of `chunks()`, one by one; the read starts at the first `next()`, as a generator's body does. */
async function* oneByOne(chunks: () => AsyncGenerator<SessionfoldEvent[]>): AsyncGenerator<SessionfoldEvent> {
  for await (const chunk of chunks()) for (const e of chunk) yield e;
}

/** The read's events by chunk (never an empty one); `createJsonlRead`. */
async function* readJsonl<S>(
  codec: Pick<Codec, 'id' | 'parserVersion'>,
  core: LineCore<S>,
  file: string,
  options: NormalizedReadOptions,
): AsyncGenerator<SessionfoldEvent[]> {
  if (!hashesAreReady()) await hashesReady(); // a whole file's ids are not hashed by the JavaScript XXH64
  const parser = getParserString(codec);
  const resume = options.resume;
  let buf: Buffer | undefined;
  const { fd: fh, size } = openSessionFile(file, codec.id);
  try {
    const readBuf = takeBuffer(options.bufferSize, size);
    buf = readBuf;
    const ctx = { file, options };
    const info = options.info;

    const point = resumePoint(core, parser, fh, size, readBuf, options, ctx);
    let start = point.start;
    let state = point.state;
    const offset = point.offset;
    const verify = resume?.verifyPrefix !== false;
    let hash = point.hash;

    // A resumed read runs to completion before anything is yielded (see header); a full read streams.
    if (state !== undefined) {
      const held: SessionfoldEvent[] = [];
      const result = await scan(fh, readBuf, core, state, offset, size, hash, options, file, (e) => held.push(e));
      if (result !== RESTART) {
        resume?.onStart?.(start);
        if (held.length > 0) yield held;
        finish(result);
        return;
      }
      start = { restarted: true, reason: 'id-collision', replaced: {} };
      info.bytes = 0;
      info.lines = 0;
      info.events = 0;
      info.skippedLines = 0;
      info.filteredLines = 0;
      hash = verify ? nodeCrypto().createHash('sha256') : undefined;
    }
    resume?.onStart?.(start);
    state = core.init(ctx);
    const queue: SessionfoldEvent[] = [];
    const it = scanStreaming(fh, readBuf, core, state, size, hash, options, file, queue);
    let r: IteratorResult<void, ScanResult>;
    try {
      r = await it.next();
      while (!r.done) {
        if (queue.length > 0) yield queue.splice(0); // the consumer keeps the chunk
        r = await it.next();
      }
    } catch (e) {
      // A strict read's malformed line: the events of the lines before it come first, on every path.
      if (queue.length > 0) yield queue.splice(0);
      throw e;
    }
    if (queue.length > 0) yield queue.splice(0);
    finish(r.value);

    function finish(res: ScanResult): void {
      if (!resume?.onCursor) return;
      const cursor: JsonlCursor = {
        format: 'jsonl',
        version: 1,
        parser,
        offset: res.committed,
        prefixHash: verify ? (res.hash ?? nodeCrypto().createHash('sha256')).digest('hex') : '',
        state: { core: core.snapshot(state as S), replaced: res.replaced, kinds: [...options.kinds] } satisfies StoredState,
      };
      resume.onCursor({ cursor, partialLine: res.partialLine, info: { ...info } });
    }
  } finally {
    closeSync(fh);
    if (buf !== undefined) giveBuffer(buf);
  }
}

type ScanResult = FeedEnd;

/** The line feed of a file: the core's byte markers filter lines, and a filtered line spanning chunks is read back. */
function fileFeed<S>(fh: number, core: LineCore<S>, state: S, offset: number, hash: Hash | undefined, options: NormalizedReadOptions, file: string, emit: Emit): LineFeed {
  const markers = core.markers;
  const info = options.info;
  const filter =
    markers === undefined
      ? undefined
      : {
          markers: () => markers(state),
          onFiltered: () => void info.filteredLines++,
          filteredLines: (n: number) => void (info.filteredLines += n),
          readAt: (b: Buffer, position: number) => readSync(fh, b, 0, b.length, position),
          ...(core.walk !== undefined && core.lineWalked !== undefined && { walk: () => (core.walk as NonNullable<typeof core.walk>)(state) }),
        };
  return createLineFeed(core, state, options, file, emit, { offset, hash, filter });
}

/** Read [offset, size) into the core; RESTART when a hashed id collides. */
async function scan<S>(
  fh: number,
  buf: Buffer,
  core: LineCore<S>,
  state: S,
  offset: number,
  size: number,
  hash: Hash | undefined,
  options: NormalizedReadOptions,
  file: string,
  emit: (e: SessionfoldEvent) => void,
): Promise<ScanResult | typeof RESTART> {
  if (firstPass(fh, buf, core, state, offset, size, options, emit) === RESTART) return RESTART;
  if (canReadNatively(core as LineCore<unknown>, options, hash !== undefined)) {
    const it = scanNativeLines(fh, core, state, offset, size, options, file, emit);
    let r = it.next();
    while (!r.done) r = it.next();
    return r.value === RESTART ? RESTART : endNative(core, state, r.value, options, emit, { fh, buf, size, file });
  }
  const feed = fileFeed(fh, core, state, offset, hash, options, file, emit);
  const onBytes = options.resume?.onBytes;
  let pos = offset;
  while (pos < size) {
    const bytesRead = readSync(fh, buf, 0, Math.min(buf.length, size - pos), pos);
    if (bytesRead === 0) break;
    options.info.bytes += bytesRead;
    onBytes?.(buf.subarray(0, bytesRead), pos);
    if (feed.push(buf, bytesRead)) return RESTART;
    pos += bytesRead;
  }
  return feed.end();
}

/**
 * The first pass of a core that wants the lines twice (LineCore.twoPass): lines [offset, size) into the core,
 * read through `buf`, without hash, byte counts or skip reports (the second pass makes those); then `rewind`.
 * A strict read stops at the first malformed line, where the second pass will throw.
 */
function firstPass<S>(fh: number, buf: Buffer, core: LineCore<S>, state: S, offset: number, size: number, options: NormalizedReadOptions, emit: Emit): typeof RESTART | void {
  if (core.twoPass === undefined || !core.twoPass(state, size - offset)) return;
  const wanted = kindFilter(options, emit);
  let halted = false;
  let restart = false;
  const pass = () => {
    halted = options.strict;
  };
  const splitter = new LineSplitter({
    startOffset: offset,
    maxLineBytes: options.maxLineBytes,
    onLine(line, start) {
      if (halted || line.length === 0) return;
      if (feedLine(core, state, line, start, wanted, pass)) restart = halted = true;
    },
    onLongLine: () => undefined,
  });
  for (let pos = offset; pos < size && !halted; ) {
    const n = readSync(fh, buf, 0, Math.min(buf.length, size - pos), pos);
    if (n === 0) break;
    splitter.push(buf, n);
    pos += n;
  }
  if (restart) return RESTART;
  core.rewind?.(state);
}

/** The lone CRs of the file's bytes [from, size), read through `buf`. */
function tailCrs(fh: number, buf: Buffer, from: number, size: number): LoneCrCounter {
  const crs = new LoneCrCounter(from);
  for (let pos = from; pos < size; ) {
    const n = readSync(fh, buf, 0, Math.min(buf.length, size - pos), pos);
    if (n === 0) break;
    crs.push(buf, n);
    pos += n;
  }
  return crs;
}

/** The end of a read by the native line source, which counted its own lines. */
function endNative<S>(core: LineCore<S>, state: S, lines: NativeScanEnd, options: NormalizedReadOptions, emit: Emit, at: { fh: number; buf: Buffer; size: number; file: string }): ScanResult {
  const replaced = core.end(state, kindFilter(options, emit));
  options.info.lines += lines.lines;
  options.info.bytesCommitted = lines.committed;
  // The native source counts no CRs: the text after the last LF, which it leaves out, is checked here.
  if (lines.pendingBytes > 0) reportLoneCrs(tailCrs(at.fh, at.buf, lines.committed, at.size), lines.committed, true, options, at.file);
  return { committed: lines.committed, partialLine: lines.pendingBytes > 0, replaced: keepWanted(replaced, options), hash: undefined };
}

/** A full read from byte 0: events go to `queue`, and the generator yields after each chunk. */
async function* scanStreaming<S>(
  fh: number,
  buf: Buffer,
  core: LineCore<S>,
  state: S,
  size: number,
  hash: Hash | undefined,
  options: NormalizedReadOptions,
  file: string,
  queue: SessionfoldEvent[],
): AsyncGenerator<void, ScanResult> {
  const emit = (e: SessionfoldEvent) => queue.push(e);
  // A fresh read has no hashed ids to collide with: the first pass never restarts it.
  firstPass(fh, buf, core, state, 0, size, options, emit);
  if (queue.length > 0) yield;
  if (canReadNatively(core as LineCore<unknown>, options, hash !== undefined)) {
    const it = scanNativeLines(fh, core, state, 0, size, options, file, emit);
    let r = it.next();
    while (!r.done) {
      if (queue.length > 0) yield;
      r = it.next();
    }
    // A fresh read has no hashed ids to collide with: RESTART is never returned here.
    return endNative(core, state, r.value as NativeScanEnd, options, emit, { fh, buf, size, file });
  }
  const feed = fileFeed(fh, core, state, 0, hash, options, file, emit);
  const onBytes = options.resume?.onBytes;
  let pos = 0;
  // Read to the size seen at open: bytes appended during the read belong to the next one.
  while (pos < size) {
    const bytesRead = readSync(fh, buf, 0, Math.min(buf.length, size - pos), pos);
    if (bytesRead === 0) break;
    options.info.bytes += bytesRead;
    onBytes?.(buf.subarray(0, bytesRead), pos);
    feed.push(buf, bytesRead);
    pos += bytesRead;
    if (queue.length > 0) yield;
  }
  return feed.end();
}
