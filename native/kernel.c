/*
 * sessionfold's optional native kernel, the pure part: the byte loops of a usage-only read that JavaScript
 * runs slowest (binding.c exposes them to Node, native/wasm/exports.c to WebAssembly; kernel.h is the
 * interface). One job per file, so that each reads on its own:
 *
 *   kernel.c       the CPU feature flag and the substring search
 *   scan-fields.c  the projection walk (sf_scan, sf_scan_why), cursors/scan-fields.ts's walk in C
 *   timestamps.c   the canonical-timestamp check and its milliseconds (sf_canonical_time, sf_time_ms)
 *
 * They share nothing but the CPU flag (cpu.h) and call nothing of each other: no call that the compiler could
 * inline within one file has to cross into another.
 *
 *   sf_find      the first start of a needle wholly inside hay[from, n), or -1
 *   sf_find_any  the first start of any of up to SF_MAX_NEEDLES needles (sf_needles), in one pass
 *
 * The byte loops (the search here, the walk's runs of string bytes) use AVX2 where the CPU has it (checked
 * once by sf_init), SIMD128 in the WebAssembly build, and plain C elsewhere. They are pure functions of their
 * arguments (no state but the CPU feature flag), so every thread calls them on its own buffers.
 */
#include <stdint.h>
#include <string.h>
#include "cpu.h"
#ifdef SF_X86
#include <pthread.h>
#endif
#include "kernel.h"

/* ------------------------------------------------------------------ CPU features */

#ifdef SF_X86
int sf_have_avx2 = 0;

static void detect_cpu(void) {
  __builtin_cpu_init();
  sf_have_avx2 = __builtin_cpu_supports("avx2");
}
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;
#endif

/* Once per process (each Worker's environment loads the module again; the pool's threads may be reading). */
void sf_init(void) {
#ifdef SF_X86
  pthread_once(&cpu_once, detect_cpu);
#endif
}

int sf_simd(int on) {
#ifdef SF_X86
  if (on >= 0) sf_have_avx2 = on && __builtin_cpu_supports("avx2");
  return sf_have_avx2 != 0;
#elif defined(SF_WASM)
  (void)on;
  return 1;
#else
  (void)on;
  return 0;
#endif
}

/* ------------------------------------------------------------------ substring search */

/* How common a byte is in JSON session text (0: very common). The search filters on the two rarest. */
static int rarity(uint8_t c) {
  if (c == '"' || c == ' ' || c == ':' || c == ',' || c == 'e' || c == 't' || c == 'a' || c == 'o' || c == 'i' ||
      c == 'n' || c == 's' || c == 'r')
    return 0;
  if (c >= 'a' && c <= 'z') return (c == 'h' || c == 'l' || c == 'd' || c == 'c' || c == 'm') ? 2 : 3;
  if (c >= 'A' && c <= 'Z') return 3;
  if (c >= '0' && c <= '9') return 2;
  return c >= 0x80 ? 1 : 2;
}

static void pick_positions(const uint8_t *nd, size_t k, size_t *p1, size_t *p2) {
  size_t a = 0;
  for (size_t j = 1; j < k; j++)
    if (rarity(nd[j]) > rarity(nd[a])) a = j;
  size_t b = a == 0 ? 1 : 0;
  for (size_t j = 0; j < k; j++)
    if (j != a && rarity(nd[j]) > rarity(nd[b])) b = j;
  *p1 = a;
  *p2 = b;
}

static int64_t find_scalar(const uint8_t *h, size_t n, const uint8_t *nd, size_t k, size_t from) {
  if (k == 0) return from <= n ? (int64_t)from : -1;
  for (size_t i = from; i + k <= n; i++) {
    const uint8_t *p = memchr(h + i, nd[0], n - k + 1 - i);
    if (p == NULL) return -1;
    i = (size_t)(p - h);
    if (memcmp(p, nd, k) == 0) return (int64_t)i;
  }
  return -1;
}

