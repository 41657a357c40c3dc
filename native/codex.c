/*
 * The native Codex usage engine: a full usage read of one rollout (codecs/codex, kinds usage and the
 * session's cwd) in C, for the cost scan's cold reads. It is codecs/codex/parse.ts (and tokens.ts) restricted
 * to what a usage read decides, rule for rule:
 *
 * - lines come from the line source (lines.c): every line until the first one is read (the header), then the
 *   lines `mayHoldUsage` lets through (its markers and record-type rule);
 * - each is walked with the projection JavaScript compiled (CODEX_USAGE_PROJECTION plus the header's fields;
 *   sf_scan_why validates the whole line as JSON; a line that is not a JSON object is skipped and counted);
 * - the header (`session_meta`, or a pre-RolloutLine `{id, …}` line) names the session, its cwd and provider,
 *   and where its own history starts (`subagent_history_start_ordinal`: lines below it are inherited);
 * - `turn_context` sets the model and provider, and whether its turn is a copied one (`copied_turn`: under
 *   another thread's region, a UUIDv7 turn id minted before the owner's), whose usage is marked copied; a later
 *   `session_meta` of another thread starts a new region (its counter without a baseline);
 * - `token_usage_record` rows (one per response, deduplicated by response id) win; otherwise the delta of
 *   `total_token_usage` between `token_count` events (a decrease starts a new epoch, whose first row counts its
 *   own `last_token_usage` when that fits); a token_count event waits until the next usage line, where a record
 *   of the same tokens replaces it.
 *
 * Where C cannot be sure to decide as JavaScript would, it answers CS_BAIL and the caller reads the file with
 * the JavaScript codec: a fork or subagent rollout (their inherited lines are found by comparing dates with
 * Date.parse), a timestamp that is not canonical ISO 8601 (JavaScript's Date.parse decides its validity), an
 * id, timestamp or model with escapes, a token count or ordinal that is not a plain integer of at most 15
 * digits, a line JSON.parse might read differently. Dedup keys are built here byte for byte as parse.ts builds
 * them; the events' token fields are split by JavaScript (tokens.ts `toUsageFields`) from the raw counts.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "codex.h"


/* A growable byte string. */
typedef struct {
  uint8_t *b;
  size_t n;
} Bytes;

typedef struct {
  double offset;
  Tok t;
  int single, fallback, copied;
  /* model, provider, timestamp, dedup key, response id; NULL b: absent */
  Bytes s[CX_STRS];
} XEv;

struct CodexScan {
  Walker walk;
  int32_t map[CX_FIELDS];
  Bytes file_id;
  int decided;
  Bytes session_id, cwd, region, model, meta_provider, ctx_provider, last_ts;
  /* usage.ts `isCopiedTurn` of the last turn_context since the last session_meta */
  int copied_turn;
  int has_region, has_model, has_meta_provider, has_ctx_provider, has_last_ts, has_cwd;
  int cwd_escaped;
  int has_history_start;
  double history_start;
  double epoch;
  int has_totals;
  Tok totals;
  int records_seen;
  XEv *pending;
  Queue queue;
  /* response ids seen (exact) */
  ByteSet seen;
  int ended;
};

static const uint8_t EPOCH_TS[] = "1970-01-01T00:00:00.000Z";

/* ------------------------------------------------------------------ small helpers */

static int bytes_set(Bytes *d, const uint8_t *b, size_t n) {
  uint8_t *c = malloc(n == 0 ? 1 : n);
  if (c == NULL) return 0;
  memcpy(c, b, n);
  free(d->b);
  d->b = c;
  d->n = n;
  return 1;
}

static int bytes_copy(Bytes *d, const Bytes *s) { return bytes_set(d, s->b, s->n); }

static void xev_free(void *p) {
  XEv *e = p;
  if (e == NULL) return;
  for (int i = 0; i < CX_STRS; i++) free(e->s[i].b);
  free(e);
}

