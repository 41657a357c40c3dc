/*
 * The Node binding of the native kernel (N-API, so one build serves every Node version):
 *
 *   indexOf(hay, needle, from, to)  sf_find over hay[from, to)
 *   compile(spec, slots)            a projection (see cursors/scan-fields.ts) as a handle for `scan`
 *   scan(line, handle, out)         sf_scan into an Int32Array of 3 * slots
 *   simd(on?)                       whether the AVX2 loops run (tests turn them off)
 *   abi                             KERNEL_ABI; src/native.ts loads only its own version
 *
 * src/native.ts loads it and falls back to its JavaScript loops without it.
 */
#include <node_api.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

#define KERNEL_ABI 1

typedef struct {
  Proj *root;
  int32_t slots;
} Compiled;

static void free_proj(Proj *p) {
  if (p == NULL) return;
  for (uint32_t k = 0; k < p->n; k++) {
    free(p->f[k].key);
    free_proj(p->f[k].sub);
  }
  free(p->f);
  free(p);
}

static void finalize_compiled(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Compiled *c = data;
  free_proj(c->root);
  free(c);
}

static napi_value boolean_of(napi_env env, int v) {
  napi_value r;
  napi_get_boolean(env, v != 0, &r);
  return r;
}

static napi_value throw_type(napi_env env, const char *msg) {
  napi_throw_type_error(env, NULL, msg);
  return NULL;
}

static int bytes_of(napi_env env, napi_value v, uint8_t **data, size_t *len) {
  napi_typedarray_type t;
  napi_value ab;
  size_t off;
  if (napi_get_typedarray_info(env, v, &t, len, (void **)data, &ab, &off) != napi_ok || t != napi_uint8_array) return 0;
  return 1;
}

/* spec: [[keyBytes: Uint8Array, slot, slotEnd, subSpec | null], ...] */
static Proj *build_proj(napi_env env, napi_value spec, int depth) {
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
        napi_typeof(env, sub, &st) != napi_ok) {
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
      f->sub = build_proj(env, sub, depth + 1);
      if (f->sub == NULL) {
        free_proj(p);
        return NULL;
      }
    }
  }
  return p;
}

static napi_value js_compile(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t slots;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2 || napi_get_value_int32(env, argv[1], &slots) != napi_ok || slots < 0) return throw_type(env, "compile(spec, slots)");
  Compiled *c = calloc(1, sizeof(Compiled));
  if (c == NULL) return throw_type(env, "compile: out of memory");
  c->root = build_proj(env, argv[0], 0);
  c->slots = slots;
  if (c->root == NULL) {
    free(c);
    return throw_type(env, "compile: a bad projection spec");
  }
  napi_value out;
  if (napi_create_external(env, c, finalize_compiled, NULL, &out) != napi_ok) {
    finalize_compiled(env, c, NULL);
    return throw_type(env, "compile: cannot create the handle");
  }
  return out;
}

static napi_value js_scan(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint8_t *b;
  size_t n;
  Compiled *c;
  napi_typedarray_type t;
  size_t out_len, off;
  void *out;
  napi_value ab;
  if (argc < 3 || !bytes_of(env, argv[0], &b, &n) || napi_get_value_external(env, argv[1], (void **)&c) != napi_ok ||
      napi_get_typedarray_info(env, argv[2], &t, &out_len, &out, &ab, &off) != napi_ok || t != napi_int32_array ||
      out_len < 3 * (size_t)c->slots || n > INT32_MAX)
    return throw_type(env, "scan(line: Uint8Array, handle, out: Int32Array)");
  return boolean_of(env, sf_scan(b, (int64_t)n, c->root, out, c->slots));
}

static napi_value js_index_of(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
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
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  bool on;
  return boolean_of(env, sf_simd(argc >= 1 && napi_get_value_bool(env, argv[0], &on) == napi_ok ? (int)on : -1));
}

NAPI_MODULE_INIT() {
  sf_init();
  napi_property_descriptor props[] = {
      {"indexOf", NULL, js_index_of, NULL, NULL, NULL, napi_enumerable, NULL},
      {"compile", NULL, js_compile, NULL, NULL, NULL, napi_enumerable, NULL},
      {"scan", NULL, js_scan, NULL, NULL, NULL, napi_enumerable, NULL},
      {"simd", NULL, js_simd, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_value abi;
  napi_create_int32(env, KERNEL_ABI, &abi);
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  napi_set_named_property(env, exports, "abi", abi);
  return exports;
}
