/*
 * The native line source: a file's LF-terminated lines, read with pread(2) into one buffer owned here, and
 * handed to JavaScript only when they can matter to the codec's LineCore. It is the C twin of
 * cursors/line-splitter.ts with its marker filter (cursors/native-lines.ts drives it; ARCHITECTURE.md,
 * "The native line source"):
 *
 * - without markers: every non-empty line (a core that still reads every line, e.g. before Claude's session
 *   event is out or Codex's header is read; the caller asks for few at a time then, as the core may start
 *   filtering after any line);
 * - with markers: lines holding one of them and passing the head rule; every other line is only counted
 *   (`filtered`), as the JavaScript splitter counts it.
 *
 * Lines are copied into the caller's output buffer (a JavaScript Buffer) with a record each in a Float64Array.
 * A line that cannot be buffered (longer than GROWTH times the first buffer size) is streamed: its markers are searched as its
 * bytes go by, and a wanted one is handed over as a LONG record for JavaScript to read back, as the
 * JavaScript splitter does. A line over `max_line` is a TOO_LONG record (skipped and counted there).
 * The bytes after the last LF are never handed over: they are the pending partial line.
 *
 * The head rule (`head` = 1) is codecs/codex/prefilter.ts `mayHoldUsage`, byte for byte: a rollout line whose
 * record type, read from its first 256 bytes, cannot carry usage is filtered even when it mentions a marker.
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include "engine.h"

/* The buffer grows to at most this many times its first size (the engines' 256 KiB: 16 MiB); a line that
 * fills that is streamed. */
#define GROWTH 64
#define HEAD_BYTES 256

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/*
 * A buffer grown to LARGE_BYTES or more (a line of megabytes) is a mapping of its own, aligned to 2 MiB and
 * advised as transparent huge pages where Linux has them in `madvise` mode (a common default). Each of its
 * fresh 4 KiB pages otherwise costs a page fault when pread first writes it: on the bench's virtual machine
 * about 4 ms of CPU per MiB (a 4 MiB buffer: 16 ms, against 0.4 ms in huge pages), which was most of a warm
 * report's re-read of a grown 6 MB session holding one 3.4 MB line (bench/RESULTS.md, "The warm path"). The
 * advice is only advice: without huge pages the mapping is paged as malloc's would be.
 */
#define LARGE_BYTES ((size_t)2 << 20)

#if defined(__linux__) && defined(MADV_HUGEPAGE)
static uint8_t *map_large(size_t n) {
  const size_t span = n + LARGE_BYTES;
  uint8_t *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  uint8_t *a = (uint8_t *)(((uintptr_t)p + LARGE_BYTES - 1) & ~(uintptr_t)(LARGE_BYTES - 1));
  if (a > p) munmap(p, (size_t)(a - p));
  if (a + n < p + span) munmap(a + n, (size_t)(p + span - (a + n)));
  (void)madvise(a, n, MADV_HUGEPAGE);
  return a;
}
static void unmap_large(uint8_t *b, size_t n) { munmap(b, n); }
#else
static uint8_t *map_large(size_t n) {
  (void)n;
  return NULL;
}
static void unmap_large(uint8_t *b, size_t n) { (void)b, (void)n; }
#endif

/* A larger buffer for `s` holding its `len` bytes (`grown` bytes at least); 0 when there is no memory. */
static int grow_buffer(LineSource *s, size_t grown) {
  if (grown >= LARGE_BYTES) {
    const size_t n = (grown + LARGE_BYTES - 1) & ~(LARGE_BYTES - 1);
    uint8_t *b = map_large(n);
    if (b != NULL) {
      memcpy(b, s->buf, s->len);
      if (s->mapped) unmap_large(s->buf, s->alloc);
      else free(s->buf);
      s->buf = b;
      s->alloc = n;
      s->mapped = 1;
      return 1;
    }
  }
  if (s->mapped) {
    uint8_t *b = malloc(grown);
    if (b == NULL) return 0;
    memcpy(b, s->buf, s->len);
    unmap_large(s->buf, s->alloc);
    s->buf = b;
    s->alloc = grown;
    s->mapped = 0;
    return 1;
  }
  uint8_t *b = realloc(s->buf, grown);
  if (b == NULL) return 0;
  s->buf = b;
  s->alloc = grown;
  return 1;
}

