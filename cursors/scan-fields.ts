/**
 * Exact fast field extraction: what a usage-only read needs from a line, without `JSON.parse` of the whole
 * line. Claude reads its assistant lines through it, Codex its usage lines once the file's header is read.
 *
 * Why: a Claude assistant line is mostly its `message.content` (text, thinking, tool inputs holding whole
 * files), yet usage needs only `message.{id, model, usage}` and a few small top-level fields. `toString` +
 * `JSON.parse` decodes and allocates all of it. This scanner validates the line as JSON in one pass over
 * its bytes and materializes only the projected fields (Claude's USAGE_LINE_FIELDS, Codex's
 * CODEX_USAGE_PROJECTION):
 *
 * - A recursive walk checks every token outside strings against the JSON grammar (objects, arrays, numbers,
 *   literals, separators, spaces). Containers it does not collect are skipped by the same walk
 *   (`collectObject` without a projection).
 * - Strings are checked as they are skipped, 4 bytes at a time (SWAR on an Int32Array view of the line's
 *   buffer): a word without a quote, a backslash or a byte below 0x20 is passed whole; otherwise bytes are
 *   checked one by one (escapes must be `\" \\ \/ \b \f \n \r \t \uXXXX`; a raw control byte fails), until
 *   the closing quote. Bytes ≥ 0x80 are never structural in UTF-8 (nor in invalid UTF-8, which both paths
 *   decode to U+FFFD alike), so they need no check.
 * - Collected values are decoded here when simple (strings without escapes, integers), else by JSON.parse of
 *   their own bytes. A nested projection collects only its keys. Duplicate keys: the last one wins, as in
 *   JSON.parse (a second `message` replaces the first one whole).
 *
 * Exactness: when the scanner answers, the line is valid JSON and the answer equals the projection of
 * `JSON.parse(line)`. When it cannot be sure it answers undefined and the caller parses the line (and
 * reports it malformed exactly as before): a collected key written with escapes (`"us\u0061ge"` decodes to
 * `usage`), whitespace other than spaces (legal, never written by Claude Code), nesting deeper than
 * MAX_DEPTH, or anything that is not valid JSON. test/claude-usage-scan.test.ts checks both on adversarial
 * and corrupted generated lines and on every fixture.
 *
 * Measured (one core, CPU time, best of 10 interleaved runs, Node 20, loaded 2-core machine), `toString` +
 * `JSON.parse` of the line → this scanner:
 * - usage lines of the real fixtures (1.5 KB avg, 14% multi-byte): 255 → 457 MB/s (1.8x);
 * - usage lines of a generated corpus (1.8 KB avg): 252 → 409 MB/s (1.6x);
 * - Write-tool lines built from the real session's text (41 KB avg): 273 → 1306 MB/s (4.8x).
 * Small lines are bound by the per-field work (~6 strings decoded, ~5 small objects), large ones by the
 * string skip (`npm run bench -- codecs` measures the end-to-end effect on a whole history: 1.03x, bounded by
 * the byte filter and the reader there). The whole cost-read core over a generated 194 MB corpus: 871 → 1206 MB/s (1.38x); README.md
 * "Usage-only reads" has the rest. An earlier two-pass design (a SWAR pass indexing every quote, then a walk
 * over the index) ran at ~360 MB/s on the real lines (the per-byte work twice); jumping from quote to quote
 * with Buffer#indexOf costs a native call per string, which loses on short strings.
 *
 * The native kernel (cursors/native.ts, native/scan-fields.c) runs the same walk in C when it is built: it locates the
 * projected values and leaves their decoding to `parseSlice` here, so both paths decode alike.
 * test/native-kernel.test.ts holds the two walks to the same answers. Without it, the WebAssembly kernel
 * (cursors/wasm.ts: the same C) walks instead; test/wasm-kernel.test.ts holds it to this walk.
 */

import { nativeKernel, wasmKernel, type NativeKernel } from './native.js';
import type { ProjectionSpec, WasmKernel, WasmProjection } from './wasm.js';
import type { WalkedLine } from './protocol/codec.js';

/** Deeper nesting falls back to JSON.parse (keeps the recursion far from the stack limit). */
export const MAX_DEPTH = 256;

/**
 * The keys of a JSON object a reader uses: `true` takes the whole value, a nested projection takes only
 * those keys of an object value (a value that is not an object is taken whole).
 */
export interface FieldProjection {
  readonly [key: string]: true | FieldProjection;
}

