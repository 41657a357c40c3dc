/*
 * The native Claude Code usage engine: a full usage read of one transcript (codecs/claude, kinds usage and
 * the session's cwd) in C, for the cost scan's cold reads. It is codecs/claude/parse.ts and usage.ts
 * restricted to what a usage read decides, rule for rule:
 *
 * - lines come from the line source (lines.c): every line until the session opens, then the lines holding
 *   `"usage"` (the JavaScript core's marker for a read without titles, `titles: false`: title records have
 *   no usage, and the scan takes only the session's cwd);
 * - each is walked with the projection JavaScript compiled (USAGE_LINE_FIELDS plus cwd and project; sf_scan,
 *   which validates the whole line as JSON);
 * - the session opens on the first line with a cwd or project, or with a sessionId and a message object; its
 *   cwd (or project) is the session's cwd;
 * - a line with a message object holding a usage object, and a model other than `<synthetic>`, is a usage
 *   candidate (usage.ts `extractUsage`: counts are finite numbers above 0, else 0; the cache-write total is
 *   authoritative, its 5m/1h breakdown fills in; thinking is capped by output, 1-hour writes by all writes);
 * - candidates of one response (same key: the message id, else the request id, as the JavaScript key string) keep the
 *   largest (most output, then most tokens); up to 8 responses are open at once, the oldest is emitted first
 *   (parse.ts `onUsage`, MAX_OPEN_RESPONSES); a response already emitted is not counted again; a candidate
 *   without ids closes every open response and is emitted at once;
 * - a usage line of a main transcript (JavaScript passes its own session id) whose `sessionId` or
 *   `forkedFrom.sessionId` names another session was copied from it (usage.ts `isCopiedLine`).
 *
 * A line that is not a JSON object is skipped and counted, as read() skips it. Where C cannot be sure to
 * decide as JavaScript would, it answers CS_BAIL and the caller reads the file with the JavaScript codec
 * instead: a line the walk refuses that JSON.parse might accept (an escaped key, deep nesting, a tab), an id or model with escapes or non-ASCII bytes (JavaScript compares decoded strings),
 * a token count that is not a plain integer of at most 15 digits, a line too long to buffer.
 * Strings the event carries (model, ids, uuid, timestamp, cost, speed) go to JavaScript as their raw bytes and
 * are decoded there with the same code as the JavaScript path (codecs/claude/native.ts).
 */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include "engine.h"

#define MAX_OPEN_RESPONSES 8

typedef struct {
  int32_t at, len, kind;
} Str;

typedef struct {
  /* the key's bytes (message id ':' request id, as the JavaScript key string without its prefix); NULL: none */
  uint8_t *key;
  size_t klen;
  double n[CS_NUMS];
  /* CS_STRS strings, their bytes in `text` */
  Str s[CS_STRS];
  uint8_t *text;
  size_t tlen;
} Ev;


struct ClaudeScan {
  Walker walk;
  int32_t map[CS_FIELDS];
  int session;
  /* the session's cwd (raw value bytes, escaped or not) */
  uint8_t *cwd;
  size_t cwd_len;
  int cwd_escaped;
  Ev *pending[MAX_OPEN_RESPONSES + 1];
  int npending;
  /* emitted, not yet handed over */
  Queue queue;
  ByteSet seen;
  int ended;
  /* CS_NEED_TEXT: the text room the next event needs */
  size_t need_text;
  /* the session the file's own lines name; own_len 0: none (no line is judged a copy) */
  uint8_t *own;
  size_t own_len;
};

static void ev_free(void *p) {
  Ev *e = p;
  if (e == NULL) return;
  free(e->key);
  free(e->text);
  free(e);
}

ClaudeScan *cs_open(int fd, int64_t size, int64_t max_line, size_t cap, const Proj *proj, int32_t slots, const int32_t *map, const uint8_t *own,
                    size_t own_len) {
  ClaudeScan *c = calloc(1, sizeof(ClaudeScan));
  if (c == NULL) return NULL;
  if (own_len > 0) {
    if ((c->own = malloc(own_len)) == NULL) {
      free(c);
      return NULL;
    }
    memcpy(c->own, own, own_len);
    c->own_len = own_len;
  }
  static const uint8_t usage[] = "\"usage\"";
  const uint8_t *m[1] = {usage};
  const size_t ml[1] = {7};
  if (!walker_open(&c->walk, fd, size, max_line, 0, cap, proj, slots, m, ml, 1)) {
    free(c->own);
    free(c);
    return NULL;
  }
  memcpy(c->map, map, sizeof(c->map));
  return c;
}

