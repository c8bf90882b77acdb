/* ops_vmm.c: the virtual memory management API (cuMemCreate, cuMemMap,
 * cuMemSetAccess, cuMemUnmap, shareable handles). What is mapped is followed in
 * mappings.c; protection follows runs of accessible mappings (policy/vmm.c). */
#include "engine.h"
#include "hooks.h"

CUresult ft_on_cuMemCreate(CUmemGenericAllocationHandle *h, size_t size,
                           const CUmemAllocationProp *prop, unsigned long long flags) {
  CUresult r = ft_real.cuMemCreate(h, size, prop, flags);
  if (r != CUDA_SUCCESS || !h || !prop) return r;
  ft_lock();
  /* host memory: the CPU writes it without a call gpuft sees */
  ft_vmm_created(*h, prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE);
  ft_unlock();
  return r;
}

CUresult ft_on_cuMemRelease(CUmemGenericAllocationHandle h) {
  CUresult r = ft_real.cuMemRelease(h);
  if (r != CUDA_SUCCESS) return r;
  ft_lock();
  ft_vmm_released(h);
  ft_unlock();
  return r;
}

CUresult ft_on_cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h, void *os,
                                              CUmemAllocationHandleType type) {
  CUresult r = ft_real.cuMemImportFromShareableHandle(h, os, type);
  if (r != CUDA_SUCCESS || !h) return r;
  ft_lock();
  ft_vmm_shared(*h);
  ft_unlock();
  return r;
}

CUresult ft_on_cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *addr) {
  CUresult r = ft_real.cuMemRetainAllocationHandle(h, addr);
  if (r != CUDA_SUCCESS || !h) return r;
  ft_lock();
  ft_vmm_retained(*h, (CUdeviceptr)(uintptr_t)addr);
  ft_unlock();
  return r;
}

/* Another process may write exported memory: every run showing it leaves
 * protection (all runs are formed again: rare). */
CUresult ft_on_cuMemExportToShareableHandle(void *sh, CUmemGenericAllocationHandle h,
                                            CUmemAllocationHandleType type,
                                            unsigned long long flags) {
  int t = ft_vmm_change_begin(0, 0);
  CUresult r = ft_real.cuMemExportToShareableHandle(sh, h, type, flags);
  if (r == CUDA_SUCCESS) {
    ft_lock();
    ft_vmm_shared(h);
    ft_unlock();
  }
  ft_vmm_change_end(t, 0, 0, r == CUDA_SUCCESS);
  return r;
}

/* A new mapping is not accessible until cuMemSetAccess: it changes no run, unless
 * its physical memory is mapped elsewhere already (then writes through one mapping
 * would be unseen in the other: every run is formed again, those leave protection). */
CUresult ft_on_cuMemMap(CUdeviceptr ptr, size_t size, size_t off, CUmemGenericAllocationHandle h,
                        unsigned long long flags) {
  ft_lock();
  int twice = ft_vmm_is_mapped(h);
  ft_unlock();
  int t = twice ? ft_vmm_change_begin(0, 0) : 0;
  CUresult r = ft_real.cuMemMap(ptr, size, off, h, flags);
  if (r == CUDA_SUCCESS) {
    ft_lock();
    if (ft_vmm_mapped(ptr, size, off, h) != 0)
      FT_WARN_CAPPED(1, "out of memory following VMM mappings: a mapping is not protected");
    ft_unlock();
  }
  if (twice) ft_vmm_change_end(t, 0, 0, r == CUDA_SUCCESS);
  return r;
}

CUresult ft_on_cuMemUnmap(CUdeviceptr ptr, size_t size) {
  int t = ft_vmm_change_begin(ptr, size);
  CUresult r = ft_real.cuMemUnmap(ptr, size);
  if (r == CUDA_SUCCESS) {
    ft_lock();
    ft_vmm_unmapped(ptr, size);
    ft_unlock();
  }
  ft_vmm_change_end(t, ptr, size, r == CUDA_SUCCESS);
  return r;
}

/* What the call gives the current context's device: 1 read-write, 0 less, -1 not
 * named (unchanged). */
static int access_here(const CUmemAccessDesc *desc, size_t count) {
  CUdevice dev = -1;
  if (!desc || !ft_drv.cuCtxGetDevice || ft_drv.cuCtxGetDevice(&dev) != CUDA_SUCCESS) return -1;
  int here = -1;
  for (size_t i = 0; i < count; i++)
    if (desc[i].location.type == CU_MEM_LOCATION_TYPE_DEVICE && desc[i].location.id == dev)
      here = desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return here;
}

CUresult ft_on_cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                              size_t count) {
  int here = access_here(desc, count);
  if (here < 0) return ft_real.cuMemSetAccess(ptr, size, desc, count);
  int t = ft_vmm_change_begin(ptr, size);
  CUresult r = ft_real.cuMemSetAccess(ptr, size, desc, count);
  if (r == CUDA_SUCCESS) {
    ft_lock();
    ft_vmm_access(ptr, size, here);
    ft_unlock();
  }
  ft_vmm_change_end(t, ptr, size, r == CUDA_SUCCESS);
  return r;
}
