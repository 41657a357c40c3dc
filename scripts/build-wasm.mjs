#!/usr/bin/env node
/**
 * Build the WebAssembly kernel (native/kernel.c, scan-fields.c and timestamps.c with their SIMD128 branches
 * + native/wasm/exports.c → native/wasm/kernel.wasm) with clang for wasm32 and wasi-libc (only its string
 * functions are linked: the module imports nothing). The .wasm is committed, so installing sessionfold needs no compiler; this script
 * is for whoever changes the C. `--check` builds to a temporary file and fails when its bytes differ from the
 * committed ones (.ci/run runs it: the committed module must be what its source builds to).
 *
 * Debian: `apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32`. `CLANG` picks the compiler,
 * `WASI_SYSROOT` the sysroot (Debian puts wasi-libc under /usr).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'native', 'wasm', 'kernel.wasm');
/** The module's whole memory (cursors/wasm.ts lays it out): read buffers, line scratch, projections. */
export const MEMORY_BYTES = 12 << 20;
const check = process.argv.includes('--check');
const clang = process.env.CLANG ?? 'clang';
const sysroot = process.env.WASI_SYSROOT ?? '/usr';

// The kernel's pure files (native/kernel.c lists them), not the rest of native/: those are the N-API addon's.
const sources = ['native/kernel.c', 'native/scan-fields.c', 'native/timestamps.c', 'native/wasm/exports.c'];
const flags = [
  '--target=wasm32-wasi',
  `--sysroot=${sysroot}`,
  '-O2',
  '-msimd128',
  '-std=gnu11',
  '-Wall',
  '-nostartfiles',
  `-ffile-prefix-map=${root}/=`,
  '-Wl,--no-entry',
  '-Wl,--strip-all',
  '-Wl,--gc-sections',
  `-Wl,--initial-memory=${MEMORY_BYTES}`,
  `-Wl,--max-memory=${MEMORY_BYTES}`,
  '-Wl,-z,stack-size=262144',
  '-Wl,--export=__heap_base',
];

const tmp = `${out}.${process.pid}.tmp`;
// Relative paths from the package root: the bytes do not depend on where the clone is.
const r = spawnSync(clang, [...flags, ...sources, '-o', relative(root, tmp)], { cwd: root, encoding: 'utf8' });
if (r.status !== 0) {
  rmSync(tmp, { force: true });
  process.stderr.write(`sessionfold: the WebAssembly kernel was not built: ${r.error?.message ?? r.stderr.trim()}\n`);
  process.exit(1);
}
if (r.stderr.trim() !== '') process.stderr.write(r.stderr);
if (check) {
  const built = readFileSync(tmp);
  rmSync(tmp, { force: true });
  let committed;
  try {
    committed = readFileSync(out);
  } catch {
    committed = Buffer.alloc(0);
  }
  if (!built.equals(committed)) {
    process.stderr.write(`sessionfold: native/wasm/kernel.wasm is not what its source builds to (${committed.length} committed bytes, ${built.length} built): run node scripts/build-wasm.mjs and commit it\n`);
    process.exit(1);
  }
  process.stdout.write(`native/wasm/kernel.wasm matches its source (${built.length} bytes)\n`);
} else {
  renameSync(tmp, out);
  process.stdout.write(`native/wasm/kernel.wasm: ${readFileSync(out).length} bytes\n`);
}
