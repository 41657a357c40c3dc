/*
 * sessionfold's optional native kernel, the pure part: the two byte loops of a usage-only read that
 * JavaScript runs slowest (binding.c exposes them to Node; kernel.h is the interface).
 *
 *   sf_find   the first start of a needle wholly inside hay[from, n), or -1
 *   sf_scan   1 when the line is a JSON object the walk could read, with the value spans of the projected
 *             keys in `out` (3 int32 per slot: start, end, flags); 0: JSON.parse decides
 *   sf_scan_why  the same, and on 0 whether JSON.parse might accept the line (`unsure`: an escaped key in a
 *             collected object, nesting past MAX_DEPTH, a tab or CR); otherwise the line is not a JSON object
 *             and JSON.parse (with parseJsonObject's object check) rejects it too
 *
 * The byte loops use AVX2 where the CPU has it (checked once by sf_init) and plain C elsewhere. Both are pure
 * functions of their arguments (no state but the CPU feature flag), so every thread calls them on its own
 * buffers.
 *
 * `sf_scan` is cursors/scan-fields.ts's walk, byte for byte: the same grammar (objects, arrays, strings with
 * their escapes checked, numbers, literals, spaces but no other whitespace), the same refusals (an escaped key
 * in a collected object, nesting past MAX_DEPTH, anything not valid JSON), and the same duplicate-key rule
 * (the last one wins; a collected object that comes again starts empty). It only locates values: decoding
 * them (strings, numbers) stays in JavaScript, so both paths decode with the same code.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(_M_X64)
#define SF_X86 1
#include <immintrin.h>
#include <pthread.h>
#elif defined(__wasm_simd128__)
/* The WebAssembly build (native/wasm/, scripts/build-wasm.mjs): SIMD128 in place of AVX2, always on. */
#define SF_WASM 1
#include <wasm_simd128.h>
#endif

#include <math.h>
#include "kernel.h"

#define MAX_DEPTH 256

/* ------------------------------------------------------------------ CPU features */

#ifdef SF_X86
static int have_avx2 = 0;
#endif

#ifdef SF_X86
static void detect_cpu(void) {
  __builtin_cpu_init();
  have_avx2 = __builtin_cpu_supports("avx2");
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
  if (on >= 0) have_avx2 = on && __builtin_cpu_supports("avx2");
  return have_avx2 != 0;
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
  if (have_avx2 && !nd->has_short && nd->n > 0) return find_any_avx2(h, n, nd, from);
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
  if (have_avx2) return find_avx2(h, n, nd, k, from);
#elif defined(SF_WASM)
  return find_wasm(h, n, nd, k, from);
#endif
  return find_scalar(h, n, nd, k, from);
}

/* ------------------------------------------------------------------ the projection walk */

typedef struct {
  const uint8_t *b;
  int64_t n;
  int32_t *out;
  /* set when the walk refuses a line JSON.parse might still accept (an escaped collected key, deep nesting) */
  int *unsure;
} Walk;

/* Index of the first byte at or after j that is '"', '\\' or below 0x20, or n. */
#ifdef SF_X86
__attribute__((target("avx2"))) static int64_t plain_end_avx2(const uint8_t *b, int64_t n, int64_t j) {
  const __m256i q = _mm256_set1_epi8('"');
  const __m256i bs = _mm256_set1_epi8('\\');
  const __m256i ctl = _mm256_set1_epi8(0x1f);
  for (; j + 32 <= n; j += 32) {
    const __m256i x = _mm256_loadu_si256((const __m256i *)(b + j));
    const __m256i hit = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(x, q), _mm256_cmpeq_epi8(x, bs)),
                                        _mm256_cmpeq_epi8(_mm256_max_epu8(x, ctl), ctl));
    const uint32_t m = (uint32_t)_mm256_movemask_epi8(hit);
    if (m != 0) return j + __builtin_ctz(m);
  }
  while (j < n && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20) j++;
  return j;
}

