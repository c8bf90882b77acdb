/* jacobi_twins.c: host twins of jacobi.cu's kernels, with the kernels' float
 * operations in the same order (built with -ffp-contract=off, the .cu with --fmad=false). */
#include "twin_util.h"

#define BS 16
#define RED_THREADS 256

/* rb_sweep(float *u, const float *f, int n, int color, float omega, float h2) */
static void rb_sweep_twin(const simcuda_block_t *blk, void **params) {
  const int n = TWIN_ARG(params, 2, int), color = TWIN_ARG(params, 3, int);
  const float omega = TWIN_ARG(params, 4, float), h2 = TWIN_ARG(params, 5, float);
  const int w = n + 2;
  const size_t bytes = (size_t)w * w * sizeof(float);
  float *u = twin_span(blk, TWIN_ARG(params, 0, float *), bytes);
  const float *f = twin_span(blk, TWIN_ARG(params, 1, const float *), bytes);
  if (!u || !f) return;
  SIMCUDA_FOR_THREADS(blk, tx, ty, tz) {
    const int j = (int)(blk->blockIdx.x * blk->blockDim.x + tx) + 1;
    const int i = (int)(blk->blockIdx.y * blk->blockDim.y + ty) + 1;
    if (i > n || j > n || ((i + j) & 1) != color) continue;
    const size_t k = (size_t)i * w + j;
    float s = u[k - w] + u[k + w];
    s = s + u[k - 1];
    s = s + u[k + 1];
    const float gs = 0.25f * (s + h2 * f[k]);
    u[k] = u[k] + omega * (gs - u[k]);
  }
}

/* residual_partial(const float *u, const float *f, int n, float inv_h2, float *partial) */
static void residual_partial_twin(const simcuda_block_t *blk, void **params) {
  const int n = TWIN_ARG(params, 2, int);
  const float inv_h2 = TWIN_ARG(params, 3, float);
  if (blk->blockDim.x != BS || blk->blockDim.y != BS || blk->blockDim.z != 1) return;
  const int w = n + 2;
  const size_t bytes = (size_t)w * w * sizeof(float);
  const float *u = twin_span(blk, TWIN_ARG(params, 0, const float *), bytes);
  const float *f = twin_span(blk, TWIN_ARG(params, 1, const float *), bytes);
  const size_t slot = (size_t)blk->blockIdx.y * blk->gridDim.x + blk->blockIdx.x;
  float *partial = twin_span(blk, TWIN_ARG(params, 4, float *) + slot, sizeof(float));
  if (!u || !f || !partial) return;
  float sh[BS * BS];
  for (int ty = 0; ty < BS; ty++)
    for (int tx = 0; tx < BS; tx++) {
      const int j = (int)blk->blockIdx.x * BS + tx + 1, i = (int)blk->blockIdx.y * BS + ty + 1;
      float r2 = 0.0f;
      if (i <= n && j <= n) {
        const size_t k = (size_t)i * w + j;
        const float lap = 4.0f * u[k] - u[k - w] - u[k + w] - u[k - 1] - u[k + 1];
        const float r = f[k] - lap * inv_h2;
        r2 = r * r;
      }
      sh[ty * BS + tx] = r2;
    }
  for (int s = BS * BS / 2; s > 0; s >>= 1)
    for (int tid = 0; tid < s; tid++) sh[tid] = sh[tid] + sh[tid + s];
  *partial = sh[0];
}

/* reduce_final(const float *partial, int m, float *out), one block of 256 threads. */
static void reduce_final_twin(const simcuda_block_t *blk, void **params) {
  const int m = TWIN_ARG(params, 1, int);
  if (blk->blockDim.x != RED_THREADS || m < 1) return;
  const float *partial = twin_span(blk, TWIN_ARG(params, 0, const float *), (size_t)m * sizeof(float));
  float *out = twin_span(blk, TWIN_ARG(params, 2, float *), sizeof(float));
  if (!partial || !out) return;
  float sh[RED_THREADS];
  for (int tid = 0; tid < RED_THREADS; tid++) {
    float s = 0.0f;
    for (int i = tid; i < m; i += RED_THREADS) s = s + partial[i];
    sh[tid] = s;
  }
  for (int st = RED_THREADS / 2; st > 0; st >>= 1)
    for (int tid = 0; tid < st; tid++) sh[tid] = sh[tid] + sh[tid + st];
  if (blk->blockIdx.x == 0) *out = sh[0];
}

static const uint16_t sweep_size[] = {8, 8, 4, 4, 4, 4}, sweep_align[] = {8, 8, 4, 4, 4, 4};
static const uint16_t resid_size[] = {8, 8, 4, 4, 8}, resid_align[] = {8, 8, 4, 4, 8};
static const uint16_t red_size[] = {8, 4, 8}, red_align[] = {8, 4, 8};
static const simcuda_kernel_t twins[] = {
    SIMCUDA_KERNEL("_Z8rb_sweepPfPKfiiff", rb_sweep_twin, sweep_size, sweep_align),
    SIMCUDA_KERNEL("_Z16residual_partialPKfS0_ifPf", residual_partial_twin, resid_size, resid_align),
    SIMCUDA_KERNEL("_Z12reduce_finalPKfiPf", reduce_final_twin, red_size, red_align),
};
SIMCUDA_REGISTER_TWINS(twins)
