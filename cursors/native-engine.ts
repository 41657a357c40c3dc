/**
 * What the codecs' native usage engines (native/claude.c, native/codex.c) share on the JavaScript side: the
 * projection an engine walks, compiled once with the slot of every field it reads, and the reading of its result
 * blocks (one layout for both engines, native/engine.c `sf_block`). Each codec's `native.ts` turns a block's
 * values into events with its own builder.
 */
import { isAscii } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { DEFAULT_MAX_LINE_BYTES, newReadInfo, type ReadInfo, type UsageBlock, type UsageScanResult } from './protocol/codec.js';
import { blankUsageEvent, type UsageEvent } from './protocol/events.js';
import { KEY_HI, KEY_LO, KEY_OF, TIME_MS, TIME_OF, type FoldHints } from './protocol/hints.js';
import { aligned8, nativeKernel, type NativeKernel } from './native.js';
import { compileProjection, slotOf, type FieldProjection } from './scan-fields.js';
import { isZstdPath } from './zstd-name.js';

/**
 * The engines' first read buffer: small enough that a chunk is still in the core's cache (1 MiB L2 here) when
 * the marker search and the walk read it after the copy. Sizes from 128 KiB to 1 MiB measured within noise of
 * each other (bench/RESULTS.md, "Fifth session"). It grows for a long line (native/lines.c, GROWTH).
 */
export const ENGINE_BUFFER_SIZE = 256 * 1024;

/** A compiled projection for an engine, with the slots of its fields in the engine's order. */
export interface NativeEngine {
  kernel: NativeKernel;
  handle: object;
  map: Int32Array;
}

/** The engine for `projection` reading `paths` (in the C enum's order), or undefined without the kernel. */
export function nativeEngine(projection: FieldProjection, paths: readonly (readonly string[])[]): NativeEngine | undefined {
  const kernel = nativeKernel();
  if (kernel === undefined) return undefined;
  const p = compileProjection(projection, kernel);
  if (p.native === undefined) return undefined;
  return { kernel, handle: p.native.handle, map: Int32Array.from(paths.map((path) => slotOf(p, path))) };
}

/**
 * String kinds in a result block (native/kernel.h): absent, a string's content, a string's or a number's JSON,
 * a canonical timestamp's content (one Date.parse accepts: its reader need not ask Date.parse again).
 */
export const ABSENT = 0;
export const PLAIN = 1;
export const JSON_TEXT = 2;
export const NUMBER_TEXT = 3;
export const TIME = 4;

/**
 * The value of the string at `strs[at…at+2]` (start, length, kind) in `text`; `ascii` is `text` as a string when
 * every byte of it is ASCII (`Block.ascii`): the value is then a slice of it, not a decoding of its own (a
 * block's strings are ids, models and timestamps: one decoding per block instead of four or five per event).
 */
export function blockValue(text: Buffer, ascii: string | undefined, strs: Int32Array, at: number): unknown {
  const kind = strs[at + 2] as number;
  if (kind === ABSENT) return undefined;
  const start = strs[at] as number;
  const end = start + (strs[at + 1] as number);
  const s = ascii !== undefined ? ascii.slice(start, end) : text.toString('utf8', start, end);
  if (kind === PLAIN || kind === TIME) return s;
  if (kind === JSON_TEXT || kind === NUMBER_TEXT) return JSON.parse(s) as unknown;
  throw new Error(`native engine: string kind ${kind}`);
}

/** `blockValue` of the string at `strs[at…]` of a block (whose `ascii` is made: see EngineBlock). */
export function valueAt(b: Block, at: number): unknown {
  return blockValue(b.text, b.ascii, b.strs, at);
}

/**
 * The fold hints an engine computed for an event (src/scan/types.ts FoldHints), from its nums at `at`: key hash
 * hi, lo, then the time (NaN where the engine left them to JavaScript). Set on every event of an engine, in
 * this order, so all its events keep one shape.
 */
export function setFoldHints(e: UsageEvent, nums: Float64Array, at: number): UsageEvent {
  const h = e as UsageEvent & FoldHints;
  h[KEY_HI] = nums[at] as number;
  h[KEY_LO] = nums[at + 1] as number;
  h[KEY_OF] = e.dedupKey;
  h[TIME_MS] = nums[at + 2] as number;
  h[TIME_OF] = e.timestamp;
  return e;
}

