/**
 * The one driver between bytes and a LineCore. Every source — a file (read-jsonl.ts, with resume), memory
 * (sync.ts), a stream such as stdin (stream.ts) and a byte window of a file (window.ts) — pushes raw bytes
 * with their offsets into a `LineFeed`, which splits them into lines (LineSplitter), hands each to the core,
 * skips and counts what the core refuses, and ends the core. So every source filters, skips and counts
 * offsets the same way: offsets are byte offsets of the input whatever its encoding (a stream is never
 * decoded and re-encoded), and only the file source adds resume and the byte-marker filter.
 */
import type { Hash } from 'node:crypto';
import type { Emit, LineCore, NormalizedReadOptions } from './protocol/codec.js';
import type { KindCounts } from './protocol/events.js';
import { SessionfoldError } from './protocol/errors.js';
import { feedLine, feedWalked, kindFilter, lineSkipper } from './core.js';
import { LineSplitter, type LineFilter } from './line-splitter.js';
import type { WasmKernel } from './wasm.js';

export interface LineFeedOptions {
  /** Offset of the first byte pushed (a resumed read starts past its cursor). Default 0. */
  offset?: number;
  /** A running sha256 of the bytes before `offset`, extended over the committed bytes (cursors). */
  hash?: Hash | undefined;
  /** The byte-marker filter, for sources that can read a line back (files). */
  filter?: LineFilter | undefined;
  /** Asked after each line the core took: true stops the feed (a head window that has what it needs). */
  stop?: () => boolean;
  /** The WebAssembly kernel whose pass splits (and walks) chunks in its memory (default: the one in use; tests give their own). */
  wasm?: WasmKernel | undefined;
}

/** What a feed ends with. */
export interface FeedEnd {
  /** Offset just past the last LF-terminated line. */
  committed: number;
  /** The input ended inside a line, which was left out. */
  partialLine: boolean;
  /** Per kind the read wants, how many of the last events the core left open (`LineCore.end`). */
  replaced: KindCounts;
  hash: Hash | undefined;
}

export interface LineFeed {
  /** Push `chunk[0, n)`; true when the core asked to restart from byte 0 (`RESTART`) or `stop` said so. */
  push(chunk: Buffer, n: number): boolean;
  /** End the input: the core emits what is pending; counters go to `options.info`. */
  end(): FeedEnd;
}

/** A feed of `core` in `state`, emitting the kinds `options` wants to `emit`. */
export function createLineFeed<S>(
  core: LineCore<S>,
  state: S,
  options: NormalizedReadOptions,
  file: string,
  emit: Emit,
  feed: LineFeedOptions = {},
): LineFeed {
  const info = options.info;
  const wanted = kindFilter(options, emit);
  const skip = lineSkipper(options, file);
  const stop = feed.stop;
  let halted = false;
  const splitter = new LineSplitter({
    startOffset: feed.offset ?? 0,
    maxLineBytes: options.maxLineBytes,
    hash: feed.hash,
    filter: feed.filter,
    wasm: feed.wasm,
    onLine(line, start) {
      if (halted || line.length === 0) return;
      if (feedLine(core, state, line, start, wanted, skip) || stop?.() === true) halted = true;
    },
    onWalked:
      core.lineWalked === undefined || feed.filter?.walk === undefined
        ? undefined
        : (walked, start) => {
            if (halted) return;
            if (feedWalked(core, state, walked, start, wanted, skip) || stop?.() === true) halted = true;
          },
    onLongLine(start, _next, length) {
      if (halted) return;
      skip(
        new SessionfoldError('LINE_TOO_LONG', `Line at byte ${start} of ${file} is ${length} bytes, over maxLineBytes ${options.maxLineBytes}`, {
          file,
          byteOffset: start,
        }),
      );
    },
  });
  const crs = new LoneCrCounter(feed.offset ?? 0);
  return {
    push(chunk, n) {
      if (!halted) {
        crs.push(chunk, n);
        splitter.push(chunk, n);
      }
      return halted;
    },
    end() {
      const replaced = core.end(state, wanted);
      info.lines += splitter.lines;
      info.bytesCommitted = splitter.committed;
      if (!halted) reportLoneCrs(crs, splitter.committed, splitter.pendingBytes > 0, options, file);
      return { committed: splitter.committed, partialLine: splitter.pendingBytes > 0, replaced: keepWanted(replaced, options), hash: splitter.hash };
    },
  };
}

/** The counts of the kinds the read wants. */
export function keepWanted(counts: KindCounts, options: NormalizedReadOptions): KindCounts {
  const out: KindCounts = {};
  for (const [k, n] of Object.entries(counts) as [keyof KindCounts, number][]) if (n > 0 && options.kinds.has(k)) out[k] = n;
  return out;
}

/**
 * Counts lone CRs (a CR byte not followed by LF) in the bytes pushed, across chunk boundaries. JSONL lines
 * end with LF (a CRLF line ends with LF too); a file whose lines end with CR alone (classic Mac line ends,
 * a tool that rewrote them) is, to an LF splitter, one line that never ends. Such a line is never read, so
 * it is reported instead of silently left out (`reportLoneCrs`); offsets stay the byte offsets of the input.
 */
export class LoneCrCounter {
  /** Lone CRs seen, and the offset of the last one (-1: none yet). */
  count = 0;
  last = -1;
  first = -1;
  #pos: number;
  /** The previous chunk ended with a CR: lone unless the next chunk starts with LF. */
  #crAtEnd = false;

  constructor(offset: number) {
    this.#pos = offset;
  }

  push(chunk: Uint8Array, n: number): void {
    if (n === 0) return;
    if (this.#crAtEnd && chunk[0] !== 10) this.#add(this.#pos - 1);
    this.#crAtEnd = false;
    let i = chunk.indexOf(13);
    while (i !== -1 && i < n) {
      if (i === n - 1) this.#crAtEnd = true;
      else if (chunk[i + 1] !== 10) this.#add(this.#pos + i);
      i = chunk.indexOf(13, i + 1);
    }
    this.#pos += n;
  }

  /** The input ended: a CR that was its last byte is lone. */
  end(): void {
    if (this.#crAtEnd) this.#add(this.#pos - 1);
    this.#crAtEnd = false;
  }

  #add(at: number): void {
    if (this.first === -1) this.first = at;
    this.last = at;
    this.count++;
  }
}

/**
 * Report the lone CRs a read met, with code LINE_ENDING, once per read. When they split the unfinished text
 * after the last LF (the part the read leaves out; a CR-only file is all of it) it is skipped and counted
 * as one skipped line. Lone CRs inside LF-terminated lines are only named (through `onSkip`, not counted
 * again): JSON allows a CR only as whitespace between tokens, so such a line was either read or refused and
 * counted as malformed, and the warning says why.
 */
export function reportLoneCrs(crs: LoneCrCounter, committed: number, partialLine: boolean, options: NormalizedReadOptions, file: string): void {
  crs.end();
  if (crs.count === 0) return;
  const inTail = partialLine && crs.last >= committed;
  const what = inTail
    ? `the text after byte ${committed} is left out (JSONL lines end with LF; it has none, so it reads as one unfinished line)`
    : 'JSONL lines end with LF, so a CR alone does not end a line';
  const err = new SessionfoldError('LINE_ENDING', `${file} has ${crs.count} lone CR line end${crs.count === 1 ? '' : 's'} (CR without LF), the first at byte ${crs.first}: ${what}`, {
    file,
    byteOffset: crs.first,
  });
  if (inTail) lineSkipper(options, file)(err);
  else options.onSkip?.(err);
}