interface CompiledField {
  /** The key's UTF-8 bytes. */
  key: number[];
  name: string;
  sub: CompiledProjection | undefined;
  /** Its slot in the native kernel's output (pre-order over the whole projection). */
  slot: number;
}

/** A projection compiled to byte keys, for `scanFields`. */
export interface CompiledProjection {
  readonly fields: readonly CompiledField[];
  /** Per key byte length, the indexes of the fields of that length. */
  readonly byLength: readonly (readonly number[] | undefined)[];
  /** The native kernel's handle and output (top level only), when the kernel is loaded. */
  readonly native?: { readonly handle: object; readonly out: Int32Array } | undefined;
  /** The WebAssembly kernel's form of it (top level only), when the WebAssembly kernel is in use. */
  readonly wasm?: WasmProjection | undefined;
  /** The spec the kernels compile, and its slot count (top level only). */
  readonly spec?: ProjectionSpec | undefined;
  readonly slots?: number | undefined;
}

const wasmForms = new WeakMap<CompiledProjection, WasmProjection | null>();

/** `p`'s WebAssembly form for `kernel` (a projection compiled while another kernel was in use gets one now), or undefined. */
export function wasmProjectionOf(p: CompiledProjection, kernel: WasmKernel): WasmProjection | undefined {
  if (p.wasm !== undefined) return p.wasm;
  let f = wasmForms.get(p);
  if (f === undefined) {
    f = p.spec === undefined || p.slots === undefined ? null : (kernel.compile(p.spec, p.slots) ?? null);
    wasmForms.set(p, f);
  }
  return f ?? undefined;
}

