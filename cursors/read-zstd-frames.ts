/**
 * A JSONL log written as concatenated zstd frames, one per append (DeepSeek Harness's `session*.jsonl.zstd`,
 * codecs/dsh/README.md), read with resume at frame boundaries: a grown file is read from the end of the last
 * frame a read consumed, so only the new frames are decompressed. The frames' content goes through the same
 * line feed and LineCore as a plain file, with offsets into the decompressed text.
 *
 * - Frames are found from their structure (zstd-frames.ts) as the file is read in `bufferSize` chunks, and
 *   each is decompressed whole (fzstd, through read-zstd.ts) once it ends. A frame whose content checksum does
 *   not match, or that does not decompress, is skipped and counted like a malformed line (MALFORMED_LINE):
 *   frames are independent, so the frames after it are read. A break in the structure (no frame magic, a
 *   reserved bit) ends the read there, counted once.
 * - A frame cut by the end of the file (being written, or torn by a crash) gives the lines of its complete
 *   blocks, as its writer's own reader recovers them; they are read as not yet committed.
 * - The cursor is a JSONL cursor whose `offset` is a file offset: the end of the last frame after which the
 *   decompressed text ended with a line feed. Its `prefixHash` is the sha256 of the file's bytes before it,
 *   so the cache's fingerprint of the prefix (src/scan/parse-file.ts) applies unchanged, and `onBytes` gets the
 *   file's own bytes. Its state holds the core's snapshot at that boundary and the offset into the
 *   decompressed text; every event a read yields past the boundary (the lines of a cut frame, what the core's
 *   `end` emits) is counted in `replaced`, because the next read yields them again from there.
 * - A resumed read holds its events until it ends, as read-jsonl.ts does. The core is never asked for two
 *   passes (`LineCore.twoPass`).
 */
import { closeSync, readSync } from 'node:fs';
import type { Hash } from 'node:crypto';
import { nodeCrypto } from './builtins.js';
import type { Codec, JsonlCursor, NormalizedReadOptions, ReadOptions, ResumeStart } from './protocol/codec.js';
import { getParserString } from './protocol/codec.js';
import type { EventChunks } from './protocol/chunks.js';
import type { KindCounts, SessionfoldEvent } from './protocol/events.js';
import { SessionfoldError } from './protocol/errors.js';
import { lineSkipper, RESTART, type CoreContext, type Emit, type LineCore } from './core.js';
import { createLineFeed, keepWanted } from './line-feed.js';
import { openSessionFile } from './open-file.js';
import { hashBytes64, hashesAreReady, hashesReady } from './ids.js';
import { readByChunks, resumePoint, type StoredState } from './read-jsonl.js';
import { decompressZstdBytes, decompressZstdPrefix } from './read-zstd.js';
import { ZstdFrameError, ZstdFrameSplitter, type ZstdFrame } from './zstd-frames.js';

/** The most a frame may decompress to (its content is held whole to check its checksum before its lines are read). */
export const MAX_FRAME_CONTENT_BYTES = 256 * (1 << 20);

/** A frame cursor's state: a JSONL cursor's, and the offset into the decompressed text at its frame boundary. */
interface FrameState extends StoredState {
  plain: number;
}

const isFrameState = (v: StoredState | undefined): v is FrameState => typeof (v as Partial<FrameState> | undefined)?.plain === 'number';

/** Where a read consumed whole frames to: the file offset, the decompressed offset, the core's snapshot there. */
interface Boundary {
  offset: number;
  plain: number;
  snapshot: unknown;
}

interface ScanEnd {
  boundary: Boundary;
  /** Per kind, the events yielded past the boundary. */
  replaced: KindCounts;
  /** The read ended past its boundary (a cut frame, text without a final line feed, a break). */
  partial: boolean;
  hash: Hash | undefined;
}

/** A codec's `read()` over zstd-framed JSONL files, with events by chunk as `createJsonlRead` gives them. */
export function createZstdFrameRead<S>(
  codec: Pick<Codec, 'id' | 'parserVersion'>,
  core: LineCore<S>,
): (file: string, options?: ReadOptions) => AsyncGenerator<SessionfoldEvent> & EventChunks {
  return readByChunks(codec, core, () => readZstdFrames);
}

