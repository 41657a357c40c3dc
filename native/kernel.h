/*
 * The interface between the native kernel's pure loops (kernel.c) and its Node binding (binding.c).
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
int sf_scan(const uint8_t *b, int64_t n, const Proj *root, int32_t *out, int32_t slots);

#endif