/** Compile a projection once (at module load), for `scanFields`. */
export function compileProjection(p: FieldProjection, kernel: NativeKernel | undefined = nativeKernel(), wasm: WasmKernel | undefined = wasmKernel()): CompiledProjection {
  let slots = 0;
  const compile = (q: FieldProjection): { c: CompiledProjection; spec: unknown[] } => {
    const spec: unknown[] = [];
    const fields = Object.entries(q).map(([name, v]): CompiledField => {
      if (name === '__proto__') throw new Error('compileProjection: a projection cannot name __proto__');
      const key = Buffer.from(name);
      const slot = slots++;
      const sub = v === true ? undefined : compile(v);
      spec.push([key, slot, slots, sub?.spec ?? null]);
      return { key: [...key], name, sub: sub?.c, slot };
    });
    const byLength: number[][] = [];
    fields.forEach((f, k) => (byLength[f.key.length] ??= []).push(k));
    return { c: { fields, byLength: Array.from(byLength) }, spec };
  };
  const compiled = compile(p);
  const spec = compiled.spec;
  const c: CompiledProjection = { ...compiled.c, spec: spec as unknown as ProjectionSpec, slots };
  if (kernel === undefined) return wasm === undefined ? c : { ...c, wasm: wasm.compile(spec as unknown as ProjectionSpec, slots) };
  try {
    return { ...c, native: { handle: kernel.compile(spec, slots), out: new Int32Array(3 * slots) } };
  } catch {
    return c; // a kernel that cannot take this projection: the JavaScript walk reads it
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');

/** Valid characters after a backslash (besides `u`). */
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

/**
 * The word view: an Int32Array over the whole ArrayBuffer of the line being scanned, and the line's byte
 * offset in it. Set by scanFields for one line and dropped after it (no buffer outlives its line here); the
 * scanner is synchronous and never re-entered. Word lanes map to bytes in little-endian order; on a
 * big-endian machine strings are checked byte by byte.
 */
const NO_WORDS = new Int32Array(0);
/** Output slot flags of the native walk (native/scan-fields.c, native/kernel.h). */
const SLOT_ESCAPED = 2;
const SLOT_OBJECT = 4;
let words: Int32Array<ArrayBufferLike> = NO_WORDS;
let lineOffset = 0;
const USE_WORDS = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/** Whether the string stringEnd last passed had escapes. */
let lastEscaped = false;

/**
 * The index of the quote that closes the string opened at `i`, checking its content on the way, or -1
 * (unterminated, a raw control byte, an invalid escape).
 */
function stringEnd(b: Buffer, i: number): number {
  const n = b.length;
  const w = words;
  const off = lineOffset;
  let escapes = false;
  let j = i + 1;
  for (;;) {
    if (USE_WORDS && ((off + j) & 3) === 0) {
      // Pass whole words: per byte lane, the high bit is set for a byte < 0x20, == 0x5c or == 0x22 (a lane
      // next to a hit may be flagged too: flagged words are looked at byte by byte, and none is missed).
      let k = (off + j) >>> 2;
      const end = (off + n) >>> 2; // words wholly inside the line (offsets < 4 GiB: Buffer's limit)
      while (k < end) {
        const x = w[k] as number;
        const yb = x ^ 0x5c5c5c5c;
        const yq = x ^ 0x22222222;
        if (((((x - 0x20202020) & ~x) | ((yb - 0x01010101) & ~yb) | ((yq - 0x01010101) & ~yq)) & 0x80808080) !== 0) break;
        k++;
      }
      j = k * 4 - off;
    }
    const c = b[j];
    if (c === QUOTE) {
      lastEscaped = escapes;
      return j;
    }
    if (c === BACKSLASH) {
      const e = b[j + 1];
      if (e === 0x75) {
        if (j + 5 >= n || !HEX[b[j + 2] as number] || !HEX[b[j + 3] as number] || !HEX[b[j + 4] as number] || !HEX[b[j + 5] as number]) return -1;
        j += 6;
      } else if (e !== undefined && SIMPLE_ESCAPE[e]) j += 2;
      else return -1;
      escapes = true;
    } else if (c === undefined || c < SPACE) return -1;
    else j++;
  }
}

function skipSpace(b: Buffer, i: number): number {
  while (b[i] === SPACE) i++;
  return i;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}

function matchWord(b: Buffer, i: number, word: Buffer): number {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return -1;
  return i + word.length;
}

/** End of the number or literal at `i` (JSON grammar), or -1. */
function scalarEnd(b: Buffer, i: number): number {
  const c = b[i];
  if (c === 0x74) return matchWord(b, i, TRUE);
  if (c === 0x66) return matchWord(b, i, FALSE);
  if (c === 0x6e) return matchWord(b, i, NULL);
  let j = i;
  if (b[j] === MINUS) j++;
  if (b[j] === ZERO) j++;
  else if (isDigit(b[j])) while (isDigit(b[j])) j++;
  else return -1;
  if (b[j] === DOT) {
    j++;
    if (!isDigit(b[j])) return -1;
    while (isDigit(b[j])) j++;
  }
  if (b[j] === 0x65 || b[j] === 0x45) {
    j++;
    if (b[j] === PLUS || b[j] === MINUS) j++;
    if (!isDigit(b[j])) return -1;
    while (isDigit(b[j])) j++;
  }
  return j;
}

/** End (exclusive) of the value at `i`, validating it, or -1. */
function valueEnd(b: Buffer, i: number, depth: number): number {
  const c = b[i];
  if (c === QUOTE) {
    const q = stringEnd(b, i);
    return q < 0 ? -1 : q + 1;
  }
  if (c === LBRACE) return collectObject(b, i, depth + 1, SKIPPED, undefined);
  if (c === LBRACKET) return arrayEnd(b, i, depth + 1);
  return scalarEnd(b, i);
}

function arrayEnd(b: Buffer, i: number, depth: number): number {
  if (depth > MAX_DEPTH) return -1;
  i = skipSpace(b, i + 1);
  if (b[i] === RBRACKET) return i + 1;
  for (;;) {
    i = valueEnd(b, i, depth);
    if (i < 0) return -1;
    i = skipSpace(b, i);
    const c = b[i];
    if (c === COMMA) i = skipSpace(b, i + 1);
    else if (c === RBRACKET) return i + 1;
    else return -1;
  }
}

/**
 * Which field the key bytes [from, to) spell: its index, -1 for none, -2 when the key has escapes (it may
 * decode to a wanted one: JSON.parse decides). Call right after stringEnd passed the key.
 */
function fieldIndex(b: Buffer, from: number, to: number, p: CompiledProjection): number {
  if (lastEscaped) return -2;
  const len = to - from;
  const candidates = p.byLength[len];
  if (candidates === undefined) return -1;
  for (let c = 0; c < candidates.length; c++) {
    const k = candidates[c] as number;
    const key = (p.fields[k] as CompiledField).key;
    let j = 0;
    while (j < len && b[from + j] === key[j]) j++;
    if (j === len) return k;
  }
  return -1;
}

/**
 * The value of bytes [from, to) as JSON.parse gives it: strings without escapes and short integers are
 * decoded here (ids, timestamps, token counts), anything else by JSON.parse of its own bytes (the same
 * decoding as the whole line's: the slice starts and ends on ASCII bytes).
 */
function parseSlice(b: Buffer, from: number, to: number, escapes: boolean): unknown {
  const c = b[from];
  if (c === QUOTE) {
    if (!escapes) return b.toString('utf8', from + 1, to - 1);
  } else if (c !== undefined && c >= ZERO && c <= NINE && to - from < 16) {
    let v = 0;
    let j = from;
    while (j < to && isDigit(b[j])) v = v * 10 + ((b[j++] as number) - ZERO);
    if (j === to) return v;
  }
  return JSON.parse(b.toString('utf8', from, to));
}

/** What an object nobody collects from is walked into: nothing is ever written to it. */
const SKIPPED: Record<string, unknown> = Object.freeze({});

/**
 * Walk the object at `i`, validating it, and put the fields `p` projects into `out` (no projection: only
 * validate, and keys with escapes are fine). Returns the end (exclusive) or -1.
 */
function collectObject(b: Buffer, i: number, depth: number, out: Record<string, unknown>, p: CompiledProjection | undefined): number {
  if (depth > MAX_DEPTH) return -1;
  i = skipSpace(b, i + 1);
  if (b[i] === RBRACE) return i + 1;
  for (;;) {
    if (b[i] !== QUOTE) return -1;
    const q = stringEnd(b, i);
    if (q < 0) return -1;
    const k = p === undefined ? -1 : fieldIndex(b, i + 1, q, p);
    if (k === -2) return -1;
    i = skipSpace(b, q + 1);
    if (b[i] !== COLON) return -1;
    const v = skipSpace(b, i + 1);
    const f = k >= 0 ? p?.fields[k] : undefined;
    if (f === undefined) {
      i = valueEnd(b, v, depth);
      if (i < 0) return -1;
    } else if (f.sub !== undefined && b[v] === LBRACE) {
      // a fresh object per occurrence: a duplicate key replaces the whole value, as in JSON.parse
      const sub: Record<string, unknown> = {};
      i = collectObject(b, v, depth + 1, sub, f.sub);
      if (i < 0) return -1;
      out[f.name] = sub;
    } else {
      i = valueEnd(b, v, depth); // for a string value, stringEnd sets lastEscaped
      if (i < 0) return -1;
      out[f.name] = parseSlice(b, v, i, lastEscaped);
    }
    i = skipSpace(b, i);
    const c = b[i];
    if (c === COMMA) i = skipSpace(b, i + 1);
    else if (c === RBRACE) return i + 1;
    else return -1;
  }
}

/**
 * The projected fields of a JSON object line, exactly as `JSON.parse` of the whole line would give them
 * (their values; the order of an object's keys is not part of the answer). Undefined when the line is not a
 * valid JSON object, or when only `JSON.parse` can tell (escaped collected keys, whitespace other than
 * spaces, deep nesting): parse the line then. The native kernel walks the line when it is loaded.
 *
 * @example
 * const p = compileProjection({ uuid: true, message: { id: true } });
 * scanFields(Buffer.from('{"message":{"id":"m","content":[]},"uuid":"u","x":1}'), p)
 * // → { message: { id: 'm' }, uuid: 'u' }
 */
export function scanFields(line: Buffer, fields: CompiledProjection): Record<string, unknown> | undefined {
  const n = fields.native;
  // The kernel's spans are int32: a line of 2 GiB or more (only with a raised maxLineBytes) walks here.
  const k = n !== undefined ? nativeKernel() : undefined;
  if (n !== undefined && k !== undefined && line.length <= 0x7fffffff) {
    return k.scan(line, n.handle, n.out) ? fromSpans(line, fields, n.out) : undefined;
  }
  const w = fields.wasm !== undefined ? wasmKernel() : undefined;
  if (w !== undefined) return scanFieldsWasm(line, fields, w);
  return scanFieldsJs(line, fields);
}

/** `scanFields` by a WebAssembly kernel's walk (the JavaScript walk for a projection or a line it cannot take). */
export function scanFieldsWasm(line: Buffer, fields: CompiledProjection, kernel: WasmKernel): Record<string, unknown> | undefined {
  const w = fields.wasm;
  const walked = w === undefined || line.length > 0x7fffffff ? undefined : kernel.scan(line, w);
  if (walked === undefined) return scanFieldsJs(line, fields);
  return walked ? fromSpans(line, fields, kernel.out) : undefined;
}

/** The object the kernel's spans describe, decoded as the JavaScript walk decodes (parseSlice). */
function fromSpans(line: Buffer, p: CompiledProjection, out: Int32Array): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const f of p.fields) {
    const s = 3 * f.slot;
    const flags = out[s + 2] as number;
    if (flags === 0) continue;
    o[f.name] = flags === SLOT_OBJECT ? fromSpans(line, f.sub as CompiledProjection, out) : parseSlice(line, out[s] as number, out[s + 1] as number, (flags & SLOT_ESCAPED) !== 0);
  }
  return o;
}