LineSource *ls_open(int fd, int64_t from, int64_t end, int64_t max_line, int head, size_t cap) {
  LineSource *s = calloc(1, sizeof(LineSource));
  if (s == NULL) return NULL;
  if (cap < 16) cap = 16;
  s->long_limit = cap * GROWTH;
  /* no bigger than the file needs (small files are most of a history) */
  const int64_t span = end - from + 1;
  if (span > 0 && (int64_t)cap > span) cap = (size_t)span;
  /* this thread's spare buffer when it is large enough: the source still reads `cap` bytes at a time */
  s->buf = sf_take_buffer(cap, &s->alloc);
  if (s->buf == NULL) {
    free(s);
    return NULL;
  }
  s->cap = cap;
  s->fd = fd;
  s->base = from;
  s->end = end;
  s->max_line = max_line;
  s->head = head;
  s->pending_from = -1;
  s->hit = -2;
  return s;
}

void ls_close(LineSource *s) {
  if (s == NULL) return;
  if (s->mapped) unmap_large(s->buf, s->alloc);
  else sf_give_buffer(s->buf, s->alloc);
  free(s);
}

/* Set the markers of FILTER mode (a change resets the remembered hit). */
int ls_set_markers(LineSource *s, const uint8_t *const *m, const size_t *ml, int n) {
  if (n > LS_MAX_MARKERS) return 0;
  int same = n == s->nm;
  for (int k = 0; same && k < n; k++) same = ml[k] == s->ml[k] && memcmp(m[k], s->m[k], ml[k]) == 0;
  if (same) return 1;
  const uint8_t *mk[LS_MAX_MARKERS];
  for (int k = 0; k < n; k++) /* all checked before any is copied: a refused set leaves the old one whole */
    if (ml[k] == 0 || ml[k] > sizeof(s->m[k])) return 0;
  for (int k = 0; k < n; k++) {
    memcpy(s->m[k], m[k], ml[k]);
    s->ml[k] = ml[k];
    mk[k] = s->m[k];
  }
  s->nm = n;
  sf_needles(&s->needles, mk, s->ml, n);
  s->hit = -2;
  return 1;
}

/* Move the unread bytes to the front and read more; the bytes read, 0 at the end, -1 on an error, -2 when the
 * buffer is full at its limit or cannot grow (the caller streams the line). */
static int64_t fill(LineSource *s) {
  if (s->at > 0) {
    memmove(s->buf, s->buf + s->at, s->len - s->at);
    s->base += (int64_t)s->at;
    s->len -= s->at;
    s->at = 0;
    s->hit = -2;
  }
  if (s->len == s->cap) {
    if (s->cap >= s->long_limit) return -2;
    const size_t grown = s->cap * 2 < s->long_limit ? s->cap * 2 : s->long_limit;
    if (grown > s->alloc) {
      if (!grow_buffer(s, grown)) {
        /* no memory for a larger buffer (a tight `ulimit -v`): stream the line as one at the limit is */
        s->long_limit = s->cap;
        return -2;
      }
    }
    s->cap = grown;
  }
  const int64_t want = min64((int64_t)(s->cap - s->len), s->end - (s->base + (int64_t)s->len));
  if (want <= 0) return 0;
  const ssize_t n = sf_pread(s->fd, s->buf + s->len, (size_t)want, s->base + (int64_t)s->len);
  if (n < 0) {
    s->err = errno;
    return -1;
  }
  s->len += (size_t)n;
  s->bytes += n;
  return n;
}