void cs_close(ClaudeScan *c) {
  if (c == NULL) return;
  walker_close(&c->walk);
  free(c->own);
  free(c->cwd);
  for (int i = 0; i < c->npending; i++) ev_free(c->pending[i]);
  q_free(&c->queue, ev_free);
  bs_free(&c->seen);
  free(c);
}

/* ------------------------------------------------------------------ reading a walked line's fields */

/* `saneCount()` of a number the walk validated: 1 with *v, 0 when C cannot be exact or the count is not sane
 * (the caller bails: `read()` refuses the line). */
static int count_of(const Fields *f, const int32_t *s, double *v) {
  int has;
  if (!sf_integer(f, s, &has, v)) return 0;
  if (*v < 0 || *v > SF_MAX_RECORD_TOKENS) return 0;
  if (*v == 0) *v = 0; /* -0 */
  return 1;
}

/* Append a value's bytes to the event's text: a string's content (kind 1) or, escaped, its JSON (kind 2); a
 * number's JSON (kind 3). */
static void put(Ev *e, uint8_t *text, int which, const Fields *f, const int32_t *s, int kind) {
  if (kind == CS_STR_PLAIN || kind == CS_STR_TIME) {
    const size_t n = (size_t)(s[1] - s[0] - 2);
    memcpy(text + e->tlen, f->b + s[0] + 1, n);
    e->s[which] = (Str){(int32_t)e->tlen, (int32_t)n, kind};
    e->tlen += n;
  } else {
    const size_t n = (size_t)(s[1] - s[0]);
    memcpy(text + e->tlen, f->b + s[0], n);
    e->s[which] = (Str){(int32_t)e->tlen, (int32_t)n, kind};
    e->tlen += n;
  }
}

static void put_string(Ev *e, uint8_t *text, int which, const Fields *f, const int32_t *s) {
  put(e, text, which, f, s, (s[2] & SLOT_ESCAPED) ? CS_STR_JSON : CS_STR_PLAIN);
}

/* usage.ts `isCopiedLine` of one of a line's session fields: 1 when it names a session other than the file's
 * own, 0 when not, CS_BAIL when only its decoded value can tell (escapes: JavaScript compares decoded strings;
 * raw bytes other than an ASCII id's decode to another string). */
static int names_other(const ClaudeScan *c, const Fields *f, const int32_t *s) {
  if (!is_str(f, s)) return 0;
  if (!no_escapes(s)) return CS_BAIL;
  return content_len(s) != c->own_len || memcmp(content(f, s), c->own, c->own_len) != 0;
}

/* Whether a usage line was copied from another session (usage.ts `isCopiedLine`): 1, 0 or CS_BAIL. */
static int copied_line(const ClaudeScan *c, const Fields *f) {
  if (c->own_len == 0) return 0;
  const int by_id = names_other(c, f, slot(f, CF_SESSION_ID));
  return by_id != 0 ? by_id : names_other(c, f, slot(f, CF_FORKED_FROM));
}

/* Emit an open response and remember its key; out of memory, the response is freed (the caller holds it no more). */
static int close_response(ClaudeScan *c, Ev *e) {
  if (bs_add(&c->seen, e->key, e->klen) != 0) return q_push_or_free(&c->queue, e, ev_free);
  ev_free(e);
  return 0;
}

/* The oldest open response, taken out of `pending` (so that a failure after it frees no response twice). */
static Ev *take_oldest(ClaudeScan *c) {
  Ev *p = c->pending[0];
  memmove(c->pending, c->pending + 1, sizeof(Ev *) * (size_t)(c->npending - 1));
  c->npending--;
  return p;
}

/* Close every open response, oldest first. */
static int close_pending(ClaudeScan *c) {
  while (c->npending > 0)
    if (!close_response(c, take_oldest(c))) return 0;
  return 1;
}

static double total_of(const Ev *e) { return e->n[CS_N_INPUT] + e->n[CS_N_OUTPUT] + e->n[CS_N_CACHE_READ] + e->n[CS_N_CACHE_WRITE]; }

static int is_larger(const Ev *next, const Ev *cur) {
  if (next->n[CS_N_OUTPUT] != cur->n[CS_N_OUTPUT]) return next->n[CS_N_OUTPUT] > cur->n[CS_N_OUTPUT];
  return total_of(next) > total_of(cur);
}

