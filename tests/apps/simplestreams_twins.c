/* simplestreams_twins.c: host twin of simplestreams.cu's kernel. */
#include "twin_util.h"

/* init_array(int *g_data, int *factor, int num_iterations) */
static void init_array_twin(const simcuda_block_t *blk, void **params) {
  const long first = (long)blk->blockIdx.x * blk->blockDim.x, count = blk->blockDim.x;
  int *g = twin_span(blk, TWIN_ARG(params, 0, int *) + first, (size_t)count * 4);
  const int *f = twin_span(blk, TWIN_ARG(params, 1, int *), 4);
  const int iters = TWIN_ARG(params, 2, int);
  if (!g || !f) return;
  for (long t = 0; t < count; t++)
    for (int i = 0; i < iters; i++) g[t] = (int)((unsigned)g[t] + (unsigned)*f);
}

static const uint16_t sizes[] = {8, 8, 4}, aligns[] = {8, 8, 4};
static const simcuda_kernel_t twins[] = {
    SIMCUDA_KERNEL("_Z10init_arrayPiS_i", init_array_twin, sizes, aligns),
};
SIMCUDA_REGISTER_TWINS(twins)
