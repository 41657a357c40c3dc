/*
 * The Codex engine's token arithmetic and dedup keys (codex.c reads lines; this is codecs/codex/tokens.ts and the
 * key strings of parse.ts): `readTok`, the comparisons, `toUsageFields` + `sameUsage`, and the bytes of
 * `tokKey`, as JavaScript prints them.
 */
#include <stdlib.h>
#include <string.h>
#include "codex.h"

/* ------------------------------------------------------------------ a walked line's fields */

/* `asNumber` of an integer: 1 with *v (absent or not a number: *has 0), BAIL when not a plain integer of at
 * most 15 digits. */
int cx_number_of(const Fields *f, const int32_t *s, int *has, double *v) { return sf_integer(f, s, has, v) ? 1 : BAIL; }

/* tokens.ts `n()` (`saneCount`): a count in [0, SF_MAX_RECORD_TOKENS], else BAIL (`read()` refuses the line). */
static int count_of(const Fields *f, const int32_t *s, double *v) {
  int has;
  const int r = cx_number_of(f, s, &has, v);
  if (r == 1 && (*v < 0 || *v > SF_MAX_RECORD_TOKENS)) return BAIL;
  if (*v == 0) *v = 0; /* -0 */
  return r;
}

/* `asTimestamp`: 1 valid (canonical ISO 8601 UTC, which Date.parse accepts), 0 invalid for sure, BAIL when
 * only Date.parse can tell. */
int cx_timestamp_of(const Fields *f, const int32_t *s) {
  if (!is_string(f, s)) return 0;
  const size_t n = content_len(s);
  if (n < 10) return 0; /* fewer bytes than 10 is fewer than 10 UTF-16 units */
  if (!comparable(f, s)) return BAIL;
  return sf_canonical_time(content(f, s), n) ? 1 : BAIL;
}

/* tokens.ts `readTok` of the object at `base` (a group of CX_TOK_* fields after it in the map). 1 with *t and
 * *has, BAIL. */
int cx_read_tok(const Fields *f, int base, Tok *t, int *has) {
  *has = 0;
  if (!is_object(slot(f, base))) return 1;
  const int32_t *in = slot(f, base + 1 + CX_TOK_INPUT), *out = slot(f, base + 1 + CX_TOK_OUTPUT), *total = slot(f, base + 1 + CX_TOK_TOTAL);
  if (!present(in) && !present(out) && !present(total)) return 1;
  const int32_t *cached = slot(f, base + 1 + CX_TOK_CACHED);
  /* `o.cached_input_tokens ?? o.cache_read_input_tokens`: a null or absent first one gives the second */
  if (!present(cached) || is_null(f, cached)) cached = slot(f, base + 1 + CX_TOK_CACHE_READ);
  double tot;
  if (count_of(f, in, &t->in) != 1 || count_of(f, out, &t->out) != 1 || count_of(f, total, &tot) != 1 || count_of(f, cached, &t->cached) != 1 ||
      count_of(f, slot(f, base + 1 + CX_TOK_CACHE_WRITE), &t->cw) != 1 || count_of(f, slot(f, base + 1 + CX_TOK_REASONING), &t->reas) != 1)
    return BAIL;
  t->total = tot > 0 ? tot : t->in + t->out;
  *has = 1;
  return 1;
}

int tok_any_decrease(const Tok *a, const Tok *b) {
  return a->in < b->in || a->cached < b->cached || a->cw < b->cw || a->out < b->out || a->reas < b->reas || a->total < b->total;
}
int tok_fits_within(const Tok *a, const Tok *b) {
  return a->in <= b->in && a->cached <= b->cached && a->cw <= b->cw && a->out <= b->out && a->reas <= b->reas && a->total <= b->total;
}
/* No token counted; total is left out (tokens.ts isZeroTok: Codex's fill_to_context_window row). */
int tok_is_zero(const Tok *t) { return t->in == 0 && t->cached == 0 && t->cw == 0 && t->out == 0 && t->reas == 0; }
int tok_eq_tok(const Tok *a, const Tok *b) {
  return a->in == b->in && a->cached == b->cached && a->cw == b->cw && a->out == b->out && a->reas == b->reas && a->total == b->total;
}

/* tokens.ts `toUsageFields` then `sameUsage`. */
int tok_same_usage(const Tok *a, const Tok *b) {
  const double ac = a->cached < a->in ? a->cached : a->in, bc = b->cached < b->in ? b->cached : b->in;
  const double aw = a->cw < a->in - ac ? a->cw : a->in - ac, bw = b->cw < b->in - bc ? b->cw : b->in - bc;
  return a->in - ac - aw == b->in - bc - bw && a->out == b->out && a->reas == b->reas && ac == bc && aw == bw;
}

/* ------------------------------------------------------------------ dedup keys */

void put_bytes(Buf *k, const void *b, size_t n) {
  if (k->oom) return;
  if (k->n + n > k->cap) {
    size_t cap = k->cap == 0 ? 128 : k->cap;
    while (cap < k->n + n) cap *= 2;
    uint8_t *g = realloc(k->b, cap);
    if (g == NULL) {
      k->oom = 1;
      return;
    }
    k->b = g;
    k->cap = cap;
  }
  memcpy(k->b + k->n, b, n);
  k->n += n;
}
void put_str(Buf *k, const char *s) { put_bytes(k, s, strlen(s)); }
/* A count as JavaScript prints it: counts here are integers below 2^53 (number_of takes at most 15 digits;
 * sums and differences of two stay below 2^53), which print as their digits. */
void put_num(Buf *k, double v) {
  char t[24];
  int i = (int)sizeof t;
  uint64_t x = (uint64_t)(v < 0 ? -v : v);
  do t[--i] = (char)('0' + x % 10);
  while ((x /= 10) != 0);
  if (v < 0) t[--i] = '-';
  put_bytes(k, t + i, sizeof t - (size_t)i);
}
void put_tok(Buf *k, const Tok *t) {
  put_num(k, t->in);
  put_str(k, "/");
  put_num(k, t->cached);
  put_str(k, "/");
  put_num(k, t->cw);
  put_str(k, "/");
  put_num(k, t->out);
  put_str(k, "/");
  put_num(k, t->reas);
  put_str(k, "/");
  put_num(k, t->total);
}
