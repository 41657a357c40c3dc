/*
 * Which vector loops this build of the kernel has, and the one flag they share: the search (kernel.c) and the
 * walk (scan-fields.c) each pick their AVX2 loop by `sf_have_avx2`, which kernel.c alone sets (sf_init,
 * sf_simd). Private to the kernel's files: binding.c and the rest see kernel.h only.
 */
#ifndef SESSIONFOLD_CPU_H
#define SESSIONFOLD_CPU_H
#if defined(__x86_64__) || defined(_M_X64)
#define SF_X86 1
#include <immintrin.h>
/* Hidden: one copy inside the addon, read PC-relative rather than through the GOT of a -fPIC build. */
extern int sf_have_avx2 __attribute__((visibility("hidden")));
#elif defined(__wasm_simd128__)
/* The WebAssembly build (native/wasm/, scripts/build-wasm.mjs): SIMD128 in place of AVX2, always on. */
#define SF_WASM 1
#include <wasm_simd128.h>
#endif
#endif
