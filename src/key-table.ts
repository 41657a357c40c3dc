/**
 * A compact map from dedup keys to small integers (or a set of them), for folds and exports over millions of
 * usage events. A `Map<string, …>` would keep every key string alive (~100 bytes each with its entry);
 * this table keeps only a 64-bit xxhash of each key in one open-addressed typed array: 16 bytes per slot,
 * load factor ≤ 0.5. Growing twofold (the default) keeps the load between 1/4 and 1/2, so 32–64 bytes per key;
 * the cost fold's dedup table grows fourfold (fewer rehashes), its load between 1/8 and 1/2: 32–128 bytes. Two different keys collide with probability ~n²/2^65 (3·10^-8 for a
 * million keys), an accepted, documented risk. The table serializes to bytes so an export cursor can keep
 * the set of keys it has already shipped.
 */
import { hashString64Into } from '../cursors/ids.js';

/** 64-bit xxhash of a key as two uint32 halves; never (0, 0), which marks an empty slot. */
export function hashKey(key: string): [number, number] {
  hashInto(key);
  return [HASH[0] as number, HASH[1] as number];
}

/** Scratch output of `hashInto`: [hi, lo] of the last key hashed (no allocation per key). */
export const HASH = new Uint32Array(2);

/** Hash a key into `HASH` (hot paths: no array per call). */
export function hashInto(key: string): void {
  hashString64Into(key, HASH);
  if (HASH[0] === 0 && HASH[1] === 0) HASH[1] = 1;
}

/**
 * Dedup keys (as 64-bit hashes) → small non-negative ints, or a set of keys.
 * @example
 * const seen = new KeyTable();
 * if (seen.add(event.dedupKey)) ship(event);
 */
export class KeyTable {
  /** Slots of 4 uint32: hash hi, hash lo, value, unused (one slot per 16 bytes: a probe touches one cache line). */
  #data: Uint32Array;
  #size = 0;
  #mask: number;
  /** How many times the slots a full table grows to: 2, or 4 (see `#grow`). */
  readonly #growth: 2 | 4;

  constructor(capacity = 1024, growth: 2 | 4 = 2) {
    this.#growth = growth;
    let cap = 16;
    while (cap < capacity * 2) cap *= 2;
    this.#data = new Uint32Array(cap * 4);
    this.#mask = cap - 1;
  }

  get size(): number {
    return this.#size;
  }

  /** Index (in uint32s) of the key's slot, or of the empty slot where it would go. */
  #slot(hi: number, lo: number): number {
    const d = this.#data;
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.#mask;
    for (;;) {
      const o = i << 2;
      const h = d[o] as number;
      const l = d[o + 1] as number;
      if (h === hi && l === lo) return o;
      if (h === 0 && l === 0) return o;
      i = (i + 1) & this.#mask;
    }
  }

  /**
   * `growth` times the slots. A rehash runs over every key, mostly in code the JIT has not compiled yet:
   * fourfold takes fewer and larger steps (the keys rehashed in all, about a third of the last size instead of
   * all of it) for a load factor between 1/8 and 1/2 instead of 1/4 and 1/2.
   */
  #grow(): void {
    const old = this.#data;
    this.#data = new Uint32Array(old.length * this.#growth);
    this.#mask = (old.length / 4) * this.#growth - 1;
    for (let o = 0; o < old.length; o += 4) {
      const hi = old[o] as number;
      const lo = old[o + 1] as number;
      if (hi === 0 && lo === 0) continue;
      const j = this.#slot(hi, lo);
      this.#data[j] = hi;
      this.#data[j + 1] = lo;
      this.#data[j + 2] = old[o + 2] as number;
    }
  }

  /** The value stored for a hashed key, or -1. */
  getHash(hi: number, lo: number): number {
    const o = this.#slot(hi, lo);
    const d = this.#data;
    return d[o] === 0 && d[o + 1] === 0 ? -1 : (d[o + 2] as number);
  }

  /** Store a value (0 ≤ value < 2^31) for a hashed key. */
  setHash(hi: number, lo: number, value: number): void {
    let o = this.#slot(hi, lo);
    if (this.#data[o] === 0 && this.#data[o + 1] === 0) {
      if ((this.#size + 1) * 2 > this.#data.length / 4) {
        this.#grow();
        o = this.#slot(hi, lo);
      }
      this.#data[o] = hi;
      this.#data[o + 1] = lo;
      this.#size++;
    }
    this.#data[o + 2] = value;
  }

  get(key: string): number {
    hashInto(key);
    return this.getHash(HASH[0] as number, HASH[1] as number);
  }

  set(key: string, value: number): void {
    hashInto(key);
    this.setHash(HASH[0] as number, HASH[1] as number, value);
  }

  /** Set-style use: add the key; true when it was not there yet. */
  add(key: string): boolean {
    hashInto(key);
    const hi = HASH[0] as number;
    const lo = HASH[1] as number;
    if (this.getHash(hi, lo) >= 0) return false;
    this.setHash(hi, lo, 0);
    return true;
  }

  has(key: string): boolean {
    return this.get(key) >= 0;
  }

  /** The slots as they are (a fold snapshot stores them): `KeyTable.fromRaw` takes them back without rehashing. */
  raw(): { data: Uint32Array; size: number } {
    return { data: this.#data, size: this.#size };
  }

  /** The table `raw()` returned (`data` is used, not copied). */
  static fromRaw(data: Uint32Array, size: number): KeyTable {
    const slots = data.length / 4;
    if (!Number.isInteger(slots) || slots < 16 || (slots & (slots - 1)) !== 0 || size < 0 || size * 2 > slots) throw new RangeError('not a key table');
    const t = new KeyTable(1);
    t.#data = data;
    t.#mask = slots - 1;
    t.#size = size;
    return t;
  }

  /** The hashes (not the values) as bytes: 8 per key, big-endian hi then lo. */
  toBytes(): Buffer {
    const out = Buffer.allocUnsafe(this.#size * 8);
    const d = this.#data;
    let o = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] === 0 && d[i + 1] === 0) continue;
      out.writeUInt32BE(d[i] as number, o);
      out.writeUInt32BE(d[i + 1] as number, o + 4);
      o += 8;
    }
    return out;
  }

  /** The values, 4 bytes per key (big-endian), in the order of `toBytes()`. */
  valuesToBytes(): Buffer {
    const out = Buffer.allocUnsafe(this.#size * 4);
    const d = this.#data;
    let o = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] === 0 && d[i + 1] === 0) continue;
      out.writeUInt32BE(d[i + 2] as number, o);
      o += 4;
    }
    return out;
  }
}