CodexScan *cx_open(int fd, int64_t size, int64_t max_line, size_t cap, const Proj *proj, int32_t slots, const int32_t *map, const uint8_t *file_id,
                   size_t file_id_len) {
  CodexScan *c = calloc(1, sizeof(CodexScan));
  if (c == NULL) return NULL;
  static const uint8_t m0[] = "token_", m1[] = "turn_context", m2[] = "session_meta";
  const uint8_t *m[3] = {m0, m1, m2};
  const size_t ml[3] = {6, 12, 12};
  if (!bytes_set(&c->file_id, file_id, file_id_len) || !walker_open(&c->walk, fd, size, max_line, 1, cap, proj, slots, m, ml, 3)) {
    cx_close(c);
    return NULL;
  }
  memcpy(c->map, map, sizeof(c->map));
  return c;
}

void cx_close(CodexScan *c) {
  if (c == NULL) return;
  walker_close(&c->walk);
  Bytes *all[] = {&c->file_id, &c->session_id, &c->cwd, &c->region, &c->model, &c->meta_provider, &c->ctx_provider, &c->last_ts};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) free(all[i]->b);
  xev_free(c->pending);
  q_free(&c->queue, xev_free);
  bs_free(&c->seen);
  free(c);
}

/* parse.ts `regionKey`: the thread whose counter it is (or `@` and the line's time), and its epoch. */
static void put_region(CodexScan *c, Buf *k, const Bytes *ts) {
  if (c->has_region)
    put_bytes(k, c->region.b, c->region.n);
  else {
    put_str(k, "@");
    if (ts != NULL)
      put_bytes(k, ts->b, ts->n);
    else if (c->has_last_ts)
      put_bytes(k, c->last_ts.b, c->last_ts.n);
  }
  if (c->epoch > 0) {
    put_str(k, "#");
    put_num(k, c->epoch);
  }
}

/* A UUID of version 7 as Codex writes one: lowercase hex, hyphens at 8, 13, 18 and 23, variant 8 to b. */
static int uuid_v7(const uint8_t *b, size_t n) {
  if (n != 36) return 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t ch = b[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (ch != '-') return 0;
    } else if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
      return 0;
  }
  return b[14] == '7' && (b[19] == '8' || b[19] == '9' || b[19] == 'a' || b[19] == 'b');
}

/* usage.ts `isCopiedTurn`: under another thread's region, a UUIDv7 turn minted before the owner's UUIDv7 id
 * (their first 13 characters compare as the milliseconds of minting). */
static int copied_turn(const CodexScan *c, const uint8_t *turn, size_t n) {
  const int foreign = c->has_region && (c->region.n != c->session_id.n || memcmp(c->region.b, c->session_id.b, c->region.n) != 0);
  return foreign && uuid_v7(turn, n) && uuid_v7(c->session_id.b, c->session_id.n) && memcmp(turn, c->session_id.b, 13) < 0;
}

/* ------------------------------------------------------------------ events */

/* parse.ts `usageEvent`: the model, provider and time now; the key built by the caller (taken over). */
static XEv *make_event(CodexScan *c, const Tok *t, const Bytes *when, double start, int single, Buf *key, const Fields *f, const int32_t *rid) {
  XEv *e = calloc(1, sizeof(XEv));
  if (e == NULL || key->oom) {
    free(key->b);
    free(e);
    return NULL;
  }
  e->offset = start;
  e->t = *t;
  e->single = single;
  e->copied = c->copied_turn;
  e->fallback = !c->has_model;
  int ok = 1;
  if (c->has_model) ok &= bytes_copy(&e->s[CX_S_MODEL], &c->model);
  if (c->has_meta_provider) ok &= bytes_copy(&e->s[CX_S_PROVIDER], &c->meta_provider);
  else if (c->has_ctx_provider) ok &= bytes_copy(&e->s[CX_S_PROVIDER], &c->ctx_provider);
  ok &= bytes_copy(&e->s[CX_S_TIMESTAMP], when);
  e->s[CX_S_KEY].b = key->b;
  e->s[CX_S_KEY].n = key->n;
  key->b = NULL;
  if (rid != NULL) ok &= bytes_set(&e->s[CX_S_RESPONSE_ID], content(f, rid), content_len(rid));
  if (!ok) {
    xev_free(e);
    return NULL;
  }
  return e;
}

/* `queue`: a token_count event waits; the one waiting is emitted. */
static int hold(CodexScan *c, XEv *e) {
  if (e == NULL) return 0;
  if (c->pending != NULL && !q_push(&c->queue, c->pending)) {
    xev_free(e); /* `pending` stays for cx_close to free */
    return 0;
  }
  c->pending = e;
  return 1;
}

