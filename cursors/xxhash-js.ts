/**
 * XXH32 and XXH64 (seed 0) in plain JavaScript, the same digests as xxhash-wasm: the fallback where
 * WebAssembly cannot start (its memory reserves gigabytes of address space, which `ulimit -v` refuses).
 * Slower (XXH64 in BigInt), and only used then.
 */
const M64 = (1n << 64n) - 1n;
const P64_1 = 11400714785074694791n;
const P64_2 = 14029467366897019727n;
const P64_3 = 1609587929392839161n;
const P64_4 = 9650029242287828579n;
const P64_5 = 2870177450012600261n;

const rotl64 = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M64;
const round64 = (acc: bigint, lane: bigint): bigint => (rotl64((acc + lane * P64_2) & M64, 31n) * P64_1) & M64;
const merge64 = (h: bigint, v: bigint): bigint => (((h ^ round64(0n, v)) * P64_1) & M64) + P64_4 & M64;

/** Streaming XXH64 (seed 0). */
export class Xxh64 {
  #v = [(P64_1 + P64_2) & M64, P64_2, 0n, (M64 + 1n - P64_1) & M64];
  #pending = Buffer.alloc(32);
  #fill = 0;
  #total = 0;

  update(b: Uint8Array): void {
    const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    this.#total += buf.length;
    let at = 0;
    if (this.#fill > 0) {
      const take = Math.min(32 - this.#fill, buf.length);
      buf.copy(this.#pending, this.#fill, 0, take);
      this.#fill += take;
      at = take;
      if (this.#fill < 32) return;
      this.#stripe(this.#pending, 0);
      this.#fill = 0;
    }
    for (; at + 32 <= buf.length; at += 32) this.#stripe(buf, at);
    this.#fill = buf.copy(this.#pending, 0, at);
  }

  #stripe(b: Buffer, at: number): void {
    const v = this.#v;
    for (let i = 0; i < 4; i++) v[i] = round64(v[i] as bigint, b.readBigUInt64LE(at + 8 * i));
  }

  digest(): bigint {
    const [v1, v2, v3, v4] = this.#v as [bigint, bigint, bigint, bigint];
    let h: bigint;
    if (this.#total >= 32) {
      h = (rotl64(v1, 1n) + rotl64(v2, 7n) + rotl64(v3, 12n) + rotl64(v4, 18n)) & M64;
      for (const v of [v1, v2, v3, v4]) h = merge64(h, v);
    } else h = P64_5;
    h = (h + BigInt(this.#total)) & M64;
    const p = this.#pending;
    let i = 0;
    for (; i + 8 <= this.#fill; i += 8) {
      h ^= round64(0n, p.readBigUInt64LE(i));
      h = (rotl64(h, 27n) * P64_1 + P64_4) & M64;
    }
    if (i + 4 <= this.#fill) {
      h ^= (BigInt(p.readUInt32LE(i)) * P64_1) & M64;
      h = (rotl64(h, 23n) * P64_2 + P64_3) & M64;
      i += 4;
    }
    for (; i < this.#fill; i++) {
      h ^= (BigInt(p[i] as number) * P64_5) & M64;
      h = (rotl64(h, 11n) * P64_1) & M64;
    }
    h ^= h >> 33n;
    h = (h * P64_2) & M64;
    h ^= h >> 29n;
    h = (h * P64_3) & M64;
    h ^= h >> 32n;
    return h;
  }
}

export function xxh64(b: Uint8Array): bigint {
  const h = new Xxh64();
  h.update(b);
  return h.digest();
}

const P32_1 = 2654435761;
const P32_2 = 2246822519;
const P32_3 = 3266489917;
const P32_4 = 668265263;
const P32_5 = 374761393;
const rotl32 = (x: number, r: number): number => (x << r) | (x >>> (32 - r));
const round32 = (acc: number, lane: number): number => Math.imul(rotl32((acc + Math.imul(lane, P32_2)) | 0, 13), P32_1);

export function xxh32(b: Uint8Array): number {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const len = buf.length;
  let i = 0;
  let h: number;
  if (len >= 16) {
    let v1 = (P32_1 + P32_2) | 0;
    let v2 = P32_2 | 0;
    let v3 = 0;
    let v4 = -P32_1 | 0;
    for (; i + 16 <= len; i += 16) {
      v1 = round32(v1, buf.readUInt32LE(i));
      v2 = round32(v2, buf.readUInt32LE(i + 4));
      v3 = round32(v3, buf.readUInt32LE(i + 8));
      v4 = round32(v4, buf.readUInt32LE(i + 12));
    }
    h = (rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18)) | 0;
  } else h = P32_5;
  h = (h + len) | 0;
  for (; i + 4 <= len; i += 4) h = Math.imul(rotl32((h + Math.imul(buf.readUInt32LE(i), P32_3)) | 0, 17), P32_4);
  for (; i < len; i++) h = Math.imul(rotl32((h + Math.imul(buf[i] as number, P32_5)) | 0, 11), P32_1);
  h ^= h >>> 15;
  h = Math.imul(h, P32_2);
  h ^= h >>> 13;
  h = Math.imul(h, P32_3);
  h ^= h >>> 16;
  return h >>> 0;
}
