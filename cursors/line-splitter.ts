/**
 * The pure, synchronous heart of the line reader: bytes in, LF-terminated lines out, with their byte
 * offsets. No `node:fs` here; the file reader (read-lines.ts), `parseSync` and the stdin path wrap it.
 *
 * - A line is yielded as a Buffer slice of the chunk (or of the carry buffer when it spans chunks),
 *   without its LF and without a trailing CR. The slice is only valid during the callback.
 * - A final line without LF is held back: never yielded or counted until its LF arrives.
 * - A line longer than `maxLineBytes` is skipped and counted without ever being buffered whole.
 * - When given a hash, it hashes exactly the committed bytes (up to and including the last LF), in at most
 *   a few `update` calls per chunk, so a cursor's prefixHash costs no second pass.
 */
import type { Hash } from 'node:crypto';
import { SessionfoldError } from './protocol/errors.js';
import { indexOfIn, wasmKernel } from './native.js';
import { PASS_RECORDS, WALK_HEAD, type WasmKernel, type WasmProjection } from './wasm.js';
import type { WalkedLine } from './protocol/codec.js';
import { wasmProjectionOf, type CompiledProjection } from './scan-fields.js';

/** `line` excludes LF and a trailing CR; `start` is the file offset of its first byte; `next` the offset past its LF. */
export type LineHandler = (line: Buffer, start: number, next: number) => void;
/** A line the WebAssembly pass walked (`LineFilter.walk`): `walked` its fields and bytes, `start` and `next` as for LineHandler. */
export type WalkedHandler = (walked: WalkedLine, start: number, next: number) => void;
/** An over-long line was skipped: `start` and `next` as for LineHandler; `length` its byte length. */
export type LongLineHandler = (start: number, next: number, length: number) => void;

export interface LineSplitterOptions {
  /** File offset of the first byte pushed. */
  startOffset: number;
  maxLineBytes: number;
  onLine: LineHandler;
  onLongLine: LongLineHandler;
  /** Running sha256 of the bytes before startOffset; the splitter extends it with committed bytes. */
  hash?: Hash | undefined;
  /**
   * File reads only, without a hash: a line filter by byte markers. `markers()` (asked at a chunk's start and
   * after every line handed over; undefined: every line matters) names what a line must contain to matter:
   * - a line inside a chunk without any goes to `onFiltered`, found by one marker search per stretch of
   *   such lines instead of a Buffer view and a search per line;
   * - a line that spans read chunks is never copied: its bytes are searched as they go by, and it goes to
   *   `onFiltered` unseen, or, when it matters, is read back whole with `readAt` at its LF. Long tool results
   *   and pasted files (lines of megabytes) are mostly lines a usage read does not want.
   */
  filter?: LineFilter | undefined;
  /** The WebAssembly kernel whose pass may split chunks in its memory (default: the one in use, if any). */
  wasm?: WasmKernel | undefined;
  /** With a filter whose `walk` names a projection: the lines the pass walked go here instead of `onLine`. */
  onWalked?: WalkedHandler | undefined;
}

/** See `LineSplitterOptions.filter`. */
export interface LineFilter {
  markers(): readonly Buffer[] | undefined;
  onFiltered(start: number, next: number): void;
  /**
   * `count` lines without a marker, told together (their offsets unknown): when given, a chunk that lies in
   * the WebAssembly kernel's memory is split and filtered there in one pass (`WasmKernel.pass`), and only the
   * lines that can matter come back to JavaScript.
   */
  filteredLines?(count: number): void;
  /** Fill `buf` from file offset `position`; returns the bytes read. */
  readAt(buf: Buffer, position: number): number;
  /**
   * A projection (`compileProjection`) for the pass to walk each line holding a marker with (`onWalked`), or
   * undefined; asked with `markers()` at a chunk's start and when they change.
   */
  walk?(): object | undefined;
}

