/* memory.c: allocation (device, pinned, mapped, managed, stream-ordered, pitched)
 * and pointer queries, forwarded to the driver. */
#include <stdint.h>

#include "simrt.h"

#define DRV0 simrt_drv(0)

/* Every memory call needs the context first; a failure there is the answer. */
#define SIMRT_NEED_CTX()                      \
  do {                                        \
    cudaError_t e_ = simrt_ctx();             \
    if (e_ != cudaSuccess) return simrt_ret(e_); \
  } while (0)

SIMRT_API cudaError_t cudaMalloc(void **devPtr, size_t size) {
  if (!devPtr) return simrt_ret(cudaErrorInvalidValue);
  SIMRT_NEED_CTX();
  /* The real runtime returns success and NULL for zero bytes. */
  if (size == 0) {
    *devPtr = NULL;
    return cudaSuccess;
  }
  CUdeviceptr p = 0;
  CUresult r = SIMRT_DCALL(DRV0, cuMemAlloc, &p, size);
  if (r == CUDA_SUCCESS) *devPtr = (void *)(uintptr_t)p;
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaFree(void *devPtr) {
  SIMRT_NEED_CTX();
  if (!devPtr) return cudaSuccess;
  return simrt_ret_cu(SIMRT_DCALL(DRV0, cuMemFree, (CUdeviceptr)(uintptr_t)devPtr));
}

SIMRT_API cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height) {
  if (!devPtr || !pitch) return simrt_ret(cudaErrorInvalidValue);
  SIMRT_NEED_CTX();
  if (width == 0 || height == 0) {
    *devPtr = NULL;
    *pitch = 0;
    return cudaSuccess;
  }
  CUdeviceptr p = 0;
  size_t pt = 0;
  /* 16: the widest element the driver accepts, so any row type stays aligned. */
  CUresult r = SIMRT_DCALL(DRV0, cuMemAllocPitch, &p, &pt, width, height, 16);
  if (r == CUDA_SUCCESS) {
    *devPtr = (void *)(uintptr_t)p;
    *pitch = pt;
  }
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
  if (!pHost) return simrt_ret(cudaErrorInvalidValue);
  if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
    return simrt_ret(cudaErrorInvalidValue);
  SIMRT_NEED_CTX();
  /* cudaHostAlloc flags have the values of CU_MEMHOSTALLOC_*. */
  return simrt_ret_cu(SIMRT_DCALL(DRV0, cuMemHostAlloc, pHost, size, flags));
}

SIMRT_API cudaError_t cudaMallocHost(void **ptr, size_t size) {
  return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

SIMRT_API cudaError_t cudaFreeHost(void *ptr) {
  SIMRT_NEED_CTX();
  if (!ptr) return cudaSuccess;
  return simrt_ret_cu(SIMRT_DCALL(DRV0, cuMemFreeHost, ptr));
}

SIMRT_API cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags) {
  if (!pDevice || flags != 0) return simrt_ret(cudaErrorInvalidValue);
  SIMRT_NEED_CTX();
  CUdeviceptr p = 0;
  CUresult r = SIMRT_DCALL(DRV0, cuMemHostGetDevicePointer, &p, pHost, 0);
  if (r == CUDA_SUCCESS) *pDevice = (void *)(uintptr_t)p;
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
  if (!devPtr || size == 0) return simrt_ret(cudaErrorInvalidValue);
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
    return simrt_ret(cudaErrorInvalidValue);
  SIMRT_NEED_CTX();
  CUdeviceptr p = 0;
  CUresult r = SIMRT_DCALL(DRV0, cuMemAllocManaged, &p, size, flags);
  if (r == CUDA_SUCCESS) *devPtr = (void *)(uintptr_t)p;
  return simrt_ret_cu(r);
}

static cudaError_t simrt_malloc_async(void **devPtr, size_t size, cudaStream_t s, int ptds) {
  if (!devPtr) return simrt_ret(cudaErrorInvalidValue);
  SIMRT_NEED_CTX();
  CUdeviceptr p = 0;
  CUresult r = SIMRT_DCALL(simrt_drv(ptds), cuMemAllocAsync, &p, size, (CUstream)s);
  if (r == CUDA_SUCCESS) *devPtr = (void *)(uintptr_t)p;
  return simrt_ret_cu(r);
}

static cudaError_t simrt_free_async(void *devPtr, cudaStream_t s, int ptds) {
  SIMRT_NEED_CTX();
  return simrt_ret_cu(
      SIMRT_DCALL(simrt_drv(ptds), cuMemFreeAsync, (CUdeviceptr)(uintptr_t)devPtr, (CUstream)s));
}

