/* userpatterns_twins.c: host twins of userpatterns.cu's kernels. */
#include <string.h>

#include "twin_util.h"

/* The elements of a 1-D launch that block blk covers: [first, first + count). */
static long span1d(const simcuda_block_t *blk, int n, long *first) {
  *first = (long)blk->blockIdx.x * blk->blockDim.x;
  long c = n - *first;
  return c < (long)blk->blockDim.x ? c : (long)blk->blockDim.x;
}

/* axpy_struct(AxpyArgs {const float *x; float *y; float a; int n;}) */
static void axpy_twin(const simcuda_block_t *blk, void **params) {
  struct { const float *x; float *y; float a; int n; } s;
  memcpy(&s, params[0], sizeof s);
  long first, count = span1d(blk, s.n, &first);
  if (count <= 0) return;
  const float *x = twin_span(blk, s.x + first, (size_t)count * 4);
  float *y = twin_span(blk, s.y + first, (size_t)count * 4);
  if (!x || !y) return;
  for (long t = 0; t < count; t++) y[t] = s.a * x[t] + y[t];
}

/* matmul_nonconst(float *C, float *A, float *B, int m, int k) */
static void matmul_twin(const simcuda_block_t *blk, void **params) {
  const int m = TWIN_ARG(params, 3, int), k = TWIN_ARG(params, 4, int);
  float *C = twin_span(blk, TWIN_ARG(params, 0, float *), (size_t)m * m * 4);
  const float *A = twin_span(blk, TWIN_ARG(params, 1, float *), (size_t)m * k * 4);
  const float *B = twin_span(blk, TWIN_ARG(params, 2, float *), (size_t)k * m * 4);
  if (!C || !A || !B) return;
  for (unsigned ty = 0; ty < blk->blockDim.y; ty++)
    for (unsigned tx = 0; tx < blk->blockDim.x; tx++) {
      int row = (int)(blk->blockIdx.y * blk->blockDim.y + ty);
      int col = (int)(blk->blockIdx.x * blk->blockDim.x + tx);
      if (row >= m || col >= m) continue;
      float s = 0.0f;
      for (int j = 0; j < k; j++) s += A[row * k + j] * B[j * m + col];
      C[row * m + col] = s;
    }
}

/* scale_inplace(float *v, float s, int n) */
static void scale_twin(const simcuda_block_t *blk, void **params) {
  long first, count = span1d(blk, TWIN_ARG(params, 2, int), &first);
  const float s = TWIN_ARG(params, 1, float);
  if (count <= 0) return;
  float *v = twin_span(blk, TWIN_ARG(params, 0, float *) + first, (size_t)count * 4);
  if (!v) return;
  for (long t = 0; t < count; t++) v[t] = v[t] * s - 1.0f;
}

/* write_half(float *out, const float *in, int n) */
static void write_half_twin(const simcuda_block_t *blk, void **params) {
  const int n = TWIN_ARG(params, 2, int);
  long first, count = span1d(blk, n / 2, &first);
  if (count <= 0) return;
  float *out = twin_span(blk, TWIN_ARG(params, 0, float *), (size_t)n * 4);
  const float *in = twin_span(blk, TWIN_ARG(params, 1, const float *), (size_t)n * 4);
  if (!out || !in) return;
  for (long i = first; i < first + count; i++) out[i] = in[i] + in[n - 1 - i];
}

/* count_positive(const float *x, int *count, int n) */
static void count_twin(const simcuda_block_t *blk, void **params) {
  long first, count = span1d(blk, TWIN_ARG(params, 2, int), &first);
  if (count <= 0) return;
  const float *x = twin_span(blk, TWIN_ARG(params, 0, const float *) + first, (size_t)count * 4);
  int *c = twin_span(blk, TWIN_ARG(params, 1, int *), 4);
  if (!x || !c) return;
  int add = 0;
  for (long t = 0; t < count; t++) add += x[t] > 0.0f;
  __atomic_fetch_add(c, add, __ATOMIC_RELAXED);
}

static const uint16_t axpy_s[] = {24}, axpy_a[] = {8};
static const uint16_t mm_s[] = {8, 8, 8, 4, 4}, mm_a[] = {8, 8, 8, 4, 4};
static const uint16_t sc_s[] = {8, 4, 4}, sc_a[] = {8, 4, 4};
static const uint16_t wh_s[] = {8, 8, 4}, wh_a[] = {8, 8, 4};
static const simcuda_kernel_t twins[] = {
    SIMCUDA_KERNEL("_Z11axpy_struct8AxpyArgs", axpy_twin, axpy_s, axpy_a),
    SIMCUDA_KERNEL("_Z15matmul_nonconstPfS_S_ii", matmul_twin, mm_s, mm_a),
    SIMCUDA_KERNEL("_Z13scale_inplacePffi", scale_twin, sc_s, sc_a),
    SIMCUDA_KERNEL("_Z10write_halfPfPKfi", write_half_twin, wh_s, wh_a),
    SIMCUDA_KERNEL("_Z14count_positivePKfPii", count_twin, wh_s, wh_a),
};
SIMCUDA_REGISTER_TWINS(twins)