#endif

#ifdef SF_WASM
static int64_t plain_end_wasm(const uint8_t *b, int64_t n, int64_t j) {
  const v128_t q = wasm_i8x16_splat('"');
  const v128_t bs = wasm_i8x16_splat('\\');
  const v128_t ctl = wasm_i8x16_splat(0x1f);
  for (; j + 16 <= n; j += 16) {
    const v128_t x = wasm_v128_load(b + j);
    const v128_t hit = wasm_v128_or(wasm_v128_or(wasm_i8x16_eq(x, q), wasm_i8x16_eq(x, bs)), wasm_i8x16_eq(wasm_u8x16_min(x, ctl), x));
    const uint32_t m = (uint32_t)wasm_i8x16_bitmask(hit);
    if (m != 0) return j + __builtin_ctz(m);
  }
  while (j < n && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20) j++;
  return j;
}
#endif

static int64_t plain_end(const uint8_t *b, int64_t n, int64_t j) {
#ifdef SF_X86
  if (have_avx2) return plain_end_avx2(b, n, j);
#elif defined(SF_WASM)
  return plain_end_wasm(b, n, j);
#endif
  while (j < n && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20) j++;
  return j;
}

static int is_hex(uint8_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* The quote closing the string opened at i, its escapes checked, or -1. Sets *escaped. */
static int64_t string_end(const Walk *w, int64_t i, int *escaped) {
  const uint8_t *b = w->b;
  const int64_t n = w->n;
  int esc = 0;
  int64_t j = i + 1;
  for (;;) {
    j = plain_end(b, n, j);
    if (j >= n) return -1;
    const uint8_t c = b[j];
    if (c == '"') {
      *escaped = esc;
      return j;
    }
    if (c != '\\') return -1; /* a raw control byte */
    if (j + 1 >= n) return -1;
    const uint8_t e = b[j + 1];
    if (e == 'u') {
      if (j + 5 >= n || !is_hex(b[j + 2]) || !is_hex(b[j + 3]) || !is_hex(b[j + 4]) || !is_hex(b[j + 5])) return -1;
      j += 6;
    } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't')
      j += 2;
    else
      return -1;
    esc = 1;
  }
}

static int64_t skip_space(const Walk *w, int64_t i) {
  while (i < w->n && w->b[i] == ' ') i++;
  return i;
}

static int is_digit_at(const Walk *w, int64_t i) { return i < w->n && w->b[i] >= '0' && w->b[i] <= '9'; }

static int64_t match_word(const Walk *w, int64_t i, const char *word, int64_t len) {
  if (i + len > w->n || memcmp(w->b + i, word, (size_t)len) != 0) return -1;
  return i + len;
}

static int64_t scalar_end(const Walk *w, int64_t i) {
  if (i >= w->n) return -1;
  const uint8_t c = w->b[i];
  if (c == 't') return match_word(w, i, "true", 4);
  if (c == 'f') return match_word(w, i, "false", 5);
  if (c == 'n') return match_word(w, i, "null", 4);
  int64_t j = i;
  if (w->b[j] == '-') j++;
  if (j < w->n && w->b[j] == '0')
    j++;
  else if (is_digit_at(w, j))
    while (is_digit_at(w, j)) j++;
  else
    return -1;
  if (j < w->n && w->b[j] == '.') {
    j++;
    if (!is_digit_at(w, j)) return -1;
    while (is_digit_at(w, j)) j++;
  }
  if (j < w->n && (w->b[j] == 'e' || w->b[j] == 'E')) {
    j++;
    if (j < w->n && (w->b[j] == '+' || w->b[j] == '-')) j++;
    if (!is_digit_at(w, j)) return -1;
    while (is_digit_at(w, j)) j++;
  }
  return j;
}

static int64_t collect_object(const Walk *w, int64_t i, int depth, const Proj *p);
static int64_t array_end(const Walk *w, int64_t i, int depth);