/** A result block's head length (native/engine.h `SF_BLOCK_HEAD`). */
const BLOCK_HEAD = 11;

/** A result block's parts (native/engine.c `sf_block` writes them for both engines). */
export interface Block {
  head: Float64Array;
  /** Events. */
  count: number;
  /** `numsPer` numbers per event. */
  nums: Float64Array;
  /** 3 int32 per string (start, length, kind), `strsPer` strings per event. */
  strs: Int32Array;
  /** The id the engine found (Codex: the session id), '' when it reports none. */
  id: string;
  /** The session's cwd, undefined when it has none. */
  cwd: string | undefined;
  /** The bytes the strings' starts count from. */
  text: Buffer;
  /**
   * `text` as a string when all its bytes are ASCII (its offsets are then byte offsets), else undefined; made
   * when the block's first event is decoded (`EngineBlock`), not while the block waits in the scan's queue.
   */
  ascii: string | undefined;
}

/**
 * The parts of a result block: head (event count, lines, filtered lines, bytes read, committed offset, pending
 * bytes, skipped lines, text length, id length, cwd length or -1, cwd escaped), nums, strs padded to 8 bytes,
 * then the id, the cwd (its content, or its JSON when it has escapes) and the text.
 */
export function readBlock(raw: Buffer, numsPer: number, strsPer: number): Block {
  const bytes = aligned8(raw);
  const head = new Float64Array(bytes.buffer, bytes.byteOffset, BLOCK_HEAD);
  const count = head[0] as number;
  const nums = new Float64Array(bytes.buffer, bytes.byteOffset + 8 * BLOCK_HEAD, numsPer * count);
  const strsAt = 8 * (BLOCK_HEAD + numsPer * count);
  const strs = new Int32Array(bytes.buffer, bytes.byteOffset + strsAt, 3 * strsPer * count);
  let at = strsAt + ((4 * 3 * strsPer * count + 7) & ~7);
  const idLen = head[8] as number;
  const id = bytes.toString('utf8', at, at + idLen);
  at += idLen;
  const cwdLen = head[9] as number;
  let cwd: string | undefined;
  if (cwdLen >= 0) {
    const s = bytes.toString('utf8', at, at + cwdLen);
    cwd = head[10] === 1 ? (JSON.parse(s) as string) : s;
    at += cwdLen;
  }
  const text = bytes.subarray(at, at + (head[7] as number));
  return { head, count, nums, strs, id, cwd, text, ascii: undefined };
}

/** A block's read counts (head[1..4] and head[6]). */
export function blockInfo(b: Block): ReadInfo {
  const info = newReadInfo();
  info.events = b.count;
  info.lines = b.head[1] as number;
  info.filteredLines = b.head[2] as number;
  info.bytes = b.head[3] as number;
  info.bytesCommitted = b.head[4] as number;
  info.skippedLines = b.head[6] as number;
  return info;
}

/** How a codec builds the k-th event of a block onto `into` (UsageBlock.decode), given the file's context. */
export type DecodeEvent<T> = (b: Block, context: T, k: number, into: UsageEvent) => UsageEvent;

/**
 * A result block as a UsageBlock: decoded event by event, by the codec's `decode`, when its consumer asks. Its
 * text is made a string (`Block.ascii`) at the first decode: a block waiting in the scan's queue holds bytes
 * outside the JavaScript heap, not strings a scavenge copies.
 */
class EngineBlock<T> implements UsageBlock {
  readonly count: number;
  #ready = false;
  readonly #b: Block;
  readonly #context: T;
  readonly #decode: DecodeEvent<T>;

  constructor(b: Block, context: T, decode: DecodeEvent<T>) {
    this.count = b.count;
    this.#b = b;
    this.#context = context;
    this.#decode = decode;
  }

  decode(k: number, into: UsageEvent): UsageEvent {
    if (!this.#ready) {
      this.#ready = true;
      const text = this.#b.text;
      this.#b.ascii = isAscii(text) ? text.toString('latin1') : undefined;
    }
    return this.#decode(this.#b, this.#context, k, into);
  }
}

/** A file's answer from an engine: its block, and its events built one object each only when asked for. */
class BlockResult implements UsageScanResult {
  readonly block: UsageBlock;
  readonly cwd: string | undefined;
  readonly info: ReadInfo;
  #events: UsageEvent[] | undefined;

