// reduce_shfl: a grid-stride sum with warp shuffles, one shared slot per warp, and
// one atomicAdd per block (integers: the answer is exact whatever the order).
#include <vector>
#include "samples.h"

__inline__ __device__ long long warp_sum(long long v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void reduce(const int *x, unsigned long long *out, float *fout, const float *fx, int n) {
  __shared__ long long part[32];
  __shared__ float fpart[32];
  long long v = 0;
  float f = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    v += x[i];
    f += fx[i];
  }
  v = warp_sum(v);
  for (int o = 16; o > 0; o >>= 1) f += __shfl_xor_sync(0xffffffffu, f, o);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) {
    part[warp] = v;
    fpart[warp] = f;
  }
  __syncthreads();
  if (warp == 0) {
    int nw = blockDim.x / 32;
    v = lane < nw ? part[lane] : 0;
    f = lane < nw ? fpart[lane] : 0.0f;
    v = warp_sum(v);
    for (int o = 16; o > 0; o >>= 1) f += __shfl_xor_sync(0xffffffffu, f, o);
    if (lane == 0) {
      atomicAdd(out, (unsigned long long)v);
      atomicAdd(fout, f);
    }
  }
}

int main() {
  const int n = 200003;
  std::vector<int> x(n);
  std::vector<float> fx(n);
  long long ref = 0;
  for (int i = 0; i < n; i++) {
    x[i] = (i * 2654435761u) % 1000 - 500;
    fx[i] = 1.0f;
    ref += x[i];
  }
  int *dx;
  float *dfx, *dfout;
  unsigned long long *dout;
  CHECK(cudaMalloc(&dx, n * 4));
  CHECK(cudaMalloc(&dfx, n * 4));
  CHECK(cudaMalloc(&dout, 8));
  CHECK(cudaMalloc(&dfout, 4));
  CHECK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dfx, fx.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0, 8));
  CHECK(cudaMemset(dfout, 0, 4));
  reduce<<<48, 256>>>(dx, dout, dfout, dfx, n);
  CHECK(cudaGetLastError());
  unsigned long long got;
  float fgot;
  CHECK(cudaMemcpy(&got, dout, 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&fgot, dfout, 4, cudaMemcpyDeviceToHost));
  bool ok = (long long)got == ref && fgot == (float)n;
  if (!ok) printf("sum %lld (expected %lld), float sum %f (expected %d)\n", (long long)got, ref, fgot, n);
  cudaFree(dx);
  cudaFree(dfx);
  cudaFree(dout);
  cudaFree(dfout);
  return verdict("reduce_shfl", ok);
}
