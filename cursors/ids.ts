/**
 * 32- and 64-bit xxhash of ids, for cursor state (seen-id sets) and dedup keys. xxhash-wasm is instantiated
 * on the first hash asked for (or by `hashesReady()`), not at import: a run that hashes nothing (an empty
 * report, the served client) does not compile it. Until it is ready, and where WebAssembly cannot start (its
 * memory reserves gigabytes of address space: under `ulimit -v 1G` every command died at start), the same
 * digests come from plain JavaScript (xxhash-js.ts), so which one answered never shows.
 */
import { readSync } from 'node:fs';
import { createRequire } from 'node:module';
import type xxhashInit from 'xxhash-wasm';
import { loadedWasmKernel, nativeKernel, wasmKernel } from './native.js';
import { packageFile } from './package-file.js';
import type { WasmKernel } from './wasm.js';
import { Xxh64, xxh32, xxh64 } from './xxhash-js.js';

type Api = Pick<Awaited<ReturnType<typeof xxhashInit>>, 'h32' | 'h64' | 'h64ToString' | 'h64Raw' | 'create64'>;

const jsApi: Api = {
  h32: (s: string) => xxh32(Buffer.from(s, 'utf8')),
  h64: (s: string) => xxh64(Buffer.from(s, 'utf8')),
  h64ToString: (s: string) => xxh64(Buffer.from(s, 'utf8')).toString(16).padStart(16, '0'),
  h64Raw: (b: Uint8Array) => xxh64(b),
  create64: () => {
    const h = new Xxh64();
    const hasher = {
      update(b: string | Uint8Array) {
        h.update(typeof b === 'string' ? Buffer.from(b, 'utf8') : b);
        return hasher;
      },
      digest: () => h.digest(),
    };
    return hasher as unknown as ReturnType<Api['create64']>;
  },
};

/** xxhash-wasm once ready; the JavaScript digests until then (and for good where it cannot start). */
let ready: Api | undefined;
let starting: Promise<void> | undefined;

/**
 * Resolves once xxhash-wasm is ready (or known not to start). Bulk hashing awaits it first
 * (src/scan/parse-file.ts `parseTask`), so a file's lines are not hashed by the slower JavaScript XXH64.
 */
export function hashesReady(): Promise<void> {
  return (starting ??= startXxhash().then(
    (a) => {
      ready = a;
    },
    () => {
      ready = jsApi;
    },
  ));
}

/** xxhash-wasm's CommonJS build in its package (its package.json's `main` and `exports.require`). */
const XXHASH_CJS = 'cjs/xxhash-wasm.cjs';

/**
 * xxhash-wasm started: the package taken by `require()` here, not imported at the top, so a run that hashes
 * nothing neither resolves it nor reads it. Its CommonJS build, which the CLI's CommonJS bundle (a script that
 * cannot `import()`) needs as well, required by its path in the package (cursors/package-file.ts): its
 * `exports` map would start part of Node's ESM resolver, ~6 ms of CPU of a warm report that needs nothing else
 * of it. The package's name is the fallback.
 */
