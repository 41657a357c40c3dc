/* The usage engines' shared parts (engine.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine.h"

int sf_integer(const Fields *f, const int32_t *s, int *has, double *v) {
  *has = 0;
  *v = 0;
  if (!is_number(f, s)) return 1;
  const uint8_t *p = f->b + s[0], *e = f->b + s[1];
  int neg = 0;
  if (*p == '-') {
    neg = 1;
    p++;
  }
  if (e - p > 15) return 0;
  double x = 0;
  for (; p < e; p++) {
    if (*p < '0' || *p > '9') return 0;
    x = x * 10 + (*p - '0');
  }
  *has = 1;
  *v = neg ? -x : x;
  return 1;
}

static uint64_t hash_bytes(const uint8_t *b, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

int bs_has(const ByteSet *s, const uint8_t *k, size_t n) {
  if (s->cap == 0) return 0;
  for (size_t i = hash_bytes(k, n) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
    if (s->k[i] == NULL) return 0;
    if (s->l[i] == n && memcmp(s->k[i], k, n) == 0) return 1;
  }
}

int bs_add(ByteSet *s, const uint8_t *k, size_t n) {
  if (bs_has(s, k, n)) return 2;
  if ((s->n + 1) * 2 > s->cap) {
    const size_t cap = s->cap == 0 ? 64 : s->cap * 2;
    uint8_t **nk = calloc(cap, sizeof(uint8_t *));
    size_t *nl = calloc(cap, sizeof(size_t));
    if (nk == NULL || nl == NULL) {
      free(nk);
      free(nl);
      return 0;
    }
    for (size_t j = 0; j < s->cap; j++) {
      if (s->k[j] == NULL) continue;
      size_t i = hash_bytes(s->k[j], s->l[j]) & (cap - 1);
      while (nk[i] != NULL) i = (i + 1) & (cap - 1);
      nk[i] = s->k[j];
      nl[i] = s->l[j];
    }
    free(s->k);
    free(s->l);
    s->k = nk;
    s->l = nl;
    s->cap = cap;
  }
  uint8_t *c = malloc(n == 0 ? 1 : n);
  if (c == NULL) return 0;
  memcpy(c, k, n);
  size_t i = hash_bytes(k, n) & (s->cap - 1);
  while (s->k[i] != NULL) i = (i + 1) & (s->cap - 1);
  s->k[i] = c;
  s->l[i] = n;
  s->n++;
  return 1;
}

void bs_free(ByteSet *s) {
  for (size_t i = 0; i < s->cap; i++) free(s->k[i]);
  free(s->k);
  free(s->l);
}

int q_push(Queue *q, void *item) {
  if (q->len == q->cap) {
    if (q->head > 0) {
      memmove(q->items, q->items + q->head, sizeof(void *) * (q->len - q->head));
      q->len -= q->head;
      q->head = 0;
    }
    if (q->len == q->cap) {
      const size_t cap = q->cap == 0 ? 64 : q->cap * 2;
      void **g = realloc(q->items, sizeof(void *) * cap);
      if (g == NULL) return 0;
      q->items = g;
      q->cap = cap;
    }
  }
  q->items[q->len++] = item;
  return 1;
}

int q_push_or_free(Queue *q, void *item, void (*free_item)(void *)) {
  if (q_push(q, item)) return 1;
  free_item(item);
  return 0;
}

void q_free(Queue *q, void (*free_item)(void *)) {
  for (size_t i = q->head; i < q->len; i++) free_item(q->items[i]);
  free(q->items);
}

ssize_t sf_pread(int fd, void *buf, size_t n, int64_t off) {
  ssize_t r;
  do r = pread(fd, buf, n, (off_t)off);
  while (r < 0 && errno == EINTR);
  return r;
}

int sf_reserve(uint8_t **b, size_t *cap, size_t need) {
  if (need <= *cap) return 1;
  if (need > SIZE_MAX / 2) return 0; /* doubling past it would wrap around */
  size_t n = *cap == 0 ? 4096 : *cap;
  while (n < need) n *= 2;
  uint8_t *g = realloc(*b, n);
  if (g == NULL) return 0;
  *b = g;
  *cap = n;
  return 1;
}

/*
 * Per-thread buffers kept from file to file. A history is thousands of small files: fresh buffers per file went
 * back to the system between files and came back as new pages, and the page faults, zeroing and TLB flushes
 * of that dominated small files (`perf`, once: most of their time in the kernel's fault path).
 */
static __thread uint8_t *scratch[SF_SCRATCH];
static __thread size_t scratch_cap[SF_SCRATCH];

void sf_scratch_take(int which, uint8_t **b, size_t *cap) {
  *b = scratch[which];
  *cap = scratch_cap[which];
  scratch[which] = NULL;
  scratch_cap[which] = 0;
}

