// histogram: 256 bins counted per block with shared-memory atomics, then merged
// into the global histogram with global atomics (the histogram sample's scheme).
#include <vector>
#include "samples.h"

__global__ void histo(const unsigned char *data, unsigned *bins, int n) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (local[i]) atomicAdd(&bins[i], local[i]);
}

int main() {
  const int n = 300000;
  std::vector<unsigned char> data(n);
  std::vector<unsigned> ref(256, 0), got(256);
  unsigned s = 12345;
  for (int i = 0; i < n; i++) {
    s = s * 1103515245u + 12345u;
    data[i] = (unsigned char)((s >> 16) % 200 + (i % 3 == 0 ? 50 : 0));
    ref[data[i]]++;
  }
  unsigned char *dd;
  unsigned *db;
  CHECK(cudaMalloc(&dd, n));
  CHECK(cudaMalloc(&db, 256 * 4));
  CHECK(cudaMemcpy(dd, data.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(db, 0, 256 * 4));
  histo<<<40, 192>>>(dd, db, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got.data(), db, 256 * 4, cudaMemcpyDeviceToHost));
  bool ok = got == ref;
  for (int i = 0; i < 256 && !ok; i++)
    if (got[i] != ref[i]) {
      printf("bin %d: %u, expected %u\n", i, got[i], ref[i]);
      break;
    }
  cudaFree(dd);
  cudaFree(db);
  return verdict("histogram", ok);
}
