/**
 * The optional native kernel (native/: the loops in kernel.c and the files it lists, the Node binding in
 * binding.c; built by scripts/build-native.mjs into build/kernel.node): the line filter's substring search
 * and the exact field scanner's walk (cursors/scan-fields.ts), in C with AVX2. Nothing depends on it: when it is not built (no C
 * compiler or no Node headers at install), cannot load, or is turned off with `SESSIONFOLD_NATIVE=0`, the
 * JavaScript loops run instead, and both answer the same (test/native-kernel.test.ts holds the kernel's
 * answers to the JavaScript loops'). Where it is absent or off, the WebAssembly kernel (cursors/wasm.ts) runs
 * the same search, walk and hash, unless `SESSIONFOLD_WASM=0`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from './versions.js';
import { instantiateWasmKernel, type WasmKernel } from './wasm.js';

/** The kernel's interface version; a build of another version is not loaded. */
export const KERNEL_ABI = 4;

export interface NativeKernel {
  readonly abi: number;
  /** Threads the engines read on (native/pool.c: one per online CPU, at most 8, below the main thread's priority). */
  readonly threads: number;
  /** The first start of `needle` wholly inside `hay[from, to)`, or -1. */
  indexOf(hay: Uint8Array, needle: Uint8Array, from: number, to: number): number;
  /** A projection spec `[[keyBytes, slot, slotEnd, subSpec | null], …]` with `slots` slots, as a handle. */
  compile(spec: unknown[], slots: number): object;
  /** See cursors/scan-fields.ts: true when the walk read the line; the spans are then in `out`. */
  scan(line: Uint8Array, handle: object, out: Int32Array): boolean;
  /** Whether the AVX2 loops run; `simd(false)` turns them off for this process (tests of the plain loops). */
  simd(on?: boolean): boolean;
  /**
   * A line source over an open file's bytes [from, end) (native/lines.c, driven by cursors/native-lines.ts):
   * `head` 1 applies the Codex record-type rule on top of the markers; `cap` is the first buffer size.
   */
  linesOpen(fd: number, from: number, end: number, maxLine: number, head: number, cap: number): object;
  /**
   * The next lines (at most `limit`) that can matter: every non-empty line without markers; with markers,
   * the lines holding one. Each is copied into `out` with 5 doubles in `idx` (kind, start, offset in out,
   * length, next). Returns the record count, or LINES_END, LINES_IO_ERROR, LINES_NEED_OUT (the size in idx[0]).
   */
  linesNext(source: object, markers: readonly Uint8Array[] | null, out: Uint8Array, idx: Float64Array, limit: number): number;
  /** [lines, filtered, bytes read, committed offset, pending bytes, errno]. */
  linesStats(source: object, out: Float64Array): void;
  /** Free the source's buffer now (the handle is unusable after). */
  linesClose(source: object): void;
  /**
   * Whole files' usage by an engine, read one after another on one of the engines' threads: 0 Claude
   * (native/claude.c), 1 Codex (native/codex.c; a file id is the id of a rollout without a header). Per file its
   * result block, or false when JavaScript must read it (codecs/claude/native.ts and codecs/codex/native.ts
   * decode the blocks).
   */
  scanFiles(engine: 0 | 1, paths: readonly string[], fileIds: readonly string[], maxLine: number, cap: number, projection: object, map: Int32Array): Promise<(Buffer | false)[]>;
  /**
   * One directory's entries (native/walk.c; cursors/list-dir.ts reads the block): null when it cannot be
   * opened.
   */
  listDir(dir: string): Buffer | null;
  /** A whole tree (native/walk.c `listTree`; cursors/list-dir.ts reads the block): null when the root cannot be opened. */
  listTree(root: string, only: readonly string[], maxDepth: number): Buffer | null;
  /** Streaming XXH64 (native/hash.c; cursors/ids.ts `createHash64`): a state, then updates and digests. */
  hash64(): object;
  hash64Update(state: object, bytes: Uint8Array): void;
  /** Bytes [from, to) of an open file hashed; the count (short at the file's end), or −errno. */
  hash64File(state: object, fd: number, from: number, to: number): number;
  hash64Digest(state: object): string;
  /** glibc's `mallopt(M_ARENA_MAX, n)`: false where the C library is another or refuses. */
  limitArenas(n: number): boolean;
}

/**
 * Where the build puts the kernel: `build/` of the package (scripts/build-native.mjs), named from the package
 * folder; without one (a copy whose package.json is named otherwise), from this module in `src/` or `dist/src/`.
 */
function kernelPaths(): string[] {
  const root = packageRoot();
  if (root !== undefined) return [join(root, 'build', 'kernel.node')];
  return ['../build/kernel.node', '../../build/kernel.node'].map((rel) => fileURLToPath(new URL(rel, import.meta.url)));
}

function load(): NativeKernel | undefined {
  if (process.env.SESSIONFOLD_NATIVE === '0') return undefined;
  const path = kernelPaths().find((p) => existsSync(p));
  if (path === undefined) return undefined;
  try {
    const k = createRequire(import.meta.url)(path) as NativeKernel;
    return k.abi === KERNEL_ABI ? k : undefined;
  } catch {
    return undefined; // another platform's or a broken build: the JavaScript loops answer the same
  }
}

/** linesNext's record kinds and answers (native/kernel.h). */
export const LINE = 0;
export const LINE_LONG = 1;
export const LINE_TOO_LONG = 2;
export const LINES_END = -1;
export const LINES_IO_ERROR = -2;
export const LINES_NEED_OUT = -3;

