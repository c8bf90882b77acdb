// reduce_ballot: kernel 7 of NVIDIA's reduction sample, written the way the sample
// writes it: a grid-stride sum per thread, a warp reduce with __shfl_down_sync, one
// shared slot per warp, then the first warp reduces those slots under a member mask
// of __ballot_sync(mask, tid < warps per block) (8 lanes for 256 threads) while its
// shifts reach lanes outside that mask. GPUs give 0 for those lanes; the result is
// checked against a host sum for several block sizes, int and double.
#include <cstring>
#include <vector>
#include "samples.h"

template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};
template <>
struct SharedMemory<double> {
  __device__ inline operator double *() {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
};

template <class T>
__device__ __forceinline__ T warpReduceSum(unsigned int mask, T mySum) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) mySum += __shfl_down_sync(mask, mySum, offset);
  return mySum;
}

template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce7(const T *__restrict__ g_idata, T *__restrict__ g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int gridSize = blockSize * gridDim.x;
  unsigned int maskLength = (blockSize & 31);
  maskLength = (maskLength > 0) ? (32 - maskLength) : maskLength;
  const unsigned int mask = (0xffffffff) >> maskLength;
  T mySum = 0;
  if (nIsPow2) {
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    gridSize = gridSize << 1;
    while (i < n) {
      mySum += g_idata[i];
      if ((i + blockSize) < n) mySum += g_idata[i + blockSize];
      i += gridSize;
    }
  } else {
    unsigned int i = blockIdx.x * blockSize + threadIdx.x;
    while (i < n) {
      mySum += g_idata[i];
      i += gridSize;
    }
  }
  mySum = warpReduceSum<T>(mask, mySum);
  if ((tid % warpSize) == 0) sdata[tid / warpSize] = mySum;
  __syncthreads();
  const unsigned int shmem_extent = (blockSize / warpSize) > 0 ? (blockSize / warpSize) : 1;
  const unsigned int ballot_result = __ballot_sync(mask, tid < shmem_extent);
  if (tid < shmem_extent) {
    mySum = sdata[tid];
    mySum = warpReduceSum<T>(ballot_result, mySum);
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

template <class T, unsigned int B>
static void launch(int blocks, const T *in, T *out, unsigned n) {
  size_t smem = (B <= 32) ? 2 * B * sizeof(T) : B * sizeof(T);
  if ((n & (n - 1)) == 0) reduce7<T, B, true><<<blocks, B, smem>>>(in, out, n);
  else reduce7<T, B, false><<<blocks, B, smem>>>(in, out, n);
}

template <class T>
static bool run(unsigned n, int threads, int blocks, const char *what) {
  std::vector<T> x(n);
  T ref = 0;
  for (unsigned i = 0; i < n; i++) {
    x[i] = (T)(int)((i * 2654435761u) >> 24 & 0xff);  // small integers: every sum is exact
    ref += x[i];
  }
  T *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(T)));
  CHECK(cudaMalloc(&dout, blocks * sizeof(T)));
  CHECK(cudaMemcpy(din, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  switch (threads) {
    case 512: launch<T, 512>(blocks, din, dout, n); break;
    case 256: launch<T, 256>(blocks, din, dout, n); break;
    case 64: launch<T, 64>(blocks, din, dout, n); break;
    default: launch<T, 32>(blocks, din, dout, n); break;
  }
  CHECK(cudaGetLastError());
  std::vector<T> part(blocks);
  CHECK(cudaMemcpy(part.data(), dout, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  T got = 0;
  for (int b = 0; b < blocks; b++) got += part[b];
  cudaFree(din);
  cudaFree(dout);
  if (got != ref) {
    printf("%s, n %u, %d threads, %d blocks: GPU result = %.0f, CPU result = %.0f\n", what, n, threads, blocks,
           (double)got, (double)ref);
    return false;
  }
  return true;
}

int main() {
  bool ok = true;
  const int threads[] = {256, 512, 64, 32};
  for (int t : threads) {
    ok &= run<int>(1u << 18, t, 64, "int");
    ok &= run<int>(100003, t, 40, "int");
    ok &= run<double>(50001, t, 16, "double");
  }
  return verdict("reduce_ballot", ok);
}
