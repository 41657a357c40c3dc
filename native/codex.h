/*
 * What codex.c and codex-tok.c share: the raw token counts of a TokenUsage object, a growing key buffer, and the
 * helpers that read, compare and print them.
 */
#ifndef SESSIONFOLD_CODEX_H
#define SESSIONFOLD_CODEX_H
#include "engine.h"

#define BAIL (-4)

/* tokens.ts `Tok`: every field present (absent 0), `total` input + output when absent. */
typedef struct {
  double in, cached, cw, out, reas, total;
} Tok;

typedef struct {
  uint8_t *b;
  size_t n, cap;
  int oom;
} Buf;

int cx_number_of(const Fields *f, const int32_t *s, int *has, double *v);
int cx_timestamp_of(const Fields *f, const int32_t *s);
int cx_read_tok(const Fields *f, int base, Tok *t, int *has);
int tok_any_decrease(const Tok *a, const Tok *b);
int tok_fits_within(const Tok *a, const Tok *b);
int tok_is_zero(const Tok *t);
int tok_eq_tok(const Tok *a, const Tok *b);
int tok_same_usage(const Tok *a, const Tok *b);
void put_bytes(Buf *k, const void *b, size_t n);
void put_str(Buf *k, const char *s);
void put_num(Buf *k, double v);
void put_tok(Buf *k, const Tok *t);

#endif
