// pool_kernels.cuh: the kernels of the pool program (tests/apps/pool.cu) and of its
// benchmark (bench/pool_bench.cu); host twins in tests/apps/pool_twins.c.
#ifndef POOL_KERNELS_CUH
#define POOL_KERNELS_CUH

__global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale(const float *x, float *out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * s;
}

#endif
