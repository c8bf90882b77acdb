// value_wait: two streams ordered by a value in memory, the way persistent-kernel
// and NCCL-style codes order them: stream A waits (cuStreamWaitValue32) for a flag
// that stream B writes (cuStreamWriteValue32) after its kernel filled the second
// half of a buffer; A then gathers through an index table held in the first half.
// A waits for B, and nothing orders B after A: a check gpuft queues on A before the
// gather, that B's kernel were made to wait for, could never finish. Iterated, the
// result read back every step; checked against the host.
// Usage: value_wait [iterations]   (default 6)
#include <cuda.h>
#include <cstdint>
#include <cstring>
#include <vector>
#include "samples.h"

__global__ void fill(float *half, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) half[i] = v + (float)(i % 7);
}

__global__ void gather(const int *idx, const float *src, const float *extra, float *dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[idx[i]] + extra[i];
}

int main(int argc, char **argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 6;
  const int n = 8192, nb = (n + 127) / 128;
  std::vector<int> idx(n);
  std::vector<float> src(n), dst(n);
  for (int i = 0; i < n; i++) idx[i] = (int)((i * 4099u + 11u) % (unsigned)n), src[i] = 0.5f * (float)(i % 113);
  // one buffer: the index table (ints) in the first half, B's output in the second
  char *buf;
  float *dsrc, *ddst;
  CHECK(cudaMalloc(&buf, 2 * (size_t)n * 4));
  CHECK(cudaMalloc(&dsrc, (size_t)n * 4));
  CHECK(cudaMalloc(&ddst, (size_t)n * 4));
  CHECK(cudaMemcpy(buf, idx.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dsrc, src.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
  CUdeviceptr flag;
  CU(cuMemAlloc(&flag, 4));
  CU(cuMemsetD32(flag, 0, 1));
  CHECK(cudaDeviceSynchronize()); // (a memset of device memory may return before it is done)
  cudaStream_t a, b;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  // Both kernels loaded before the loop: under lazy loading (CUDA_MODULE_LOADING=LAZY,
  // the default) a kernel's first launch may load its code and wait for the device,
  // here for a flag only later work sets: on an H100 the program hung there.
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, gather));
  CHECK(cudaFuncGetAttributes(&fa, fill));
  const int *didx = (const int *)buf;
  float *dhalf = (float *)(buf + (size_t)n * 4);
  bool ok = true;
  uint64_t h = 1469598103934665603ull;
  for (int it = 1; it <= iters; it++) {
    // A first: it waits for B's flag, then reads the table and B's output
    CU(cuStreamWaitValue32((CUstream)a, flag, (unsigned)it, CU_STREAM_WAIT_VALUE_GEQ));
    gather<<<nb, 128, 0, a>>>(didx, dsrc, dhalf, ddst, n);
    CHECK(cudaGetLastError());
    // then B: it writes the other half of the same buffer and releases A
    fill<<<nb, 128, 0, b>>>(dhalf, n, (float)it);
    CHECK(cudaGetLastError());
    CU(cuStreamWriteValue32((CUstream)b, flag, (unsigned)it, 0));
    CHECK(cudaStreamSynchronize(a));
    CHECK(cudaStreamSynchronize(b));
    CHECK(cudaMemcpy(dst.data(), ddst, (size_t)n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
      float want = src[idx[i]] + ((float)it + (float)(i % 7));
      if (dst[i] != want) {
        if (ok) fprintf(stderr, "value_wait: step %d [%d] = %g, expected %g\n", it, i, dst[i], want);
        ok = false;
      }
    }
    for (int i = 0; i < n; i++) {
      uint32_t bits;
      memcpy(&bits, &dst[i], 4);
      h = (h ^ bits) * 1099511628211ull;
    }
  }
  printf("value_wait: hash %016llx\n", (unsigned long long)h);
  CHECK(cudaStreamDestroy(a));
  CHECK(cudaStreamDestroy(b));
  CU(cuMemFree(flag));
  CHECK(cudaFree(buf));
  CHECK(cudaFree(dsrc));
  CHECK(cudaFree(ddst));
  return verdict("value_wait", ok);
}