void sf_scratch_keep(int which, uint8_t *b, size_t cap) {
  free(scratch[which]);
  /* a buffer grown for one large file is not kept: the threads live as long as the process (a server) */
  if (cap > SF_KEEP_MAX) {
    free(b);
    b = NULL;
    cap = 0;
  }
  scratch[which] = b;
  scratch_cap[which] = cap;
}

static __thread uint8_t *spare;
static __thread size_t spare_cap;

uint8_t *sf_take_buffer(size_t need, size_t *cap) {
  if (spare != NULL && spare_cap >= need) {
    uint8_t *b = spare;
    *cap = spare_cap;
    spare = NULL;
    return b;
  }
  *cap = need;
  return malloc(need == 0 ? 1 : need);
}

/* Set on the engines' own threads (pool.c), which live as long as the process. */
__thread int sf_pool_thread;

void sf_give_buffer(uint8_t *b, size_t cap) {
  if (b == NULL) return;
  /* Only a pool thread keeps a spare: the JavaScript threads that read through lines.c (parse workers) come
   * and go with each scan, and a spare kept on one would be lost when it exits. */
  if (!sf_pool_thread) {
    free(b);
    return;
  }
  if (spare == NULL && cap <= SF_SPARE_MAX) {
    spare = b;
    spare_cap = cap;
  } else if (spare != NULL && cap > spare_cap && cap <= SF_SPARE_MAX) {
    free(spare);
    spare = b;
    spare_cap = cap;
  } else
    free(b);
}

int walker_open(Walker *w, int fd, int64_t size, int64_t max_line, int head, size_t cap, const Proj *proj, int32_t slots, const uint8_t *const *markers,
                const size_t *lens, int n) {
  w->src = ls_open(fd, 0, size, max_line, head, cap);
  w->spans = malloc(sizeof(int32_t) * 3 * (size_t)(slots > 0 ? slots : 1));
  w->proj = proj;
  w->slots = slots;
  w->skipped = 0;
  if (w->src == NULL || w->spans == NULL || !ls_set_markers(w->src, markers, lens, n)) {
    walker_close(w);
    return 0;
  }
  return 1;
}

void walker_close(Walker *w) {
  ls_close(w->src);
  free(w->spans);
  w->src = NULL;
  w->spans = NULL;
}

int walker_next(Walker *w, int filter, const uint8_t **line, double *rec) {
  for (;;) {
    const int n = ls_next_line(w->src, filter, line, rec);
    if (n == LS_END) return WALK_END;
    if (n < 0) return WALK_IO_ERROR;
    if (rec[0] != LS_LINE) return WALK_BAIL; /* a line too long to buffer, or over maxLineBytes */
    int unsure;
    if (sf_scan_why(*line, (int64_t)rec[3], w->proj, w->spans, w->slots, &unsure)) return WALK_LINE;
    if (unsure) return WALK_BAIL;
    w->skipped++;
  }
}

int sf_open_file(const char *path, int *fd, int64_t *size) {
  *fd = open(path, O_RDONLY | O_CLOEXEC);
  if (*fd < 0) return 0;
  struct stat st;
  if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(*fd);
    *fd = -1;
    return 0;
  }
  *size = st.st_size;
  return 1;
}

uint8_t *sf_block(const Walker *w, const BlockParts *p, size_t *len) {
  const size_t nums_bytes = sizeof(double) * p->nums_per * p->count;
  const size_t strs_bytes = (sizeof(int32_t) * 3 * p->strs_per * p->count + 7) & ~(size_t)7;
  const size_t cwd_bytes = p->cwd_len < 0 ? 0 : (size_t)p->cwd_len;
  const size_t total = sizeof(double) * SF_BLOCK_HEAD + nums_bytes + strs_bytes + p->id_len + cwd_bytes + p->text_len;
  uint8_t *out = malloc(total);
  if (out == NULL) return NULL;
  double head[SF_BLOCK_HEAD], stats[6];
  ls_stats(w->src, stats);
  head[0] = (double)p->count;
  for (int i = 0; i < 5; i++) head[1 + i] = stats[i];
  head[6] = (double)w->skipped;
  head[7] = (double)p->text_len;
  head[8] = (double)p->id_len;
  head[9] = (double)p->cwd_len;
  head[10] = p->cwd_escaped;
  uint8_t *o = out;
  memcpy(o, head, sizeof(head));
  o += sizeof(head);
  memcpy(o, p->nums, nums_bytes);
  o += nums_bytes;
  const size_t strs_used = sizeof(int32_t) * 3 * p->strs_per * p->count;
  memcpy(o, p->strs, strs_used);
  memset(o + strs_used, 0, strs_bytes - strs_used); /* the padding: a block's bytes are all written */
  o += strs_bytes;
  if (p->id_len > 0) memcpy(o, p->id, p->id_len);
  o += p->id_len;
  if (cwd_bytes > 0) memcpy(o, p->cwd, cwd_bytes);
  o += cwd_bytes;
  if (p->text_len > 0) memcpy(o, p->text, p->text_len);
  *len = total;
  return out;
}