/* parse.ts `onUsage`. 1, or 0 on out of memory. */
static int on_usage(ClaudeScan *c, Ev *u) {
  if (u->key != NULL) {
    for (int i = 0; i < c->npending; i++) {
      Ev *p = c->pending[i];
      if (p->klen == u->klen && memcmp(p->key, u->key, u->klen) == 0) {
        if (is_larger(u, p)) {
          c->pending[i] = u;
          ev_free(p);
        } else
          ev_free(u);
        return 1;
      }
    }
    if (bs_has(&c->seen, u->key, u->klen)) {
      ev_free(u);
      return 1;
    }
    c->pending[c->npending++] = u;
    while (c->npending > MAX_OPEN_RESPONSES)
      if (!close_response(c, take_oldest(c))) return 0;
    return 1;
  }
  if (!close_pending(c)) {
    ev_free(u);
    return 0;
  }
  return q_push_or_free(&c->queue, u, ev_free);
}

/* One walked line. 1, CS_BAIL, or 0 on out of memory. */
static int on_line(ClaudeScan *c, const uint8_t *b, int64_t start) {
  const Fields f = {b, c->walk.spans, c->map};
  const int32_t *sid = slot(&f, CF_SESSION_ID), *msg = slot(&f, CF_MESSAGE);
  if (!c->session) {
    const int32_t *cwd = slot(&f, CF_CWD), *project = slot(&f, CF_PROJECT);
    const int32_t *where = is_str(&f, cwd) ? cwd : is_str(&f, project) ? project : NULL;
    if (where != NULL || (is_str(&f, sid) && is_object(msg))) {
      c->session = 1;
      if (where != NULL) {
        /* its content, or its JSON when it has escapes (JavaScript decodes it) */
        c->cwd_escaped = (where[2] & SLOT_ESCAPED) != 0;
        c->cwd_len = c->cwd_escaped ? (size_t)(where[1] - where[0]) : content_len(where);
        c->cwd = malloc(c->cwd_len == 0 ? 1 : c->cwd_len);
        if (c->cwd == NULL) return 0;
        memcpy(c->cwd, c->cwd_escaped ? b + where[0] : content(&f, where), c->cwd_len);
      }
    }
  }
  /* A progress line's copy of a subagent response (codecs/claude/README.md): the file goes to read(). */
  if (is_object(slot(&f, CF_RELAYED_USAGE))) return CS_BAIL;
  if (!is_object(msg) || !is_object(slot(&f, CF_USAGE))) return 1;
  const int32_t *model = slot(&f, CF_MODEL), *mid = slot(&f, CF_MESSAGE_ID), *rid = slot(&f, CF_REQUEST_ID);
  const int has_model = is_str(&f, model), has_mid = is_str(&f, mid), has_rid = is_str(&f, rid);
  if ((has_model && !comparable(&f, model)) || (has_mid && !comparable(&f, mid)) || (has_rid && !comparable(&f, rid))) return CS_BAIL;
  if (has_model && model[1] - model[0] == 13 && memcmp(b + model[0], "\"<synthetic>\"", 13) == 0) return 1;

  double input, output, read, total, w5, w1, thinking, searches;
  const int32_t *cc = slot(&f, CF_CACHE_CREATION), *details = slot(&f, CF_OUTPUT_DETAILS), *stu = slot(&f, CF_SERVER_TOOL_USE);
  const int32_t *total_slot = slot(&f, CF_CACHE_WRITE);
  if (!count_of(&f, slot(&f, CF_INPUT), &input) || !count_of(&f, slot(&f, CF_OUTPUT), &output) ||
      !count_of(&f, slot(&f, CF_CACHE_READ), &read) || !count_of(&f, total_slot, &total) ||
      !count_of(&f, is_object(cc) ? slot(&f, CF_EPHEMERAL_5M) : NULL, &w5) ||
      !count_of(&f, is_object(cc) ? slot(&f, CF_EPHEMERAL_1H) : NULL, &w1) ||
      !count_of(&f, is_object(details) ? slot(&f, CF_THINKING) : NULL, &thinking) ||
      !count_of(&f, is_object(stu) ? slot(&f, CF_WEB_SEARCHES) : NULL, &searches))
    return CS_BAIL;
  const double write = is_number(&f, total_slot) ? total : w5 + w1;
  const copied = copied_line(c, &f);
  if (copied == CS_BAIL) return CS_BAIL;

  Ev *e = calloc(1, sizeof(Ev));
  if (e == NULL) return 0;
  e->n[CS_N_OFFSET] = (double)start;
  e->n[CS_N_INPUT] = input;
  e->n[CS_N_OUTPUT] = output;
  e->n[CS_N_REASONING] = thinking < output ? thinking : output;
  e->n[CS_N_CACHE_READ] = read;
  e->n[CS_N_CACHE_WRITE] = write;
  e->n[CS_N_CACHE_WRITE_1H] = w1 < write ? w1 : write;
  e->n[CS_N_WEB_SEARCHES] = searches;
  e->n[CS_N_COPIED] = copied;
  /* the key: usage.ts getResponseKey without its `claude:` prefix (the message id, else ':' request id) */
  if (has_mid || has_rid) {
    const size_t ml = has_mid ? (size_t)(mid[1] - mid[0] - 2) : 0, rl = has_rid ? (size_t)(rid[1] - rid[0] - 2) : 0;
    e->klen = has_mid ? ml : 1 + rl;
    e->key = malloc(e->klen == 0 ? 1 : e->klen);
    if (e->key == NULL) {
      ev_free(e);
      return 0;
    }
    if (has_mid) memcpy(e->key, b + mid[0] + 1, ml);
    else {
      e->key[0] = ':';
      memcpy(e->key + 1, b + rid[0] + 1, rl);
    }
  }
  /* The fold's dedup hash of `claude:<key>` (computed when the event is emitted, `cs_next`: a response's
   * streamed copies that lose to a larger one are never hashed) and the event's time, so that JavaScript need
   * not compute them (src/scan/types.ts UsageRecord); NaN: JavaScript does (a key on the line's uuid, a time
   * eventTime reads). */
  e->n[CS_N_KEY_HI] = e->n[CS_N_KEY_LO] = NAN;
  e->n[CS_N_TIME] = NAN;
  const int32_t *uuid = slot(&f, CF_UUID), *ts = slot(&f, CF_TIMESTAMP), *cost = slot(&f, CF_COST), *speed = slot(&f, CF_SPEED);
  size_t need = 0;
  const int32_t *all[] = {model, mid, rid, uuid, ts, cost, speed};
  for (int i = 0; i < CS_STRS; i++)
    if (present(all[i])) need += (size_t)(all[i][1] - all[i][0]);
  e->text = malloc(need == 0 ? 1 : need);
  if (e->text == NULL) {
    ev_free(e);
    return 0;
  }
  if (has_model) put_string(e, e->text, CS_S_MODEL, &f, model);
  if (has_mid) put_string(e, e->text, CS_S_MESSAGE_ID, &f, mid);
  if (has_rid) put_string(e, e->text, CS_S_REQUEST_ID, &f, rid);
  if (is_str(&f, uuid)) put_string(e, e->text, CS_S_UUID, &f, uuid);
  if (is_string(&f, ts)) {
    const int plain_ts = !(ts[2] & SLOT_ESCAPED);
    const uint8_t *tb = b + ts[0] + 1;
    const size_t tn = (size_t)(ts[1] - ts[0] - 2);
    const int canonical = plain_ts && sf_canonical_time(tb, tn);
    if (canonical) e->n[CS_N_TIME] = sf_time_ms(tb, tn);
    put(e, e->text, CS_S_TIMESTAMP, &f, ts, canonical ? CS_STR_TIME : plain_ts ? CS_STR_PLAIN : CS_STR_JSON);
  }
  if (is_number(&f, cost)) put(e, e->text, CS_S_COST, &f, cost, CS_NUMBER);
  if (is_str(&f, speed)) put_string(e, e->text, CS_S_SPEED, &f, speed);
  return on_usage(c, e) ? 1 : 0;
}

