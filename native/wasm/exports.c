/*
 * The WebAssembly kernel's entry points (scripts/build-wasm.mjs compiles this with ../kernel.c and the
 * kernel's other pure files to native/wasm/kernel.wasm; cursors/wasm.ts loads it). The same loops as the N-API
 * kernel (kernel.c and the files it lists, with their SIMD128 branches, and xxh64.h), so both answer alike; no agent is known here.
 *
 * The module imports nothing and its memory never grows (initial = maximum, set by the build): JavaScript keeps
 * views of it (read buffers, the spans' output) that a grow would detach. JavaScript lays out the memory above
 * `__heap_base` itself and passes pointers: nothing here allocates.
 *
 *   find(hay, n, needle, k, from)      sf_find: the first start of the needle wholly inside hay[from, n), or -1
 *   scan(line, n, proj, out, slots)    sf_scan: 1 with the spans in out, 0 when JSON.parse decides
 *   h64_init(state) / h64_update(state, p, n) / h64_digest(state, out)   streaming XXH64 (out: 8 bytes, LE)
 *   h64_size()                         the state's size in bytes
 *   h64(p, n, out)                     XXH64 of p[0, n) in one call (out: 8 bytes, LE)
 *   pass(b, n, from, needles, lens, count, max_line, recs, cap, stats)   the lines that can matter (below)
 *   walk(b, n, from, needles, lens, count, max_line, proj, slots, recs, nums, cap, stats)   and each walked
 */
#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>
#include "../kernel.h"
#include "../xxh64.h"

#define EXPORT(name) __attribute__((export_name(#name)))

/* cursors/wasm.ts writes Proj and Field records in this layout (wasm32: 4-byte pointers). */
_Static_assert(sizeof(Field) == 20 && offsetof(Field, len) == 4 && offsetof(Field, slot) == 8 && offsetof(Field, slot_end) == 12 &&
                   offsetof(Field, sub) == 16,
               "cursors/wasm.ts FIELD_BYTES");
_Static_assert(sizeof(Proj) == 8 && offsetof(Proj, f) == 4, "cursors/wasm.ts PROJ_BYTES");

EXPORT(abi) int32_t w_abi(void) { return 3; }

EXPORT(find) int32_t w_find(const uint8_t *hay, uint32_t n, const uint8_t *needle, uint32_t k, uint32_t from) {
  return (int32_t)sf_find(hay, n, needle, k, from);
}

EXPORT(scan) int32_t w_scan(const uint8_t *line, uint32_t n, const Proj *proj, int32_t *out, int32_t slots) {
  return sf_scan(line, n, proj, out, slots);
}

EXPORT(h64_size) uint32_t w_h64_size(void) { return sizeof(H64); }

EXPORT(h64_init) void w_h64_init(H64 *h) { h64_init(h); }

EXPORT(h64_update) void w_h64_update(H64 *h, const uint8_t *p, uint32_t n) { h64_update(h, p, n); }

EXPORT(h64_digest) void w_h64_digest(const H64 *h, uint8_t *out) {
  const uint64_t d = h64_digest(h);
  memcpy(out, &d, 8);
}

/* XXH64 (seed 0) of p[0, n) in one call, out as h64_digest's: a short key's hash costs one crossing, not three. */
EXPORT(h64) void w_h64(const uint8_t *p, uint32_t n, uint8_t *out) {
  H64 h;
  h64_init(&h);
  h64_update(&h, p, n);
  const uint64_t d = h64_digest(&h);
  memcpy(out, &d, 8);
}

/* ------------------------------------------------------------------ the whole-buffer pass */

/* The first LF at or after i in b[0, n), or n. 64 bytes at a time with one any_true (lines are kilobytes
 * long), then 16 at a time where the LF is. */
static uint32_t next_lf(const uint8_t *b, uint32_t n, uint32_t i) {
  const v128_t nl = wasm_i8x16_splat('\n');
  for (; i + 64 <= n; i += 64) {
    const v128_t x = wasm_v128_or(wasm_i8x16_eq(wasm_v128_load(b + i), nl), wasm_i8x16_eq(wasm_v128_load(b + i + 16), nl));
    const v128_t y = wasm_v128_or(wasm_i8x16_eq(wasm_v128_load(b + i + 32), nl), wasm_i8x16_eq(wasm_v128_load(b + i + 48), nl));
    if (wasm_v128_any_true(wasm_v128_or(x, y))) break;
  }
  for (; i + 16 <= n; i += 16) {
    const uint32_t m = (uint32_t)wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(b + i), nl));
    if (m != 0) return i + (uint32_t)__builtin_ctz(m);
  }
  while (i < n && b[i] != '\n') i++;
  return i;
}

/*
 * The LF-terminated lines of b[from, n) that can matter to a reader with these markers, as compact records
 * (cursors/wasm.ts `pass`; cursors/line-splitter.ts reads them): per line holding a marker, or longer than
 * max_line, PASS_REC int32 — kind (0 a line, 1 over max_line), start, its LF, the lines without a marker
 * before it. Needles: `count` of them, needle k at
 * needles + 64 k, its length at lens[k]. Stops after `cap` records or at the last LF; stats: [the offset past
 * the last line taken, the lines without a marker after the last record]. Returns the record count.
 */
#define PASS_REC 4

