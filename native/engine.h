/*
 * What the usage engines (claude.c, codex.c) share: reading a walked line's fields from sf_scan's spans, an
 * exact set of byte strings, a FIFO of events, and a growing buffer (engine.c).
 */
#ifndef SESSIONFOLD_ENGINE_H
#define SESSIONFOLD_ENGINE_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include "kernel.h"

/* A walked line: its bytes, sf_scan's spans, and the engine's field → slot map. */
typedef struct {
  const uint8_t *b;
  const int32_t *sp;
  const int32_t *map;
} Fields;

static inline const int32_t *slot(const Fields *f, int field) {
  const int32_t s = f->map[field];
  return s < 0 ? NULL : f->sp + 3 * s;
}
static inline int present(const int32_t *s) { return s != NULL && s[2] != 0; }
static inline int is_object(const int32_t *s) { return s != NULL && (s[2] & SLOT_OBJECT) != 0; }
static inline int is_string(const Fields *f, const int32_t *s) { return present(s) && !(s[2] & SLOT_OBJECT) && f->b[s[0]] == '"'; }
/* A non-empty string (`str()`, `asString`): its raw bytes are non-empty exactly when its value is. */
static inline int is_str(const Fields *f, const int32_t *s) { return is_string(f, s) && s[1] - s[0] > 2; }
static inline int is_null(const Fields *f, const int32_t *s) { return present(s) && s[1] - s[0] == 4 && memcmp(f->b + s[0], "null", 4) == 0; }
static inline int is_number(const Fields *f, const int32_t *s) {
  if (!present(s) || (s[2] & SLOT_OBJECT)) return 0;
  const uint8_t c = f->b[s[0]];
  return c == '-' || (c >= '0' && c <= '9');
}
static inline int no_escapes(const int32_t *s) { return !(s[2] & SLOT_ESCAPED); }
/* A string C may compare with another: no escapes, ASCII (JavaScript compares decoded strings). */
static inline int comparable(const Fields *f, const int32_t *s) {
  if (!no_escapes(s)) return 0;
  for (int32_t i = s[0] + 1; i < s[1] - 1; i++)
    if (f->b[i] >= 0x80) return 0;
  return 1;
}
/* A string value's content (between its quotes). */
static inline const uint8_t *content(const Fields *f, const int32_t *s) { return f->b + s[0] + 1; }
static inline size_t content_len(const int32_t *s) { return (size_t)(s[1] - s[0] - 2); }

/* A number the walk validated, when it is a plain integer of at most 15 digits (exact as a double): 1 with *v
 * and *has (0 for a value that is not a number); 0 when only JavaScript can read it (a fraction, an exponent,
 * more digits). */
int sf_integer(const Fields *f, const int32_t *s, int *has, double *v);

/* A set of byte strings, exact (open addressing, copies). */
typedef struct {
  uint8_t **k;
  size_t *l;
  size_t cap, n;
} ByteSet;
int bs_has(const ByteSet *s, const uint8_t *k, size_t n);
/* 1 added, 2 there already, 0 out of memory. */
int bs_add(ByteSet *s, const uint8_t *k, size_t n);
void bs_free(ByteSet *s);

/* A FIFO of pointers. */
typedef struct {
  void **items;
  size_t head, len, cap;
} Queue;
/* True on the engines' own threads (pool.c): per-thread caches are kept only there. */
extern __thread int sf_pool_thread;

int q_push(Queue *q, void *item);
/* q_push, or (out of memory) free_item(item): the item is the queue's or gone either way. */
int q_push_or_free(Queue *q, void *item, void (*free_item)(void *));
static inline size_t q_size(const Queue *q) { return q->len - q->head; }
static inline void *q_pop(Queue *q) { return q->items[q->head++]; }
void q_free(Queue *q, void (*free_item)(void *));

/*
 * An engine's lines, walked: the line source with the engine's markers, and sf_scan over each line it hands
 * over. A line that is not a JSON object is skipped and counted (as read() skips it).
 */
typedef struct {
  LineSource *src;
  const Proj *proj;
  int32_t slots;
  int32_t *spans;
  /* lines that are not JSON objects */
  int64_t skipped;
} Walker;
/* 1, or 0 on out of memory (the walker is then closed). */
int walker_open(Walker *w, int fd, int64_t size, int64_t max_line, int head, size_t cap, const Proj *proj, int32_t slots, const uint8_t *const *markers,
                const size_t *lens, int n);
void walker_close(Walker *w);
/* The next walked line (filtered with the markers when `filter`): WALK_LINE with *line and rec (the line source's 5
 * doubles), WALK_END, WALK_IO_ERROR, or WALK_BAIL (a line only JSON.parse can read, or one too long to buffer). */
enum { WALK_LINE = 1, WALK_END = 0, WALK_IO_ERROR = -2, WALK_BAIL = -4 };
int walker_next(Walker *w, int filter, const uint8_t **line, double *rec);

/* Open a regular file for reading: 1 with *fd and *size, 0 (nothing open) otherwise. */
int sf_open_file(const char *path, int *fd, int64_t *size);

/*
 * A whole file's result block, the same layout for every engine (one malloc'd block, 8-byte aligned parts,
 * little-endian; cursors/native-engine.ts `readBlock` reads it):
 *
 *   double head[SF_BLOCK_HEAD]  event count, lines, filtered lines, bytes read, committed offset, pending bytes,
 *                               skipped lines, text length, id length, cwd length (-1: none), cwd escaped
 *   double nums[nums_per * count]
 *   int32  strs[3 * strs_per * count] (padded to 8 bytes): start in text, length, kind
 *   uint8  id (the session id, when the engine finds it in the file), cwd (its content, or its JSON when
 *          escaped), text
 */
/* cursors/sane.ts MAX_RECORD_TOKENS: a count outside [0, this] refuses its line, which only `read()` can do, so
 * the engines leave such a file to it. */
#define SF_MAX_RECORD_TOKENS 1e10
#define SF_BLOCK_HEAD 11
typedef struct {
  const uint8_t *nums, *strs, *text, *id, *cwd;
  size_t nums_per, strs_per, count, text_len, id_len;
  int64_t cwd_len; /* -1: none */
  int cwd_escaped;
} BlockParts;
uint8_t *sf_block(const Walker *w, const BlockParts *p, size_t *len);

/* Grow *b (realloc, doubling) to at least `need` bytes; 0 on out of memory. */
int sf_reserve(uint8_t **b, size_t *cap, size_t need);
/* pread, retried when a signal interrupts it: the count, 0 at the end, or -1 with errno set. */
ssize_t sf_pread(int fd, void *buf, size_t n, int64_t off);

/* This thread's scratch buffer `which`: taken (empty, or as large as it last grew) and kept again after use,
 * so a thread reading file after file reuses the same memory; one that grew past SF_KEEP_MAX is freed instead. */
#define SF_SCRATCH 3
#define SF_KEEP_MAX ((size_t)1 << 20)
void sf_scratch_take(int which, uint8_t **b, size_t *cap);
void sf_scratch_keep(int which, uint8_t *b, size_t cap);
/* A read buffer of at least `need` bytes: this thread's spare one when it is large enough (its size in *cap),
 * else a new one; given back with sf_give_buffer (kept as the spare when there is none, up to SF_KEEP_MAX). */
#define SF_SPARE_MAX SF_KEEP_MAX
uint8_t *sf_take_buffer(size_t need, size_t *cap);
void sf_give_buffer(uint8_t *b, size_t cap);

#endif
