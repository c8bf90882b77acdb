/* func.c: kernel queries and settings (cudaFuncGetAttributes, cudaFuncGetParamInfo,
 * cudaFuncSetAttribute, cudaFuncSetCacheConfig), on the kernel's CUkernel. */
#include <string.h>

#include "simrt.h"

/* The kernel of func and the CUdevice of the calling thread's device. */
static cudaError_t simrt_func_dev(const void *func, CUkernel *k, CUdevice *dev) {
  cudaError_t e = simrt_kernel_of_func(func, k);
  if (e != cudaSuccess) return e;
  e = simrt_ctx();
  if (e != cudaSuccess) return e;
  return simrt_from_cu(SIMRT_DCALL(simrt_drv(0), cuDeviceGet, dev, simrt_current_device()));
}

SIMRT_API cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
  if (!attr) return simrt_ret(cudaErrorInvalidValue);
  CUkernel k;
  CUdevice dev;
  cudaError_t e = simrt_func_dev(func, &k, &dev);
  if (e != cudaSuccess) return simrt_ret(e);
  struct cudaFuncAttributes a;
  memset(&a, 0, sizeof a);
  const simrt_drv_t *d = simrt_drv(0);
  CUresult r = CUDA_SUCCESS;
  int v = 0;
#define SIMRT_FATTR(field, attr)                                                   \
  if (r == CUDA_SUCCESS) {                                                         \
    r = SIMRT_DCALL(d, cuKernelGetAttribute, &v, CU_FUNC_ATTRIBUTE_##attr, k, dev); \
    a.field = v;                                                                   \
  }
  SIMRT_FATTR(maxThreadsPerBlock, MAX_THREADS_PER_BLOCK)
  SIMRT_FATTR(sharedSizeBytes, SHARED_SIZE_BYTES)
  SIMRT_FATTR(constSizeBytes, CONST_SIZE_BYTES)
  SIMRT_FATTR(localSizeBytes, LOCAL_SIZE_BYTES)
  SIMRT_FATTR(numRegs, NUM_REGS)
  SIMRT_FATTR(ptxVersion, PTX_VERSION)
  SIMRT_FATTR(binaryVersion, BINARY_VERSION)
  SIMRT_FATTR(cacheModeCA, CACHE_MODE_CA)
  SIMRT_FATTR(maxDynamicSharedSizeBytes, MAX_DYNAMIC_SHARED_SIZE_BYTES)
  SIMRT_FATTR(preferredShmemCarveout, PREFERRED_SHARED_MEMORY_CARVEOUT)
#undef SIMRT_FATTR
  if (r != CUDA_SUCCESS) return simrt_ret_cu(r);
  *attr = a;
  return cudaSuccess;
}

SIMRT_API cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex,
                                           size_t *paramOffset, size_t *paramSize) {
  CUkernel k;
  cudaError_t e = simrt_kernel_of_func(func, &k);
  if (e != cudaSuccess) return simrt_ret(e);
  return simrt_ret_cu(
      SIMRT_DCALL(simrt_drv(0), cuKernelGetParamInfo, k, paramIndex, paramOffset, paramSize));
}

SIMRT_API cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                           int value) {
  CUkernel k;
  CUdevice dev;
  cudaError_t e = simrt_func_dev(func, &k, &dev);
  if (e != cudaSuccess) return simrt_ret(e);
  /* cudaFuncAttribute values equal their CUfunction_attribute counterparts. */
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuKernelSetAttribute,
                                  (CUfunction_attribute)attr, value, k, dev));
}

/* A cache preference is a hint that the simulator has nothing to apply to. */
SIMRT_API cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig) {
  if ((unsigned)cacheConfig > cudaFuncCachePreferEqual) return simrt_ret(cudaErrorInvalidValue);
  CUkernel k;
  cudaError_t e = simrt_kernel_of_func(func, &k);
  return simrt_ret(e);
}
