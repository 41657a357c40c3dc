/*
 * The Node binding of the native kernel (N-API, so one build serves every Node version):
 *
 *   indexOf(hay, needle, from, to)  sf_find over hay[from, to)
 *   compile(spec, slots)            a projection (see cursors/scan-fields.ts) as a handle for `scan`
 *   scan(line, handle, out)         sf_scan into an Int32Array of 3 * slots
 *   simd(on?)                       whether the AVX2 loops run (tests turn them off)
 *   linesOpen(fd, from, end, maxLine, head, cap)
 *                                   a line source over an open file's bytes [from, end) (lines.c)
 *   linesNext(src, markers | null, out, idx, limit)
 *                                   the next lines (at most `limit`) that can matter, copied into `out`, 5
 *                                   doubles each in `idx`
 *   linesStats(src, out)            lines, filtered, bytes read, committed offset, pending bytes, errno
 *   linesClose(src)                 frees the source's buffer now (else when the handle is collected)
 *   scanFiles(engine, paths, fileIds, maxLine, cap, projection, map)   (scan-job.c)
 *                                   a Promise of whole files' usage by the Claude (0) or Codex (1) engine, read
 *                                   one after another on one of the engines' threads (pool.c): per file a
 *                                   Buffer (the layout of cs_scan_file / cx_scan_file), or false (JavaScript
 *                                   reads it)
 *   listDir(dir)                    one directory's entries, kinds, sizes and mtimes (walk.c), or null
 *   listTree(root, only, maxDepth)  a whole tree, depth first, sorted (walk.c), or null
 *   hash64, hash64Update, hash64File, hash64Digest
 *                                   streaming XXH64 (hash.c), for the cache's prefix fingerprint
 *   limitArenas(n)                  caps glibc's malloc arenas (false where it cannot): see cursors/native.ts
 *
 * cursors/native.ts loads it and falls back to its JavaScript loops without it.
 */
#include <node_api.h>
#include <stdbool.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include "kernel.h"
#include "napi-util.h"

#define KERNEL_ABI 4


static void free_proj(Proj *p) {
  if (p == NULL) return;
  for (uint32_t k = 0; k < p->n; k++) {
    free(p->f[k].key);
    free_proj(p->f[k].sub);
  }
  free(p->f);
  free(p);
}

/* Drop one reference to `c`; the last frees it (any thread). */
void compiled_release(Compiled *c) {
  if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  free_proj(c->root);
  free(c);
}

static void finalize_compiled(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  compiled_release(data);
}

/* spec: [[keyBytes: Uint8Array, slot, slotEnd, subSpec | null], ...] */
/* `slots`: every field's slots must lie in [0, slots), as the walk writes 3 int32 per slot of its output. */
static Proj *build_proj(napi_env env, napi_value spec, int32_t slots, int depth) {
  uint32_t n;
  if (depth > 32 || napi_get_array_length(env, spec, &n) != napi_ok) return NULL;
  Proj *p = calloc(1, sizeof(Proj));
  if (p == NULL) return NULL;
  p->f = calloc(n == 0 ? 1 : n, sizeof(Field));
  if (p->f == NULL) {
    free(p);
    return NULL;
  }
  p->n = n;
  for (uint32_t k = 0; k < n; k++) {
    napi_value e, key, slot, slot_end, sub;
    napi_valuetype st;
    uint8_t *kb;
    size_t kl;
    Field *f = &p->f[k];
    if (napi_get_element(env, spec, k, &e) != napi_ok || napi_get_element(env, e, 0, &key) != napi_ok ||
        napi_get_element(env, e, 1, &slot) != napi_ok || napi_get_element(env, e, 2, &slot_end) != napi_ok ||
        napi_get_element(env, e, 3, &sub) != napi_ok || !bytes_of(env, key, &kb, &kl) ||
        napi_get_value_int32(env, slot, &f->slot) != napi_ok || napi_get_value_int32(env, slot_end, &f->slot_end) != napi_ok ||
        napi_typeof(env, sub, &st) != napi_ok || f->slot < 0 || f->slot >= f->slot_end || f->slot_end > slots) {
      free_proj(p);
      return NULL;
    }
    f->key = malloc(kl == 0 ? 1 : kl);
    if (f->key == NULL) {
      free_proj(p);
      return NULL;
    }
    memcpy(f->key, kb, kl);
    f->len = (uint32_t)kl;
    if (st != napi_null) {
      f->sub = build_proj(env, sub, slots, depth + 1);
      if (f->sub == NULL) {
        free_proj(p);
        return NULL;
      }
    }
  }
  return p;
}