/** The slot of the field at `path` of a compiled projection (its pre-order index), for `walkedValue`. */
export function slotOf(p: CompiledProjection, path: readonly string[]): number {
  let q: CompiledProjection | undefined = p;
  let slot = -1;
  for (const name of path) {
    const f: CompiledField | undefined = q?.fields.find((x) => x.name === name);
    if (f === undefined) throw new Error(`slotOf: the projection has no ${path.join('.')}`);
    slot = f.slot;
    q = f.sub;
  }
  return slot;
}

/** Whether a walked line's slot holds an object the walk collected (what `isRecord` of `scanFields`'s value says). */
export function walkedObject(w: WalkedLine, slot: number): boolean {
  return w.spans[w.at + 3 * slot + 2] === SLOT_OBJECT;
}

/**
 * A walked line's value at `slot`, as `scanFields` gives it: undefined when absent, the integer the walk
 * decoded, else `parseSlice` of its span. Not for a collected object's slot (`walkedObject`).
 */
export function walkedValue(w: WalkedLine, slot: number): unknown {
  const k = w.at + 3 * slot;
  const flags = w.spans[k + 2] as number;
  if (flags === 0) return undefined;
  const v = w.nums[w.numAt + slot] as number;
  if (v === v) return v;
  return parseSlice(w.bytes, w.spans[k] as number, w.spans[k + 1] as number, (flags & SLOT_ESCAPED) !== 0);
}

