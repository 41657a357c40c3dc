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
 * Written from the XXH64 specification (xxhash.com, "xxHash fast digest algorithm").
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

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL
#define FILE_CHUNK (256 * 1024)

typedef struct {
  uint64_t total, v[4];
  uint8_t mem[32];
  uint32_t memsize;
} H64;

static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/* `n` (4 or 8) bytes at p as a little-endian integer, as XXH64 reads its input. */
static inline uint64_t read_le(const uint8_t *p, int n) {
  uint64_t v = 0;
  memcpy(&v, p, (size_t)n);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v); /* the n bytes read land at the top; swapped, p[0] is the lowest byte */
#endif
  return v;
}

static inline uint64_t round64(uint64_t acc, uint64_t input) { return rotl(acc + input * P2, 31) * P1; }

static inline uint64_t merge64(uint64_t acc, uint64_t v) { return (acc ^ round64(0, v)) * P1 + P4; }

static void h64_init(H64 *h) {
  memset(h, 0, sizeof(*h));
  h->v[0] = P1 + P2;
  h->v[1] = P2;
  h->v[2] = 0;
  h->v[3] = (uint64_t)0 - P1;
}

static void stripes(H64 *h, const uint8_t *p, size_t n) {
  uint64_t a = h->v[0], b = h->v[1], c = h->v[2], d = h->v[3];
  for (const uint8_t *end = p + n; p < end; p += 32) {
    a = round64(a, read_le(p, 8));
    b = round64(b, read_le(p + 8, 8));
    c = round64(c, read_le(p + 16, 8));
    d = round64(d, read_le(p + 24, 8));
  }
  h->v[0] = a;
  h->v[1] = b;
  h->v[2] = c;
  h->v[3] = d;
}

static void h64_update(H64 *h, const uint8_t *p, size_t n) {
  h->total += n;
  if (h->memsize + n < 32) {
    memcpy(h->mem + h->memsize, p, n);
    h->memsize += (uint32_t)n;
    return;
  }
  if (h->memsize > 0) {
    const size_t take = 32 - h->memsize;
    memcpy(h->mem + h->memsize, p, take);
    stripes(h, h->mem, 32);
    p += take;
    n -= take;
    h->memsize = 0;
  }
  const size_t whole = n & ~(size_t)31;
  stripes(h, p, whole);
  memcpy(h->mem, p + whole, n - whole);
  h->memsize = (uint32_t)(n - whole);
}

static uint64_t h64_digest(const H64 *h) {
  uint64_t acc;
  if (h->total >= 32) {
    acc = rotl(h->v[0], 1) + rotl(h->v[1], 7) + rotl(h->v[2], 12) + rotl(h->v[3], 18);
    for (int i = 0; i < 4; i++) acc = merge64(acc, h->v[i]);
  } else acc = h->v[2] + P5;
  acc += h->total;
  const uint8_t *p = h->mem, *end = h->mem + h->memsize;
  for (; p + 8 <= end; p += 8) acc = rotl(acc ^ round64(0, read_le(p, 8)), 27) * P1 + P4;
  if (p + 4 <= end) {
    acc = rotl(acc ^ read_le(p, 4) * P1, 23) * P2 + P3;
    p += 4;
  }
  for (; p < end; p++) acc = rotl(acc ^ *p * P5, 11) * P1;
  acc ^= acc >> 33;
  acc *= P2;
  acc ^= acc >> 29;
  acc *= P3;
  acc ^= acc >> 32;
  return acc;
}

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
