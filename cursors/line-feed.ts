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
import { feedLine, kindFilter, lineSkipper } from './core.js';
import { LineSplitter, type LineFilter } from './line-splitter.js';

export interface LineFeedOptions {
  /** Offset of the first byte pushed (a resumed read starts past its cursor). Default 0. */
  offset?: number;
  /** A running sha256 of the bytes before `offset`, extended over the committed bytes (cursors). */
  hash?: Hash | undefined;
  /** The byte-marker filter, for sources that can read a line back (files). */
  filter?: LineFilter | undefined;
  /** Asked after each line the core took: true stops the feed (a head window that has what it needs). */
  stop?: () => boolean;
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
    onLine(line, start) {
      if (halted || line.length === 0) return;
      if (feedLine(core, state, line, start, wanted, skip) || stop?.() === true) halted = true;
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
  return {
    push(chunk, n) {
      if (!halted) splitter.push(chunk, n);
      return halted;
    },
    end() {
      const replaced = core.end(state, wanted);
      info.lines += splitter.lines;
      info.bytesCommitted = splitter.committed;
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