/* The time a usage event gets: the line's, else the last one seen, else the epoch. */
static Bytes when_of(CodexScan *c, const Bytes *ts) {
  if (ts != NULL) return *ts;
  if (c->has_last_ts) return c->last_ts;
  return (Bytes){(uint8_t *)EPOCH_TS, sizeof(EPOCH_TS) - 1};
}

/* parse.ts `onTokenCount`. 1, BAIL, 0 (memory). */
static int on_token_count(CodexScan *c, const Fields *f, const Bytes *ts, int inherited, double start) {
  if (!is_object(slot(f, CX_P_INFO))) return 1;
  Tok total, last;
  int has_total, has_last;
  if (cx_read_tok(f, CX_P_TOTAL, &total, &has_total) != 1 || cx_read_tok(f, CX_P_LAST, &last, &has_last) != 1) return BAIL;
  const Bytes when = when_of(c, ts);
  if (!has_total) {
    if (!has_last || inherited || c->records_seen || tok_is_zero(&last)) return 1;
    Buf k = {0};
    put_str(&k, "codex:");
    put_region(c, &k, ts);
    put_str(&k, ":last:");
    put_bytes(&k, when.b, when.n);
    put_str(&k, ":");
    put_tok(&k, &last);
    return hold(c, make_event(c, &last, &when, start, 1, &k, f, NULL));
  }
  Tok delta;
  if (c->has_totals && !tok_any_decrease(&total, &c->totals)) {
    delta = (Tok){total.in - c->totals.in, total.cached - c->totals.cached, total.cw - c->totals.cw, total.out - c->totals.out, total.reas - c->totals.reas, total.total - c->totals.total};
  } else {
    if (c->has_totals) c->epoch++;
    delta = has_last && tok_fits_within(&last, &total) ? last : total;
  }
  c->totals = total;
  c->has_totals = 1;
  if (inherited || c->records_seen || tok_is_zero(&delta)) return 1;
  const int single = has_last && tok_eq_tok(&delta, &last);
  Buf k = {0};
  put_str(&k, "codex:");
  put_region(c, &k, ts);
  put_str(&k, ":");
  put_tok(&k, &total);
  return hold(c, make_event(c, &delta, &when, start, single, &k, f, NULL));
}

/* parse.ts `onUsageRecord`. */
static int on_usage_record(CodexScan *c, const Fields *f, const Bytes *ts, int inherited, double start) {
  Tok usage;
  int has;
  if (cx_read_tok(f, CX_P_USAGE, &usage, &has) != 1) return BAIL;
  if (!has) return 1;
  const int32_t *rid = slot(f, CX_P_RESPONSE_ID);
  if (!is_str(f, rid)) rid = NULL;
  else {
    if (!comparable(f, rid)) return BAIL;
    const int r = bs_add(&c->seen, content(f, rid), content_len(rid));
    if (r == 0) return 0;
    if (r == 2) return 1;
  }
  const int32_t *thread = slot(f, CX_P_THREAD_ID);
  if (is_str(f, thread)) {
    if (!comparable(f, thread)) return BAIL;
    const size_t n = content_len(thread);
    const int is_session = n == c->session_id.n && memcmp(content(f, thread), c->session_id.b, n) == 0;
    const int is_region = c->has_region && n == c->region.n && memcmp(content(f, thread), c->region.b, n) == 0;
    if (c->has_region && !is_session && !is_region) return 1;
  }
  if (inherited || tok_is_zero(&usage)) return 1;
  c->records_seen = 1;
  const Bytes when = when_of(c, ts);
  Buf k = {0};
  if (rid != NULL) {
    put_str(&k, "codex:resp:");
    put_bytes(&k, content(f, rid), content_len(rid));
  } else {
    put_str(&k, "codex:");
    put_region(c, &k, ts);
    put_str(&k, ":rec:");
    put_bytes(&k, when.b, when.n);
    put_str(&k, ":");
    put_tok(&k, &usage);
  }
  XEv *e = make_event(c, &usage, &when, start, 1, &k, f, rid);
  if (e == NULL) return 0;
  if (c->pending != NULL) {
    if (!tok_same_usage(&c->pending->t, &e->t)) {
      if (!q_push(&c->queue, c->pending)) {
        xev_free(e); /* `pending` stays for cx_close to free */
        return 0;
      }
    } else
      xev_free(c->pending);
    c->pending = NULL;
  }
  return q_push_or_free(&c->queue, e, xev_free);
}