/* `mayHoldUsage`'s decision from a line's first bytes: 1 may hold usage, 0 cannot, -1 the markers decide. */
static int codex_head(const uint8_t *line, size_t n) {
  static const char type_key[] = "\"type\":\"";
  static const char payload_type[] = "\",\"payload\":{\"type\":\"";
  if (n == 0 || line[0] != '{') return -1;
  const size_t h = n < HEAD_BYTES ? n : HEAD_BYTES;
  /* memmem, not sf_find: a head is at most HEAD_BYTES, too short for the AVX2 loop, and sf_find would pick the
   * needle's rare bytes again on every line */
  const uint8_t *ti = memmem(line, h, type_key, sizeof(type_key) - 1);
  if (ti == NULL) return -1;
  const int64_t i = ti - line;
  for (int64_t j = 1; j < i; j++)
    if (line[j] == '{' || line[j] == '[') return -1;
  const size_t start = (size_t)i + sizeof(type_key) - 1;
  const uint8_t *q = start < h ? memchr(line + start, '"', h - start) : NULL;
  if (q == NULL) return -1;
  const size_t end = (size_t)(q - line), tl = end - start;
  const uint8_t *t = line + start;
#define IS(lit) (tl == sizeof(lit) - 1 && memcmp(t, lit, tl) == 0)
  if (IS("session_meta") || IS("turn_context") || IS("token_usage_record")) return 1;
  if (!IS("event_msg")) return 0;
  if (h - end < sizeof(payload_type) - 1 || memcmp(line + end, payload_type, sizeof(payload_type) - 1) != 0) return -1;
  const size_t ps = end + sizeof(payload_type) - 1;
  const uint8_t *pq = ps < h ? memchr(line + ps, '"', h - ps) : NULL;
  if (pq == NULL) return -1;
  return (size_t)(pq - line) - ps == 11 && memcmp(line + ps, "token_count", 11) == 0;
#undef IS
}

/* Whether a marker starts in buf[from, lf): the next start of any marker is remembered, so each byte is
 * searched once however many lines ask. */
static int marker_before(LineSource *s, size_t from, size_t lf) {
  if (s->nm == 0) return 0;
  int64_t h = s->hit;
  if (h == -2 || (h >= 0 && (size_t)h < from)) {
    h = sf_find_any(s->buf, s->len, &s->needles, from);
    s->hit = h;
  }
  return h >= 0 && (size_t)h < lf;
}

static int marker_in(const LineSource *s, const uint8_t *b, size_t n) { return s->nm > 0 && sf_find_any(b, n, &s->needles, 0) >= 0; }

/* A line too long to buffer, whose first bytes fill the buffer: read on to its LF, deciding whether it is
 * wanted as its bytes go by. Returns 1 with the record written, 0 at the end of the bytes (a partial line),
 * -1 on an error. */
static int stream_long(LineSource *s, int filter, double *rec) {
  const int64_t start = s->base;
  int head = filter && s->head ? codex_head(s->buf, s->len) : -1;
  int seen = filter && head == -1 && marker_in(s, s->buf, s->len);
  size_t keep = 0;
  for (int k = 0; k < s->nm; k++)
    if (s->ml[k] - 1 > keep) keep = s->ml[k] - 1;
  for (;;) {
    /* keep the last bytes (a marker may straddle two reads), drop the rest */
    const size_t tail = keep < s->len ? keep : s->len;
    memmove(s->buf, s->buf + s->len - tail, tail);
    s->base += (int64_t)(s->len - tail);
    s->len = tail;
    s->at = 0;
    const int64_t n = fill(s);
    if (n < 0) return -1;
    if (n == 0) {
      /* the line never ends: the bytes stay pending; step back to its start for `committed` */
      s->pending_from = start;
      return 0;
    }
    const uint8_t *p = memchr(s->buf + tail, '\n', s->len - tail);
    const size_t upto = p == NULL ? s->len : (size_t)(p - s->buf);
    if (filter && head == -1 && !seen) seen = marker_in(s, s->buf, upto);
    if (p == NULL) continue;
    const int64_t next = s->base + (int64_t)upto + 1;
    const int64_t length = next - 1 - start;
    s->at = upto + 1;
    s->hit = -2;
    s->lines++;
    const int wanted = !filter || head == 1 || (head == -1 && seen);
    if (length > s->max_line) rec[0] = LS_TOO_LONG;
    else if (wanted) rec[0] = LS_LONG;
    else {
      s->filtered++;
      return 2;
    }
    rec[1] = (double)start;
    rec[2] = 0;
    rec[3] = (double)length;
    rec[4] = (double)next;
    return 1;
  }
}

