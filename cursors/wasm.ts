/**
 * The WebAssembly kernel: the native kernel's byte loops (native/kernel.c and the files it lists, with their
 * SIMD128 branches, and native/xxh64.h) compiled to wasm32 (native/wasm/kernel.wasm, committed; scripts/build-wasm.mjs), so a
 * machine without a C compiler, or an install that ran no install script, still gets them. cursors/native.ts
 * takes it where the N-API addon is absent or off (`SESSIONFOLD_NATIVE=0`); `SESSIONFOLD_WASM=0` turns it off
 * too, and the JavaScript loops run (the reference: test/wasm-kernel.test.ts holds the two equal).
 *
 * The primitives know no agent: the marker search (`indexOf`), the exact field projection walk (`scan`, see
 * cursors/scan-fields.ts) and streaming XXH64. Each instance has one memory that never grows (the build sets
 * its maximum to its initial size), so the views below stay valid for the life of the thread: JavaScript
 * lays it out above `__heap_base` (the C allocates nothing) as
 *   the needle · a hash state and its digest · the walk's spans · projection slots · a scratch area · read buffers.
 * The read buffers are what makes it pay: a file read with `readSync` straight into them is searched and walked
 * where it lies, while a line or a hay outside the memory must be copied in first (a line, into the scratch
 * area) or is searched by `Buffer#indexOf` (a hay: copying it costs as much as the search saves).
 * Each thread (the main one, each Worker of the pool) instantiates its own.
 */
import { readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from './versions.js';

/** The exports' interface version (native/wasm/exports.c `abi`); another module is not used. */
export const WASM_ABI = 3;

/** The part of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
interface WasmModule {
  readonly kind?: 'WebAssembly.Module';
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: unknown };
}
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface Exports {
  memory: { buffer: ArrayBuffer };
  __heap_base: { value: number };
  abi(): number;
  find(hay: number, n: number, needle: number, k: number, from: number): number;
  scan(line: number, n: number, proj: number, out: number, slots: number): number;
  h64_size(): number;
  h64_init(state: number): void;
  h64_update(state: number, p: number, n: number): void;
  h64_digest(state: number, out: number): void;
  h64(p: number, n: number, out: number): void;
  pass(b: number, n: number, from: number, needles: number, lens: number, count: number, maxLine: number, recs: number, cap: number, stats: number): number;
  walk(
    b: number,
    n: number,
    from: number,
    needles: number,
    lens: number,
    count: number,
    maxLine: number,
    proj: number,
    slots: number,
    recs: number,
    nums: number,
    cap: number,
    stats: number,
  ): number;
}

/** One read buffer: the size of a read chunk (protocol/codec.ts DEFAULT_BUFFER_SIZE). */
export const WASM_READ_BYTES = 1 << 20;
const NEEDLE_BYTES = 256;
/** The pass's needles: at most 4, each in a 64-byte slot of the needle area (native/wasm/exports.c `pass`). */
const PASS_NEEDLES = 4;
const PASS_NEEDLE_BYTES = 64;
/** Records per pass: 4 int32 each (kind, start, LF, lines without a marker before it). */
export const PASS_RECORDS = 1024;
const PASS_BYTES = 16 * PASS_RECORDS + 64;
const HASH_BYTES = 256;
/** The walking pass's records (native/wasm/exports.c `walk`): a head of WALK_HEAD int32, then 3 per slot; and a double per slot. */
const WALK_BYTES = 256 << 10;
export const WALK_HEAD = 5;
/** The walk's output: 3 int32 per slot. */
const OUT_BYTES = 64 << 10;
export const WASM_MAX_SLOTS = Math.floor(OUT_BYTES / 12);
/** Compiled projections live in a few fixed slots, loaded on first use and replaced in turn. */
const PROJ_SLOTS = 16;
const PROJ_BYTES = 16 << 10;
/** Lines outside the memory are copied here to be walked; hashed bytes pass through it. */
export const WASM_SCRATCH_BYTES = 2 << 20;
/** native/kernel.h `Field` and `Proj` on wasm32 (native/wasm/exports.c asserts this layout). */
const FIELD_BYTES = 20;
const PROJ_HEAD_BYTES = 8;

/** A projection spec, as `NativeKernel.compile` takes it: `[[keyBytes, slot, slotEnd, subSpec | null], …]`. */
export type ProjectionSpec = readonly (readonly [Uint8Array, number, number, ProjectionSpec | null])[];

/** A projection compiled for the walk: its spec and the bytes its records take. */
export interface WasmProjection {
  readonly spec: ProjectionSpec;
  readonly slots: number;
  readonly bytes: number;
}

function specBytes(spec: ProjectionSpec): number {
  let n = PROJ_HEAD_BYTES + FIELD_BYTES * spec.length;
  for (const [key, , , sub] of spec) n += ((key.length + 3) & ~3) + (sub === null ? 0 : specBytes(sub));
  return n;
}

/** The walking pass's output areas for one slot count (`WasmKernel.walk`). */
export interface WalkRecords {
  readonly slots: number;
  /** Int32 per record: WALK_HEAD, then 3 per slot. */
  readonly stride: number;
  /** Records one call can hold. */
  readonly cap: number;
  readonly recsAt: number;
  readonly recs: Int32Array;
  /** `slots` doubles per record. */
  readonly nums: Float64Array;
}

export class WasmKernel {
  readonly #x: Exports;
  /** The whole memory, as bytes and as a DataView (never detached: the memory does not grow). */
  readonly bytes: Buffer;
  readonly #view: DataView;
  readonly #needle: number;
  readonly #hash: number;
  readonly #hashSize: number;
  readonly #outAt: number;
  /** The walk's spans (3 int32 per slot: start, end, flags), valid until the next `scan`. */
  readonly out: Int32Array;
  readonly #projAt: number;
  readonly #passAt: number;
  /** The last pass's records (4 int32 each: kind 0 a line or 1 an over-long one, start, LF, lines without a marker before it). */
  readonly passRecords: Int32Array;
  /** The last pass's [offset past the last line taken, lines without a marker after the last record]. */
  readonly passStats: Int32Array;
  readonly #walkAt: number;
  readonly #scratch: number;
  readonly #readsAt: number;
  /** Which projection each slot holds, and the next slot to replace. */
  readonly #loaded: (WasmProjection | undefined)[] = new Array<WasmProjection | undefined>(PROJ_SLOTS).fill(undefined);
  readonly #slotOf = new Map<WasmProjection, number>();
  #nextSlot = 0;
  /** Free read buffers (their offsets). */
  readonly #freeReads: number[] = [];

  constructor(module: WasmModule) {
    const x = new WA.Instance(module, {}).exports as unknown as Exports;
    if (x.abi() !== WASM_ABI) throw new Error(`the WebAssembly kernel's ABI is ${x.abi()}, not ${WASM_ABI}`);
    this.#x = x;
    const size = x.memory.buffer.byteLength;
    this.bytes = Buffer.from(x.memory.buffer, 0, size);
    this.#view = new DataView(x.memory.buffer);
    let at = (x.__heap_base.value + 63) & ~63;
    const take = (n: number): number => {
      const p = at;
      at += (n + 63) & ~63;
      return p;
    };
    this.#needle = take(NEEDLE_BYTES);
    this.#hashSize = x.h64_size();
    this.#hash = take(HASH_BYTES);
    if (this.#hashSize + 8 > HASH_BYTES) throw new Error('the WebAssembly kernel: hash state too large');
    this.#outAt = take(OUT_BYTES);
    this.out = new Int32Array(x.memory.buffer, this.#outAt, OUT_BYTES >>> 2);
    this.#projAt = take(PROJ_SLOTS * PROJ_BYTES);
    this.#passAt = take(PASS_BYTES);
    this.passRecords = new Int32Array(x.memory.buffer, this.#passAt, 4 * PASS_RECORDS);
    this.passStats = new Int32Array(x.memory.buffer, this.#passAt + 16 * PASS_RECORDS, 2);
    this.#walkAt = take(WALK_BYTES);
    this.#scratch = take(WASM_SCRATCH_BYTES);
    this.#readsAt = at;
    for (let p = at; p + WASM_READ_BYTES <= size; p += WASM_READ_BYTES) this.#freeReads.push(p);
    this.#freeReads.reverse();
  }

  /** Whether `b` lies in the module's memory (a read buffer, or a part of one). */
  holds(b: Uint8Array): boolean {
    return b.buffer === this.bytes.buffer;
  }

  /**
   * `indexOfJs`: the first start of `needle` wholly inside `hay[from, to)`, or -1. SIMD128 when the hay lies in
   * the memory; `Buffer#indexOf` otherwise.
   */
  indexOf(hay: Buffer, needle: Uint8Array, from: number, to: number): number {
    if (hay.buffer !== this.bytes.buffer || needle.length > NEEDLE_BYTES || from < 0 || to > hay.length) {
      const at = hay.indexOf(needle, from);
      return at !== -1 && at + needle.length <= to ? at : -1;
    }
    this.bytes.set(needle, this.#needle);
    const base = hay.byteOffset;
    const at = this.#x.find(base, to, this.#needle, needle.length, from);
    return at;
  }

  /**
   * The whole-buffer pass over `chunk[from, to)` (which lies in the memory): the LF-terminated lines holding one
   * of `markers`, or longer than `maxLine`, as records in `passRecords` (at most PASS_RECORDS; `passStats` says
   * where it stopped and how many lines without a marker came after the last). The count, or -1 for markers it
   * cannot take (more than 4, or one of over 64 bytes). The marker search is cursors/line-splitter.ts's:
   * from the chunk's start, then again after each line taken.
   */
  pass(chunk: Buffer, from: number, to: number, markers: readonly Uint8Array[], maxLine: number): number {
    const lens = this.#setNeedles(chunk, to, markers);
    if (lens < 0) return -1;
    const base = chunk.byteOffset;
    const n = this.#x.pass(base, to, from, this.#needle, lens, markers.length, Math.min(maxLine, 0x7fffffff), this.#passAt, PASS_RECORDS, this.#passAt + 16 * PASS_RECORDS);
    return n;
  }

  /**
   * `pass` with each marked line walked by projection `p` (native/wasm/exports.c `walk`): the records go to
   * `walked` (a record of `walked.stride` int32 per line: kind, start, LF, lines without a marker before it, 1
   * when the walk took the line, then per slot start and end — offsets in the memory, so `bytes` decodes them —
   * and flags) with the integer values the walk decoded in `walked.nums` (`p.slots` per record, NaN where
   * `parseSlice` decides). The count (at most `walked.cap`), or -1 when it cannot run (see `pass`).
   */
  walk(chunk: Buffer, from: number, to: number, markers: readonly Uint8Array[], maxLine: number, p: WasmProjection): number {
    const lens = this.#setNeedles(chunk, to, markers);
    if (lens < 0) return -1;
    const w = this.#walkFor(p.slots);
    const proj = this.#load(p);
    return this.#x.walk(chunk.byteOffset, to, from, this.#needle, lens, markers.length, Math.min(maxLine, 0x7fffffff), proj, p.slots, w.recsAt, this.#walkAt, w.cap, this.#passAt + 16 * PASS_RECORDS);
  }

  /** The walk's records as `walk` left them (its stride and capacity follow the last projection's slots). */
  get walked(): WalkRecords {
    return this.#walked;
  }

  #walked: WalkRecords = { slots: -1, stride: 0, cap: 0, recsAt: 0, recs: new Int32Array(0), nums: new Float64Array(0) };

  #walkFor(slots: number): WalkRecords {
    if (this.#walked.slots === slots) return this.#walked;
    const stride = WALK_HEAD + 3 * slots;
    const cap = Math.floor((WALK_BYTES - 64) / (4 * stride + 8 * slots));
    const recsAt = this.#walkAt + ((8 * slots * cap + 63) & ~63);
    const buf = this.bytes.buffer;
    this.#walked = { slots, stride, cap, recsAt, recs: new Int32Array(buf, recsAt, stride * cap), nums: new Float64Array(buf, this.#walkAt, slots * cap) };
    return this.#walked;
  }

  /** Write the pass's needles; the address of their lengths, or -1 when the pass cannot run on `chunk[…, to)` with them. */
  #setNeedles(chunk: Buffer, to: number, markers: readonly Uint8Array[]): number {
    if (markers.length > PASS_NEEDLES || chunk.buffer !== this.bytes.buffer || to > chunk.length) return -1;
    const lens = this.#passAt + 16 * PASS_RECORDS + 8;
    for (let k = 0; k < markers.length; k++) {
      const m = markers[k] as Uint8Array;
      if (m.length > PASS_NEEDLE_BYTES) return -1;
      this.bytes.set(m, this.#needle + PASS_NEEDLE_BYTES * k);
      this.#view.setUint32(lens + 4 * k, m.length, true);
    }
    return lens;
  }

  /** A projection for `scan`, or undefined when it does not fit the module's fixed areas (the JavaScript walk reads it). */
  compile(spec: ProjectionSpec, slots: number): WasmProjection | undefined {
    const bytes = specBytes(spec);
    return bytes > PROJ_BYTES || slots > WASM_MAX_SLOTS ? undefined : { spec, slots, bytes };
  }

  /**
   * Walk `line` with projection `p`: true with the spans in `out` (relative to the line's start), false when
   * JSON.parse decides, undefined when the line cannot be walked here (too large to copy in).
   */
  scan(line: Uint8Array, p: WasmProjection): boolean | undefined {
    let ptr: number;
    if (line.buffer === this.bytes.buffer) ptr = line.byteOffset;
    else if (line.length <= WASM_SCRATCH_BYTES) {
      this.bytes.set(line, this.#scratch);
      ptr = this.#scratch;
    } else return undefined;
    return this.#x.scan(ptr, line.length, this.#load(p), this.#outAt, p.slots) === 1;
  }

  /** The address of `p`'s records, written into a slot when it holds another. */
  #load(p: WasmProjection): number {
    let slot = this.#slotOf.get(p);
    if (slot === undefined) {
      slot = this.#nextSlot;
      this.#nextSlot = (slot + 1) % PROJ_SLOTS;
      const old = this.#loaded[slot];
      if (old !== undefined) this.#slotOf.delete(old);
      this.#loaded[slot] = p;
      this.#slotOf.set(p, slot);
      this.#write(p.spec, this.#projAt + slot * PROJ_BYTES);
    }
    return this.#projAt + slot * PROJ_BYTES;
  }

  /** Write a Proj and its Fields at `at` (native/kernel.h), keys and sub-projections after them; returns the end. */
  #write(spec: ProjectionSpec, at: number): number {
    const v = this.#view;
    const fields = at + PROJ_HEAD_BYTES;
    v.setUint32(at, spec.length, true);
    v.setUint32(at + 4, fields, true);
    let end = fields + FIELD_BYTES * spec.length;
    spec.forEach(([key, slot, slotEnd, sub], k) => {
      const f = fields + FIELD_BYTES * k;
      this.bytes.set(key, end);
      v.setUint32(f, end, true);
      v.setUint32(f + 4, key.length, true);
      v.setInt32(f + 8, slot, true);
      v.setInt32(f + 12, slotEnd, true);
      end += (key.length + 3) & ~3;
      if (sub === null) v.setUint32(f + 16, 0, true);
      else {
        v.setUint32(f + 16, end, true);
        end = this.#write(sub, end);
      }
    });
    return end;
  }

  /** A fresh XXH64 state (kept outside the memory; copied in around each step). */
  hash64(): Uint8Array {
    this.#x.h64_init(this.#hash);
    return new Uint8Array(this.bytes.subarray(this.#hash, this.#hash + this.#hashSize)); // a copy (Buffer#slice is a view)
  }

  hash64Update(state: Uint8Array, b: Uint8Array): void {
    const x = this.#x;
    this.bytes.set(state, this.#hash);
    if (b.buffer === this.bytes.buffer) x.h64_update(this.#hash, b.byteOffset, b.length);
    else {
      for (let at = 0; at < b.length; at += WASM_SCRATCH_BYTES) {
        const part = b.subarray(at, at + WASM_SCRATCH_BYTES);
        this.bytes.set(part, this.#scratch);
        x.h64_update(this.#hash, this.#scratch, part.length);
      }
    }
    state.set(this.bytes.subarray(this.#hash, this.#hash + this.#hashSize));
  }

  /** Hash bytes [from, to) of an open file, read straight into the memory; returns the count (short at its end). */
  hash64File(state: Uint8Array, fd: number, from: number, to: number): number {
    this.bytes.set(state, this.#hash);
    let pos = from;
    while (pos < to) {
      const n = readSync(fd, this.bytes, this.#scratch, Math.min(WASM_SCRATCH_BYTES, to - pos), pos);
      if (n === 0) break;
      this.#x.h64_update(this.#hash, this.#scratch, n);
      pos += n;
    }
    state.set(this.bytes.subarray(this.#hash, this.#hash + this.#hashSize));
    return pos - from;
  }

  /**
   * XXH64 (seed 0) of `s`'s UTF-8 bytes as two uint32 halves into `out` ([high, low]): written into the scratch
   * area and hashed in one call, with no bigint made. False (nothing written) for a string that might not fit.
   */
  hashStringInto(s: string, out: Uint32Array): boolean {
    if (s.length > WASM_SCRATCH_BYTES / 3) return false;
    const n = this.bytes.write(s, this.#scratch, WASM_SCRATCH_BYTES, 'utf8');
    const at = this.#hash + this.#hashSize;
    this.#x.h64(this.#scratch, n, at);
    out[0] = this.#view.getUint32(at + 4, true);
    out[1] = this.#view.getUint32(at, true);
    return true;
  }

  /** The digest so far, 16 hex digits (the state goes on). */
  hash64Digest(state: Uint8Array): string {
    this.bytes.set(state, this.#hash);
    const out = this.#hash + this.#hashSize;
    this.#x.h64_digest(this.#hash, out);
    return this.#view.getBigUint64(out, true).toString(16).padStart(16, '0');
  }

  /** A read buffer of `size` bytes (at most WASM_READ_BYTES) in the memory, or undefined when all are taken. */
  takeReadBuffer(size: number): Buffer | undefined {
    if (size > WASM_READ_BYTES) return undefined;
    const at = this.#freeReads.pop();
    return at === undefined ? undefined : this.bytes.subarray(at, at + size);
  }

  /** Give back a buffer `takeReadBuffer` gave; false for any other buffer. */
  giveReadBuffer(b: Buffer): boolean {
    const at = b.byteOffset;
    if (b.buffer !== this.bytes.buffer || at < this.#readsAt || (at - this.#readsAt) % WASM_READ_BYTES !== 0) return false;
    if (!this.#freeReads.includes(at)) this.#freeReads.push(at);
    return true;
  }

  /** Read buffers not taken (diagnostics, tests). */
  get freeReadBuffers(): number {
    return this.#freeReads.length;
  }
}

/** Where the package keeps the module: named from the package folder, else from this module in `cursors/` or `dist/cursors/`. */
function modulePaths(): string[] {
  const root = packageRoot();
  if (root !== undefined) return [join(root, 'native', 'wasm', 'kernel.wasm')];
  return ['../native/wasm/kernel.wasm', '../../native/wasm/kernel.wasm'].map((rel) => fileURLToPath(new URL(rel, import.meta.url)));
}

let compiled: WasmModule | null | undefined;

/** A new instance of the kernel (tests make their own), or undefined where the module is missing or cannot run. */
export function instantiateWasmKernel(): WasmKernel | undefined {
  if (compiled === undefined) {
    compiled = null;
    for (const path of modulePaths()) {
      try {
        compiled = new WA.Module(readFileSync(path));
        break;
      } catch {
        // not there, or a runtime without SIMD128: the JavaScript loops answer the same
      }
    }
  }
  if (compiled === null) return undefined;
  try {
    return new WasmKernel(compiled);
  } catch {
    return undefined;
  }
}