#ifdef SF_X86
/* Two needle bytes compared 32 positions at a time; candidates confirmed with memcmp. */
__attribute__((target("avx2,bmi"))) static int64_t find_avx2(const uint8_t *h, size_t n, const uint8_t *nd, size_t k, size_t from) {
  size_t p1, p2;
  pick_positions(nd, k, &p1, &p2);
  const __m256i a = _mm256_set1_epi8((char)nd[p1]);
  const __m256i b = _mm256_set1_epi8((char)nd[p2]);
  size_t i = from;
  for (; i + k + 31 <= n; i += 32) {
    const __m256i x = _mm256_loadu_si256((const __m256i *)(h + i + p1));
    const __m256i y = _mm256_loadu_si256((const __m256i *)(h + i + p2));
    uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(x, a), _mm256_cmpeq_epi8(y, b)));
    while (m != 0) {
      const unsigned t = (unsigned)__builtin_ctz(m);
      if (memcmp(h + i + t, nd, k) == 0) return (int64_t)(i + t);
      m &= m - 1;
    }
  }
  return find_scalar(h, n, nd, k, i);
}

#endif

#ifdef SF_WASM
/* find_avx2 in SIMD128: the two rarest needle bytes compared 32 positions at a time (two 16-byte vectors). */
static int64_t find_wasm(const uint8_t *h, size_t n, const uint8_t *nd, size_t k, size_t from) {
  size_t p1, p2;
  pick_positions(nd, k, &p1, &p2);
  const v128_t a = wasm_i8x16_splat((int8_t)nd[p1]);
  const v128_t b = wasm_i8x16_splat((int8_t)nd[p2]);
  size_t i = from;
  for (; i + k + 31 <= n; i += 32) {
    const uint8_t *x = h + i + p1, *y = h + i + p2;
    const v128_t lo = wasm_v128_and(wasm_i8x16_eq(wasm_v128_load(x), a), wasm_i8x16_eq(wasm_v128_load(y), b));
    const v128_t hi = wasm_v128_and(wasm_i8x16_eq(wasm_v128_load(x + 16), a), wasm_i8x16_eq(wasm_v128_load(y + 16), b));
    uint32_t m = (uint32_t)wasm_i8x16_bitmask(lo) | ((uint32_t)wasm_i8x16_bitmask(hi) << 16);
    while (m != 0) {
      const unsigned t = (unsigned)__builtin_ctz(m);
      if (memcmp(h + i + t, nd, k) == 0) return (int64_t)(i + t);
      m &= m - 1;
    }
  }
  return find_scalar(h, n, nd, k, i);
}
#endif

#if defined(SF_X86) || defined(SF_WASM)
/* The first candidate (bit t of m: position i + t) where one of the needles starts, or -1. */
static int64_t find_any_confirm(const uint8_t *h, size_t i, uint32_t m, const Needles *nd) {
  for (; m != 0; m &= m - 1) {
    const unsigned t = (unsigned)__builtin_ctz(m);
    for (int k = 0; k < nd->n; k++)
      if (memcmp(h + i + t, nd->m[k], nd->len[k]) == 0) return (int64_t)(i + t);
  }
  return -1;
}