/* How take_string copies a string: compared or in keys (ASCII, no escapes), copied (no escapes), or raw (its
 * JSON when it has escapes, with *escaped set). */
enum { TAKE_COMPARED, TAKE_COPIED, TAKE_RAW };

/* A non-empty string into *d (*has 1), or *has untouched; BAIL when the mode cannot take it. */
static int take_string(const Fields *f, const int32_t *s, Bytes *d, int *has, int *escaped, int mode) {
  if (!is_str(f, s)) return 1;
  const int clean = mode == TAKE_COMPARED ? comparable(f, s) : no_escapes(s);
  if (!clean) {
    if (mode != TAKE_RAW) return BAIL;
    *escaped = 1;
    if (!bytes_set(d, f->b + s[0], (size_t)(s[1] - s[0]))) return 0;
  } else {
    if (escaped != NULL) *escaped = 0;
    if (!bytes_set(d, content(f, s), content_len(s))) return 0;
  }
  *has = 1;
  return 1;
}

/* parse.ts `takeOwner` of the header's fields (top-level ones when `top`, else the payload's). */
static int take_owner(CodexScan *c, const Fields *f, int top) {
  const int o = top ? 0 : CX_P_OFFSET;
  const int32_t *source = slot(f, CX_ID + o + 4);
  /* a fork or a subagent: its inherited lines are found by dates (Date.parse): JavaScript reads it */
  if (is_str(f, slot(f, CX_ID + o + 2)) || is_str(f, slot(f, CX_ID + o + 3)) || present(slot(f, CX_ID + o + 5))) return BAIL;
  if (present(source) && !(is_string(f, source) && !(source[2] & SLOT_ESCAPED) &&
                           !(content_len(source) == 8 && memcmp(content(f, source), "subagent", 8) == 0)))
    return BAIL;
  int has = 0, r;
  const int32_t *id = slot(f, CX_ID + o), *sid = slot(f, CX_ID + o + 1);
  if ((r = take_string(f, is_str(f, id) ? id : sid, &c->session_id, &has, NULL, TAKE_COMPARED)) != 1) return r;
  if (!has && !bytes_copy(&c->session_id, &c->file_id)) return 0;
  if (!bytes_copy(&c->region, &c->session_id)) return 0;
  c->has_region = 1;
  int hs;
  if (cx_number_of(f, slot(f, CX_ID + o + 7), &hs, &c->history_start) != 1) return BAIL;
  c->has_history_start = hs;
  if ((r = take_string(f, slot(f, CX_ID + o + 8), &c->meta_provider, &c->has_meta_provider, NULL, TAKE_COPIED)) != 1) return r;
  if ((r = take_string(f, slot(f, CX_ID + o + 9), &c->cwd, &c->has_cwd, &c->cwd_escaped, TAKE_RAW)) != 1) return r;
  return 1;
}

static int is_legacy_item(const Fields *f, const int32_t *type) {
  static const char *items[] = {"message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
                                "local_shell_call", "web_search_call", "tool_search_call", "tool_search_output"};
  if (!is_str(f, type) || (type[2] & SLOT_ESCAPED)) return 0;
  for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++)
    if (content_len(type) == strlen(items[i]) && memcmp(content(f, type), items[i], content_len(type)) == 0) return 1;
  return 0;
}

static int type_is(const Fields *f, const int32_t *s, const char *lit) {
  return is_str(f, s) && !(s[2] & SLOT_ESCAPED) && content_len(s) == strlen(lit) && memcmp(content(f, s), lit, content_len(s)) == 0;
}

