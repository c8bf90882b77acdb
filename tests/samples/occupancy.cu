// occupancy: sizing a launch the way programs do: the runtime's
// cudaOccupancyMaxPotentialBlockSize (and its variable-shared-memory form), then the
// driver's cuOccupancyMaxPotentialBlockSize and cuOccupancyAvailableDynamicSMemPerBlock
// reached through cudaGetDriverEntryPointByVersion. The two must agree, the sizes must
// fit the device, and the kernel launched with them must compute the right answer.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <vector>
#include "samples.h"

__global__ void saxpy(float a, const float *x, float *y, int n) {
  extern __shared__ float stage[];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    stage[threadIdx.x] = a * x[i];
    y[i] += stage[threadIdx.x];
  }
}

static size_t smem_for(int block) { return (size_t)block * sizeof(float); }

int main() {
  bool ok = true;
  int minGrid = 0, block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, saxpy, 0, 0));
  int vGrid = 0, vBlock = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&vGrid, &vBlock, saxpy, smem_for, 0));
  int perSM = 0, maxPerSM = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, saxpy, block, 0));
  CHECK(cudaDeviceGetAttribute(&maxPerSM, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  printf("runtime: block %d, min grid %d; with block*4 bytes of shared memory: block %d, min grid %d\n", block,
         minGrid, vBlock, vGrid);
  ok &= block > 0 && block % 32 == 0 && block <= 1024 && perSM * block <= maxPerSM && minGrid == perSM * sms;
  ok &= vBlock > 0 && vBlock % 32 == 0 && vGrid > 0;

  // The driver API, on the CUfunction of the same kernel.
  PFN_cuKernelGetFunction_v12000 getFunction;
  PFN_cuOccupancyMaxPotentialBlockSize_v6050 potential;
  PFN_cuOccupancyAvailableDynamicSMemPerBlock_v10020 available;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 active;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuKernelGetFunction", (void **)&getFunction, 12000, cudaEnableDefault, &q));
  CHECK(cudaGetDriverEntryPointByVersion("cuOccupancyMaxPotentialBlockSize", (void **)&potential, 6050,
                                         cudaEnableDefault, &q));
  CHECK(cudaGetDriverEntryPointByVersion("cuOccupancyAvailableDynamicSMemPerBlock", (void **)&available, 10020,
                                         cudaEnableDefault, &q));
  CHECK(cudaGetDriverEntryPointByVersion("cuOccupancyMaxActiveBlocksPerMultiprocessor", (void **)&active, 6050,
                                         cudaEnableDefault, &q));
  cudaKernel_t k;
  CHECK(cudaGetKernel(&k, saxpy));
  CUfunction f;
  if (getFunction(&f, (CUkernel)k) != CUDA_SUCCESS) return 2;
  int dGrid = 0, dBlock = 0;
  if (potential(&dGrid, &dBlock, f, nullptr, 0, 0) != CUDA_SUCCESS) return 2;
  int dvGrid = 0, dvBlock = 0;
  if (potential(&dvGrid, &dvBlock, f, [](int b) { return smem_for(b); }, 0, 0) != CUDA_SUCCESS) return 2;
  printf("driver: block %d, min grid %d; with block*4 bytes: block %d, min grid %d\n", dBlock, dGrid, dvBlock, dvGrid);
  ok &= dBlock == block && dGrid == minGrid && dvBlock == vBlock && dvGrid == vGrid;
  // A limit on the block size is honoured.
  int lGrid = 0, lBlock = 0;
  if (potential(&lGrid, &lBlock, f, nullptr, 0, 96) != CUDA_SUCCESS) return 2;
  ok &= lBlock > 0 && lBlock <= 96;
  // The dynamic shared memory that lets 4 blocks of 256 threads stay resident does.
  size_t avail = 0;
  if (available(&avail, f, 4, 256) != CUDA_SUCCESS) return 2;
  int fit = 0, over = 0;
  if (active(&fit, f, 256, avail) != CUDA_SUCCESS || active(&over, f, 256, avail + 4096) != CUDA_SUCCESS) return 2;
  printf("4 blocks of 256 threads: %zu bytes of dynamic shared memory each (%d resident; %d with 4 KiB more)\n", avail,
         fit, over);
  ok &= avail > 0 && fit >= 4 && over < 4;

  // The launch sized by the runtime's answer.
  const int n = 1 << 20;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; i++) x[i] = (float)(i % 1000), y[i] = 1.0f;
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * 4));
  CHECK(cudaMalloc(&dy, n * 4));
  CHECK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * 4, cudaMemcpyHostToDevice));
  saxpy<<<minGrid, block, smem_for(block)>>>(2.0f, dx, dy, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(y.data(), dy, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    if (y[i] != 2.0f * (float)(i % 1000) + 1.0f) {
      printf("y[%d] = %g\n", i, y[i]);
      ok = false;
      break;
    }
  cudaFree(dx);
  cudaFree(dy);
  return verdict("occupancy", ok);
}
