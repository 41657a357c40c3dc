/*
 * The interface between the native kernel's pure loops (kernel.c, scan-fields.c, timestamps.c) and its Node
 * binding (binding.c).
 */
#ifndef SESSIONFOLD_KERNEL_H
#define SESSIONFOLD_KERNEL_H
#include <stddef.h>
#include <stdint.h>

/* Flags of an output slot of sf_scan. */
#define SLOT_VALUE 1
#define SLOT_ESCAPED 2
#define SLOT_OBJECT 4

/* A projection: the keys of an object to collect, each with its output slot and, for a nested projection,
 * the slots of its subtree [slot + 1, slot_end). */
typedef struct Proj Proj;
typedef struct {
  uint8_t *key;
  uint32_t len;
  int32_t slot;
  /* Slots of the sub-projection's subtree: (slot, slot_end). */
  int32_t slot_end;
  Proj *sub;
} Field;
struct Proj {
  uint32_t n;
  Field *f;
};

void sf_init(void);
/* Whether the AVX2 loops run; on >= 0 sets it (on a CPU without AVX2 they never run). */
int sf_simd(int on);
int64_t sf_find(const uint8_t *h, size_t n, const uint8_t *nd, size_t k, size_t from);
/* Up to SF_MAX_NEEDLES needles searched in one pass: the first start of any of them wholly inside hay[from, n). */
#define SF_MAX_NEEDLES 4
typedef struct {
  int n;
  /* a needle shorter than 2 bytes (the AVX2 search compares two of each) */
  int has_short;
  const uint8_t *m[SF_MAX_NEEDLES];
  size_t len[SF_MAX_NEEDLES], p1[SF_MAX_NEEDLES], p2[SF_MAX_NEEDLES];
} Needles;
void sf_needles(Needles *nd, const uint8_t *const *m, const size_t *len, int n);
int64_t sf_find_any(const uint8_t *h, size_t n, const Needles *nd, size_t from);
int sf_scan(const uint8_t *b, int64_t n, const Proj *root, int32_t *out, int32_t slots);
/*
 * 1 when t[0, n) is `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z` with month 1-12, day 1-31, hour 0-23, minute and second 0-59:
 * a timestamp V8's Date.parse accepts (it takes any day up to 31 in any month). 0: Date.parse must decide.
 */
int sf_canonical_time(const uint8_t *t, size_t n);
/* The milliseconds src/cost/filter.ts `eventTime` reads from a canonical time (sf_canonical_time), or NaN where
 * it would not take its own arithmetic (a year below 100, or a time not after 1970). */
double sf_time_ms(const uint8_t *t, size_t n);
/* XXH64 of prefix + key, as src/key-table.ts `hashInto` halves it: out[0] hi, out[1] lo (never both 0). */
void sf_key_hash(const uint8_t *prefix, size_t pn, const uint8_t *key, size_t kn, double *out);
int sf_scan_why(const uint8_t *b, int64_t n, const Proj *root, int32_t *out, int32_t slots, int *unsure);


/* ------------------------------------------------------------------ the line source (lines.c) */

#define LS_MAX_MARKERS SF_MAX_NEEDLES
/* Record kinds (the first of a record's 5 doubles: kind, start, offset in out, length, next). */
#define LS_LINE 0
#define LS_LONG 1
#define LS_TOO_LONG 2
/* ls_next's answers besides a record count. */
#define LS_END (-1)
#define LS_IO_ERROR (-2)
#define LS_NEED_OUT (-3)

typedef struct {
  int fd;
  /* Read [base, end); buf[0, len) holds the bytes from file offset base; lines start at buf[at]. */
  int64_t base, end;
  uint8_t *buf;
  size_t cap, len, at, long_limit;
  /* the buffer's allocated size (cap is what it reads into) */
  size_t alloc;
  /* the buffer is a mapping of its own (lines.c `map_large`), unmapped on close */
  int mapped;
  int eof, err, head;
  int64_t max_line, lines, filtered, bytes;
  /* An over-long final line without LF: where it starts (-1: none). */
  int64_t pending_from;
  int nm;
  uint8_t m[LS_MAX_MARKERS][32];
  size_t ml[LS_MAX_MARKERS];
  Needles needles;
  /* the next start of any marker at or after `at` (-2: not searched, -1: none before len) */
  int64_t hit;
} LineSource;

