/*
 * The N-API helpers of the binding's three files (binding.c, hash.c, walk.c): arguments in, handles and
 * answers out, one way each.
 */
#ifndef SF_NAPI_UTIL_H
#define SF_NAPI_UTIL_H

#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline napi_value boolean_of(napi_env env, int v) {
  napi_value r;
  napi_get_boolean(env, v != 0, &r);
  return r;
}

static inline napi_value throw_type(napi_env env, const char *msg) {
  napi_throw_type_error(env, NULL, msg);
  return NULL;
}

/* `data` as a handle that frees it with `fin` when collected (freed now, and a TypeError, when that fails). */
static inline napi_value handle_of(napi_env env, void *data, napi_finalize fin, const char *error) {
  napi_value out;
  if (napi_create_external(env, data, fin, NULL, &out) != napi_ok) {
    fin(env, data, NULL);
    return throw_type(env, error);
  }
  return out;
}

/* The data of a handle made by handle_of, or NULL for any other value. */
static inline void *external_of(napi_env env, napi_value v) {
  napi_valuetype t;
  void *p = NULL;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external || napi_get_value_external(env, v, &p) != napi_ok) return NULL;
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

/* The binding's parts kept in their own files (declared here, where their definitions are checked). */
napi_value sf_walk_function(napi_env env);      /* walk.c: listDir */
napi_value sf_walk_tree_function(napi_env env); /* walk.c: listTree */
void sf_hash_functions(napi_env env, napi_value exports); /* hash.c: hash64* */

#endif
