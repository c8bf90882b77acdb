/* twins.c: the test module image: small kernels written as simulator twins. */
#include <string.h>

#include "simtest.h"

#define ARG(T, i) (*(T *)params[i])
#define GLOBAL_X(b, tx) ((size_t)(b)->blockIdx.x * (b)->blockDim.x + (tx))

static void k_fill(const simcuda_block_t *b, void **params) {
  unsigned *out = simcuda_ptr(b, ARG(void *, 0));
  unsigned v = ARG(unsigned, 1), n = ARG(unsigned, 2);
  if (!out) return;
  for (unsigned t = 0; t < b->blockDim.x; t++) {
    size_t i = GLOBAL_X(b, t);
    if (i < n) out[i] = v;
  }
}

static void k_copy(const simcuda_block_t *b, void **params) {
  const uint8_t *src = simcuda_ptr(b, ARG(void *, 0));
  uint8_t *dst = simcuda_ptr(b, ARG(void *, 1));
  size_t n = ARG(size_t, 2);
  if (!src || !dst) return;
  size_t stride = (size_t)b->gridDim.x * b->blockDim.x;
  for (unsigned t = 0; t < b->blockDim.x; t++)
    for (size_t i = GLOBAL_X(b, t); i < n; i += stride) dst[i] = src[i];
}

static void k_vecadd(const simcuda_block_t *b, void **params) {
  const float *x = simcuda_ptr(b, ARG(void *, 0)), *y = simcuda_ptr(b, ARG(void *, 1));
  float *z = simcuda_ptr(b, ARG(void *, 2));
  int n = ARG(int, 3);
  if (!x || !y || !z) return;
  for (unsigned t = 0; t < b->blockDim.x; t++) {
    size_t i = GLOBAL_X(b, t);
    if (i < (size_t)n) z[i] = x[i] + y[i];
  }
}

/* Each block stages its values in dynamic shared memory, then writes them back
 * reversed: wrong if blocks shared one buffer or the size were short. */
static void k_reversed(const simcuda_block_t *b, void **params) {
  unsigned *out = simcuda_ptr(b, ARG(void *, 0));
  unsigned *sh = b->shared;
  if (!out || !sh || b->shared_bytes < b->blockDim.x * sizeof(unsigned)) return;
  for (unsigned t = 0; t < b->blockDim.x; t++) sh[t] = b->blockIdx.x * 1000 + t;
  /* __syncthreads() */
  for (unsigned t = 0; t < b->blockDim.x; t++) out[GLOBAL_X(b, t)] = sh[b->blockDim.x - 1 - t];
}

static void k_bad(const simcuda_block_t *b, void **params) {
  unsigned *p = simcuda_ptr(b, ARG(void *, 0));
  if (p) p[0] = 1;
}

typedef struct { char c; double d; int i; short s; } mixed_out_t;
static void k_mixed(const simcuda_block_t *b, void **params) {
  mixed_out_t *o = simcuda_ptr(b, ARG(void *, 3));
  if (!o) return;
  o->c = ARG(char, 0);
  o->d = ARG(double, 1);
  o->i = ARG(int, 2);
  o->s = ARG(short, 4);
}

static void k_oob(const simcuda_block_t *b, void **params) {
  uint8_t *p = simcuda_ptr(b, ARG(void *, 0));
  if (p) p[ARG(size_t, 1)] = 0x5a; /* deliberately unchecked */
}

static const uint16_t s_fill[] = {8, 4, 4}, a_fill[] = {8, 4, 4};
static const uint16_t s_copy[] = {8, 8, 8}, a_copy[] = {8, 8, 8};
static const uint16_t s_vec[] = {8, 8, 8, 4}, a_vec[] = {8, 8, 8, 4};
static const uint16_t s_one[] = {8}, a_one[] = {8};
static const uint16_t s_mixed[] = {1, 8, 4, 8, 2}, a_mixed[] = {1, 8, 4, 8, 2};
static const uint16_t s_oob[] = {8, 8}, a_oob[] = {8, 8};

static const simcuda_kernel_t kernels[] = {
    {ST_FILL, k_fill, 3, s_fill, a_fill},
    {ST_COPY, k_copy, 3, s_copy, a_copy},
    {ST_VECADD, k_vecadd, 4, s_vec, a_vec},
    {ST_SHARED, k_reversed, 1, s_one, a_one},
    {ST_BAD, k_bad, 1, s_one, a_one},
    {ST_MIXED, k_mixed, 5, s_mixed, a_mixed},
    {ST_OOB, k_oob, 2, s_oob, a_oob},
};

const simcuda_image_t st_image = {SIMCUDA_IMAGE_MAGIC, SIMCUDA_IMAGE_VERSION,
                                  sizeof kernels / sizeof kernels[0], kernels};