/* After the SIMD blocks of find_any_*: each needle's first start from i, the earliest wins. */
static int64_t find_any_rest(const uint8_t *h, size_t n, const Needles *nd, size_t i) {
  int64_t best = -1;
  for (int k = 0; k < nd->n; k++) {
    const int64_t at = find_scalar(h, n, nd->m[k], nd->len[k], i);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best;
}
#endif

#ifdef SF_X86
/* Every needle's three bytes (its two rarest and its last) compared 32 positions at a time, in one pass over
 * the hay; a candidate is confirmed byte by byte. */
__attribute__((target("avx2,bmi"))) static int64_t find_any_avx2(const uint8_t *h, size_t n, const Needles *nd, size_t from) {
  __m256i a[SF_MAX_NEEDLES], b[SF_MAX_NEEDLES], z[SF_MAX_NEEDLES];
  size_t reach = 0;
  for (int k = 0; k < nd->n; k++) {
    a[k] = _mm256_set1_epi8((char)nd->m[k][nd->p1[k]]);
    b[k] = _mm256_set1_epi8((char)nd->m[k][nd->p2[k]]);
    z[k] = _mm256_set1_epi8((char)nd->m[k][nd->len[k] - 1]);
    if (nd->len[k] > reach) reach = nd->len[k];
  }
  size_t i = from;
  for (; i + reach + 31 <= n; i += 32) {
    uint32_t m = 0;
    for (int k = 0; k < nd->n; k++) {
      const __m256i x = _mm256_loadu_si256((const __m256i *)(h + i + nd->p1[k]));
      const __m256i y = _mm256_loadu_si256((const __m256i *)(h + i + nd->p2[k]));
      const __m256i w = _mm256_loadu_si256((const __m256i *)(h + i + nd->len[k] - 1));
      m |= (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(x, a[k]), _mm256_cmpeq_epi8(y, b[k])), _mm256_cmpeq_epi8(w, z[k])));
    }
    const int64_t at = find_any_confirm(h, i, m, nd);
    if (at >= 0) return at;
  }
  return find_any_rest(h, n, nd, i);
}
#endif

#ifdef SF_WASM
/*
 * find_any_avx2 in SIMD128, 32 positions at a time, for a fixed count of needles (1 to SF_MAX_NEEDLES): each
 * needle's two rarest bytes are compared, and one any_true of the whole block decides whether it holds a
 * candidate; only then is each needle's last byte compared too, and the candidates left confirmed. The count is a constant at each call site (always inlined), so the
 * needles' splats and offsets stay in registers instead of being loaded from the stack per block, which a
 * loop over `nd->n` cost: the search of a usage read's only marker ran at a third of this speed.
 */
static inline __attribute__((always_inline)) int64_t find_any_wasm_n(const uint8_t *h, size_t n, const Needles *nd, size_t from, const int count) {
  v128_t a[SF_MAX_NEEDLES], b[SF_MAX_NEEDLES], z[SF_MAX_NEEDLES];
  size_t p1[SF_MAX_NEEDLES], p2[SF_MAX_NEEDLES], pz[SF_MAX_NEEDLES];
  size_t reach = 0;
  for (int k = 0; k < count; k++) {
    p1[k] = nd->p1[k];
    p2[k] = nd->p2[k];
    pz[k] = nd->len[k] - 1;
    a[k] = wasm_i8x16_splat((int8_t)nd->m[k][p1[k]]);
    b[k] = wasm_i8x16_splat((int8_t)nd->m[k][p2[k]]);
    z[k] = wasm_i8x16_splat((int8_t)nd->m[k][pz[k]]);
    if (nd->len[k] > reach) reach = nd->len[k];
  }
  size_t i = from;
  for (; i + reach + 31 <= n; i += 32) {
    /* The two rarest bytes of each needle decide whether the block holds a candidate at all (most do not):
     * two thirds of the three-byte test's loads and compares; the last byte is compared only then. */
    v128_t lo = wasm_i64x2_splat(0), hi = wasm_i64x2_splat(0);
    for (int k = 0; k < count; k++) {
      const uint8_t *x = h + i + p1[k], *y = h + i + p2[k];
      lo = wasm_v128_or(lo, wasm_v128_and(wasm_i8x16_eq(wasm_v128_load(x), a[k]), wasm_i8x16_eq(wasm_v128_load(y), b[k])));
      hi = wasm_v128_or(hi, wasm_v128_and(wasm_i8x16_eq(wasm_v128_load(x + 16), a[k]), wasm_i8x16_eq(wasm_v128_load(y + 16), b[k])));
    }
    if (!wasm_v128_any_true(wasm_v128_or(lo, hi))) continue;
    lo = hi = wasm_i64x2_splat(0);
    for (int k = 0; k < count; k++) {
      const uint8_t *x = h + i + p1[k], *y = h + i + p2[k], *w = h + i + pz[k];
      lo = wasm_v128_or(lo, wasm_v128_and(wasm_v128_and(wasm_i8x16_eq(wasm_v128_load(x), a[k]), wasm_i8x16_eq(wasm_v128_load(y), b[k])),
                                          wasm_i8x16_eq(wasm_v128_load(w), z[k])));
      hi = wasm_v128_or(hi, wasm_v128_and(wasm_v128_and(wasm_i8x16_eq(wasm_v128_load(x + 16), a[k]), wasm_i8x16_eq(wasm_v128_load(y + 16), b[k])),
                                          wasm_i8x16_eq(wasm_v128_load(w + 16), z[k])));
    }
    const uint32_t m = (uint32_t)wasm_i8x16_bitmask(lo) | ((uint32_t)wasm_i8x16_bitmask(hi) << 16);
    if (m == 0) continue;
    const int64_t at = find_any_confirm(h, i, m, nd);
    if (at >= 0) return at;
  }
  return find_any_rest(h, n, nd, i);
}