LineSource *ls_open(int fd, int64_t from, int64_t end, int64_t max_line, int head, size_t cap);
void ls_close(LineSource *s);
int ls_set_markers(LineSource *s, const uint8_t *const *m, const size_t *ml, int n);
int ls_next(LineSource *s, int filter, uint8_t *out, size_t out_cap, double *idx, int idx_cap);
int ls_next_line(LineSource *s, int filter, const uint8_t **line, double *rec);
/* lines, filtered, bytes read, committed offset, pending bytes, errno */
void ls_stats(const LineSource *s, double *o);

/* ------------------------------------------------------------------ the Claude usage engine (claude.c) */

/* The fields the engine reads: their slots in the projection, in this order (codecs/claude/native.ts). */
enum {
  CF_SESSION_ID,
  CF_REQUEST_ID,
  CF_COST,
  CF_UUID,
  CF_TIMESTAMP,
  CF_CWD,
  CF_PROJECT,
  CF_MESSAGE,
  CF_MESSAGE_ID,
  CF_MODEL,
  CF_USAGE,
  CF_INPUT,
  CF_OUTPUT,
  CF_CACHE_WRITE,
  CF_CACHE_READ,
  CF_CACHE_CREATION,
  CF_EPHEMERAL_5M,
  CF_EPHEMERAL_1H,
  CF_OUTPUT_DETAILS,
  CF_THINKING,
  CF_SERVER_TOOL_USE,
  CF_WEB_SEARCHES,
  CF_SPEED,
  /* data.message.message.usage: a progress line's copy of a subagent response, which only JavaScript counts */
  CF_RELAYED_USAGE,
  /* forkedFrom.sessionId: the origin `/branch` and `--fork-session` stamp on a copied line */
  CF_FORKED_FROM,
  CS_FIELDS
};
/* An event's numbers, in this order (CS_N_COPIED: 1 for a line copied from another session, else 0). */
enum { CS_N_OFFSET, CS_N_INPUT, CS_N_OUTPUT, CS_N_REASONING, CS_N_CACHE_READ, CS_N_CACHE_WRITE, CS_N_CACHE_WRITE_1H, CS_N_WEB_SEARCHES, CS_N_KEY_HI, CS_N_KEY_LO, CS_N_TIME, CS_N_COPIED, CS_NUMS };
/* An event's strings (3 int32 each: start in text, length, kind), in this order. */
enum { CS_S_MODEL, CS_S_MESSAGE_ID, CS_S_REQUEST_ID, CS_S_UUID, CS_S_TIMESTAMP, CS_S_COST, CS_S_SPEED, CS_STRS };
/* String kinds: absent, a string's content without escapes, a string's JSON (escaped), a number's JSON, a
 * canonical timestamp's content (sf_canonical_time). */
enum { CS_ABSENT, CS_STR_PLAIN, CS_STR_JSON, CS_NUMBER, CS_STR_TIME };
#define CS_END (-1)
#define CS_IO_ERROR (-2)
#define CS_BAIL (-4)
#define CS_NO_MEMORY (-5)
/* cs_next: the next event's strings need more text room than given */
#define CS_NEED_TEXT (-6)

typedef struct ClaudeScan ClaudeScan;
/* own: the session the file's own lines name (codecs/claude/paths.ts getOwnSessionId), own_len 0 for none */
ClaudeScan *cs_open(int fd, int64_t size, int64_t max_line, size_t cap, const Proj *proj, int32_t slots, const int32_t *map, const uint8_t *own,
                    size_t own_len);