/** The WebAssembly projection of a filter's walk, when there is one the kernel can run. */
function walkOf(filter: LineFilter, w: WasmKernel): WasmProjection | undefined {
  const p = filter.walk?.() as CompiledProjection | undefined;
  return p === undefined ? undefined : wasmProjectionOf(p, w);
}

/**
 * The next occurrence of any of a set of markers in one chunk, from a position that only moves forward: each
 * marker's next occurrence is remembered and searched again only once the position passes it, so a chunk
 * costs one pass per marker however many lines ask (a rare marker is not searched to the chunk's end per line).
 */
class MarkerHits {
  readonly #hay: Buffer;
  readonly #to: number;
  #markers: readonly Buffer[] | undefined;
  /** Per marker: its next start at or after the last position asked (-1: none before the chunk's end). */
  #at: number[] = [];

  constructor(hay: Buffer, to: number) {
    this.#hay = hay;
    this.#to = to;
  }

  /** Start of the first occurrence of any of `markers` wholly inside `[from, to)`, or -1. */
  next(markers: readonly Buffer[], from: number): number {
    if (markers !== this.#markers) {
      this.#markers = markers;
      this.#at = markers.map(() => -2); // -2: not searched yet
    }
    let best = -1;
    for (let k = 0; k < markers.length; k++) {
      let at = this.#at[k] as number;
      if (at === -2 || (at !== -1 && at < from)) {
        const m = markers[k] as Buffer;
        at = indexOfIn(this.#hay, m, from, this.#to);
        this.#at[k] = at;
      }
      if (at !== -1 && (best === -1 || at < best)) best = at;
    }
    return best;
  }
}

/** Does `hay[from, to)` contain any of `markers`? */
function hasMarker(hay: Buffer, from: number, to: number, markers: readonly Buffer[]): boolean {
  for (const m of markers) if (indexOfIn(hay, m, from, to) !== -1) return true;
  return false;
}

/** `SESSIONFOLD_WASM_PASS=0` leaves the WebAssembly kernel's whole-chunk pass unused (the search and walk still run there). */
const PASS = process.env.SESSIONFOLD_WASM_PASS !== '0';

export class LineSplitter {
  #carry: Buffer = Buffer.allocUnsafe(0);
  #carryLen = 0;
  /** File offset of the first byte of the current (unterminated) line. */
  #lineStart: number;
  /** File offset of the next byte to be pushed. */
  #pos: number;
  #skipping = false;
  #skipHash: Hash | undefined;
  #hash: Hash | undefined;
  #lines = 0;
  readonly #max: number;
  readonly #onLine: LineHandler;
  readonly #onLongLine: LongLineHandler;
  readonly #filter: LineFilter | undefined;
  readonly #wasm: WasmKernel | undefined;
  /** A line spanning chunks without a copy: 0 none, 1 no marker seen yet, 2 wanted (read back at its LF). */
  #span: 0 | 1 | 2 = 0;
  #spanMarkers: readonly Buffer[] = [];
  /** The last bytes of the spanning line (a marker may straddle two chunks). */
  #spanTail: Buffer = Buffer.alloc(0);
  readonly #onWalked: WalkedHandler | undefined;
  /** What `onWalked` gets: one object, its record's place set per line. */
  readonly #walked: { bytes: Buffer; spans: Int32Array; at: number; nums: Float64Array; numAt: number; lineAt: number; lineEnd: number } | undefined;

  constructor(options: LineSplitterOptions) {
    this.#lineStart = options.startOffset;
    this.#pos = options.startOffset;
    this.#max = options.maxLineBytes;
    this.#onLine = options.onLine;
    this.#onLongLine = options.onLongLine;
    this.#hash = options.hash;
    this.#filter = options.hash === undefined ? options.filter : undefined;
    this.#wasm = PASS ? (options.wasm ?? wasmKernel()) : undefined;
    this.#onWalked = options.onWalked;
    const w = this.#wasm;
    this.#walked = w === undefined || this.#onWalked === undefined ? undefined : { bytes: w.bytes, spans: w.walked.recs, at: 0, nums: w.walked.nums, numAt: 0, lineAt: 0, lineEnd: 0 };
  }