static int64_t find_any_wasm(const uint8_t *h, size_t n, const Needles *nd, size_t from) {
  switch (nd->n) {
  case 1:
    return find_any_wasm_n(h, n, nd, from, 1);
  case 2:
    return find_any_wasm_n(h, n, nd, from, 2);
  case 3:
    return find_any_wasm_n(h, n, nd, from, 3);
  default:
    return find_any_wasm_n(h, n, nd, from, SF_MAX_NEEDLES);
  }
}
#endif

void sf_needles(Needles *nd, const uint8_t *const *m, const size_t *len, int n) {
  nd->n = n;
  nd->has_short = 0;
  for (int k = 0; k < n; k++) {
    nd->has_short |= len[k] < 2;
    nd->m[k] = m[k];
    nd->len[k] = len[k];
    if (len[k] >= 2) pick_positions(m[k], len[k], &nd->p1[k], &nd->p2[k]);
    else nd->p1[k] = nd->p2[k] = 0;
  }
}

/* find_scalar keyed on the needle's rarest byte (at p) rather than its first, which in JSON is often `"`. */
static int64_t find_rare(const uint8_t *h, size_t n, const uint8_t *nd, size_t k, size_t p, size_t from) {
  if (k == 0 || from > n || k > n - from) return k == 0 && from <= n ? (int64_t)from : -1;
  const uint8_t c = nd[p];
  for (size_t i = from + p; i + (k - p) <= n;) {
    const uint8_t *q = memchr(h + i, c, n - (k - p) + 1 - i);
    if (q == NULL) return -1;
    const size_t at = (size_t)(q - h) - p;
    if (memcmp(h + at, nd, k) == 0) return (int64_t)at;
    i = (size_t)(q - h) + 1;
  }
  return -1;
}

int64_t sf_find_any(const uint8_t *h, size_t n, const Needles *nd, size_t from) {
#ifdef SF_X86
  if (sf_have_avx2 && !nd->has_short && nd->n > 0) return find_any_avx2(h, n, nd, from);
#elif defined(SF_WASM)
  if (!nd->has_short && nd->n > 0) return find_any_wasm(h, n, nd, from);
#endif
  /* Each needle searched only up to the best start found so far: a rare needle does not scan the rest of
   * the buffer on every call (marker_before in lines.c asks once per line that holds a marker). */
  int64_t best = -1;
  for (int k = 0; k < nd->n; k++) {
    const size_t end = best < 0 ? n : (size_t)best + nd->len[k] - 1 < n ? (size_t)best + nd->len[k] - 1 : n;
    const int64_t at = find_rare(h, end, nd->m[k], nd->len[k], nd->len[k] >= 2 ? nd->p1[k] : 0, from);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best;
}

int64_t sf_find(const uint8_t *h, size_t n, const uint8_t *nd, size_t k, size_t from) {
  if (k < 2 || from >= n || k > n - from) return find_scalar(h, n, nd, k, from);
#ifdef SF_X86
  if (sf_have_avx2) return find_avx2(h, n, nd, k, from);
#elif defined(SF_WASM)
  return find_wasm(h, n, nd, k, from);
#endif
  return find_scalar(h, n, nd, k, from);
}
