/* extras.c: runtime calls ordinary programs make beside memory, streams and
 * launches: host memory registration, occupancy queries, profiler markers, and a
 * few legacy or hint-only calls (nothing to do on a simulated device). */
#include <cuda_profiler_api.h>
#include <stdint.h>

#include "simrt.h"

SIMRT_API cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuMemHostRegister, ptr, size, flags));
}

SIMRT_API cudaError_t cudaHostUnregister(void *ptr) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuMemHostUnregister, ptr));
}

SIMRT_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
                                                                             int blockSize, size_t dynamicSMemSize,
                                                                             unsigned int flags) {
  CUkernel k;
  cudaError_t e = simrt_kernel_of_func(func, &k);
  if (e == cudaSuccess) e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, numBlocks,
                                  (CUfunction)k, blockSize, dynamicSMemSize, flags));
}

SIMRT_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                                    size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

/* Profiler ranges mark regions for a profiler; none is attached to the simulator. */
SIMRT_API cudaError_t cudaProfilerStart(void) { return simrt_ret(simrt_ctx()); }
SIMRT_API cudaError_t cudaProfilerStop(void) { return simrt_ret(simrt_ctx()); }

/* The pre-CUDA-4 name of cudaDeviceSynchronize. */
SIMRT_API cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }

/* Cache preferences are hints; the simulated device has no L1/shared split. */
SIMRT_API cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
  if ((unsigned)cacheConfig > cudaFuncCachePreferEqual) return simrt_ret(cudaErrorInvalidValue);
  return simrt_ret(simrt_ctx());
}
