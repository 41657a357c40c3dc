/**
 * The totals fold's state as data, so a fold can stop and go on in another process (src/cost/incremental.ts
 * keeps it in the event cache). The state is the fold's whole memory: per slot (one per dedup key) its key
 * hash and its columns; the interned strings the slots point at and the group sets; and the running totals
 * the summary is read from (src/cost/fold-totals.ts).
 *
 * Slots only grow at the end, and an existing slot changes only when a larger copy of its response comes.
 * So the slots are stored in chunks of CHUNK_SLOTS, each as two pieces: `seq 2c` the key hashes of chunk c
 * (u32 hi, lo per slot), `seq 2c + 1` its columns (f64 × NF, then i32 × NI, per slot). A run that folded a
 * few appended lines rewrites only the pieces it touched (the last chunk), not the ~9 MB of a long history:
 * a live monitor that reports every few seconds writes kilobytes. A restored fold reads the header and the
 * hashes (8 bytes a slot, to find the keys it already counts) and a chunk's columns only when one of its
 * slots is compared or rewritten; its summary comes from the totals in the header.
 *
 * Decoding checks the version and every length; anything else is a RangeError (the caller folds from scratch).
 */

/** Goes up with any change of the fold's columns, of what a slot means, or of this layout. */
export const FOLD_STATE_VERSION = 4;
/** Slots per stored chunk (~96 bytes each: ~770 KB a chunk). */
export const CHUNK_SLOTS = 8192;

/** The header of a fold state (everything but the slots). */
export interface FoldStateHeader {
  version: number;
  slots: number;
  counts: { records: number; selected: number; keys: number };
  files: string[];
  sessions: string[];
  /** The retained records folded: their count and two sums (fold.ts `noteRetained`). */
  retained: number[];
  groups: string[];
  unpriced: string[];
  groupSets: number[][];
  /** Single-group sets by group key, and tag sets by their joined tags. */
  single: [string, number][];
  tagSets: [string, number][];
  /** The running totals (FoldTotals.toJSON()). */
  totals: unknown;
}

/** A stored fold state: the header, the hash pieces of every chunk in order, and a reader of column pieces. */
export interface StoredFoldState {
  header: string;
  hashes: readonly Uint8Array[];
  /** The column piece of chunk `c`; throws when it cannot be read any more (see SnapshotLost). */
  columns(c: number): Uint8Array;
}

/**
 * What a fold exports: the header, and the pieces asked for (by `seq`), of `seqCount` in all. A piece is
 * encoded when its writer asks for it, so a state of many megabytes is never all in memory at once.
 */
export interface ExportedFoldState {
  header: string;
  pieces: Map<number, () => Buffer>;
  seqCount: number;
}

export function chunkCountOf(slots: number): number {
  return Math.ceil(slots / CHUNK_SLOTS);
}

const hashSeq = (c: number): number => 2 * c;
const columnSeq = (c: number): number => 2 * c + 1;
export { columnSeq, hashSeq };

function slotsIn(slots: number, c: number): number {
  return Math.max(0, Math.min(CHUNK_SLOTS, slots - c * CHUNK_SLOTS));
}

function bytesOf(a: Uint32Array | Float64Array | Int32Array, start: number, count: number): Buffer {
  return Buffer.from(a.buffer, a.byteOffset + start * a.BYTES_PER_ELEMENT, count * a.BYTES_PER_ELEMENT);
}

/** The hash piece of chunk `c`. */
export function encodeHashes(hashes: Uint32Array, slots: number, c: number): Buffer {
  return Buffer.from(bytesOf(hashes, c * CHUNK_SLOTS * 2, slotsIn(slots, c) * 2));
}

/** The column piece of chunk `c` (`nf` floats and `ni` ints per slot). */
export function encodeColumns(floats: Float64Array, ints: Int32Array, slots: number, c: number, nf: number, ni: number): Buffer {
  const n = slotsIn(slots, c);
  const from = c * CHUNK_SLOTS;
  const out = Buffer.allocUnsafe(n * (nf * 8 + ni * 4));
  bytesOf(floats, from * nf, n * nf).copy(out, 0);
  bytesOf(ints, from * ni, n * ni).copy(out, n * nf * 8);
  return out;
}

/** Copy a column piece of chunk `c` into the columns. */
export function decodeColumns(piece: Uint8Array, floats: Float64Array, ints: Int32Array, slots: number, c: number, nf: number, ni: number): void {
  const n = slotsIn(slots, c);
  if (piece.byteLength !== n * (nf * 8 + ni * 4)) throw new RangeError(`fold state chunk ${c} has ${piece.byteLength} bytes`);
  const from = c * CHUNK_SLOTS;
  new Uint8Array(floats.buffer, floats.byteOffset + from * nf * 8, n * nf * 8).set(piece.subarray(0, n * nf * 8));
  new Uint8Array(ints.buffer, ints.byteOffset + from * ni * 4, n * ni * 4).set(piece.subarray(n * nf * 8));
}

/** Decode a header and its hash pieces into a hash column with room for `capacity` slots. */
export function decodeHeaderAndHashes(headerJson: string, pieces: readonly Uint8Array[], capacity: (slots: number) => number): { header: FoldStateHeader; hashes: Uint32Array } {
  const header = JSON.parse(headerJson) as FoldStateHeader;
  if (header.version !== FOLD_STATE_VERSION) throw new RangeError(`fold state version ${String(header.version)}, this build knows ${FOLD_STATE_VERSION}`);
  const slots = header.slots;
  if (!Number.isInteger(slots) || slots < 0 || pieces.length !== chunkCountOf(slots)) throw new RangeError('fold state chunks do not match its header');
  const hashes = new Uint32Array(capacity(slots) * 2);
  const h8 = new Uint8Array(hashes.buffer);
  pieces.forEach((piece, c) => {
    if (piece.byteLength !== slotsIn(slots, c) * 8) throw new RangeError(`fold state hash chunk ${c} has ${piece.byteLength} bytes`);
    h8.set(piece, c * CHUNK_SLOTS * 8);
  });
  return { header, hashes };
}

/** Thrown by a column reader when the stored state moved on (another process stored a newer one). */
export class SnapshotLost extends Error {
  constructor() {
    super('the stored fold state changed while it was being read');
  }
}
