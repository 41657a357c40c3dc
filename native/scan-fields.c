/*
 * The projection walk of the native kernel (kernel.c lists its files; kernel.h is the interface):
 *
 *   sf_scan      1 when the line is a JSON object the walk could read, with the value spans of the projected
 *                keys in `out` (3 int32 per slot: start, end, flags); 0: JSON.parse decides
 *   sf_scan_why  the same, and on 0 whether JSON.parse might accept the line (`unsure`: an escaped key in a
 *                collected object, nesting past MAX_DEPTH, a tab or CR); otherwise the line is not a JSON object
 *                and JSON.parse (with parseJsonObject's object check) rejects it too
 *
 * `sf_scan` is cursors/scan-fields.ts's walk, byte for byte: the same grammar (objects, arrays, strings with
 * their escapes checked, numbers, literals, spaces but no other whitespace), the same refusals (an escaped key
 * in a collected object, nesting past MAX_DEPTH, anything not valid JSON), and the same duplicate-key rule
 * (the last one wins; a collected object that comes again starts empty). It only locates values: decoding
 * them (strings, numbers) stays in JavaScript, so both paths decode with the same code.
 *
 * The run of plain string bytes is found with AVX2 where kernel.c's CPU flag says so (cpu.h), with SIMD128 in
 * the WebAssembly build, and in plain C elsewhere. A pure function of its arguments: any thread calls it.
 */
#include <stdint.h>
#include <string.h>
#include "cpu.h"
#include "kernel.h"

#define MAX_DEPTH 256

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
  if (sf_have_avx2) return plain_end_avx2(b, n, j);
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