SIMRT_API cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream) {
  return simrt_malloc_async(devPtr, size, hStream, 0);
}
cudaError_t cudaMallocAsync_ptsz(void **, size_t, cudaStream_t);
SIMRT_API cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream) {
  return simrt_malloc_async(devPtr, size, hStream, 1);
}
SIMRT_API cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream) {
  return simrt_free_async(devPtr, hStream, 0);
}
cudaError_t cudaFreeAsync_ptsz(void *, cudaStream_t);
SIMRT_API cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream) {
  return simrt_free_async(devPtr, hStream, 1);
}

SIMRT_API cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
  if (!free || !total) return simrt_ret(cudaErrorInvalidValue);
  SIMRT_NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(DRV0, cuMemGetInfo, free, total));
}

SIMRT_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                               const void *ptr) {
  if (!attributes) return simrt_ret(cudaErrorInvalidValue);
  SIMRT_NEED_CTX();
  CUmemorytype type = 0;
  int ordinal = -2, managed = 0;
  CUdeviceptr dptr = 0;
  void *hptr = NULL;
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 CU_POINTER_ATTRIBUTE_DEVICE_POINTER};
  void *data[] = {&type, &ordinal, &managed, &dptr};
  CUresult r = SIMRT_DCALL(DRV0, cuPointerGetAttributes, 4, which, data,
                           (CUdeviceptr)(uintptr_t)ptr);
  /* The host alias is asked for only where one exists: device memory has none. */
  if (r == CUDA_SUCCESS && (managed || type == CU_MEMORYTYPE_HOST)) {
    CUpointer_attribute hw = CU_POINTER_ATTRIBUTE_HOST_POINTER;
    void *hd = &hptr;
    r = SIMRT_DCALL(DRV0, cuPointerGetAttributes, 1, &hw, &hd, (CUdeviceptr)(uintptr_t)ptr);
  }
  /* CUDA 11+: a pointer the driver does not know is "unregistered", not an error. */
  if (r == CUDA_ERROR_INVALID_VALUE && ptr && type == 0) {
    managed = 0;
  } else if (r != CUDA_SUCCESS) {
    return simrt_ret_cu(r);
  }
  struct cudaPointerAttributes a = {0};
  if (managed) a.type = cudaMemoryTypeManaged;
  else if (type == CU_MEMORYTYPE_DEVICE) a.type = cudaMemoryTypeDevice;
  else if (type == CU_MEMORYTYPE_HOST) a.type = cudaMemoryTypeHost;
  else a.type = cudaMemoryTypeUnregistered;
  /* Memory the driver does not know: no device, no aliases (CUDA 11+ semantics). */
  a.device = a.type == cudaMemoryTypeUnregistered ? -2 : ordinal;
  a.devicePointer = a.type == cudaMemoryTypeUnregistered ? NULL : (void *)(uintptr_t)dptr;
  a.hostPointer = a.type == cudaMemoryTypeUnregistered ? (void *)ptr : hptr;
  *attributes = a;
  return cudaSuccess;
}

/* The device's memory pool (the simulator has the default one); cudaMemPoolAttr
 * values are the driver's CUmemPool_attribute. */
static cudaError_t simrt_get_pool(cudaMemPool_t *pool, int device, bool current) {
  if (!pool) return simrt_ret(cudaErrorInvalidValue);
  cudaError_t e = simrt_init();
  if (e != cudaSuccess) return simrt_ret(e);
  CUdevice cudev;
  CUresult r = SIMRT_DCALL(DRV0, cuDeviceGet, &cudev, device);
  if (r == CUDA_ERROR_INVALID_DEVICE || r == CUDA_ERROR_INVALID_VALUE) return simrt_ret(cudaErrorInvalidDevice);
  if (r == CUDA_SUCCESS)
    r = current ? SIMRT_DCALL(DRV0, cuDeviceGetMemPool, (CUmemoryPool *)pool, cudev)
                : SIMRT_DCALL(DRV0, cuDeviceGetDefaultMemPool, (CUmemoryPool *)pool, cudev);
  return simrt_ret_cu(r);
}
SIMRT_API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device) {
  return simrt_get_pool(pool, device, false);
}
SIMRT_API cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device) { return simrt_get_pool(pool, device, true); }
SIMRT_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
  SIMRT_NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(DRV0, cuMemPoolSetAttribute, (CUmemoryPool)pool, (CUmemPool_attribute)attr, value));
}
SIMRT_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
  SIMRT_NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(DRV0, cuMemPoolGetAttribute, (CUmemoryPool)pool, (CUmemPool_attribute)attr, value));
}
SIMRT_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t minBytesToKeep) {
  SIMRT_NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(DRV0, cuMemPoolTrimTo, (CUmemoryPool)pool, minBytesToKeep));
}
