/* memtest_twins.c: C twins of ftm_fill / ftm_check for the simulator: one call runs one
 * thread block, its threads in order, over the same words as the CUDA grid-stride loop. */
#include <string.h>

#include "memtest_twins.h"

typedef struct {
  uint32_t *w;     /* host view of the whole region */
  uint64_t addr, n;
  ftm_pat_t p;
} ftm_twin_args_t;

/* Host view of the region [base, base + 4n): NULL unless one contiguous mapping. */
static int twin_args(const simcuda_block_t *blk, void **params, ftm_twin_args_t *t) {
  uint64_t base;
  memcpy(&base, params[0], 8);
  memcpy(&t->n, params[1], 8);
  memcpy(&t->p, params[2], sizeof t->p);
  t->addr = base;
  if (!t->n) return (t->w = NULL), 0;
  uint8_t *a = (uint8_t *)simcuda_ptr(blk, (const void *)(uintptr_t)base);
  uint8_t *b = (uint8_t *)simcuda_ptr(blk, (const void *)(uintptr_t)(base + 4 * t->n - 1));
  t->w = (uint32_t *)(void *)a;
  return a && b == a + 4 * t->n - 1 ? 0 : -1;
}

/* The words of this block in the grid-stride loop: chunks of blockDim words, every
 * gridDim-th chunk. `fn` gets each index in turn. */
#define FTM_TWIN_FOR(blk, n, i)                                                        \
  for (uint64_t c0_ = (uint64_t)(blk)->blockIdx.x * (blk)->blockDim.x,                 \
                st_ = (uint64_t)(blk)->gridDim.x * (blk)->blockDim.x;                  \
       c0_ < (n); c0_ += st_)                                                          \
    for (uint64_t i = c0_; i < c0_ + (blk)->blockDim.x && i < (n); i++)

static void twin_fill(const simcuda_block_t *blk, void **params) {
  ftm_twin_args_t t;
  if (twin_args(blk, params, &t) || !t.w) return;
  volatile uint32_t *w = t.w;
  FTM_TWIN_FOR(blk, t.n, i) {
    uint32_t v = ftm_expect(&t.p, t.addr, i);
    if (t.p.mode == FTM_MOD20 && i % 20u != t.p.b) w[i] = v;
    w[i] = v;
  }
}

static void twin_check(const simcuda_block_t *blk, void **params) {
  ftm_twin_args_t t;
  uint64_t resp;
  memcpy(&resp, params[3], 8);
  ftm_res_t *res = simcuda_ptr(blk, (const void *)(uintptr_t)resp);
  if (!res || twin_args(blk, params, &t) || !t.w) return;
  volatile uint32_t *w = t.w;
  FTM_TWIN_FOR(blk, t.n, i) {
    if (!ftm_checked(&t.p, i)) continue;
    uint32_t want = ftm_want(&t.p, t.addr, i), got = w[i];
    if (got != want) {
      __atomic_add_fetch(&res->n_err, 1ull, __ATOMIC_RELAXED);
      unsigned long long slot = __atomic_fetch_add(&res->n_rec, 1ull, __ATOMIC_RELAXED);
      if (slot < FTM_MAX_REC) {
        res->rec[slot].index = i;
        res->rec[slot].got = got;
        res->rec[slot].want = want;
      }
    }
    if (t.p.flags & FTM_F_INVERT) w[i] = ~want;
  }
}

static const uint16_t fill_size[] = {8, 8, sizeof(ftm_pat_t)}, fill_align[] = {8, 8, 4};
static const uint16_t check_size[] = {8, 8, sizeof(ftm_pat_t), 8}, check_align[] = {8, 8, 4, 8};
static const simcuda_kernel_t twin_kernels[] = {
    {FTM_NAME_FILL, twin_fill, 3, fill_size, fill_align},
    {FTM_NAME_CHECK, twin_check, 4, check_size, check_align},
};
const simcuda_image_t ftm_twin_image = {SIMCUDA_IMAGE_MAGIC, SIMCUDA_IMAGE_VERSION, 2,
                                        twin_kernels};
