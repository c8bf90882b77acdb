/* vecadd_twins.c: host twin of vecadd.cu's kernel for the CPU-backed simulator. */
#include "twin_util.h"

/* vecadd(const float *a, const float *b, float *c, int n): one thread per element. */
static void vecadd_twin(const simcuda_block_t *blk, void **params) {
  const int n = TWIN_ARG(params, 3, int);
  const long first = (long)blk->blockIdx.x * blk->blockDim.x;
  long count = n - first < (long)blk->blockDim.x ? n - first : (long)blk->blockDim.x;
  if (count <= 0) return;
  const size_t bytes = (size_t)count * sizeof(float);
  const float *a = twin_span(blk, TWIN_ARG(params, 0, const float *) + first, bytes);
  const float *b = twin_span(blk, TWIN_ARG(params, 1, const float *) + first, bytes);
  float *c = twin_span(blk, TWIN_ARG(params, 2, float *) + first, bytes);
  if (!a || !b || !c) return;
  for (long t = 0; t < count; t++) c[t] = a[t] + b[t];
}

static const uint16_t vecadd_size[] = {8, 8, 8, 4}, vecadd_align[] = {8, 8, 8, 4};
static const simcuda_kernel_t twins[] = {
    SIMCUDA_KERNEL("_Z6vecaddPKfS0_Pfi", vecadd_twin, vecadd_size, vecadd_align),
};
SIMCUDA_REGISTER_TWINS(twins)