/* ------------------------------------------------------------------ the read */

/* Read on until some events are ready (or the file ends). 1, CS_END, CS_BAIL, CS_IO_ERROR, or 0 (memory). */
static int advance(ClaudeScan *c) {
  double rec[5];
  while (q_size(&c->queue) == 0 && !c->ended) {
    const uint8_t *line;
    const int n = walker_next(&c->walk, c->session, &line, rec);
    if (n == WALK_END) {
      while (c->npending > 0)
        if (!q_push_or_free(&c->queue, take_oldest(c), ev_free)) return 0;
      c->ended = 1;
      break;
    }
    if (n != WALK_LINE) return n == WALK_BAIL ? CS_BAIL : CS_IO_ERROR;
    const int v = on_line(c, line, (int64_t)rec[1]);
    if (v != 1) return v;
  }
  return 1;
}

int cs_next(ClaudeScan *c, uint8_t *text, size_t text_cap, double *nums, int32_t *strs, int cap, size_t *text_used) {
  *text_used = 0;
  const int a = advance(c);
  if (a == 0) return CS_NO_MEMORY;
  if (a != 1) return a;
  int k = 0;
  size_t used = 0;
  while (k < cap && q_size(&c->queue) > 0) {
    Ev *e = c->queue.items[c->queue.head];
    if (e->tlen > text_cap - used) {
      if (k == 0) {
        c->need_text = e->tlen;
        return CS_NEED_TEXT;
      }
      break;
    }
    memcpy(text + used, e->text, e->tlen);
    memcpy(nums + CS_NUMS * k, e->n, sizeof(e->n));
    if (e->key != NULL) sf_key_hash((const uint8_t *)"claude:", 7, e->key, e->klen, nums + CS_NUMS * k + CS_N_KEY_HI);
    for (int i = 0; i < CS_STRS; i++) {
      int32_t *o = strs + 3 * (CS_STRS * k + i);
      o[0] = e->s[i].kind == 0 ? 0 : (int32_t)used + e->s[i].at;
      o[1] = e->s[i].len;
      o[2] = e->s[i].kind;
    }
    used += e->tlen;
    ev_free(q_pop(&c->queue));
    k++;
  }
  *text_used = used;
  return k == 0 && c->ended ? CS_END : k;
}

