/**
 * The totals fold's state as data, so a fold can stop and go on in another process (src/cost/incremental.ts
 * keeps it in the event cache). The state is the fold's whole memory: per slot (one per dedup key) its key
 * hash and its columns, plus the interned strings the slots point at and the group sets.
 *
 * Slots only grow at the end, and an existing slot changes only when a larger copy of its response comes,
 * so the slots are stored in chunks of CHUNK_SLOTS and a run that folded a few appended lines rewrites only
 * the chunks it touched (the last one or two), not the whole state: a live monitor that reports every few
 * seconds writes kilobytes, not the ~9 MB of a long history. A chunk is, little-endian and 8-byte aligned:
 *
 *   key hashes (u32 hi, lo per slot) | floats (f64 × NF per slot) | ints (i32 × NI per slot)
 *
 * The header (JSON) holds the counts, the interned strings and the group sets. Decoding checks the version
 * and every length; anything else is a RangeError (the caller folds from scratch instead).
 */

/** Goes up with any change of the fold's columns, of what a slot means, or of this layout. */
export const FOLD_STATE_VERSION = 2;
/** Slots per stored chunk (~88 bytes each: ~720 KB a chunk). */
export const CHUNK_SLOTS = 8192;

/** The header of a fold state (everything but the slot columns). */
export interface FoldStateHeader {
  version: number;
  slots: number;
  counts: { records: number; selected: number; keys: number };
  files: string[];
  sessions: string[];
  groups: string[];
  unpriced: string[];
  groupSets: number[][];
  /** Single-group sets by group key, and tag sets by their joined tags. */
  single: [string, number][];
  tagSets: [string, number][];
}

/** A fold's state: the header and its slot columns (at least `slots` slots each). */
export interface FoldStateParts {
  header: FoldStateHeader;
  hashes: Uint32Array;
  floats: Float64Array;
  ints: Int32Array;
}

/** What a fold exports: the header, and the chunks asked for (all, or those changed since the restore). */
export interface ExportedFoldState {
  header: string;
  /** Chunk number → bytes. */
  chunks: Map<number, Buffer>;
  /** Chunks the whole state has. */
  chunkCount: number;
}

export function chunkCountOf(slots: number): number {
  return Math.ceil(slots / CHUNK_SLOTS);
}

/** Encode chunk `c` of the columns (`nf` floats and `ni` ints per slot). */
export function encodeChunk(p: Omit<FoldStateParts, 'header'>, slots: number, c: number, nf: number, ni: number): Buffer {
  const from = c * CHUNK_SLOTS;
  const n = Math.min(CHUNK_SLOTS, slots - from);
  const hb = n * 8;
  const fb = n * nf * 8;
  const out = Buffer.allocUnsafe(hb + fb + n * ni * 4);
  const bytes = (a: Uint32Array | Float64Array | Int32Array, start: number, count: number) => Buffer.from(a.buffer, a.byteOffset + start * a.BYTES_PER_ELEMENT, count * a.BYTES_PER_ELEMENT);
  bytes(p.hashes, from * 2, n * 2).copy(out, 0);
  bytes(p.floats, from * nf, n * nf).copy(out, hb);
  bytes(p.ints, from * ni, n * ni).copy(out, hb + fb);
  return out;
}

/** Decode a header and its chunks (in order) into columns with room for `capacity` slots. */
export function decodeFoldState(headerJson: string, chunks: readonly Uint8Array[], nf: number, ni: number, capacity: (slots: number) => number): FoldStateParts {
  const header = JSON.parse(headerJson) as FoldStateHeader;
  if (header.version !== FOLD_STATE_VERSION) throw new RangeError(`fold state version ${String(header.version)}, this build knows ${FOLD_STATE_VERSION}`);
  const slots = header.slots;
  if (!Number.isInteger(slots) || slots < 0 || chunks.length !== chunkCountOf(slots)) throw new RangeError('fold state chunks do not match its header');
  const cap = capacity(slots);
  const hashes = new Uint32Array(cap * 2);
  const floats = new Float64Array(cap * nf);
  const ints = new Int32Array(cap * ni);
  const h8 = new Uint8Array(hashes.buffer);
  const f8 = new Uint8Array(floats.buffer);
  const i8 = new Uint8Array(ints.buffer);
  chunks.forEach((chunk, c) => {
    const from = c * CHUNK_SLOTS;
    const n = Math.min(CHUNK_SLOTS, slots - from);
    const hb = n * 8;
    const fb = n * nf * 8;
    if (chunk.byteLength !== hb + fb + n * ni * 4) throw new RangeError(`fold state chunk ${c} has ${chunk.byteLength} bytes`);
    h8.set(chunk.subarray(0, hb), from * 8);
    f8.set(chunk.subarray(hb, hb + fb), from * nf * 8);
    i8.set(chunk.subarray(hb + fb), from * ni * 4);
  });
  return { header, hashes, floats, ints };
}
