/*
 * XXH64 (seed 0), streaming, for the event cache's prefix fingerprint (cursors/ids.ts `createHash64`): the
 * same digest as xxhash-wasm's `create64()`, so a fingerprint stored by either is verified by the other.
 * A warm run after an append to a large session verifies its whole prefix first; here the file's bytes are
 * read with pread into a buffer and hashed in place, with no copy into JavaScript (`npm run bench -- prefix`
 * times it beside xxhash-wasm, sha256 and a bare read: bench/RESULTS.md).
 *
 *   hash64()                      a new state (an external; freed with it)
 *   hash64Update(h, bytes)        hash a Uint8Array
 *   hash64File(h, fd, from, to)   hash bytes [from, to) of an open file; the count hashed (short at EOF), or -errno
 *   hash64Digest(h)               the digest so far, 16 hex digits (the state goes on)
 *
 * The hash itself is in xxh64.h (shared with the WebAssembly kernel, native/wasm/).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine.h"
#include "kernel.h"
#include "napi-util.h"
#include "xxh64.h"

#define FILE_CHUNK (256 * 1024)

void sf_key_hash(const uint8_t *prefix, size_t pn, const uint8_t *key, size_t kn, double *out) {
  H64 h;
  h64_init(&h);
  h64_update(&h, prefix, pn);
  h64_update(&h, key, kn);
  const uint64_t d = h64_digest(&h);
  const uint32_t hi = (uint32_t)(d >> 32), lo = (uint32_t)d;
  out[0] = hi;
  out[1] = hi == 0 && lo == 0 ? 1 : lo;
}

/* ------------------------------------------------------------------ the binding */

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

static napi_value js_hash64(napi_env env, napi_callback_info info) {
  (void)info;
  H64 *h = malloc(sizeof(H64));
  if (h == NULL) return throw_type(env, "hash64: out of memory");
  h64_init(h);
  return handle_of(env, h, finalize, &SF_TAG_HASH, "hash64: out of memory");
}

static napi_value js_hash64_update(napi_env env, napi_callback_info info) {
  SF_ARGS(2);
  H64 *h = argc < 2 ? NULL : external_of(env, argv[0], &SF_TAG_HASH);
  uint8_t *data;
  size_t len;
  if (h == NULL || !bytes_of(env, argv[1], &data, &len)) return throw_type(env, "hash64Update(state, bytes: Uint8Array)");
  h64_update(h, data, len);
  return NULL;
}

static napi_value js_hash64_file(napi_env env, napi_callback_info info) {
  SF_ARGS(4);
  H64 *h = argc < 4 ? NULL : external_of(env, argv[0], &SF_TAG_HASH);
  int32_t fd;
  int64_t from, to;
  if (h == NULL || napi_get_value_int32(env, argv[1], &fd) != napi_ok || napi_get_value_int64(env, argv[2], &from) != napi_ok ||
      napi_get_value_int64(env, argv[3], &to) != napi_ok || from < 0 || to < from)
    return throw_type(env, "hash64File(state, fd, from, to)");
  /* Per call: the JavaScript threads that call this come and go (parse workers); a prefix is hashed once per grown file. */
  const size_t cap = (size_t)(to - from < FILE_CHUNK ? (to - from > 0 ? to - from : 1) : FILE_CHUNK);
  uint8_t *buf = malloc(cap);
  if (buf == NULL) return throw_type(env, "hash64File: out of memory");
  int64_t pos = from;
  while (pos < to) {
    const size_t want = (size_t)(to - pos < (int64_t)cap ? to - pos : (int64_t)cap);
    const ssize_t n = sf_pread(fd, buf, want, pos);
    if (n < 0) {
      const int err = errno;
      free(buf);
      napi_value r;
      napi_create_int64(env, -(int64_t)(err > 0 ? err : 5), &r);
      return r;
    }
    if (n == 0) break;
    h64_update(h, buf, (size_t)n);
    pos += n;
  }
  free(buf);
  napi_value r;
  napi_create_int64(env, pos - from, &r);
  return r;
}

static napi_value js_hash64_digest(napi_env env, napi_callback_info info) {
  SF_ARGS(1);
  H64 *h = argc < 1 ? NULL : external_of(env, argv[0], &SF_TAG_HASH);
  if (h == NULL) return throw_type(env, "hash64Digest(state)");
  static const char hex[] = "0123456789abcdef";
  const uint64_t d = h64_digest(h);
  char s[16];
  for (int i = 0; i < 16; i++) s[i] = hex[(d >> (60 - 4 * i)) & 15];
  napi_value r;
  napi_create_string_latin1(env, s, 16, &r);
  return r;
}

void sf_hash_functions(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"hash64", NULL, js_hash64, NULL, NULL, NULL, napi_enumerable, NULL},
      {"hash64Update", NULL, js_hash64_update, NULL, NULL, NULL, napi_enumerable, NULL},
      {"hash64File", NULL, js_hash64_file, NULL, NULL, NULL, napi_enumerable, NULL},
      {"hash64Digest", NULL, js_hash64_digest, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
}
