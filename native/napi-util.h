/*
 * The N-API helpers of the binding's three files (binding.c, hash.c, walk.c): arguments in, handles and
 * answers out, one way each.
 */
#ifndef SF_NAPI_UTIL_H
#define SF_NAPI_UTIL_H

#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

static inline napi_value boolean_of(napi_env env, int v) {
  napi_value r;
  napi_get_boolean(env, v != 0, &r);
  return r;
}

static inline napi_value throw_type(napi_env env, const char *msg) {
  napi_throw_type_error(env, NULL, msg);
  return NULL;
}

/* The call's arguments, at most `n` of them: `argc` (how many were passed) and `argv` (the missing ones
 * undefined), declared in the calling function. */
#define SF_ARGS(n)                                                                                                    \
  size_t argc = (n);                                                                                                  \
  napi_value argv[(n)];                                                                                               \
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL)

/* The kinds of handle (type tags): a handle of one kind is never taken for another's data. */
static const napi_type_tag SF_TAG_PROJECTION = {0x73666f6c64000001ULL, 0x9e3779b97f4a7c15ULL};
static const napi_type_tag SF_TAG_LINES = {0x73666f6c64000002ULL, 0x9e3779b97f4a7c15ULL};
static const napi_type_tag SF_TAG_HASH = {0x73666f6c64000003ULL, 0x9e3779b97f4a7c15ULL};

/* `data` as a handle of kind `tag` that frees it with `fin` when collected (freed now, and a TypeError, when
 * that fails). */
static inline napi_value handle_of(napi_env env, void *data, napi_finalize fin, const napi_type_tag *tag, const char *error) {
  napi_value out;
  if (napi_create_external(env, data, fin, NULL, &out) != napi_ok) {
    fin(env, data, NULL);
    return throw_type(env, error);
  }
  if (napi_type_tag_object(env, out, tag) != napi_ok) return throw_type(env, error); /* collected later: fin frees it */
  return out;
}

/* The data of a handle of kind `tag` made by handle_of, or NULL for any other value. */
static inline void *external_of(napi_env env, napi_value v, const napi_type_tag *tag) {
  napi_valuetype t;
  bool tagged = false;
  void *p = NULL;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external || napi_check_object_type_tag(env, v, tag, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, v, &p) != napi_ok)
    return NULL;
  return p;
}

static inline int bytes_of(napi_env env, napi_value v, uint8_t **data, size_t *len) {
  napi_typedarray_type t;
  napi_value ab;
  size_t off;
  return napi_get_typedarray_info(env, v, &t, len, (void **)data, &ab, &off) == napi_ok && t == napi_uint8_array;
}

/* A JavaScript string as a C string (malloc'ed), or NULL: not a string, out of memory, or one holding a NUL
 * (which names no file and no name). */
static inline char *string_of(napi_env env, napi_value v, size_t *len) {
  size_t n;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &n) != napi_ok) return NULL;
  char *s = malloc(n + 1);
  if (s == NULL) return NULL;
  if (napi_get_value_string_utf8(env, v, s, n + 1, &n) != napi_ok || strlen(s) != n) {
    free(s);
    return NULL;
  }
  if (len != NULL) *len = n;
  return s;
}

/* A compiled projection (binding.c `compile`), shared by its handle and the scan jobs walking with it. */
typedef struct {
  Proj *root;
  int32_t slots;
  /* The handle's reference and one per scan job using it: a job on a pool thread keeps reading the projection
   * after its environment may have finalized the handle (a Worker terminated mid-scan). */
  int refs;
} Compiled;
void compiled_release(Compiled *c);

/* The binding's parts kept in their own files (declared here, where their definitions are checked). */
napi_value sf_walk_function(napi_env env);      /* walk.c: listDir */
napi_value sf_walk_tree_function(napi_env env); /* walk.c: listTree */
void sf_hash_functions(napi_env env, napi_value exports); /* hash.c: hash64* */
napi_value sf_scan_files_function(napi_env env);          /* scan-job.c: scanFiles */

#endif