  constructor(block: UsageBlock, cwd: string | undefined, info: ReadInfo) {
    this.block = block;
    this.cwd = cwd;
    this.info = info;
  }

  get events(): UsageEvent[] {
    this.#events ??= blockEvents(this.block);
    return this.#events;
  }
}

/** Every event of a block, each on a blank of its own (what a consumer that keeps them gets). */
export function blockEvents(block: UsageBlock): UsageEvent[] {
  const n = block.count;
  const events: UsageEvent[] = new Array(n);
  for (let k = 0; k < n; k++) events[k] = block.decode(k, blankUsageEvent());
  return events;
}

/**
 * A codec's `scanUsage` over its engine (0 Claude, 1 Codex; native/binding.c `scanFiles`): the engine compiled
 * on first use (undefined without the kernel), `files` read on the engines' threads, each result block handed
 * over as a UsageBlock that the codec's `decode` builds events from (given the file's `context`: Claude's
 * session id from the path), or false where the engine leaves the file to `read()`. `fileIds`: per file the id
 * C takes ('' for none).
 */
export function createUsageScanner<T>(o: {
  engine: 0 | 1;
  projection: FieldProjection;
  paths: readonly (readonly string[])[];
  nums: number;
  strs: number;
  decode: DecodeEvent<T>;
  /**
   * False leaves the file to `read()`: a block holding a value only it can refuse, line by line (checked when
   * the block arrives, as its events are built later, if at all).
   */
  accepts?: (block: Block) => boolean;
}): (files: readonly string[], fileIds: readonly string[], context: readonly T[]) => Promise<(UsageScanResult | false)[]> | undefined {
  let e: NativeEngine | undefined | null = null;
  const scan = (files: readonly string[], fileIds: readonly string[], context: readonly T[]): Promise<(UsageScanResult | false)[]> | undefined => {
    if (e === null) e = nativeEngine(o.projection, o.paths);
    if (e === undefined) return undefined;
    if (files.length === 0) return Promise.resolve([]);
    // C reads raw bytes: a compressed file is read()'s (read-zstd.ts), never the engine's.
    if (files.some(isZstdPath)) {
      const plain = files.flatMap((f, i) => (isZstdPath(f) ? [] : [i]));
      const scanned = scan(plain.map((i) => files[i] as string), plain.map((i) => fileIds[i] as string), plain.map((i) => context[i] as T));
      if (scanned === undefined) return undefined;
      return scanned.then((r) => {
        const out: (UsageScanResult | false)[] = files.map(() => false);
        plain.forEach((i, k) => (out[i] = r[k] as UsageScanResult | false));
        return out;
      });
    }
    return e.kernel.scanFiles(o.engine, files, fileIds, DEFAULT_MAX_LINE_BYTES, ENGINE_BUFFER_SIZE, e.handle, e.map).then((blocks) =>
      blocks.map((raw, i) => {
        if (raw === false) return false;
        const b = readBlock(raw, o.nums, o.strs);
        const info = blockInfo(b);
        // Text after the last LF holding a CR may be lines with CR-only ends: read() reports them (LINE_ENDING).
        if (info.bytes > info.bytesCommitted && holdsCr(files[i] as string, info.bytesCommitted, info.bytes)) return false;
        if (o.accepts !== undefined && !o.accepts(b)) return false;
        return new BlockResult(new EngineBlock(b, context[i] as T, o.decode), b.cwd, info);
      }),
    );
  };  return scan;
}

/** True when bytes [from, to) of `file` hold a CR (or cannot be read: read() then says why). */
function holdsCr(file: string, from: number, to: number): boolean {
  let fh: number | undefined;
  try {
    fh = openSync(file, 'r');
    const buf = Buffer.allocUnsafe(Math.min(1 << 16, to - from));
    for (let pos = from; pos < to; ) {
      const n = readSync(fh, buf, 0, Math.min(buf.length, to - pos), pos);
      if (n === 0) return false;
      const at = buf.indexOf(13);
      if (at !== -1 && at < n) return true;
      pos += n;
    }
    return false;
  } catch {
    return true;
  } finally {
    if (fh !== undefined) closeSync(fh);
  }
}
