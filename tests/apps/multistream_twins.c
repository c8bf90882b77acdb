/* multistream_twins.c: host twins of multistream.cu's kernels. */
#include "twin_util.h"

/* The elements of a 1-D launch that block blk covers: [first, first + count). */
static long block_range(const simcuda_block_t *blk, int n, long *first) {
  *first = (long)blk->blockIdx.x * blk->blockDim.x;
  long c = n - *first;
  return c < (long)blk->blockDim.x ? c : (long)blk->blockDim.x;
}

/* square_kernel(const int *x, int *y, int n) */
static void square_twin(const simcuda_block_t *blk, void **params) {
  long first, count = block_range(blk, TWIN_ARG(params, 2, int), &first);
  if (count <= 0) return;
  const int *x = twin_span(blk, TWIN_ARG(params, 0, const int *) + first, (size_t)count * 4);
  int *y = twin_span(blk, TWIN_ARG(params, 1, int *) + first, (size_t)count * 4);
  if (!x || !y) return;
  /* Unsigned product: the device wraps on overflow; C must not invoke UB instead. */
  for (long t = 0; t < count; t++) y[t] = (int)((unsigned)x[t] * (unsigned)x[t]);
}

/* add_offset(const int *y, int *z, int n, int off) */
static void add_offset_twin(const simcuda_block_t *blk, void **params) {
  long first, count = block_range(blk, TWIN_ARG(params, 2, int), &first);
  const int off = TWIN_ARG(params, 3, int);
  if (count <= 0) return;
  const int *y = twin_span(blk, TWIN_ARG(params, 0, const int *) + first, (size_t)count * 4);
  int *z = twin_span(blk, TWIN_ARG(params, 1, int *) + first, (size_t)count * 4);
  if (!y || !z) return;
  for (long t = 0; t < count; t++) z[t] = (int)((unsigned)y[t] + (unsigned)off);
}

static const uint16_t sq_size[] = {8, 8, 4}, sq_align[] = {8, 8, 4};
static const uint16_t add_size[] = {8, 8, 4, 4}, add_align[] = {8, 8, 4, 4};
static const simcuda_kernel_t twins[] = {
    SIMCUDA_KERNEL("_Z13square_kernelPKiPii", square_twin, sq_size, sq_align),
    SIMCUDA_KERNEL("_Z10add_offsetPKiPiii", add_offset_twin, add_size, add_align),
};
SIMCUDA_REGISTER_TWINS(twins)