/* End (exclusive) of the value at i, validated, or -1; *escaped for a string value. */
static int64_t value_end(const Walk *w, int64_t i, int depth, int *escaped) {
  if (i >= w->n) return -1;
  const uint8_t c = w->b[i];
  if (c == '"') {
    const int64_t q = string_end(w, i, escaped);
    return q < 0 ? -1 : q + 1;
  }
  if (c == '{') return collect_object(w, i, depth + 1, NULL);
  if (c == '[') return array_end(w, i, depth + 1);
  return scalar_end(w, i);
}

/* After an element or member: 1 with *i at the next one (past ',' and spaces), 0 with *i past `close`, -1. */
static int next_item(const Walk *w, int64_t *i, uint8_t close) {
  const int64_t j = skip_space(w, *i);
  if (j >= w->n) return -1;
  if (w->b[j] == ',') {
    *i = skip_space(w, j + 1);
    return 1;
  }
  if (w->b[j] != close) return -1;
  *i = j + 1;
  return 0;
}

/* A member's key at i and its colon: the start of its value (spaces skipped), or -1. *q is the key's closing
 * quote, *esc whether the key has escapes. */
static int64_t member_value(const Walk *w, int64_t i, int64_t *q, int *esc) {
  if (i >= w->n || w->b[i] != '"') return -1;
  *q = string_end(w, i, esc);
  if (*q < 0) return -1;
  i = skip_space(w, *q + 1);
  if (i >= w->n || w->b[i] != ':') return -1;
  return skip_space(w, i + 1);
}

static int64_t array_end(const Walk *w, int64_t i, int depth) {
  if (depth > MAX_DEPTH) {
    *w->unsure = 1;
    return -1;
  }
  int esc, more;
  i = skip_space(w, i + 1);
  if (i < w->n && w->b[i] == ']') return i + 1;
  do {
    i = value_end(w, i, depth, &esc);
    if (i < 0) return -1;
  } while ((more = next_item(w, &i, ']')) > 0);
  return more < 0 ? -1 : i;
}

static const Field *field_of(const Proj *p, const uint8_t *key, int64_t len) {
  if (p == NULL) return NULL;
  for (uint32_t k = 0; k < p->n; k++) {
    const Field *f = &p->f[k];
    if ((int64_t)f->len == len && memcmp(f->key, key, (size_t)len) == 0) return f;
  }
  return NULL;
}

/* Walk the object at i, validating it, and record the spans of the fields `p` projects (NULL: only validate;
 * keys with escapes are fine then). The end (exclusive), or -1. */
static int64_t collect_object(const Walk *w, int64_t i, int depth, const Proj *p) {
  if (depth > MAX_DEPTH) {
    *w->unsure = 1;
    return -1;
  }
  int esc, more;
  int64_t q;
  i = skip_space(w, i + 1);
  if (i < w->n && w->b[i] == '}') return i + 1;
  do {
    const int64_t v = member_value(w, i, &q, &esc);
    /* an escaped key of a collected object may spell a wanted one: JSON.parse decides */
    if (v < 0) return -1;
    if (esc && p != NULL) {
      *w->unsure = 1;
      return -1;
    }
    const Field *f = field_of(p, w->b + i + 1, q - i - 1);
    if (f == NULL) {
      i = value_end(w, v, depth, &esc);
      if (i < 0) return -1;
    } else if (f->sub != NULL && v < w->n && w->b[v] == '{') {
      /* a fresh object per occurrence: a duplicate key replaces the whole value */
      memset(w->out + 3 * (f->slot + 1), 0, sizeof(int32_t) * 3 * (size_t)(f->slot_end - f->slot - 1));
      i = collect_object(w, v, depth + 1, f->sub);
      if (i < 0) return -1;
      int32_t *s = w->out + 3 * f->slot;
      s[0] = (int32_t)v;
      s[1] = (int32_t)i;
      s[2] = SLOT_OBJECT;
    } else {
      esc = 0;
      i = value_end(w, v, depth, &esc);
      if (i < 0) return -1;
      int32_t *s = w->out + 3 * f->slot;
      s[0] = (int32_t)v;
      s[1] = (int32_t)i;
      s[2] = SLOT_VALUE | (w->b[v] == '"' && esc ? SLOT_ESCAPED : 0);
    }
  } while ((more = next_item(w, &i, '}')) > 0);
  return more < 0 ? -1 : i;
}

