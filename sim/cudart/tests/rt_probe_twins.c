/* rt_probe_twins.c: twins of rt_probe.cu's kernels, except no_twin_kernel (none on
 * purpose) and late_kernel (registered by the program itself, late). */
#include <stddef.h>

#include "simcuda_twins.h"

/* fill_kernel(int *p, int n, int v) */
static void fill_twin(const simcuda_block_t *blk, void **params) {
  const int n = *(int *)params[1], v = *(int *)params[2];
  int *const dp = *(int **)params[0];
  SIMCUDA_FOR_THREADS(blk, tx, ty, tz) {
    const long i = (long)blk->blockIdx.x * blk->blockDim.x + tx;
    if (i >= n) continue;
    int *p = simcuda_ptr(blk, dp + i); /* per element: any stray index faults */
    if (!p) return;
    *p = v + (int)i;
  }
}

/* oob_kernel(int *p): p[1 << 34] = 1 faults, as it would on a GPU. */
static void oob_twin(const simcuda_block_t *blk, void **params) {
  int *const dp = *(int **)params[0];
  int *p = simcuda_ptr(blk, dp + ((size_t)1 << 34));
  if (p) *p = 1;
}

/* params_kernel(const float *a, int n, double d, char c, float *out) */
static void params_twin(const simcuda_block_t *blk, void **params) {
  const float *a = simcuda_ptr(blk, *(const float **)params[0]);
  float *out = simcuda_ptr(blk, *(float **)params[4]);
  if (!a || !out) return;
  out[0] = a[0] + (float)*(int *)params[1] + (float)*(double *)params[2] + *(char *)params[3];
}

/* late_kernel(int *p): registered from rt_probe's main. */
void rt_probe_late_twin(const simcuda_block_t *blk, void **params) {
  int *const dp = *(int **)params[0];
  for (unsigned t = 0; t < blk->blockDim.x; t++) {
    int *p = simcuda_ptr(blk, dp + t);
    if (!p) return;
    *p = 7;
  }
}

static const uint16_t fill_sz[] = {8, 4, 4}, fill_al[] = {8, 4, 4};
static const uint16_t oob_sz[] = {8}, oob_al[] = {8};
static const uint16_t par_sz[] = {8, 4, 8, 1, 8}, par_al[] = {8, 4, 8, 1, 8};
static const simcuda_kernel_t twins[] = {
    SIMCUDA_KERNEL("_Z11fill_kernelPiii", fill_twin, fill_sz, fill_al),
    SIMCUDA_KERNEL("_Z10oob_kernelPi", oob_twin, oob_sz, oob_al),
    SIMCUDA_KERNEL("_Z13params_kernelPKfidcPf", params_twin, par_sz, par_al),
};
SIMCUDA_REGISTER_TWINS(twins)
