/**
 * The native line source's driver: the same lines into the same LineCore as the LineSplitter with its marker
 * filter, but found, filtered and copied by native/lines.c. JavaScript sees only the lines that can matter
 * to the core (a usage read: a Claude transcript's usage and title lines, a rollout's usage records), so a
 * usage read no longer pays a JavaScript step per line of a history (ARCHITECTURE.md, "The native line source").
 *
 * It runs where the splitter would run with a filter (`core.markers`, no running sha256 and no `onBytes`
 * fingerprint: the native source does not hand the bytes over) and the kernel is loaded:
 * - while `core.markers(state)` is undefined, every line, in batches of 1, 2, 4, … (the core may start
 *   filtering after any line; `line()` filters the rest of a batch itself);
 * - then every line holding a marker (and passing the core's `headRule`), in batches;
 * - a line too long to buffer comes back as a LONG record and is read back here, as the splitter reads back a
 *   wanted line that spans its chunks; a line over `maxLineBytes` is skipped and counted, as there.
 * The answers are the splitter's: test/native-lines.test.ts reads every fixture and generated edge case both
 * ways and compares events, counts and cursors.
 */
import { readSync } from 'node:fs';
import type { NormalizedReadOptions } from './protocol/codec.js';
import type { SessionfoldEvent } from './protocol/events.js';
import { SessionfoldError } from './protocol/errors.js';
import { LINE, LINE_LONG, LINES_END, LINES_IO_ERROR, LINES_NEED_OUT, nativeKernel, type NativeKernel } from './native.js';
import { feedLine, kindFilter, lineSkipper, RESTART, type LineCore } from './core.js';

/** What the native scan leaves for the reader's end step (the splitter's counterparts). */
export interface NativeScanEnd {
  lines: number;
  committed: number;
  pendingBytes: number;
}

/** Reads the native source has taken in this thread (diagnostics; the tests check that it ran). */
export const nativeLineReads = { count: 0 };

/** Lines handed over per call at most. */
const RECORDS = 1024;
const OUT_BYTES = 1 << 20;
let shared: { out: Buffer; idx: Float64Array; stats: Float64Array } | undefined;

/** True when a read of `core` may take its lines from the native source. */
export function canReadNatively(core: LineCore<unknown>, options: NormalizedReadOptions, hashing: boolean): boolean {
  return core.markers !== undefined && !hashing && options.resume?.onBytes === undefined && nativeKernel() !== undefined && process.env.SESSIONFOLD_NATIVE_LINES !== '0';
}

/**
 * Read lines [from, size) of the open file `fh` into the core. A generator so that the streaming read yields
 * between batches; it returns RESTART when the core asks for it (resumed reads), else the end state.
 */
export function* scanNativeLines<S>(
  fh: number,
  core: LineCore<S>,
  state: S,
  from: number,
  size: number,
  options: NormalizedReadOptions,
  file: string,
  emit: (e: SessionfoldEvent) => void,
): Generator<void, NativeScanEnd | typeof RESTART> {
  const kernel = nativeKernel() as NativeKernel;
  const info = options.info;
  const wrapped = kindFilter(options, emit);
  const skip = lineSkipper(options, file);
  const line = (bytes: Buffer, start: number): boolean => feedLine(core, state, bytes, start, wrapped, skip);
  const bufs = (shared ??= { out: Buffer.allocUnsafeSlow(OUT_BYTES), idx: new Float64Array(5 * RECORDS), stats: new Float64Array(6) });
  let out = bufs.out;
  const idx = bufs.idx;
  const src = kernel.linesOpen(fh, from, size, options.maxLineBytes, core.headRule === 'codex-rollout' ? 1 : 0, options.bufferSize);
  nativeLineReads.count++;
  let lastBytes = 0;
  // Without markers the core may start filtering after any line: ask for 1 line, then 2, 4, … (a full read
  // soon takes RECORDS at a time; a usage read has its markers after a line or two). Lines a batch hands
  // over after the core's markers appear are filtered by `line()` itself, as the contract requires.
  let unfiltered = 1;
  let fixed: readonly Buffer[] | undefined;
  try {
    for (;;) {
      const markers = (core.markers as (s: S) => readonly Buffer[] | undefined)(state);
      if (fixed !== undefined && markers !== fixed) throw new Error(`${file}: a LineCore changed its markers mid-read (see LineCore.markers)`);
      fixed = markers;
      const n = kernel.linesNext(src, markers ?? null, out, idx, markers === undefined ? unfiltered : RECORDS);
      if (markers === undefined) unfiltered = Math.min(RECORDS, unfiltered * 2);
      if (n === LINES_END) break;
      if (n === LINES_IO_ERROR) {
        kernel.linesStats(src, bufs.stats);
        throw new SessionfoldError('IO_ERROR', `Cannot read ${file} (errno ${bufs.stats[5]})`, { file });
      }
      if (n === LINES_NEED_OUT) {
        out = Buffer.allocUnsafeSlow(Math.max((idx[0] as number) + 1, out.length * 2)); // this read only
        continue;
      }
      for (let k = 0; k < n; k++) {
        const r = 5 * k;
        const kind = idx[r] as number;
        const start = idx[r + 1] as number;
        const length = idx[r + 3] as number;
        let restart: boolean;
        if (kind === LINE) restart = length > 0 && line(out.subarray(idx[r + 2] as number, (idx[r + 2] as number) + length), start);
        else if (kind === LINE_LONG) restart = line(readBack(fh, start, length), start);
        else {
          skip(
            new SessionfoldError('LINE_TOO_LONG', `Line at byte ${start} of ${file} is ${length} bytes, over maxLineBytes ${options.maxLineBytes}`, {
              file,
              byteOffset: start,
            }),
          );
          restart = false;
        }
        if (restart) return RESTART;
      }
      kernel.linesStats(src, bufs.stats);
      info.bytes += (bufs.stats[2] as number) - lastBytes;
      lastBytes = bufs.stats[2] as number;
      yield;
    }
    const s = bufs.stats;
    kernel.linesStats(src, s);
    info.bytes += (s[2] as number) - lastBytes;
    info.filteredLines += s[1] as number;
    return { lines: s[0] as number, committed: s[3] as number, pendingBytes: s[4] as number };
  } finally {
    kernel.linesClose(src);
  }
}

/** A wanted line too long for the native buffer, read back whole (the splitter's `#readBack`). */
function readBack(fh: number, start: number, length: number): Buffer {
  const line = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fh, line, got, length - got, start + got);
    if (n <= 0) throw new SessionfoldError('IO_ERROR', `The file shrank while the line at byte ${start} was being read`, { byteOffset: start });
    got += n;
  }
  return length > 0 && line[length - 1] === 13 ? line.subarray(0, length - 1) : line;
}
