// scan: inclusive prefix sums of a large array in three kernels (per-block scan in
// shared memory, scan of the block totals, adding each block's offset).
#include <vector>
#include "samples.h"

#define BLOCK 256

__global__ void scan_blocks(const int *in, int *out, int *sums, int n) {
  __shared__ int buf[2][BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  int cur = 0;
  buf[0][threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int off = 1; off < BLOCK; off <<= 1) {
    int v = buf[cur][threadIdx.x];
    if (threadIdx.x >= off) v += buf[cur][threadIdx.x - off];
    buf[cur ^ 1][threadIdx.x] = v;
    cur ^= 1;
    __syncthreads();
  }
  if (i < n) out[i] = buf[cur][threadIdx.x];
  if (threadIdx.x == BLOCK - 1) sums[blockIdx.x] = buf[cur][threadIdx.x];
  if (blockIdx.x == 0 && threadIdx.x == BLOCK - 1) printf("scan: first block total %d\n", buf[cur][threadIdx.x]);
}

__global__ void scan_sums(int *sums, int nb) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (int i = 1; i < nb; i++) sums[i] += sums[i - 1];
}

__global__ void add_offsets(int *out, const int *sums, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (blockIdx.x > 0 && i < n) out[i] += sums[blockIdx.x - 1];
}

int main() {
  const int n = 50000, nb = (n + BLOCK - 1) / BLOCK;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; i++) in[i] = (i % 17) - 8;
  int *din, *dout, *dsums;
  CHECK(cudaMalloc(&din, n * 4));
  CHECK(cudaMalloc(&dout, n * 4));
  CHECK(cudaMalloc(&dsums, nb * 4));
  CHECK(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));
  scan_blocks<<<nb, BLOCK>>>(din, dout, dsums, n);
  scan_sums<<<1, 32>>>(dsums, nb);
  add_offsets<<<nb, BLOCK>>>(dout, dsums, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  long long acc = 0;
  for (int i = 0; i < n && ok; i++) {
    acc += in[i];
    if (out[i] != acc) {
      printf("out[%d] = %d, expected %lld\n", i, out[i], acc);
      ok = false;
    }
  }
  cudaFree(din);
  cudaFree(dout);
  cudaFree(dsums);
  return verdict("scan", ok);
}