  /** Offset just past the last LF seen. */
  get committed(): number {
    return this.#lineStart;
  }

  /** Bytes after the last LF (an unterminated final line). */
  get pendingBytes(): number {
    return this.#pos - this.#lineStart;
  }

  /** LF-terminated lines seen, over-long ones included. */
  get lines(): number {
    return this.#lines;
  }

  /** The hash of bytes [0, committed) when a hash was given. */
  get hash(): Hash | undefined {
    return this.#hash;
  }

  /** Feed `chunk[0..length)`. The caller may reuse `chunk` as soon as this returns. */
  push(chunk: Buffer, length: number = chunk.length): void {
    const base = this.#pos;
    let i = 0;
    /** Start, in this chunk, of committed bytes not yet hashed. */
    let hashFrom = 0;
    if (this.#span !== 0) {
      // Only the first LF of a chunk can finish a spanning line.
      const lf = chunk.indexOf(10, 0);
      const end = lf !== -1 && lf < length ? lf : length;
      const total = base + end - this.#lineStart;
      if (total > this.#max) {
        this.#span = 0;
        if (end === length) {
          this.#skipping = true;
          this.#pos = base + length;
          return;
        }
        this.#lines++;
        this.#onLongLine(this.#lineStart, base + lf + 1, total);
        this.#lineStart = base + lf + 1;
        i = lf + 1;
      } else {
        if (this.#span === 1 && this.#spanSees(chunk, end)) this.#span = 2;
        if (end === length) {
          if (this.#span === 1) this.#keepTail(chunk, 0, length);
          this.#pos = base + length;
          return;
        }
        const next = base + lf + 1;
        this.#lines++;
        if (this.#span === 2) this.#readBack(this.#lineStart, total, next);
        else (this.#filter as LineFilter).onFiltered(this.#lineStart, next);
        this.#span = 0;
        this.#lineStart = next;
        i = lf + 1;
      }
    }
    // Only the first line of a chunk can finish a carried or a skipped line.
    else if (this.#skipping || this.#carryLen > 0) {
      const lf = chunk.indexOf(10, 0);
      if (lf !== -1 && lf < length) {
        const next = base + lf + 1;
        this.#lines++;
        if (this.#skipping) {
          const h = this.#skipHash;
          if (h !== undefined) {
            h.update(chunk.subarray(0, lf + 1));
            this.#hash = h;
            this.#skipHash = undefined;
            hashFrom = lf + 1;
          }
          this.#skipping = false;
          this.#onLongLine(this.#lineStart, next, next - this.#lineStart - 1);
        } else {
          const total = this.#carryLen + lf;
          this.#hash?.update(this.#carry.subarray(0, this.#carryLen));
          if (total > this.#max) {
            this.#onLongLine(this.#lineStart, next, total);
          } else {
            this.#appendCarry(chunk, 0, lf);
            let end = this.#carryLen;
            if (end > 0 && this.#carry[end - 1] === 13) end--;
            this.#onLine(this.#carry.subarray(0, end), this.#lineStart, next);
          }
          this.#carryLen = 0;
        }
        this.#lineStart = next;
        i = lf + 1;
      } else {
        i = length; // no LF: the whole chunk continues the carried or skipped line (below)
        if (this.#skipping) this.#skipHash?.update(chunk.subarray(0, length));
        else if (this.#carryLen + length > this.#max) {
          this.#skipping = true;
          if (this.#hash !== undefined) {
            this.#skipHash = this.#hash.copy();
            this.#skipHash.update(this.#carry.subarray(0, this.#carryLen));
            this.#skipHash.update(chunk.subarray(0, length));
          }
          this.#carryLen = 0;
        } else this.#appendCarry(chunk, 0, length);
        this.#pos = base + length;
        return;
      }
    }
    // The hot loop: whole lines inside this chunk (locals, not fields: measured ~15% faster).
    const onLine = this.#onLine;
    const max = this.#max;
    let lineStart = this.#lineStart;
    let lines = 0;
    // With a filter's markers: one search for the next marker in the chunk serves every line before it, and
    // a line without one is counted filtered without a Buffer view of it ever being made.
    const filter = this.#filter;
    let markers = filter?.markers();
    // The WebAssembly pass, where the chunk lies in its memory: lines found and filtered there, one call per
    // chunk (or per change of markers), with the same lines, counts and offsets as the loop below.
    const w = this.#wasm;
    const filtered = filter?.filteredLines;
    const canPass = w !== undefined && filtered !== undefined && chunk.buffer === w.bytes.buffer;
    chunk: for (;;) {
      if (canPass && markers !== undefined) {
        const onWalked = this.#onWalked;
        const walked = this.#walked;
        let proj = walked === undefined ? undefined : walkOf(filter as LineFilter, w);
        passes: for (;;) {
          let n: number;
          let recs: Int32Array;
          let stride: number;
          let cap: number;
          if (proj !== undefined && walked !== undefined) {
            n = w.walk(chunk, i, length, markers, max, proj);
            const wr = w.walked;
            recs = walked.spans = wr.recs;
            walked.nums = wr.nums;
            stride = wr.stride;
            cap = wr.cap;
          } else {
            n = w.pass(chunk, i, length, markers, max);
            recs = w.passRecords;
            stride = 4;
            cap = PASS_RECORDS;
          }
          if (n < 0) break;
          const slots = proj?.slots ?? 0;
          for (let r = 0; r < n; r++) {
            const o = stride * r;
            const start = recs[o + 1] as number;
            const lf = recs[o + 2] as number;
            const before = recs[o + 3] as number;
            if (before > 0) filtered.call(filter, before);
            lines += before + 1;
            const next = base + lf + 1;
            if (recs[o] === 1) this.#onLongLine(base + start, next, lf - start);
            else {
              let end = lf;
              if (end > start && chunk[end - 1] === 13) end--;
              if (proj !== undefined && recs[o + 4] === 1) {
                const wl = walked as NonNullable<typeof walked>;
                wl.at = o + WALK_HEAD;
                wl.numAt = slots * r;
                wl.lineAt = chunk.byteOffset + start;
                wl.lineEnd = chunk.byteOffset + end;
                (onWalked as WalkedHandler)(wl, base + start, next);
              } else onLine(chunk.subarray(start, end), base + start, next);
            }
            lineStart = next;
            i = lf + 1;
            const now = (filter as LineFilter).markers();
            if (now !== markers) {
              // The line changed what matters: the rest of this pass's answer is for the old markers.
              markers = now;
              if (markers === undefined) break passes;
              proj = walked === undefined ? undefined : walkOf(filter as LineFilter, w);
              continue passes;
            }
          }
          const stats = w.passStats;
          const after = stats[1] as number;
          if (after > 0) filtered.call(filter, after);
          lines += after;
          i = stats[0] as number;
          lineStart = base + i;
          if (n < cap) break chunk; // no LF left in the chunk
        }
      }
      const hits = filter === undefined ? undefined : new MarkerHits(chunk, length);
      let hit = markers === undefined ? -1 : (hits as MarkerHits).next(markers, i);
      for (;;) {
        const lf = chunk.indexOf(10, i);
        if (lf === -1 || lf >= length) break chunk;
        const next = base + lf + 1;
        lines++;
        const len = lf - i;
        if (len > max) {
          this.#onLongLine(lineStart, next, len);
          // A marker inside the skipped line says nothing of the next one.
          if (markers !== undefined && hit !== -1 && hit <= lf) hit = (hits as MarkerHits).next(markers, lf + 1);
        } else if (markers !== undefined && (hit === -1 || hit > lf)) (filter as LineFilter).onFiltered(lineStart, next);
        else {
          let end = lf;
          if (end > i && chunk[end - 1] === 13) end--;
          onLine(chunk.subarray(i, end), lineStart, next);
          if (filter !== undefined) {
            // The line may have changed what matters (the session event is out).
            const was = markers;
            markers = filter.markers();
            if (canPass && markers !== undefined && markers !== was) {
              lineStart = next;
              i = lf + 1;
              continue chunk;
            }
            hit = markers === undefined ? -1 : (hits as MarkerHits).next(markers, lf + 1);
          }
        }
        lineStart = next;
        i = lf + 1;
      }
    }
    this.#lines += lines;
    this.#lineStart = lineStart;
    // Committed bytes of this chunk end at i.
    if (i > hashFrom) this.#hash?.update(chunk.subarray(hashFrom, i));
    if (i < length) {
      if (this.#skipping) {
        this.#skipHash?.update(chunk.subarray(i, length));
      } else if (this.#carryLen + (length - i) > this.#max) {
        this.#skipping = true;
        if (this.#hash !== undefined) {
          this.#skipHash = this.#hash.copy();
          this.#skipHash.update(this.#carry.subarray(0, this.#carryLen));
          this.#skipHash.update(chunk.subarray(i, length));
        }
        this.#carryLen = 0;
      } else if (this.#filter !== undefined) {
        // The line goes on in the next chunk: no copy; decide from its markers as its bytes go by.
        const markers = this.#filter.markers();
        this.#spanMarkers = markers ?? [];
        this.#span = markers === undefined || hasMarker(chunk, i, length, markers) ? 2 : 1;
        this.#spanTail = Buffer.alloc(0);
        if (this.#span === 1) this.#keepTail(chunk, i, length);
      } else {
        this.#appendCarry(chunk, i, length);
      }
    }
    this.#pos = base + length;
  }

  /** Whether the spanning line's bytes in `chunk[0, end)` (with the kept tail before them) hold a marker. */
  #spanSees(chunk: Buffer, end: number): boolean {
    const markers = this.#spanMarkers;
    if (markers.length === 0) return false;
    const tail = this.#spanTail;
    if (tail.length > 0) {
      // A marker that starts in the tail ends at most (longest marker - 1) bytes into this chunk.
      const joint = Buffer.concat([tail, chunk.subarray(0, Math.min(end, this.#spanKeep()))]);
      if (hasMarker(joint, 0, joint.length, markers)) return true;
    }
    return hasMarker(chunk, 0, end, markers);
  }

  /** Keep the last bytes of `chunk[from, to)` (one less than the longest marker) for `#spanSees`. */
  #spanKeep(): number {
    let keep = 0;
    for (const m of this.#spanMarkers) keep = Math.max(keep, m.length - 1);
    return keep;
  }

  #keepTail(chunk: Buffer, from: number, to: number): void {
    const keep = this.#spanKeep();
    if (keep === 0) return;
    const part = chunk.subarray(Math.max(from, to - keep), to);
    const joined = this.#spanTail.length === 0 ? Buffer.from(part) : Buffer.concat([this.#spanTail, part]);
    this.#spanTail = joined.length > keep ? joined.subarray(joined.length - keep) : joined;
  }

  /** Read a wanted spanning line back from the file and hand it over. */
  #readBack(start: number, length: number, next: number): void {
    const line = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = (this.#filter as LineFilter).readAt(line.subarray(got), start + got);
      if (n <= 0) throw new SessionfoldError('IO_ERROR', `The file shrank while the line at byte ${start} was being read`, { byteOffset: start });
      got += n;
    }
    const end = length > 0 && line[length - 1] === 13 ? length - 1 : length;
    this.#onLine(line.subarray(0, end), start, next);
  }

  #appendCarry(chunk: Buffer, from: number, to: number): void {
    const need = this.#carryLen + (to - from);
    if (need > this.#carry.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.#carry.length * 2, 4096));
      this.#carry.copy(grown, 0, 0, this.#carryLen);
      this.#carry = grown;
    }
    chunk.copy(this.#carry, this.#carryLen, from, to);
    this.#carryLen = need;
  }
}