static napi_value js_compile(napi_env env, napi_callback_info info) {
  SF_ARGS(2);
  int32_t slots;
  if (argc < 2 || napi_get_value_int32(env, argv[1], &slots) != napi_ok || slots < 0) return throw_type(env, "compile(spec, slots)");
  Compiled *c = calloc(1, sizeof(Compiled));
  if (c == NULL) return throw_type(env, "compile: out of memory");
  c->root = build_proj(env, argv[0], slots, 0);
  c->slots = slots;
  c->refs = 1;
  if (c->root == NULL) {
    free(c);
    return throw_type(env, "compile: a bad projection spec");
  }
  return handle_of(env, c, finalize_compiled, &SF_TAG_PROJECTION, "compile: cannot create the handle");
}

static napi_value js_scan(napi_env env, napi_callback_info info) {
  SF_ARGS(3);
  uint8_t *b;
  size_t n;
  Compiled *c;
  napi_typedarray_type t;
  size_t out_len, off;
  void *out;
  napi_value ab;
  if (argc < 3 || !bytes_of(env, argv[0], &b, &n) || (c = external_of(env, argv[1], &SF_TAG_PROJECTION)) == NULL ||
      napi_get_typedarray_info(env, argv[2], &t, &out_len, &out, &ab, &off) != napi_ok || t != napi_int32_array ||
      out_len < 3 * (size_t)c->slots || n > INT32_MAX)
    return throw_type(env, "scan(line: Uint8Array, handle, out: Int32Array)");
  return boolean_of(env, sf_scan(b, (int64_t)n, c->root, out, c->slots));
}

static napi_value js_index_of(napi_env env, napi_callback_info info) {
  SF_ARGS(4);
  uint8_t *h, *nd;
  size_t hn, nn;
  int64_t from, to;
  if (argc < 4 || !bytes_of(env, argv[0], &h, &hn) || !bytes_of(env, argv[1], &nd, &nn) ||
      napi_get_value_int64(env, argv[2], &from) != napi_ok || napi_get_value_int64(env, argv[3], &to) != napi_ok)
    return throw_type(env, "indexOf(hay: Uint8Array, needle: Uint8Array, from, to)");
  if (to > (int64_t)hn) to = (int64_t)hn;
  if (from < 0) from = 0;
  int64_t r = from > to ? -1 : sf_find(h, (size_t)to, nd, nn, (size_t)from);
  napi_value out;
  napi_create_int64(env, r, &out);
  return out;
}

/* simd(on?): whether the AVX2 loops run; `simd(false)` lets the tests run the plain loops on any machine. */
static napi_value js_simd(napi_env env, napi_callback_info info) {
  SF_ARGS(1);
  bool on;
  return boolean_of(env, sf_simd(argc >= 1 && napi_get_value_bool(env, argv[0], &on) == napi_ok ? (int)on : -1));
}

typedef struct {
  LineSource *s;
} Source;

static void finalize_source(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Source *h = data;
  ls_close(h->s);
  free(h);
}

static Source *source_of(napi_env env, napi_value v) {
  Source *h;
  if ((h = external_of(env, v, &SF_TAG_LINES)) == NULL) return NULL;
  return h;
}

static napi_value js_lines_open(napi_env env, napi_callback_info info) {
  SF_ARGS(6);
  int32_t fd, head;
  int64_t from, end, max_line, cap;
  if (argc < 6 || napi_get_value_int32(env, argv[0], &fd) != napi_ok || napi_get_value_int64(env, argv[1], &from) != napi_ok ||
      napi_get_value_int64(env, argv[2], &end) != napi_ok || napi_get_value_int64(env, argv[3], &max_line) != napi_ok ||
      napi_get_value_int32(env, argv[4], &head) != napi_ok || napi_get_value_int64(env, argv[5], &cap) != napi_ok || fd < 0 ||
      from < 0 || end < from || max_line < 0 || cap <= 0)
    return throw_type(env, "linesOpen(fd, from, end, maxLine, head, cap)");
  Source *h = calloc(1, sizeof(Source));
  if (h == NULL || (h->s = ls_open(fd, from, end, max_line, head, (size_t)cap)) == NULL) {
    free(h);
    return throw_type(env, "linesOpen: out of memory");
  }
  return handle_of(env, h, finalize_source, &SF_TAG_LINES, "linesOpen: cannot create the handle");
}

