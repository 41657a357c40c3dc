/**
 * Segments: the compact columnar encoding of usage events. One encoding serves two purposes:
 *
 * - a worker posts each batch of a file's usage as one segment in a transferable ArrayBuffer (one message per
 *   few thousand events, no structured clone of objects);
 * - the event cache stores those same bytes as BLOBs, so a warm run decodes a file's usage with a few typed
 *   array views and one string decode instead of stepping a row per event.
 *
 * Layout (little-endian), all offsets from the start:
 *
 *   header   8 × u32   MAGIC, n, nStrings, textBytes, textEncoding (1 utf8, 2 utf16le), check, CHECKED,
 *                      1 reserved (check: the low 32 bits of the xxh64 of every byte after the header, when
 *                      the seventh word is CHECKED; a segment written before checks has 0 there and is
 *                      decoded unchecked)
 *   nums     f64[9n]   column-major: offset, input, output, reasoning, cacheRead, cacheWrite, cacheWrite1h,
 *                      costUsd, webSearchRequests (NaN = absent)
 *   strIdx   u32[8n]   column-major: agent, sessionId, model, provider, timestamp, dedupKey, messageId, speed;
 *                      0 = absent, k = dictionary entry k-1
 *
 * `SEG2` is written; `SEG1` (8 number and 7 string columns, before `webSearchRequests` and `speed`) is still
 * decoded, so an existing cache stays valid.
 *   strLen   u32[nStrings]  UTF-16 length of each dictionary entry
 *   flags    u8[n]     1 singleRequest, 2 modelFallback true, 4 modelFallback false, 8 copied (a segment
 *                      written before the flag has 0 there: its codec's parser version has moved on since)
 *   text     the dictionary entries concatenated
 *
 * Text is UTF-8 unless some string is not well-formed UTF-16 (a lone surrogate from a `\ud800` escape), in
 * which case the whole segment uses UTF-16LE so that every string round-trips exactly.
 */
import { createHash64 } from '../../cursors/ids.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';
import type { UsageRecord } from './types.js';

const MAGIC_V1 = 0x31474553; // 'SEG1'
const MAGIC = 0x32474553; // 'SEG2'
const HEADER = 32;
/** 'SCHK' in the header's seventh word: the sixth holds the body's check. */
const CHECKED = 0x4b484353;

/** The low 32 bits of the xxh64 of a segment's body (after the header). */
function bodyCheck(b: Uint8Array): number {
  const h = createHash64();
  h.update(b.subarray(HEADER));
  return Number.parseInt(h.digest().slice(8), 16) >>> 0;
}
const NUM_COLS = 9;
const STR_COLS = 8;
const V1_NUM_COLS = 8;
const V1_STR_COLS = 7;
const ENC_UTF8 = 1;
const ENC_UTF16 = 2;

const F_SINGLE = 1;
const F_FALLBACK_TRUE = 2;
const F_FALLBACK_FALSE = 4;
const F_COPIED = 8;

/** A decoded segment: typed-array views and the string dictionary (index 0 = absent). */
export interface Segment {
  readonly count: number;
  /** Columns present (SEG1 has fewer). */
  readonly numCols: number;
  readonly strCols: number;
  readonly nums: Float64Array;
  readonly idx: Uint32Array;
  readonly strings: readonly (string | undefined)[];
  readonly flags: Uint8Array;
}

/** Accumulates usage events and encodes them as one segment. */
export class SegmentWriter {
  #n = 0;
  #nums: number[][] = Array.from({ length: NUM_COLS }, () => []);
  #idx: number[][] = Array.from({ length: STR_COLS }, () => []);
  #flags: number[] = [];
  #dict = new Map<string, number>();
  #strings: string[] = [];
  #wellFormed = true;

  get count(): number {
    return this.#n;
  }

  #str(v: unknown): number {
    if (v === undefined || v === null) return 0;
    const s = typeof v === 'string' ? v : String(v);
    let i = this.#dict.get(s);
    if (i === undefined) {
      this.#strings.push(s);
      i = this.#strings.length;
      this.#dict.set(s, i);
      if (this.#wellFormed && !isWellFormed(s)) this.#wellFormed = false;
    }
    return i;
  }

