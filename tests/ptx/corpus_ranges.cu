// corpus_ranges.cu: kernels whose byte ranges tests/ptx/test_range.c checks against
// the bytes they really touch (enumerated thread by thread in the test).
#include <stddef.h>

// Guarded: if (i < n).
extern "C" __global__ void rg_saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// No guard: the whole grid.
extern "C" __global__ void rg_fill(float *y) { y[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }

// Grid-stride loops, 32-bit and size_t.
extern "C" __global__ void rg_stride(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = 2 * x[i];
}
extern "C" __global__ void rg_stride64(size_t n, const double *x, double *y) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
    y[i] = 2 * x[i];
}

// Two dimensions, both guarded.
extern "C" __global__ void rg_2d(int w, int h, const float *x, float *y) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < w && r < h) y[r * w + c] = x[r * w + c] + 1;
}

// The early exit nvcc emits for `if (i >= n) return`, and an offset by a parameter.
extern "C" __global__ void rg_early(int n, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = 0;
  y[i + n] = 1;
}

// Before the start: x[i - 1] with i from 0 reads 4 bytes before x.
extern "C" __global__ void rg_before(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i - 1];
}

// A strided 32-bit index: i * stride may wrap (then unbounded at launch).
extern "C" __global__ void rg_strided(int n, int stride, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i * stride] = 1;
}

// Vector accesses through a struct-free float4 pointer, and an atomic.
extern "C" __global__ void rg_vec(int n, const float4 *x, float4 *y, int *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = x[i];
    atomicAdd(count + (i & 7), 1);
  }
}

// Adversarial: each must be unbounded where noted.
// gather: x through an index loaded from memory (x unbounded; idx and y bounded).
extern "C" __global__ void rg_gather(int n, const int *idx, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[idx[i]];
}
// an index from a data-dependent loop (y unbounded)
extern "C" __global__ void rg_chase(const int *next, float *y) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  while (next[k] > 0) k += next[k];
  y[k] = 1;
}
// a pointer advanced in a loop with an unknown trip count (p unbounded)
extern "C" __global__ void rg_ptrloop(float *p) {
  float *q = p + threadIdx.x;
  while (*q != 0.0f) q += 32;
  *q = 1.0f;
}