/* ------------------------------------------------------------------ a whole file at once */

/*
 * cs_scan_file: open, read and close `path` with the engine, on one of the engines' threads (binding.c). The
 * result is engine.h's block (no id: the session id is the path's); nums are CS_N_*, strs CS_S_* with the
 * CS_STR_* kinds. *status is CS_FILE_BAIL (JavaScript reads this file: the engine bailed, or the file cannot be
 * opened, which read() reports) or CS_FILE_OK.
 */
#define BATCH 1024

uint8_t *cs_scan_file(const char *path, int64_t max_line, size_t cap, const Proj *proj, int32_t slots, const int32_t *map, const uint8_t *own,
                      size_t own_len, int *status, size_t *len) {
  *status = CS_FILE_BAIL;
  *len = 0;
  int fd;
  int64_t size;
  if (!sf_open_file(path, &fd, &size)) return NULL;
  ClaudeScan *c = NULL;
  uint8_t *nums, *strs, *text, *out = NULL;
  size_t nums_cap, strs_cap, text_cap, tlen = 0;
  int64_t n = 0;
  sf_scratch_take(0, &nums, &nums_cap);
  sf_scratch_take(1, &strs, &strs_cap);
  sf_scratch_take(2, &text, &text_cap);
  c = cs_open(fd, size, max_line, cap, proj, slots, map, own, own_len);
  if (c == NULL) goto done;
  size_t room = 4096;
  for (;;) {
    if (!sf_reserve(&nums, &nums_cap, sizeof(double) * CS_NUMS * (size_t)(n + BATCH)) ||
        !sf_reserve(&strs, &strs_cap, sizeof(int32_t) * 3 * CS_STRS * (size_t)(n + BATCH)) || !sf_reserve(&text, &text_cap, tlen + room))
      goto done;
    size_t used;
    int32_t *s = (int32_t *)strs + 3 * CS_STRS * n;
    const int k = cs_next(c, text + tlen, text_cap - tlen, (double *)nums + CS_NUMS * n, s, BATCH, &used);
    if (k == CS_END) break;
    if (k == CS_NEED_TEXT) {
      room = c->need_text;
      continue;
    }
    if (k <= 0) goto done;
    for (int i = 0; i < k * CS_STRS; i++)
      if (s[3 * i + 2] != CS_ABSENT) s[3 * i] += (int32_t)tlen;
    if (tlen + used > INT32_MAX) goto done;
    n += k;
    tlen += used;
  }
  {
    const BlockParts parts = {nums, strs, text, NULL, c->cwd, CS_NUMS, CS_STRS, (size_t)n, tlen, 0, c->cwd == NULL ? -1 : (int64_t)c->cwd_len, c->cwd_escaped};
    out = sf_block(&c->walk, &parts, len);
    if (out != NULL) *status = CS_FILE_OK;
  }
done:
  cs_close(c);
  close(fd);
  sf_scratch_keep(0, nums, nums_cap);
  sf_scratch_keep(1, strs, strs_cap);
  sf_scratch_keep(2, text, text_cap);
  return out;
}
