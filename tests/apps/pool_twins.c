/* pool_twins.c: host twins of pool.cu's kernels. */
#include "twin_util.h"

/* The block's elements of two n-float arrays (one thread each): their count (0: none),
 * *in and *out pointing at the block's first. */
static long block_span(const simcuda_block_t *blk, const float *in_arg, float *out_arg, int n,
                       const float **in, float **out) {
  const long first = (long)blk->blockIdx.x * blk->blockDim.x;
  long count = n - first < (long)blk->blockDim.x ? n - first : (long)blk->blockDim.x;
  if (count <= 0) return 0;
  *in = twin_span(blk, in_arg + first, (size_t)count * 4);
  *out = twin_span(blk, out_arg + first, (size_t)count * 4);
  return *in && *out ? count : 0;
}

/* axpy(float a, const float *x, float *y, int n) */
static void axpy_twin(const simcuda_block_t *blk, void **params) {
  const float a = TWIN_ARG(params, 0, float), *x;
  float *y;
  long count = block_span(blk, TWIN_ARG(params, 1, const float *), TWIN_ARG(params, 2, float *),
                          TWIN_ARG(params, 3, int), &x, &y);
  for (long t = 0; t < count; t++) y[t] = a * x[t] + y[t];
}

/* scale(const float *x, float *out, float s, int n) */
static void scale_twin(const simcuda_block_t *blk, void **params) {
  const float s = TWIN_ARG(params, 2, float), *x;
  float *o;
  long count = block_span(blk, TWIN_ARG(params, 0, const float *), TWIN_ARG(params, 1, float *),
                          TWIN_ARG(params, 3, int), &x, &o);
  for (long t = 0; t < count; t++) o[t] = x[t] * s;
}

static const uint16_t axpy_size[] = {4, 8, 8, 4}, axpy_align[] = {4, 8, 8, 4};
static const uint16_t scale_size[] = {8, 8, 4, 4}, scale_align[] = {8, 8, 4, 4};
static const simcuda_kernel_t twins[] = {
    SIMCUDA_KERNEL("_Z4axpyfPKfPfi", axpy_twin, axpy_size, axpy_align),
    SIMCUDA_KERNEL("_Z5scalePKfPffi", scale_twin, scale_size, scale_align),
};
SIMCUDA_REGISTER_TWINS(twins)
