/* device.c: device management: synchronise, limits, reset, flags, attributes, properties,
 * versions. cudaDeviceAttr values equal CUdevice_attribute values by design. */
#include <string.h>

#include "simrt.h"

#define SIMRT_RUNTIME_VERSION 13000

SIMRT_API cudaError_t cudaDeviceSynchronize(void) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  /* CUDA 13's cuCtxSynchronize takes the context; NULL means the current one. */
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuCtxSynchronize, NULL));
}

/* cudaLimit values equal CUlimit values; the context's (the current device's primary). */
SIMRT_API cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuCtxSetLimit, (CUlimit)limit, value));
}

SIMRT_API cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuCtxGetLimit, value, (CUlimit)limit));
}

SIMRT_API cudaError_t cudaDeviceReset(void) {
  cudaError_t e = simrt_init();
  if (e != cudaSuccess) return simrt_ret(e);
  int dev = simrt_current_device();
  CUdevice cudev;
  CUresult r = SIMRT_DCALL(simrt_drv(0), cuDeviceGet, &cudev, dev);
  if (r == CUDA_SUCCESS) r = SIMRT_DCALL(simrt_drv(0), cuDevicePrimaryCtxReset, cudev);
  simrt_forget_device(dev);
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  const unsigned ok = cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax |
                      cudaDeviceSyncMemops;
  if (flags & ~ok) return simrt_ret(cudaErrorInvalidValue);
  cudaError_t e = simrt_init();
  if (e != cudaSuccess) return simrt_ret(e);
  CUdevice cudev;
  CUresult r = SIMRT_DCALL(simrt_drv(0), cuDeviceGet, &cudev, simrt_current_device());
  /* cudaDeviceMapHost is always on with unified addressing; the driver's flag set
   * has no CU_CTX_MAP_HOST requirement, so it is passed as is. */
  if (r == CUDA_SUCCESS) r = SIMRT_DCALL(simrt_drv(0), cuDevicePrimaryCtxSetFlags, cudev, flags);
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
  if (!value) return simrt_ret(cudaErrorInvalidValue);
  cudaError_t e = simrt_init();
  if (e != cudaSuccess) return simrt_ret(e);
  CUdevice cudev;
  CUresult r = SIMRT_DCALL(simrt_drv(0), cuDeviceGet, &cudev, device);
  if (r == CUDA_ERROR_INVALID_DEVICE || r == CUDA_ERROR_INVALID_VALUE)
    return simrt_ret(cudaErrorInvalidDevice);
  if (r == CUDA_SUCCESS)
    r = SIMRT_DCALL(simrt_drv(0), cuDeviceGetAttribute, value, (CUdevice_attribute)attr, cudev);
  return simrt_ret_cu(r);
}

/* cudaDeviceProp fields filled from one device attribute each. */
#define SIMRT_PROPS(X)                                                             \
  X(regsPerBlock, MAX_REGISTERS_PER_BLOCK) X(warpSize, WARP_SIZE)                  \
  X(memPitch, MAX_PITCH) X(maxThreadsPerBlock, MAX_THREADS_PER_BLOCK)              \
  X(maxThreadsDim[0], MAX_BLOCK_DIM_X) X(maxThreadsDim[1], MAX_BLOCK_DIM_Y)        \
  X(maxThreadsDim[2], MAX_BLOCK_DIM_Z) X(maxGridSize[0], MAX_GRID_DIM_X)           \
  X(maxGridSize[1], MAX_GRID_DIM_Y) X(maxGridSize[2], MAX_GRID_DIM_Z)              \
  X(sharedMemPerBlock, MAX_SHARED_MEMORY_PER_BLOCK)                                \
  X(totalConstMem, TOTAL_CONSTANT_MEMORY) X(major, COMPUTE_CAPABILITY_MAJOR)       \
  X(minor, COMPUTE_CAPABILITY_MINOR) X(textureAlignment, TEXTURE_ALIGNMENT)        \
  X(multiProcessorCount, MULTIPROCESSOR_COUNT) X(integrated, INTEGRATED)           \
  X(canMapHostMemory, CAN_MAP_HOST_MEMORY) X(concurrentKernels, CONCURRENT_KERNELS) \
  X(ECCEnabled, ECC_ENABLED) X(pciBusID, PCI_BUS_ID) X(pciDeviceID, PCI_DEVICE_ID) \
  X(pciDomainID, PCI_DOMAIN_ID) X(asyncEngineCount, ASYNC_ENGINE_COUNT)            \
  X(unifiedAddressing, UNIFIED_ADDRESSING)                                         \
  X(memoryBusWidth, GLOBAL_MEMORY_BUS_WIDTH) X(l2CacheSize, L2_CACHE_SIZE)         \
  X(maxThreadsPerMultiProcessor, MAX_THREADS_PER_MULTIPROCESSOR)                   \
  X(sharedMemPerMultiprocessor, MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)              \
  X(regsPerMultiprocessor, MAX_REGISTERS_PER_MULTIPROCESSOR)                       \
  X(managedMemory, MANAGED_MEMORY) X(sharedMemPerBlockOptin, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) \
  X(maxBlocksPerMultiProcessor, MAX_BLOCKS_PER_MULTIPROCESSOR)                     \
  X(streamPrioritiesSupported, STREAM_PRIORITIES_SUPPORTED)                        \
  X(concurrentManagedAccess, CONCURRENT_MANAGED_ACCESS)                            \
  X(memoryPoolsSupported, MEMORY_POOLS_SUPPORTED) X(cooperativeLaunch, COOPERATIVE_LAUNCH)