/** `raw`, or a copy of it at an 8-byte-aligned offset: a Float64Array view of a kernel block needs one. */
export function aligned8(raw: Buffer): Buffer {
  return raw.byteOffset % 8 === 0 ? raw : Buffer.from(raw);
}

/**
 * The loaded kernel, or undefined; loaded by the first call, not at import: the addon's `dlopen` and
 * binding (about 10 ms of CPU) are not on the path of a run that reads no file (an empty report, `--version`,
 * the served client). A process tries once; the answer does not change after.
 */
export function nativeKernel(): NativeKernel | undefined {
  if (!nativeTried) {
    nativeTried = true;
    native = load();
    if (native !== undefined && arenasOnLoad !== undefined) native.limitArenas(arenasOnLoad);
  }
  return native;
}
let nativeTried = false;
let native: NativeKernel | undefined;

/**
 * The WebAssembly kernel of this thread where the native one is not loaded (and `SESSIONFOLD_WASM` is not
 * `0`), or undefined: the JavaScript loops then run. Compiled and instantiated by the first call.
 */
export function wasmKernel(): WasmKernel | undefined {
  if (!wasmTried) {
    wasmTried = true;
    wasm = nativeKernel() === undefined && process.env.SESSIONFOLD_WASM !== '0' ? instantiateWasmKernel() : undefined;
  }
  return wasm;
}
let wasmTried = false;
let wasm: WasmKernel | undefined;

/** The WebAssembly kernel when this thread has already loaded it (never loads it: for work that also runs without files read). */
export function loadedWasmKernel(): WasmKernel | undefined {
  return wasm;
}

/**
 * The executable's malloc arenas (src/cli/main.cts calls this; a program that imports sessionfold decides for
 * its own process). glibc gives each thread that allocates its own arena, up to 8 per core, and an arena keeps
 * what its thread freed resident: the engines' threads (native/pool.c) each took one, which put the server's
 * peak RSS at 232 and 260 MB in two served runs on the 1.8 GB bench history, over the 250 MB goal. Capped
 * at 2 before the engines start, the threads share the arenas Node's own threads already made: 236 and 229 MB,
 * the server's first build no slower (1.60–1.72 s either way); capped at 1, 223 and 226 MB but 1.82–2.26 s
 * (bench/RESULTS.md, "Sixth session": two runs each, once; the peers harness records the
 * server's peak RSS in every run).
 */
export const MALLOC_ARENAS = 2;
export function limitMallocArenas(n = MALLOC_ARENAS): boolean {
  return nativeKernel()?.limitArenas(n) ?? false;
}

/**
 * The executable's cap at its start (src/cli/main.cts, before the CLI's CommonJS bundle compiles): now, the
 * kernel loaded for it, where the process's address space is limited (`ulimit -v`, told by
 * /proc/self/limits): V8 compiles on background threads, and each thread that allocates takes an arena of
 * its own, 64 MB of address space, which under a 1 GB limit left V8 no room for its heap. Otherwise when
 * the kernel loads (`limitMallocArenasOnLoad`), which is still before any engine thread starts: a run that
 * reads no file (an empty report) then never opens the addon. Linux only, where glibc's arenas are.
 */
export function limitMallocArenasAtStart(n = MALLOC_ARENAS): void {
  if (addressSpaceLimited()) limitMallocArenas(n);
  else limitMallocArenasOnLoad(n);
}

/** Whether RLIMIT_AS is set for this process (Linux); true where /proc cannot tell. */
export function addressSpaceLimited(limits?: string): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const m = /^Max address space\s+(\S+)/m.exec(limits ?? readFileSync('/proc/self/limits', 'utf8'));
    return m === null || m[1] !== 'unlimited';
  } catch {
    return true;
  }
}

/**
 * `limitMallocArenas` when the kernel loads (now, if it has): the CLI's start does not load the kernel for it.
 * The engines' threads are the kernel's, so the cap still comes before any of them starts.
 */
export function limitMallocArenasOnLoad(n = MALLOC_ARENAS): void {
  if (nativeTried) native?.limitArenas(n);
  else arenasOnLoad = n;
}
let arenasOnLoad: number | undefined;

/** The first start of `needle` wholly inside `hay[from, to)`, or -1 (`to` ≤ hay.length). */
export function indexOfJs(hay: Buffer, needle: Buffer, from: number, to: number): number {
  const at = hay.indexOf(needle, from);
  return at !== -1 && at + needle.length <= to ? at : -1;
}

/** `indexOfJs` by the native kernel when it is loaded, else by the WebAssembly one (chosen on the first call). */
export function indexOfIn(hay: Buffer, needle: Buffer, from: number, to: number): number {
  return (indexOfImpl ??= pickIndexOf())(hay, needle, from, to);
}
let indexOfImpl: ((hay: Buffer, needle: Buffer, from: number, to: number) => number) | undefined;

/** Which loop `indexOfIn` runs. */
export function indexOfKind(): 'native' | 'wasm' | 'js' {
  return nativeKernel() !== undefined ? 'native' : wasmKernel() !== undefined ? 'wasm' : 'js';
}

function pickIndexOf(): (hay: Buffer, needle: Buffer, from: number, to: number) => number {
  const n = nativeKernel();
  if (n !== undefined) return (hay, needle, from, to) => n.indexOf(hay, needle, from, to);
  const w = wasmKernel();
  if (w !== undefined) return (hay, needle, from, to) => w.indexOf(hay, needle, from, to);
  return indexOfJs;
}