/** The low 32 bits of XXH64 of `content`: a zstd frame's content checksum. */
function contentChecksum(content: Uint8Array): number {
  return parseInt(hashBytes64(content).slice(8), 16);
}

/** A complete frame's content, or why it cannot be read. */
function frameContent(frame: ZstdFrame): Buffer | string {
  if (frame.bytes === undefined) return 'is too large to hold';
  const content = decompressZstdBytes(frame.bytes, MAX_FRAME_CONTENT_BYTES);
  if (content === undefined) return 'does not decompress';
  if (frame.checksum !== undefined && contentChecksum(content) !== frame.checksum) return 'fails its content checksum';
  return content;
}

/** The bytes [from, to) of `fd` into `hash` (a frame too large to have been held), through a buffer of its own. */
function hashRange(hash: Hash, fd: number, from: number, to: number): void {
  const buf = Buffer.allocUnsafe(Math.min(1 << 20, to - from));
  for (let pos = from; pos < to; ) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos);
    if (n === 0) return;
    hash.update(buf.subarray(0, n));
    pos += n;
  }
}

async function* readZstdFrames<S>(codec: Pick<Codec, 'id' | 'parserVersion'>, core: LineCore<S>, file: string, options: NormalizedReadOptions): AsyncGenerator<SessionfoldEvent[]> {
  if (!hashesAreReady()) await hashesReady(); // frame checksums are XXH64
  const parser = getParserString(codec);
  const resume = options.resume;
  const { fd, size } = openSessionFile(file, codec.id);
  try {
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(options.bufferSize, size)));
    const ctx: CoreContext = { file, options };
    const point = resumePoint(core, parser, fd, size, buf, options, ctx);
    let start: ResumeStart = point.start;
    const stored = point.stored;
    // a cursor of a plain read of this file (its offset not a frame boundary) cannot resume this one
    if (point.state !== undefined && !isFrameState(stored)) start = { restarted: true, reason: 'cursor-invalid', replaced: {} };
    else if (point.state !== undefined && isFrameState(stored)) {
      const held: SessionfoldEvent[] = [];
      const from: Boundary = { offset: point.offset, plain: stored.plain, snapshot: stored.core };
      const scan = scanFrames(codec, core, point.state, from, point.hash, fd, size, buf, options, file, (e) => held.push(e));
      let r = scan.next();
      while (!r.done) r = scan.next();
      if (r.value !== RESTART) {
        resume?.onStart?.(start);
        if (held.length > 0) yield held;
        finish(r.value);
        return;
      }
      start = { restarted: true, reason: 'id-collision', replaced: {} };
      Object.assign(options.info, { bytes: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 });
    }
    resume?.onStart?.(start);
    const state = core.init(ctx);
    const queue: SessionfoldEvent[] = [];
    const fresh = resume !== undefined && resume.verifyPrefix !== false ? nodeCrypto().createHash('sha256') : undefined;
    const origin: Boundary = { offset: 0, plain: 0, snapshot: snapshotOf(core, state) };
    const scan = scanFrames(codec, core, state, origin, fresh, fd, size, buf, options, file, (e) => queue.push(e));
    let r: IteratorResult<void, ScanEnd | typeof RESTART>;
    try {
      r = scan.next();
      while (!r.done) {
        if (queue.length > 0) yield queue.splice(0);
        r = scan.next();
      }
    } catch (e) {
      // a strict read's malformed line or frame: the events before it come first, as a plain read gives them
      if (queue.length > 0) yield queue.splice(0);
      throw e;
    }
    if (queue.length > 0) yield queue.splice(0);
    // A fresh state has no hashed ids to collide with: RESTART is never returned here.
    if (r.value !== RESTART) finish(r.value);

    function finish(end: ScanEnd): void {
      options.info.bytesCommitted = end.boundary.offset;
      if (!resume?.onCursor) return;
      const state: FrameState = { core: end.boundary.snapshot, replaced: end.replaced, kinds: [...options.kinds], plain: end.boundary.plain };
      const cursor: JsonlCursor = { format: 'jsonl', version: 1, parser, offset: end.boundary.offset, prefixHash: end.hash === undefined ? '' : end.hash.digest('hex'), state };
      resume.onCursor({ cursor, partialLine: end.partial, info: { ...options.info } });
    }
  } finally {
    closeSync(fd);
  }
}