/* parse.ts `line()` of a usage-only read, on a walked line. 1, BAIL, or 0 (memory). */
static int on_line(CodexScan *c, const uint8_t *b, double start) {
  const Fields f = {b, c->walk.spans, c->map};
  const int32_t *type = slot(&f, CX_TYPE);
  if (present(type) && is_string(&f, type) && (type[2] & SLOT_ESCAPED)) return BAIL;
  int has_payload = is_object(slot(&f, CX_PAYLOAD));
  /* a legacy line is its own payload, a response_item (nothing for usage) */
  const int legacy = !has_payload && is_legacy_item(&f, type);
  const int ts_ok = cx_timestamp_of(&f, slot(&f, CX_TIMESTAMP));
  if (ts_ok == BAIL) return BAIL;
  const int32_t *tss = slot(&f, CX_TIMESTAMP);
  Bytes ts_bytes = {ts_ok ? (uint8_t *)content(&f, tss) : NULL, ts_ok ? content_len(tss) : 0};
  const Bytes *ts = ts_ok ? &ts_bytes : NULL;
  if (!c->decided) {
    c->decided = 1;
    if (!legacy && type_is(&f, type, "session_meta") && has_payload) {
      if (ts != NULL && !bytes_set(&c->last_ts, ts->b, ts->n)) return 0;
      if (ts != NULL) c->has_last_ts = 1;
      return take_owner(c, &f, 0);
    }
    if (!is_str(&f, type) && is_str(&f, slot(&f, CX_ID))) return take_owner(c, &f, 1);
    if (!bytes_copy(&c->session_id, &c->file_id)) return 0;
    /* a session without a header: its id is the file's; the line goes on as any other */
  }
  if (!has_payload || legacy) return 1;
  int inherited = 0;
  if (c->has_history_start) {
    int has;
    double ordinal;
    if (cx_number_of(&f, slot(&f, CX_ORDINAL), &has, &ordinal) != 1) return BAIL;
    inherited = has && ordinal < c->history_start;
  }
  int r = 1;
  if (type_is(&f, type, "session_meta")) {
    const int32_t *id = slot(&f, CX_P_ID), *sid = slot(&f, CX_P_ID + 1);
    const int32_t *pick = is_str(&f, id) ? id : is_str(&f, sid) ? sid : NULL;
    if (pick != NULL && !comparable(&f, pick)) return BAIL;
    const int same = pick != NULL && c->has_region && content_len(pick) == c->region.n && memcmp(content(&f, pick), c->region.b, c->region.n) == 0;
    if (!same) {
      c->has_region = pick != NULL;
      if (pick != NULL && !bytes_set(&c->region, content(&f, pick), content_len(pick))) return 0;
      c->epoch = 0;
      c->has_totals = 0;
    }
    c->copied_turn = 0; /* a turn_context decides again */
  } else if (type_is(&f, type, "turn_context")) {
    const int32_t *turn = slot(&f, CX_P_TURN_ID);
    if (is_str(&f, turn) && !comparable(&f, turn)) return BAIL;
    c->copied_turn = is_str(&f, turn) && copied_turn(c, content(&f, turn), content_len(turn));
    int has = 0;
    Bytes m = {0};
    if ((r = take_string(&f, slot(&f, CX_P_MODEL), &m, &has, NULL, TAKE_COPIED)) != 1) return r;
    if (has) {
      free(c->model.b);
      c->model = m;
      c->has_model = 1;
    }
    has = 0;
    Bytes p = {0};
    if ((r = take_string(&f, slot(&f, CX_P_MODEL_PROVIDER), &p, &has, NULL, TAKE_COPIED)) != 1) return r;
    if (has) {
      free(c->ctx_provider.b);
      c->ctx_provider = p;
      c->has_ctx_provider = 1;
    }
  } else if (type_is(&f, type, "token_usage_record")) {
    r = on_usage_record(c, &f, ts, inherited, start);
  } else if (type_is(&f, type, "event_msg")) {
    const int32_t *pt = slot(&f, CX_P_TYPE);
    if (is_string(&f, pt) && !no_escapes(pt)) return BAIL;
    if (!type_is(&f, pt, "token_count")) return 1; /* other events: nothing for usage, and no time taken */
    r = on_token_count(c, &f, ts, inherited, start);
  } else
    return 1;
  if (r == 1 && ts != NULL) {
    if (!bytes_set(&c->last_ts, ts->b, ts->n)) return 0;
    c->has_last_ts = 1;
  }
  return r;
}

static int advance(CodexScan *c) {
  double rec[5];
  while (q_size(&c->queue) == 0 && !c->ended) {
    const uint8_t *line;
    const int n = walker_next(&c->walk, c->decided, &line, rec);
    if (n == WALK_END) {
      if (c->pending != NULL && !q_push(&c->queue, c->pending)) return 0;
      c->pending = NULL;
      c->ended = 1;
      break;
    }
    if (n != WALK_LINE) return n == WALK_BAIL ? BAIL : CS_IO_ERROR;
    const int v = on_line(c, line, rec[1]);
    if (v != 1) return v;
  }
  return 1;
}

