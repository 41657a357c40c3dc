/** xorshift32, for fuzz runs: a fixed seed gives the same run everywhere. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

/** mulberry32, for seeded samples: numbers in [0, 1), the same sequence for a seed on every run. */
export function unitRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mutate bytes 1–4 times: drop a byte, insert one of `pieces`, flip a bit, cut the rest, or insert two random bytes. */
export function mutator(next: () => number, pieces: readonly Buffer[]): (b: Buffer) => Buffer {
  return (b) => {
    let out = b;
    const edits = 1 + (next() % 4);
    for (let e = 0; e < edits; e++) {
      const at = out.length === 0 ? 0 : next() % (out.length + 1);
      const kind = next() % 5;
      if (kind === 0) out = Buffer.concat([out.subarray(0, at), out.subarray(at + 1)]);
      else if (kind === 1) out = Buffer.concat([out.subarray(0, at), pieces[next() % pieces.length] as Buffer, out.subarray(at)]);
      else if (kind === 2) {
        out = Buffer.from(out);
        if (at < out.length) out[at] = (out[at] as number) ^ (1 << (next() % 8));
      } else if (kind === 3) out = out.subarray(0, at);
      else out = Buffer.concat([out.subarray(0, at), Buffer.from([next() & 0xff, next() & 0xff]), out.subarray(at)]);
    }
    return out;
  };
}