/** The core's snapshot of `state`, copied: the state goes on changing after it. */
const snapshotOf = <S>(core: LineCore<S>, state: S): unknown => JSON.parse(JSON.stringify(core.snapshot(state))) as unknown;

/**
 * The frames of [from.offset, size) through the core, yielding after each chunk read. Each frame after which
 * the text ends with a line feed is a boundary; RESTART when the core asks for it (a resumed state's hashed id
 * collides). A boundary's snapshot is the core's state as it is until a line past the boundary changes it: it
 * is copied only then (a frame that does not end its text, a cut frame, the end of the read), not at every
 * boundary, of which dsh writes one per append.
 */
function* scanFrames<S>(
  codec: Pick<Codec, 'id'>,
  core: LineCore<S>,
  state: S,
  from: Boundary,
  hash: Hash | undefined,
  fd: number,
  size: number,
  buf: Buffer,
  options: NormalizedReadOptions,
  file: string,
  emit: Emit,
): Generator<void, ScanEnd | typeof RESTART> {
  const skip = lineSkipper(options, file);
  let since: KindCounts = {};
  const counting: Emit = (e) => {
    since[e.type] = (since[e.type] ?? 0) + 1;
    emit(e);
  };
  const feed = createLineFeed(core, state, options, file, counting, { offset: from.plain });
  const splitter = new ZstdFrameSplitter(from.offset);
  let boundary = from;
  // the boundary's snapshot is the state as it is now, not yet copied
  let live = false;
  const hold = (): void => {
    if (live) boundary = { ...boundary, snapshot: snapshotOf(core, state) };
    live = false;
  };
  let plain = from.plain;
  let clean = true;
  let restart = false;
  // frames read past the boundary: hashed when the next boundary takes them in
  let unhashed: ZstdFrame[] = [];
  const onFrame = (frame: ZstdFrame): void => {
    if (restart) return;
    const content = frameContent(frame);
    if (typeof content === 'string') {
      skip(new SessionfoldError('MALFORMED_LINE', `The zstd frame at byte ${frame.start} of ${file} ${content}: its lines are left out`, { agent: codec.id, file, byteOffset: frame.start }));
    } else if (content.length > 0) {
      const ends = content[content.length - 1] === 0x0a;
      // a frame that ends its text is the next boundary: the state before it is needed no more
      if (!ends) hold();
      if (feed.push(content, content.length)) {
        restart = true;
        return;
      }
      plain += content.length;
      clean = ends;
    }
    unhashed.push(frame);
    if (!clean) return;
    if (hash !== undefined) for (const f of unhashed) f.bytes !== undefined ? hash.update(f.bytes) : hashRange(hash, fd, f.start, f.end);
    unhashed = [];
    boundary = { offset: frame.end, plain, snapshot: undefined };
    live = true;
    since = {};
  };
  let broken = false;
  const onBytes = options.resume?.onBytes;
  for (let pos = from.offset; pos < size; ) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
    if (n === 0) break;
    options.info.bytes += n;
    onBytes?.(buf.subarray(0, n), pos);
    pos += n;
    try {
      splitter.push(buf, n, onFrame);
    } catch (e) {
      if (!(e instanceof ZstdFrameError)) throw e;
      skip(new SessionfoldError('MALFORMED_LINE', `${file} holds no zstd frame from byte ${e.offset} on (${e.message}): the rest is left out`, { agent: codec.id, file, byteOffset: e.offset }));
      broken = true;
      break;
    }
    if (restart) return RESTART;
    yield;
  }
  hold();
  let partial = broken || !clean;
  const tail = broken ? Buffer.alloc(0) : splitter.tail();
  if (tail === undefined || tail.length > 0) {
    partial = true;
    // a frame cut short: the lines of its complete blocks, as dsh's own reader recovers them
    const text = tail === undefined ? Buffer.alloc(0) : decompressZstdPrefix(tail, MAX_FRAME_CONTENT_BYTES);
    if (text.length > 0 && feed.push(text, text.length)) return RESTART;
  }
  feed.end();
  return { boundary, replaced: keepWanted(since, options), partial, hash };
}