  add(e: UsageEvent): void {
    const n = this.#nums;
    (n[0] as number[]).push(e.offset);
    (n[1] as number[]).push(e.inputTokens);
    (n[2] as number[]).push(e.outputTokens);
    (n[3] as number[]).push(e.reasoningTokens);
    (n[4] as number[]).push(e.cacheReadTokens);
    (n[5] as number[]).push(e.cacheWriteTokens);
    (n[6] as number[]).push(e.cacheWrite1hTokens);
    (n[7] as number[]).push(typeof e.costUsd === 'number' ? e.costUsd : NaN);
    (n[8] as number[]).push(typeof e.webSearchRequests === 'number' ? e.webSearchRequests : NaN);
    const s = this.#idx;
    (s[0] as number[]).push(this.#str(e.agent));
    (s[1] as number[]).push(this.#str(e.sessionId));
    (s[2] as number[]).push(this.#str(e.model));
    (s[3] as number[]).push(this.#str(e.provider));
    (s[4] as number[]).push(this.#str(e.timestamp));
    (s[5] as number[]).push(this.#str(e.dedupKey));
    (s[6] as number[]).push(this.#str(e.messageId));
    (s[7] as number[]).push(this.#str(e.speed));
    let f = e.singleRequest ? F_SINGLE : 0;
    if (e.modelFallback === true) f |= F_FALLBACK_TRUE;
    else if (e.modelFallback === false) f |= F_FALLBACK_FALSE;
    if (e.copied === true) f |= F_COPIED;
    this.#flags.push(f);
    this.#n++;
  }

  /** Copy event `i` of a decoded segment (no re-parse of its strings). */
  addFrom(seg: Segment, i: number): void {
    const c = seg.count;
    for (let k = 0; k < NUM_COLS; k++) (this.#nums[k] as number[]).push(k < seg.numCols ? (seg.nums[k * c + i] as number) : NaN);
    for (let k = 0; k < STR_COLS; k++) (this.#idx[k] as number[]).push(k < seg.strCols ? this.#str(seg.strings[seg.idx[k * c + i] as number]) : 0);
    this.#flags.push(seg.flags[i] as number);
    this.#n++;
  }

  /** Encode what was added and reset the writer. */
  finish(): Uint8Array {
    const n = this.#n;
    const utf16 = !this.#wellFormed;
    const text = this.#strings.join('');
    const textBytes = utf16 ? text.length * 2 : Buffer.byteLength(text, 'utf8');
    const nStrings = this.#strings.length;
    const numsAt = HEADER;
    const idxAt = numsAt + 8 * NUM_COLS * n;
    const lenAt = idxAt + 4 * STR_COLS * n;
    const flagsAt = lenAt + 4 * nStrings;
    const textAt = flagsAt + n;
    const ab = new ArrayBuffer(textAt + textBytes);
    const head = new Uint32Array(ab, 0, 8);
    head[0] = MAGIC;
    head[1] = n;
    head[2] = nStrings;
    head[3] = textBytes;
    head[4] = utf16 ? ENC_UTF16 : ENC_UTF8;
    const nums = new Float64Array(ab, numsAt, NUM_COLS * n);
    for (let k = 0; k < NUM_COLS; k++) nums.set(this.#nums[k] as number[], k * n);
    const idx = new Uint32Array(ab, idxAt, STR_COLS * n);
    for (let k = 0; k < STR_COLS; k++) idx.set(this.#idx[k] as number[], k * n);
    const lens = new Uint32Array(ab, lenAt, nStrings);
    for (let i = 0; i < nStrings; i++) lens[i] = (this.#strings[i] as string).length;
    new Uint8Array(ab, flagsAt, n).set(this.#flags);
    Buffer.from(ab, textAt, textBytes).write(text, 0, textBytes, utf16 ? 'utf16le' : 'utf8');
    this.#reset();
    const out = new Uint8Array(ab);
    head[5] = bodyCheck(out);
    head[6] = CHECKED;
    return out;
  }

  #reset(): void {
    this.#n = 0;
    this.#nums = Array.from({ length: NUM_COLS }, () => []);
    this.#idx = Array.from({ length: STR_COLS }, () => []);
    this.#flags = [];
    this.#dict.clear();
    this.#strings = [];
    this.#wellFormed = true;
  }
}

function isWellFormed(s: string): boolean {
  const f = (s as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  if (f !== undefined) return f.call(s);
  return !/[\ud800-\udfff]/.test(s) || /^(?:[^\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/.test(s);
}

/** A stored segment that does not decode (damaged in the cache): the scan reads its file again. */
export class SegmentError extends Error {}

/** Decode a segment (a copy is made only when `bytes` is not 8-byte aligned). Throws SegmentError on a malformed one. */
export function decodeSegment(bytes: Uint8Array): Segment {
  if (bytes.byteLength < HEADER) throw new SegmentError('segment: truncated header');
  let b = bytes;
  if (b.byteOffset % 8 !== 0) b = new Uint8Array(b);
  const head = new Uint32Array(b.buffer, b.byteOffset, 8);
  if (head[0] !== MAGIC && head[0] !== MAGIC_V1) throw new SegmentError('segment: bad magic');
  const numCols = head[0] === MAGIC ? NUM_COLS : V1_NUM_COLS;
  const strCols = head[0] === MAGIC ? STR_COLS : V1_STR_COLS;
  const n = head[1] as number;
  const nStrings = head[2] as number;
  const textBytes = head[3] as number;
  const enc = head[4];
  const numsAt = HEADER;
  const idxAt = numsAt + 8 * numCols * n;
  const lenAt = idxAt + 4 * strCols * n;
  const flagsAt = lenAt + 4 * nStrings;
  const textAt = flagsAt + n;
  if (textAt + textBytes !== b.byteLength || (enc !== ENC_UTF8 && enc !== ENC_UTF16)) throw new SegmentError('segment: bad length');
  if (head[6] === CHECKED && bodyCheck(b) !== head[5]) throw new SegmentError('segment: check failed');
  const base = b.byteOffset;
  const lens = new Uint32Array(b.buffer, base + lenAt, nStrings);
  const text = Buffer.from(b.buffer, base + textAt, textBytes).toString(enc === ENC_UTF16 ? 'utf16le' : 'utf8');
  const strings: (string | undefined)[] = new Array(nStrings + 1);
  strings[0] = undefined;
  let pos = 0;
  for (let i = 0; i < nStrings; i++) {
    const len = lens[i] as number;
    strings[i + 1] = text.slice(pos, pos + len);
    pos += len;
  }
  if (pos !== text.length) throw new SegmentError('segment: bad dictionary');
  return {
    count: n,
    numCols,
    strCols,
    nums: new Float64Array(b.buffer, base + numsAt, numCols * n),
    idx: new Uint32Array(b.buffer, base + idxAt, strCols * n),
    strings,
    flags: new Uint8Array(b.buffer, base + flagsAt, n),
  };
}

/** Number of events in an encoded segment, from its header. */
export function segmentCount(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
}

/** The dedup key of event `i`. */
export function segmentKey(seg: Segment, i: number): string {
  return seg.strings[seg.idx[5 * seg.count + i] as number] as string;
}

/** Append the records of events [from, to) of `seg` to `out`. */
export function pushRecords(
  seg: Segment,
  file: string,
  cwd: string | undefined,
  retained: boolean,
  out: UsageRecord[],
  from = 0,
  to = seg.count,
): void {
  const n = seg.count;
  const { nums, idx, strings, flags } = seg;
  for (let i = from; i < to; i++) {
    const f = flags[i] as number;
    const cost = nums[7 * n + i] as number;
    const searches = seg.numCols > 8 ? (nums[8 * n + i] as number) : Number.NaN;
    // Every field in blankUsageEvent()'s order, absent ones undefined, then file: the shape of a record read
    // from its file (asRecords), so the fold's reads stay monomorphic whichever way a record came.
    const r = {
      type: 'usage',
      agent: strings[idx[i] as number] as string,
      sessionId: strings[idx[n + i] as number] as string,
      offset: nums[i] as number,
      model: strings[idx[2 * n + i] as number] as string,
      modelFallback: f & F_FALLBACK_TRUE ? true : f & F_FALLBACK_FALSE ? false : undefined,
      provider: strings[idx[3 * n + i] as number],
      timestamp: strings[idx[4 * n + i] as number] as string,
      inputTokens: nums[n + i] as number,
      outputTokens: nums[2 * n + i] as number,
      reasoningTokens: nums[3 * n + i] as number,
      cacheReadTokens: nums[4 * n + i] as number,
      cacheWriteTokens: nums[5 * n + i] as number,
      cacheWrite1hTokens: nums[6 * n + i] as number,
      costUsd: Number.isNaN(cost) ? undefined : cost,
      speed: seg.strCols > 7 ? strings[idx[7 * n + i] as number] : undefined,
      webSearchRequests: Number.isNaN(searches) ? undefined : searches,
      singleRequest: (f & F_SINGLE) !== 0,
      dedupKey: strings[idx[5 * n + i] as number] as string,
      messageId: strings[idx[6 * n + i] as number],
      copied: f & F_COPIED ? true : undefined,
      file,
    } as UsageRecord;
    if (cwd !== undefined) r.cwd = cwd;
    if (retained) r.retained = true;
    out.push(r);
  }
}
