/*
 * The WebAssembly kernel's entry points (scripts/build-wasm.mjs compiles this with ../kernel.c to
 * native/wasm/kernel.wasm; cursors/wasm.ts loads it). The same loops as the N-API kernel (kernel.c, with its
 * SIMD128 branches, and xxh64.h), so both answer alike; no agent is known here.
 *
 * The module imports nothing and its memory never grows (initial = maximum, set by the build): JavaScript keeps
 * views of it (read buffers, the spans' output) that a grow would detach. JavaScript lays out the memory above
 * `__heap_base` itself and passes pointers: nothing here allocates.
 *
 *   find(hay, n, needle, k, from)      sf_find: the first start of the needle wholly inside hay[from, n), or -1
 *   scan(line, n, proj, out, slots)    sf_scan: 1 with the spans in out, 0 when JSON.parse decides
 *   h64_init(state) / h64_update(state, p, n) / h64_digest(state, out)   streaming XXH64 (out: 8 bytes, LE)
 *   h64_size()                         the state's size in bytes
 */
#include <stddef.h>
#include <stdint.h>
#include "../kernel.h"
#include "../xxh64.h"

#define EXPORT(name) __attribute__((export_name(#name)))

/* cursors/wasm.ts writes Proj and Field records in this layout (wasm32: 4-byte pointers). */
_Static_assert(sizeof(Field) == 20 && offsetof(Field, len) == 4 && offsetof(Field, slot) == 8 && offsetof(Field, slot_end) == 12 &&
                   offsetof(Field, sub) == 16,
               "cursors/wasm.ts FIELD_BYTES");
_Static_assert(sizeof(Proj) == 8 && offsetof(Proj, f) == 4, "cursors/wasm.ts PROJ_BYTES");

EXPORT(abi) int32_t w_abi(void) { return 1; }

EXPORT(find) int32_t w_find(const uint8_t *hay, uint32_t n, const uint8_t *needle, uint32_t k, uint32_t from) {
  return (int32_t)sf_find(hay, n, needle, k, from);
}

EXPORT(scan) int32_t w_scan(const uint8_t *line, uint32_t n, const Proj *proj, int32_t *out, int32_t slots) {
  return sf_scan(line, n, proj, out, slots);
}

EXPORT(h64_size) uint32_t w_h64_size(void) { return sizeof(H64); }

EXPORT(h64_init) void w_h64_init(H64 *h) { h64_init(h); }

EXPORT(h64_update) void w_h64_update(H64 *h, const uint8_t *p, uint32_t n) { h64_update(h, p, n); }

EXPORT(h64_digest) void w_h64_digest(const H64 *h, uint8_t *out) {
  const uint64_t d = h64_digest(h);
  memcpy(out, &d, 8);
}