/*
 * The next record without a copy: *line points into the buffer (valid until the next call) for LS_LINE; rec
 * gets the 5 doubles (its offset in out is 0). Returns 1, or LS_END, LS_IO_ERROR.
 */
int ls_next_line(LineSource *s, int filter, const uint8_t **line, double *rec) {
  if (s->pending_from >= 0) return LS_END;
  for (;;) {
    const uint8_t *p = memchr(s->buf + s->at, '\n', s->len - s->at);
    if (p == NULL) {
      if (s->eof) return LS_END;
      if (s->at == 0 && s->len == s->cap && s->cap >= s->long_limit) {
        const int r = stream_long(s, filter, rec);
        if (r < 0) return LS_IO_ERROR;
        if (r == 0) {
          s->eof = 1;
          return LS_END;
        }
        if (r == 1) {
          *line = NULL;
          return 1;
        }
        continue;
      }
      const int64_t n = fill(s);
      if (n == -2) continue; /* the buffer cannot grow: the line streams (above) */
      if (n < 0) return LS_IO_ERROR;
      if (n == 0) s->eof = 1;
      continue;
    }
    const size_t lf = (size_t)(p - s->buf);
    size_t n = lf - s->at;
    const int64_t start = s->base + (int64_t)s->at, next = s->base + (int64_t)lf + 1;
    const uint8_t *l = s->buf + s->at;
    rec[1] = (double)start;
    rec[2] = 0;
    rec[4] = (double)next;
    if ((int64_t)n > s->max_line) {
      rec[0] = LS_TOO_LONG;
      rec[3] = (double)n;
      s->lines++;
      s->at = lf + 1;
      *line = NULL;
      return 1;
    }
    if (n > 0 && l[n - 1] == '\r') n--;
    s->lines++;
    s->at = lf + 1;
    if (!filter) {
      if (n == 0) continue;
    } else {
      /* the head rule first: it decides most rollout lines from their first bytes, without a search (a line
       * it lets through holds a marker; one it leaves to the markers is searched) */
      const int h = s->head ? codex_head(l, n) : -1;
      if (h == 0 || (h == -1 && !marker_before(s, (size_t)(l - s->buf), lf))) {
        s->filtered++;
        continue;
      }
    }
    rec[0] = LS_LINE;
    rec[3] = (double)n;
    *line = l;
    return 1;
  }
}

int ls_next(LineSource *s, int filter, uint8_t *out, size_t out_cap, double *idx, int idx_cap) {
  size_t used = 0;
  int k = 0;
  while (k < idx_cap) {
    double *rec = idx + 5 * k;
    const uint8_t *line;
    const int r = ls_next_line(s, filter, &line, rec);
    if (r == LS_END) return k == 0 ? LS_END : k;
    if (r < 0) return r;
    if (rec[0] == LS_LINE) {
      const size_t n = (size_t)rec[3];
      if (n > out_cap - used) {
        /* give the line back: it is still in the buffer, nothing was read after it was found */
        s->at = (size_t)(line - s->buf);
        s->lines--;
        if (k > 0) return k;
        idx[0] = (double)n;
        return LS_NEED_OUT;
      }
      memcpy(out + used, line, n);
      rec[2] = (double)used;
      used += n;
    }
    k++;
  }
  return k;
}

void ls_stats(const LineSource *s, double *o) {
  const int64_t committed = s->pending_from >= 0 ? s->pending_from : s->base + (int64_t)s->at;
  o[0] = (double)s->lines;
  o[1] = (double)s->filtered;
  o[2] = (double)s->bytes;
  o[3] = (double)committed;
  o[4] = (double)(s->base + (int64_t)s->len - committed);
  o[5] = (double)s->err;
}