SIMRT_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
  if (!prop) return simrt_ret(cudaErrorInvalidValue);
  cudaError_t e = simrt_init();
  if (e != cudaSuccess) return simrt_ret(e);
  const simrt_drv_t *d = simrt_drv(0);
  CUdevice cudev;
  CUresult r = SIMRT_DCALL(d, cuDeviceGet, &cudev, device);
  if (r != CUDA_SUCCESS) return simrt_ret(cudaErrorInvalidDevice);
  struct cudaDeviceProp p;
  memset(&p, 0, sizeof p);
  r = SIMRT_DCALL(d, cuDeviceGetName, p.name, (int)sizeof p.name, cudev);
  if (r == CUDA_SUCCESS) r = SIMRT_DCALL(d, cuDeviceGetUuid, (CUuuid *)&p.uuid, cudev);
  if (r == CUDA_SUCCESS) r = SIMRT_DCALL(d, cuDeviceTotalMem, &p.totalGlobalMem, cudev);
  int v = 0;
#define SIMRT_PROP_GET(field, attr)                                                       \
  if (r == CUDA_SUCCESS) {                                                                \
    r = SIMRT_DCALL(d, cuDeviceGetAttribute, &v, CU_DEVICE_ATTRIBUTE_##attr, cudev);      \
    if (r != CUDA_SUCCESS)                                                                \
      simrt_warn("cudaGetDeviceProperties: the driver has no CU_DEVICE_ATTRIBUTE_" #attr); \
    p.field = v;                                                                          \
  }
  SIMRT_PROPS(SIMRT_PROP_GET)
#undef SIMRT_PROP_GET
  if (r != CUDA_SUCCESS) return simrt_ret_cu(r);
  p.texturePitchAlignment = 32;
  p.surfaceAlignment = p.textureAlignment;
  p.hostNumaId = -1;
  p.deviceNumaId = -1;
  *prop = p;
  return cudaSuccess;
}

SIMRT_API cudaError_t cudaDriverGetVersion(int *driverVersion) {
  if (!driverVersion) return simrt_ret(cudaErrorInvalidValue);
  /* Without a driver the real runtime reports 0 and success. */
  if (simrt_driver_load() != cudaSuccess) {
    *driverVersion = 0;
    return cudaSuccess;
  }
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuDriverGetVersion, driverVersion));
}

SIMRT_API cudaError_t cudaRuntimeGetVersion(int *runtimeVersion) {
  if (!runtimeVersion) return simrt_ret(cudaErrorInvalidValue);
  *runtimeVersion = SIMRT_RUNTIME_VERSION;
  return cudaSuccess;
}

static cudaError_t simrt_entry_point(const char *symbol, void **funcPtr, unsigned int version,
                                     unsigned long long flags,
                                     enum cudaDriverEntryPointQueryResult *status) {
  if (!symbol || !funcPtr) return simrt_ret(cudaErrorInvalidValue);
  cudaError_t e = simrt_init();
  if (e != cudaSuccess) return simrt_ret(e);
  CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  /* cudaEnable* flags have the values of CU_GET_PROC_ADDRESS_*. */
  CUresult r = simrt_getproc()(symbol, funcPtr, (int)version, flags, &q);
  if (status) *status = (enum cudaDriverEntryPointQueryResult)q;
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                                       unsigned int cudaVersion,
                                                       unsigned long long flags,
                                                       enum cudaDriverEntryPointQueryResult *s) {
  return simrt_entry_point(symbol, funcPtr, cudaVersion, flags, s);
}

SIMRT_API cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                              unsigned long long flags,
                                              enum cudaDriverEntryPointQueryResult *s) {
  return simrt_entry_point(symbol, funcPtr, SIMRT_RUNTIME_VERSION, flags, s);
}

/* The _ptsz forms ask for per-thread-default-stream driver entry points. */
cudaError_t cudaGetDriverEntryPoint_ptsz(const char *, void **, unsigned long long,
                                         enum cudaDriverEntryPointQueryResult *);
SIMRT_API cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                                   unsigned long long flags,
                                                   enum cudaDriverEntryPointQueryResult *s) {
  if (flags == cudaEnableDefault) flags = cudaEnablePerThreadDefaultStream;
  return simrt_entry_point(symbol, funcPtr, SIMRT_RUNTIME_VERSION, flags, s);
}
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *, void **, unsigned int,
                                                  unsigned long long,
                                                  enum cudaDriverEntryPointQueryResult *);
SIMRT_API cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *s) {
  if (flags == cudaEnableDefault) flags = cudaEnablePerThreadDefaultStream;
  return simrt_entry_point(symbol, funcPtr, cudaVersion, flags, s);
}