/**
 * Whether a walked line's value at `slot` is the string `text` (`bytes`, its UTF-8), as `walkedValue(w, slot)
 * === text` answers for a `text` without U+FFFD (what an invalid byte decodes to): compared as bytes where the
 * value lies, decoded only when it has escapes. For a reader that routes on a type it never keeps (no string
 * made per line).
 */
export function walkedIs(w: WalkedLine, slot: number, text: string, bytes: Uint8Array): boolean {
  const k = w.at + 3 * slot;
  const flags = w.spans[k + 2] as number;
  if (flags === 0) return false;
  if ((flags & SLOT_ESCAPED) !== 0) return walkedValue(w, slot) === text;
  const from = w.spans[k] as number;
  const n = bytes.length;
  const b = w.bytes;
  if (b[from] !== QUOTE || (w.spans[k + 1] as number) - from !== n + 2) return false;
  for (let i = 0; i < n; i++) if (b[from + 1 + i] !== bytes[i]) return false;
  return true;
}

/**
 * Whether a walked line's value at `slot` is a non-empty string (what `str(walkedValue(w, slot))` keeps), told
 * from its span without decoding it.
 */
export function walkedIsText(w: WalkedLine, slot: number): boolean {
  const k = w.at + 3 * slot;
  if (w.spans[k + 2] === 0) return false;
  const from = w.spans[k] as number;
  return w.bytes[from] === QUOTE && (w.spans[k + 1] as number) - from > 2;
}

/** A walked line's fields as `scanFields` gives them (an object per collected object: for readers that want the record whole). */
export function walkedFields(w: WalkedLine, p: CompiledProjection): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const f of p.fields) {
    const flags = w.spans[w.at + 3 * f.slot + 2] as number;
    if (flags === 0) continue;
    o[f.name] = flags === SLOT_OBJECT ? walkedFields(w, f.sub as CompiledProjection) : walkedValue(w, f.slot);
  }
  return o;
}

/** `scanFields` by the JavaScript walk, whether or not the kernel is loaded. */
export function scanFieldsJs(line: Buffer, fields: CompiledProjection): Record<string, unknown> | undefined {
  const start = skipSpace(line, 0);
  if (line[start] !== LBRACE) return undefined;
  if (USE_WORDS) words = new Int32Array(line.buffer, 0, line.buffer.byteLength >>> 2);
  lineOffset = line.byteOffset;
  try {
    const out: Record<string, unknown> = {};
    const end = collectObject(line, start, 1, out, fields);
    return end < 0 || skipSpace(line, end) !== line.length ? undefined : out;
  } finally {
    words = NO_WORDS;
  }
}
