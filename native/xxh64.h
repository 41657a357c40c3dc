/*
 * XXH64 (seed 0), streaming: the state and its steps, shared by the N-API kernel (hash.c) and the WebAssembly
 * kernel (native/wasm/exports.c), so both give xxhash-wasm's `create64()` digest.
 *
 * Written from the XXH64 specification (xxhash.com, "xxHash fast digest algorithm").
 */
#ifndef SESSIONFOLD_XXH64_H
#define SESSIONFOLD_XXH64_H
#include <stdint.h>
#include <string.h>

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

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

static inline void h64_init(H64 *h) {
  memset(h, 0, sizeof(*h));
  h->v[0] = P1 + P2;
  h->v[1] = P2;
  h->v[2] = 0;
  h->v[3] = (uint64_t)0 - P1;
}

static inline void stripes(H64 *h, const uint8_t *p, size_t n) {
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

static inline void h64_update(H64 *h, const uint8_t *p, size_t n) {
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

static inline uint64_t h64_digest(const H64 *h) {
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

#endif