int sf_scan(const uint8_t *b, int64_t n, const Proj *root, int32_t *out, int32_t slots) {
  int unsure = 0;
  return sf_scan_why(b, n, root, out, slots, &unsure);
}

/* JSON's whitespace besides the space: the walk refuses it, JSON.parse does not. */
static int other_space(const uint8_t *b, int64_t n) { return memchr(b, '\t', (size_t)n) != NULL || memchr(b, '\r', (size_t)n) != NULL; }

int sf_scan_why(const uint8_t *b, int64_t n, const Proj *root, int32_t *out, int32_t slots, int *unsure) {
  Walk w = {b, n, out, unsure};
  *unsure = 0;
  memset(out, 0, sizeof(int32_t) * 3 * (size_t)slots);
  const int64_t start = skip_space(&w, 0);
  int64_t end = -1;
  if (start < n && b[start] == '{') end = collect_object(&w, start, 1, root);
  if (end >= 0 && skip_space(&w, end) == n) return 1;
  if (!*unsure && other_space(b, n)) *unsure = 1;
  return 0;
}

/* ------------------------------------------------------------------ timestamps */

int sf_canonical_time(const uint8_t *t, size_t n) {
#define D(i) (t[i] >= '0' && t[i] <= '9')
#define V2(i) ((t[i] - '0') * 10 + (t[i + 1] - '0'))
  if (n < 20 || !(D(0) && D(1) && D(2) && D(3) && t[4] == '-' && D(5) && D(6) && t[7] == '-' && D(8) && D(9) && t[10] == 'T' && D(11) &&
                  D(12) && t[13] == ':' && D(14) && D(15) && t[16] == ':' && D(17) && D(18)))
    return 0;
  if (V2(5) < 1 || V2(5) > 12 || V2(8) < 1 || V2(8) > 31 || V2(11) > 23 || V2(14) > 59 || V2(17) > 59) return 0;
  size_t i = 19;
  if (t[i] == '.') {
    size_t d = 0;
    for (i++; i < n && D(i); i++) d++;
    if (d < 1 || d > 9) return 0;
  }
  return i == n - 1 && t[i] == 'Z';
#undef D
#undef V2
}

/* Days since 1970-01-01 of a proleptic Gregorian date (src/cost/calendar.ts `daysFromCivil`). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

double sf_time_ms(const uint8_t *t, size_t n) {
#define V(i) ((int64_t)(t[i] - '0'))
  const int64_t y = V(0) * 1000 + V(1) * 100 + V(2) * 10 + V(3);
  if (y < 100) return NAN;
  const int64_t mo = V(5) * 10 + V(6), d = V(8) * 10 + V(9), h = V(11) * 10 + V(12), mi = V(14) * 10 + V(15), s = V(17) * 10 + V(18);
  /* the fraction's first three digits, scaled as eventTime scales them */
  int64_t frac = 0;
  const size_t digits = n > 21 ? n - 21 : 0;
  if (digits >= 1) frac = V(20) * 100;
  if (digits >= 2) frac += V(21) * 10;
  if (digits >= 3) frac += V(22);
#undef V
  const double ms = (double)days_from_civil(y, mo, d) * 86400000.0 + (double)(h * 3600000 + mi * 60000 + s * 1000 + frac);
  return ms > 0 ? ms : NAN;
}