/*
 * The walk of a marked line (`walk` below): its projected fields' spans, made absolute (offsets in the module's
 * memory, so JavaScript decodes them from one view of it), and the values of plain integer fields decoded:
 * the digits of a value of under 16 of them, which is what cursors/scan-fields.ts `parseSlice` decodes itself
 * (a sign, a fraction, an exponent or a longer run is left to JSON.parse there: NaN here).
 */
static int32_t walk_line(const uint8_t *b, uint32_t i, uint32_t lf, const Proj *proj, int32_t slots, int32_t *spans, double *nums) {
  uint32_t end = lf;
  if (end > i && b[end - 1] == '\r') end--; /* the splitter hands the line over without it */
  if (!sf_scan(b + i, (int64_t)(end - i), proj, spans, slots)) return 0;
  const int32_t base = (int32_t)(uintptr_t)(b + i);
  for (int32_t k = 0; k < slots; k++) {
    int32_t *sp = spans + 3 * k;
    double v = __builtin_nan("");
    if (sp[2] == SLOT_VALUE) {
      const uint8_t *p = b + i + sp[0], *e = b + i + sp[1];
      if (e - p < 16 && *p >= '0' && *p <= '9') {
        double x = 0;
        while (p < e && *p >= '0' && *p <= '9') x = x * 10 + (*p++ - '0');
        if (p == e) v = x;
      }
    }
    if (sp[2] != 0) {
      sp[0] += base;
      sp[1] += base;
    }
    nums[k] = v;
  }
  return 1;
}

/*
 * The lines of b[from, n) that can matter, as `pass` finds them, and, with a projection, each marked line
 * walked (sf_scan) into its record: per line a record of WALK_HEAD + 3 slots int32 — kind (0 a line, 1 over
 * max_line), start, its LF, the lines without a marker before it, 1 when the walk took it (0: JSON.parse must
 * decide, or an over-long line), then per slot start, end (absolute) and flags — and `slots` doubles at
 * nums + slots r (the decoded integers, NaN elsewhere). Without a projection (slots 0) the records are `pass`'s
 * and nothing is walked.
 */
#define WALK_HEAD 5
static int32_t lines_pass(const uint8_t *b, uint32_t n, uint32_t from, const uint8_t *needles, const uint32_t *lens, int32_t count, uint32_t max_line,
                          const Proj *proj, int32_t slots, int32_t *recs, int32_t stride, double *nums, int32_t cap, int32_t *stats) {
  const uint8_t *m[SF_MAX_NEEDLES];
  size_t ml[SF_MAX_NEEDLES];
  if (count < 0 || count > SF_MAX_NEEDLES) return -1;
  for (int k = 0; k < count; k++) {
    m[k] = needles + 64 * k;
    ml[k] = lens[k];
  }
  Needles nd;
  sf_needles(&nd, m, ml, count);
  uint32_t i = from;
  int32_t r = 0, filtered = 0;
  /* The first marker start at or after `from`, then after each line taken or skipped as over-long (-1: none
   * before n): searched again only there, as the splitter's MarkerHits does. */
  int64_t hit = count == 0 ? -1 : sf_find_any(b, n, &nd, from);
  while (r < cap) {
    const uint32_t lf = next_lf(b, n, i);
    if (lf >= n) break;
    int kind = -1;
    if (lf - i > max_line) {
      kind = 1;
      /* a marker inside the skipped line says nothing of the next one */
      if (hit >= 0 && hit <= (int64_t)lf) hit = sf_find_any(b, n, &nd, lf + 1);
    } else if (hit >= 0 && hit <= (int64_t)lf) {
      kind = 0;
      hit = count == 0 ? -1 : sf_find_any(b, n, &nd, lf + 1);
    }
    if (kind < 0) filtered++;
    else {
      int32_t *rec = recs + stride * r;
      rec[0] = kind;
      rec[1] = (int32_t)i;
      rec[2] = (int32_t)lf;
      rec[3] = filtered;
      if (proj != NULL) rec[4] = kind == 0 ? walk_line(b, i, lf, proj, slots, rec + WALK_HEAD, nums + slots * r) : 0;
      r++;
      filtered = 0;
    }
    i = lf + 1;
  }
  stats[0] = (int32_t)i;
  stats[1] = filtered;
  return r;
}

EXPORT(pass)
int32_t w_pass(const uint8_t *b, uint32_t n, uint32_t from, const uint8_t *needles, const uint32_t *lens, int32_t count, uint32_t max_line, int32_t *recs,
               int32_t cap, int32_t *stats) {
  return lines_pass(b, n, from, needles, lens, count, max_line, NULL, 0, recs, PASS_REC, NULL, cap, stats);
}

/* `pass` with each marked line walked by `proj` into its record (see lines_pass). */
EXPORT(walk)
int32_t w_walk(const uint8_t *b, uint32_t n, uint32_t from, const uint8_t *needles, const uint32_t *lens, int32_t count, uint32_t max_line, const Proj *proj,
               int32_t slots, int32_t *recs, double *nums, int32_t cap, int32_t *stats) {
  if (proj == NULL || slots < 0) return -1;
  return lines_pass(b, n, from, needles, lens, count, max_line, proj, slots, recs, WALK_HEAD + 3 * slots, nums, cap, stats);
}