void cs_close(ClaudeScan *c);
/* Events into text / nums (CS_NUMS each) / strs (3 * CS_STRS each), at most cap: the count (> 0), or CS_END,
 * CS_IO_ERROR, CS_BAIL (the caller reads the file with JavaScript), CS_NO_MEMORY; *text_used the text written. */
int cs_next(ClaudeScan *c, uint8_t *text, size_t text_cap, double *nums, int32_t *strs, int cap, size_t *text_used);
/* A whole file, for a thread of its own: engine.h's result block. */
uint8_t *cs_scan_file(const char *path, int64_t max_line, size_t cap, const Proj *proj, int32_t slots, const int32_t *map, const uint8_t *own,
                      size_t own_len, int *status, size_t *len);
#define CS_FILE_OK 0
#define CS_FILE_BAIL 1


/* ------------------------------------------------------------------ the Codex usage engine (codex.c) */

/* Token-usage fields after a token-usage object's own slot, in this order. */
enum { CX_TOK_INPUT, CX_TOK_OUTPUT, CX_TOK_TOTAL, CX_TOK_CACHED, CX_TOK_CACHE_READ, CX_TOK_CACHE_WRITE, CX_TOK_REASONING, CX_TOK_FIELDS };
/*
 * The fields the engine reads, in this order (codecs/codex/native.ts maps them to slots). The header's ten
 * fields come twice, top-level (a pre-RolloutLine header) and in the payload, CX_P_OFFSET apart; the
 * top-level `timestamp` is CX_TIMESTAMP's slot again.
 */
enum {
  CX_TYPE,
  CX_TIMESTAMP,
  CX_ORDINAL,
  CX_PAYLOAD,
  CX_ID, /* id, session_id, forked_from_id, parent_thread_id, source, history_base, timestamp,
            subagent_history_start_ordinal, model_provider, cwd */
  CX_P_ID = CX_ID + 10,
  CX_P_TYPE = CX_P_ID + 10,
  CX_P_MODEL,
  CX_P_MODEL_PROVIDER,
  CX_P_RESPONSE_ID,
  CX_P_THREAD_ID,
  CX_P_TURN_ID,
  CX_P_USAGE,
  CX_P_INFO = CX_P_USAGE + 1 + CX_TOK_FIELDS,
  CX_P_TOTAL,
  CX_P_LAST = CX_P_TOTAL + 1 + CX_TOK_FIELDS,
  CX_FIELDS = CX_P_LAST + 1 + CX_TOK_FIELDS
};
#define CX_P_OFFSET (CX_P_ID - CX_ID)
/* An event's strings, in this order. */
enum { CX_S_MODEL, CX_S_PROVIDER, CX_S_TIMESTAMP, CX_S_KEY, CX_S_RESPONSE_ID, CX_STRS };
/* An event's numbers: offset, input, cached, cache write, output, reasoning, total, flags (1 single request,
 * 2 model fallback, 4 copied from another thread), then the key hash (hi, lo) and the time (sf_key_hash,
 * sf_time_ms). */
#define CX_NUMS 11

typedef struct CodexScan CodexScan;
CodexScan *cx_open(int fd, int64_t size, int64_t max_line, size_t cap, const Proj *proj, int32_t slots, const int32_t *map, const uint8_t *file_id,
                   size_t file_id_len);
void cx_close(CodexScan *c);
/* A whole rollout, for a thread of its own: engine.h's result block. */
uint8_t *cx_scan_file(const char *path, int64_t max_line, size_t cap, const Proj *proj, int32_t slots, const int32_t *map, const uint8_t *file_id,
                      size_t file_id_len, int *status, size_t *len);

/* ------------------------------------------------------------------ the engines' threads (pool.c) */

/* Run `run(arg)` on one of the pool's threads (started on first use); 0 when no thread can be started. */
int sf_pool_submit(void (*run)(void *), void *arg);
int sf_pool_threads(void);

#endif