/* ------------------------------------------------------------------ a whole file at once */

/*
 * cx_scan_file: engine.h's block, with the session id as its id; nums are offset, input, cached, cache write,
 * output, reasoning, total, flags (1 single request, 2 model fallback, 4 copied from another thread); strs are CX_S_* (kind 1: present).
 */
uint8_t *cx_scan_file(const char *path, int64_t max_line, size_t cap, const Proj *proj, int32_t slots, const int32_t *map, const uint8_t *file_id,
                      size_t file_id_len, int *status, size_t *len) {
  *status = CS_FILE_BAIL;
  *len = 0;
  int fd;
  int64_t size;
  if (!sf_open_file(path, &fd, &size)) return NULL;
  CodexScan *c = NULL;
  uint8_t *nums, *strs, *text, *out = NULL;
  size_t nums_cap, strs_cap, text_cap, tlen = 0, n = 0;
  sf_scratch_take(0, &nums, &nums_cap);
  sf_scratch_take(1, &strs, &strs_cap);
  sf_scratch_take(2, &text, &text_cap);
  c = cx_open(fd, size, max_line, cap, proj, slots, map, file_id, file_id_len);
  if (c == NULL) goto done;
  for (;;) {
    const int a = advance(c);
    if (a != 1) goto done;
    if (q_size(&c->queue) == 0) break; /* ended */
    while (q_size(&c->queue) > 0) {
      XEv *e = q_pop(&c->queue);
      size_t need = 0;
      for (int i = 0; i < CX_STRS; i++) need += e->s[i].n;
      if (!sf_reserve(&nums, &nums_cap, sizeof(double) * CX_NUMS * (n + 1)) || !sf_reserve(&strs, &strs_cap, sizeof(int32_t) * 3 * CX_STRS * (n + 1)) ||
          !sf_reserve(&text, &text_cap, tlen + need) || tlen + need > INT32_MAX) {
        xev_free(e); /* popped: the queue no longer owns it */
        goto done;
      }
      double *nv = (double *)nums + CX_NUMS * n;
      nv[0] = e->offset;
      nv[1] = e->t.in;
      nv[2] = e->t.cached;
      nv[3] = e->t.cw;
      nv[4] = e->t.out;
      nv[5] = e->t.reas;
      nv[6] = e->t.total;
      nv[7] = (e->single ? 1 : 0) | (e->fallback ? 2 : 0) | (e->copied ? 4 : 0);
      /* the fold's dedup hash and the time (src/scan/types.ts UsageRecord); every time here is canonical */
      sf_key_hash((const uint8_t *)"", 0, e->s[CX_S_KEY].b, e->s[CX_S_KEY].n, nv + 8);
      nv[10] = sf_time_ms(e->s[CX_S_TIMESTAMP].b, e->s[CX_S_TIMESTAMP].n);
      int32_t *sv = (int32_t *)strs + 3 * CX_STRS * n;
      for (int i = 0; i < CX_STRS; i++) {
        if (e->s[i].b == NULL) {
          sv[3 * i] = sv[3 * i + 1] = sv[3 * i + 2] = 0;
          continue;
        }
        memcpy(text + tlen, e->s[i].b, e->s[i].n);
        sv[3 * i] = (int32_t)tlen;
        sv[3 * i + 1] = (int32_t)e->s[i].n;
        sv[3 * i + 2] = 1;
        tlen += e->s[i].n;
      }
      xev_free(e);
      n++;
    }
  }
  {
    const BlockParts parts = {nums, strs, text, c->session_id.b, c->cwd.b, CX_NUMS, CX_STRS, n, tlen, c->session_id.n, c->has_cwd ? (int64_t)c->cwd.n : -1, c->cwd_escaped};
    out = sf_block(&c->walk, &parts, len);
    if (out != NULL) *status = CS_FILE_OK;
  }
done:
  cx_close(c);
  close(fd);
  sf_scratch_keep(0, nums, nums_cap);
  sf_scratch_keep(1, strs, strs_cap);
  sf_scratch_keep(2, text, text_cap);
  return out;
}