function startXxhash(): ReturnType<typeof xxhashInit> {
  try {
    const req = createRequire(import.meta.url);
    return (req(packageFile(req, 'xxhash-wasm', XXHASH_CJS) ?? 'xxhash-wasm') as typeof xxhashInit)();
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Which digests answer now: xxhash-wasm's once it started, else the JavaScript ones. */
export function hashesFrom(): 'xxhash-wasm' | 'js' {
  return ready !== undefined && ready !== jsApi ? 'xxhash-wasm' : 'js';
}

/** True once `hashesReady()` has resolved: an awaiting caller can skip the await. */
export function hashesAreReady(): boolean {
  return ready !== undefined;
}

function api(): Api {
  if (ready !== undefined) return ready;
  void hashesReady();
  return jsApi;
}

/** 64-bit xxhash (seed 0) of a string as a bigint. */
export const hashString64: (s: string) => bigint = (s) => api().h64(s);

const MASK32 = 0xffffffffn;

/**
 * `hashString64` of `s` as two uint32 halves into `out` ([high, low]): the fold's key table
 * (src/key-table.ts), once per usage record. Where the WebAssembly kernel is loaded (the reads without
 * the addon), by its one-call XXH64 with no bigint made (the bigint and its two shifts cost about as much as
 * the hash); else by `hashString64`.
 */
export function hashString64Into(s: string, out: Uint32Array): void {
  if (loadedWasmKernel()?.hashStringInto(s, out) === true) return;
  const h = hashString64(s);
  out[0] = Number(h >> 32n);
  out[1] = Number(h & MASK32);
}

/** 32-bit xxhash of a string id, as stored in cursor state. */
export function hashId32(id: string): number {
  return api().h32(id, 0) >>> 0;
}

/** 64-bit xxhash of a string, as 16 hex digits. */
export function hashId64(id: string): string {
  return api().h64ToString(id);
}

/**
 * A 128-bit digest of a text (32 hex digits): the xxh64 of the text and of the text after a 0x01, so two
 * independent 64-bit hashes. For keys and stat digests that decide whether a stored answer still stands,
 * where `node:crypto`'s sha256 would load that module (~10 ms of a warm report) for a few kilobytes.
 * Called after `hashesReady()`, a megabyte costs well under a millisecond.
 */
export function hashText128(text: string): string {
  const a = api();
  return a.h64ToString(text) + a.h64ToString(`\u0001${text}`);
}

/** 64-bit xxhash of bytes, as 16 hex digits. */
export function hashBytes64(bytes: Uint8Array): string {
  return api().h64Raw(bytes).toString(16).padStart(16, '0');
}

/** A streaming 64-bit xxhash: `createHash64`. */
export interface Hash64 {
  update(b: Uint8Array): void;
  /** Hash bytes [from, to) of an open file; returns how many there were (fewer when the file ends first). */
  updateFromFile(fd: number, from: number, to: number): number;
  /** The digest of everything so far, 16 hex digits (the hash goes on). */
  digest(): string;
}

const HASH_BUFFER = 1 << 20;
/**
 * One buffer per thread for the JavaScript hasher's file reads, reused by every file (reads are synchronous,
 * so it is never shared by two at once). A fresh 1 MiB buffer per file was external memory that a worker's GC
 * reclaimed late: thousands of files left tens of MB of dead buffers per worker on a cache-building run.
 */
let hashBuffer: Buffer | undefined;

/**
 * Streaming XXH64 (seed 0), the event cache's fast prefix fingerprint. With the native kernel the bytes of a
 * file are read and hashed in C (native/hash.c: no copy into JavaScript; `npm run bench -- prefix` compares
 * it with xxhash-wasm on the same prefix, bench/RESULTS.md); xxhash-wasm otherwise. Both give the same digest, so a fingerprint stored by one is verified by the
 * other (test/native-kernel.test.ts). Without the native kernel, the WebAssembly kernel (cursors/wasm.ts)
 * hashes a file's bytes where `readSync` put them in its memory (test/wasm-kernel.test.ts).
 * `SESSIONFOLD_NATIVE_HASH=0` takes xxhash-wasm.
 */
export function createHash64(): Hash64 {
  const k = nativeKernel();
  const off = process.env.SESSIONFOLD_NATIVE_HASH === '0';
  const w = k === undefined && !off ? wasmKernel() : undefined;
  if (w !== undefined) return createHash64Wasm(w);
  if (k !== undefined && !off) {
    const s = k.hash64();
    return {
      update: (b) => k.hash64Update(s, b),
      updateFromFile(fd, from, to) {
        const n = k.hash64File(s, fd, from, to);
        if (n < 0) throw Object.assign(new Error(`cannot read the file to fingerprint it (errno ${-n})`), { errno: -n });
        return n;
      },
      digest: () => k.hash64Digest(s),
    };
  }
  const h = api().create64();
  return {
    update(b) {
      h.update(b);
    },
    updateFromFile(fd, from, to) {
      const buf = (hashBuffer ??= Buffer.allocUnsafeSlow(HASH_BUFFER));
      let pos = from;
      while (pos < to) {
        const bytesRead = readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos);
        if (bytesRead === 0) break;
        h.update(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
        pos += bytesRead;
      }
      return pos - from;
    },
    digest() {
      return h.digest().toString(16).padStart(16, '0');
    },
  };
}

/** `createHash64` by a WebAssembly kernel (tests pass their own instance). */
export function createHash64Wasm(w: WasmKernel): Hash64 {
  const s = w.hash64();
  return {
    update: (b) => w.hash64Update(s, b),
    updateFromFile: (fd, from, to) => w.hash64File(s, fd, from, to),
    digest: () => w.hash64Digest(s),
  };
}
