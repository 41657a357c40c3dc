/**
 * The optional native kernel (native/: the loops in kernel.c, the Node binding in binding.c; built by
 * scripts/build-native.mjs into build/kernel.node): the line filter's substring search and the exact field
 * scanner's walk (cursors/scan-fields.ts), in C with AVX2. Nothing depends on it: when it is not built (no C
 * compiler or no Node headers at install), cannot load, or is turned off with `SESSIONFOLD_NATIVE=0`, the
 * JavaScript loops run instead, and both answer the same (test/native-kernel.test.ts holds the kernel's
 * answers to the JavaScript loops').
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The kernel's interface version; a build of another version is not loaded. */
export const KERNEL_ABI = 1;

export interface NativeKernel {
  readonly abi: number;
  /** The first start of `needle` wholly inside `hay[from, to)`, or -1. */
  indexOf(hay: Uint8Array, needle: Uint8Array, from: number, to: number): number;
  /** A projection spec `[[keyBytes, slot, slotEnd, subSpec | null], …]` with `slots` slots, as a handle. */
  compile(spec: unknown[], slots: number): object;
  /** See cursors/scan-fields.ts: true when the walk read the line; the spans are then in `out`. */
  scan(line: Uint8Array, handle: object, out: Int32Array): boolean;
  /** Whether the AVX2 loops run; `simd(false)` turns them off for this process (tests of the plain loops). */
  simd(on?: boolean): boolean;
}

/** Where the build puts the kernel, from this module in `src/` (tests) or `dist/src/` (the build). */
const CANDIDATES = ['../build/kernel.node', '../../build/kernel.node'];

function load(): NativeKernel | undefined {
  if (process.env.SESSIONFOLD_NATIVE === '0') return undefined;
  const require = createRequire(import.meta.url);
  for (const rel of CANDIDATES) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (!existsSync(path)) continue;
    try {
      const k = require(path) as NativeKernel;
      return k.abi === KERNEL_ABI ? k : undefined;
    } catch {
      return undefined; // another platform's or a broken build: the JavaScript loops answer the same
    }
  }
  return undefined;
}

/** The loaded kernel, or undefined. */
export const nativeKernel: NativeKernel | undefined = load();

/** The first start of `needle` wholly inside `hay[from, to)`, or -1 (`to` ≤ hay.length). */
export function indexOfJs(hay: Buffer, needle: Buffer, from: number, to: number): number {
  const at = hay.indexOf(needle, from);
  return at !== -1 && at + needle.length <= to ? at : -1;
}

/** `indexOfJs` by the kernel when it is loaded. */
export const indexOfIn: (hay: Buffer, needle: Buffer, from: number, to: number) => number =
  nativeKernel === undefined ? indexOfJs : (hay, needle, from, to) => (nativeKernel as NativeKernel).indexOf(hay, needle, from, to);