static napi_value js_lines_next(napi_env env, napi_callback_info info) {
  SF_ARGS(5);
  Source *h = argc < 5 ? NULL : source_of(env, argv[0]);
  int32_t limit;
  uint8_t *out;
  size_t out_len, idx_len, off;
  void *idx;
  napi_typedarray_type t;
  napi_value ab;
  napi_valuetype mt;
  if (h == NULL || h->s == NULL || napi_typeof(env, argv[1], &mt) != napi_ok || !bytes_of(env, argv[2], &out, &out_len) ||
      napi_get_typedarray_info(env, argv[3], &t, &idx_len, &idx, &ab, &off) != napi_ok || t != napi_float64_array || idx_len < 5 ||
      napi_get_value_int32(env, argv[4], &limit) != napi_ok || limit < 1)
    return throw_type(env, "linesNext(source, markers: Uint8Array[] | null, out: Uint8Array, idx: Float64Array, limit)");
  if ((size_t)limit > idx_len / 5) limit = (int32_t)(idx_len / 5);
  int filter = mt != napi_null && mt != napi_undefined;
  if (filter) {
    uint32_t n;
    const uint8_t *m[LS_MAX_MARKERS];
    size_t ml[LS_MAX_MARKERS];
    if (napi_get_array_length(env, argv[1], &n) != napi_ok || n > LS_MAX_MARKERS) return throw_type(env, "linesNext: at most 4 markers");
    for (uint32_t k = 0; k < n; k++) {
      napi_value e;
      uint8_t *b;
      if (napi_get_element(env, argv[1], k, &e) != napi_ok || !bytes_of(env, e, &b, &ml[k])) return throw_type(env, "linesNext: a marker is not a Uint8Array");
      m[k] = b;
    }
    if (!ls_set_markers(h->s, m, ml, (int)n)) return throw_type(env, "linesNext: a marker is empty or over 32 bytes");
  }
  napi_value r;
  napi_create_int32(env, ls_next(h->s, filter, out, out_len, idx, limit), &r);
  return r;
}

static napi_value js_lines_stats(napi_env env, napi_callback_info info) {
  SF_ARGS(2);
  Source *h = argc < 2 ? NULL : source_of(env, argv[0]);
  size_t len, off;
  void *o;
  napi_typedarray_type t;
  napi_value ab;
  if (h == NULL || h->s == NULL || napi_get_typedarray_info(env, argv[1], &t, &len, &o, &ab, &off) != napi_ok || t != napi_float64_array || len < 6)
    return throw_type(env, "linesStats(source, out: Float64Array(6))");
  ls_stats(h->s, o);
  return NULL;
}

static napi_value js_lines_close(napi_env env, napi_callback_info info) {
  SF_ARGS(1);
  Source *h = argc < 1 ? NULL : source_of(env, argv[0]);
  if (h == NULL) return throw_type(env, "linesClose(source)");
  ls_close(h->s);
  h->s = NULL;
  return NULL;
}

/* limitArenas(n): mallopt(M_ARENA_MAX, n) where the C library is glibc; whether it took. */
static napi_value js_limit_arenas(napi_env env, napi_callback_info info) {
  SF_ARGS(1);
  int32_t n = 0;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &n) != napi_ok || n < 1) return throw_type(env, "limitArenas(n >= 1)");
#ifdef __GLIBC__
  return boolean_of(env, mallopt(M_ARENA_MAX, n) == 1);
#else
  return boolean_of(env, 0);
#endif
}

NAPI_MODULE_INIT() {
  sf_init();
  napi_property_descriptor props[] = {
      {"indexOf", NULL, js_index_of, NULL, NULL, NULL, napi_enumerable, NULL},
      {"compile", NULL, js_compile, NULL, NULL, NULL, napi_enumerable, NULL},
      {"scan", NULL, js_scan, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simd", NULL, js_simd, NULL, NULL, NULL, napi_enumerable, NULL},
      {"linesOpen", NULL, js_lines_open, NULL, NULL, NULL, napi_enumerable, NULL},
      {"linesNext", NULL, js_lines_next, NULL, NULL, NULL, napi_enumerable, NULL},
      {"linesStats", NULL, js_lines_stats, NULL, NULL, NULL, napi_enumerable, NULL},
      {"linesClose", NULL, js_lines_close, NULL, NULL, NULL, napi_enumerable, NULL},
      {"limitArenas", NULL, js_limit_arenas, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_value abi, threads;
  napi_create_int32(env, KERNEL_ABI, &abi);
  napi_create_int32(env, sf_pool_threads(), &threads);
  napi_set_named_property(env, exports, "threads", threads);
  napi_set_named_property(env, exports, "listDir", sf_walk_function(env));
  napi_set_named_property(env, exports, "listTree", sf_walk_tree_function(env));
  sf_hash_functions(env, exports);
  napi_set_named_property(env, exports, "scanFiles", sf_scan_files_function(env));
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  napi_set_named_property(env, exports, "abi", abi);
  return exports;
}
