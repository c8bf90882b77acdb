/* memapi.c: the memory entry points (cuMemAlloc, cuMemFree, pinned, registered and
 * managed memory, pointer attributes): the current context, then the allocator (mem/). */
#include <stdint.h>
#include <string.h>

#include "api.h"
#include "graph.h" /* the capture modes (cuMemAlloc and cuMemFree are unsafe during capture); graph memory */

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r || (r = sim_capture_check_unsafe("cuMemAlloc"))) return r;
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  uint64_t p;
  r = sim_mem_alloc_device(ctx, ctx->dev, bytesize, &p);
  if (r == CUDA_SUCCESS) *dptr = p;
  return r;
}

CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height, unsigned elem) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!dptr || !pitch || !width || !height) return CUDA_ERROR_INVALID_VALUE;
  if (elem != 4 && elem != 8 && elem != 16) return CUDA_ERROR_INVALID_VALUE;
  size_t p = (width + 511) & ~(size_t)511; /* the texture pitch alignment */
  if (height > SIZE_MAX / p) return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t d;
  r = sim_mem_alloc_device(ctx, ctx->dev, p * height, &d);
  if (r) return r;
  *dptr = d;
  *pitch = p;
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r || (r = sim_capture_check_unsafe("cuMemFree"))) return r;
  if (dptr == 0) return CUDA_SUCCESS; /* free(NULL) semantics, as the real driver */
  if (sim_gmem_find(dptr)) {
    /* graph memory a launch allocated, freed outside any graph: after the work
     * queued so far (NVIDIA's graphMemoryNodes frees it with cudaFree) */
    sim_ctx_sync(ctx);
    sim_stream_t *s;
    if ((r = sim_stream_get(ctx, NULL, 0, &s))) return r;
    r = sim_gmem_release(dptr, s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; /* (not allocated now) */
    sim_obj_unref(&s->obj);
    return r;
  }
  sim_alloc_t a;
  if (!sim_mem_find(dptr, 0, &a) || a.base != dptr || a.freeing || a.vmm || a.ipc ||
      (a.kind != SIM_MEM_DEVICE && a.kind != SIM_MEM_MANAGED))
    return CUDA_ERROR_INVALID_VALUE;
  /* cuMemFree synchronises: work already queued may still use the memory. */
  sim_ctx_sync(a.ctx);
  if (a.kind == SIM_MEM_DEVICE) {
    sim_pool_released(dptr);
    return sim_mem_free_device(dptr, false);
  }
  return sim_mem_free_managed(dptr);
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!dptr || !bytesize) return CUDA_ERROR_INVALID_VALUE;
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) return CUDA_ERROR_INVALID_VALUE;
  void *p;
  r = sim_mem_alloc_host(ctx, ctx->dev, bytesize, SIM_MEM_MANAGED, flags, &p);
  if (r == CUDA_SUCCESS) *dptr = (CUdeviceptr)(uintptr_t)p;
  return r;
}

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!free_bytes || !total) return CUDA_ERROR_INVALID_VALUE;
  size_t u = sim_mem_used(ctx->dev);
  *total = sim_mem_total();
  *free_bytes = *total - u;
  return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  sim_alloc_t a;
  if (!sim_mem_find(dptr, 0, &a) || a.kind == SIM_MEM_REGISTERED) return CUDA_ERROR_NOT_FOUND;
  if (pbase) *pbase = a.base;
  if (psize) *psize = a.size;
  return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!pp || !bytesize) return CUDA_ERROR_INVALID_VALUE;
  if ((r = sim_capture_check_unsafe("cuMemAllocHost"))) return r;
  return sim_mem_alloc_host(ctx, ctx->dev, bytesize, SIM_MEM_HOST, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP, pp);
}

CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int flags) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!pp || !bytesize) return CUDA_ERROR_INVALID_VALUE;
  if (flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED))
    return CUDA_ERROR_INVALID_VALUE;
  if ((r = sim_capture_check_unsafe("cuMemHostAlloc"))) return r;
  /* With unified addressing every pinned allocation is mapped. */
  return sim_mem_alloc_host(ctx, ctx->dev, bytesize, SIM_MEM_HOST, flags | CU_MEMHOSTALLOC_DEVICEMAP, pp);
}

CUresult cuMemFreeHost(void *p) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!p) return CUDA_SUCCESS;
  uint64_t u = (uint64_t)(uintptr_t)p;
  sim_alloc_t a;
  if (!sim_mem_find(u, 0, &a) || a.base != u || a.kind != SIM_MEM_HOST) return CUDA_ERROR_INVALID_VALUE;
  if ((r = sim_capture_check_unsafe("cuMemFreeHost"))) return r;
  sim_ctx_sync(a.ctx); /* queued copies may still read or write it */
  return sim_mem_free_host(u);
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int flags) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!pdptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  sim_alloc_t a;
  if (!sim_mem_find((uint64_t)(uintptr_t)p, 0, &a) || a.kind == SIM_MEM_DEVICE || a.kind == SIM_MEM_MANAGED)
    return CUDA_ERROR_INVALID_VALUE;
  if (a.kind == SIM_MEM_REGISTERED && !(a.flags & CU_MEMHOSTREGISTER_DEVICEMAP))
    return CUDA_ERROR_INVALID_VALUE;
  *pdptr = (CUdeviceptr)(uintptr_t)p; /* unified addressing: same address */
  return CUDA_SUCCESS;
}

CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!pFlags) return CUDA_ERROR_INVALID_VALUE;
  sim_alloc_t a;
  if (!sim_mem_find((uint64_t)(uintptr_t)p, 0, &a) || a.kind != SIM_MEM_HOST) return CUDA_ERROR_INVALID_VALUE;
  *pFlags = a.flags;
  return CUDA_SUCCESS;
}

CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int flags) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!p || !bytesize) return CUDA_ERROR_INVALID_VALUE;
  unsigned known = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_IOMEMORY |
                   CU_MEMHOSTREGISTER_READ_ONLY;
  if (flags & ~known) return CUDA_ERROR_INVALID_VALUE;
  if (flags & CU_MEMHOSTREGISTER_IOMEMORY) return CUDA_ERROR_NOT_SUPPORTED;
  if ((r = sim_capture_check_unsafe("cuMemHostRegister"))) return r; /* (vLLM met this) */
  uint64_t u = (uint64_t)(uintptr_t)p;
  if (sim_mem_in_device_range(u) || sim_mem_in_device_range(u + bytesize - 1)) return CUDA_ERROR_INVALID_VALUE;
  sim_alloc_t a = {.base = u, .size = bytesize, .kind = SIM_MEM_REGISTERED, .dev = ctx->dev,
                   .flags = flags | CU_MEMHOSTREGISTER_DEVICEMAP, .ctx = ctx};
  return sim_mem_register(&a) ? CUDA_SUCCESS : CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
}

CUresult cuMemHostUnregister(void *p) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  uint64_t u = (uint64_t)(uintptr_t)p;
  sim_alloc_t a;
  if (!sim_mem_find(u, 0, &a) || a.base != u || a.kind != SIM_MEM_REGISTERED)
    return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  if ((r = sim_capture_check_unsafe("cuMemHostUnregister"))) return r;
  sim_ctx_sync(a.ctx);
  return sim_mem_unregister(u) ? CUDA_SUCCESS : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

/* ---- pointer attributes ---- */
static CUresult pointer_attr(void *data, CUpointer_attribute attr, CUdeviceptr ptr, const sim_alloc_t *a) {
  bool found = a != NULL;
  bool dev = found && a->kind == SIM_MEM_DEVICE;
  switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(CUcontext *)data = (CUcontext)a->ctx;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(unsigned *)data = dev ? CU_MEMORYTYPE_DEVICE
                              : a->kind == SIM_MEM_MANAGED ? CU_MEMORYTYPE_UNIFIED : CU_MEMORYTYPE_HOST;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(CUdeviceptr *)data = ptr;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      if (!found || dev) return CUDA_ERROR_INVALID_VALUE;
      *(void **)data = (void *)(uintptr_t)ptr;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(unsigned *)data = a->kind == SIM_MEM_MANAGED;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(int *)data = a->dev;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(CUdeviceptr *)data = a->base;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(size_t *)data = a->size;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(int *)data = 1;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(unsigned long long *)data = a->base;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(int *)data = 1;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(int *)data = 0;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
      if (!found) return CUDA_ERROR_INVALID_VALUE;
      *(CUmemoryPool *)data = NULL;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  SIM_CHECK_INIT();
  if (!data) return CUDA_ERROR_INVALID_VALUE;
  sim_alloc_t a;
  bool found = sim_mem_find(ptr, 0, &a);
  return pointer_attr(data, attribute, ptr, found ? &a : NULL);
}

/* Unlike the single query, this one reports unknown pointers as host memory the
 * driver does not know (zeros / NULL) instead of failing. */
CUresult cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs, void **data, CUdeviceptr ptr) {
  SIM_CHECK_INIT();
  if (!attrs || !data) return CUDA_ERROR_INVALID_VALUE;
  sim_alloc_t a;
  bool found = sim_mem_find(ptr, 0, &a);
  for (unsigned i = 0; i < n; i++) {
    if (!data[i]) return CUDA_ERROR_INVALID_VALUE;
    if (found) {
      /* What does not apply to this memory reads as the default (NULL), not an
       * error, in the plural query. */
      if (attrs[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER && a.kind == SIM_MEM_DEVICE) {
        *(void **)data[i] = NULL;
        continue;
      }
      CUresult r = pointer_attr(data[i], attrs[i], ptr, &a);
      if (r) return r;
      continue;
    }
    switch (attrs[i]) {
      case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data[i] = NULL; break;
      case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)data[i] = 0; break;
      case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data[i] = 0; break;
      case CU_POINTER_ATTRIBUTE_HOST_POINTER: *(void **)data[i] = NULL; break;
      case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data[i] = -2; break;
      case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data[i] = 0; break;
      case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data[i] = 0; break;
      case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data[i] = 0; break;
      case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(CUmemoryPool *)data[i] = NULL; break;
      case CU_POINTER_ATTRIBUTE_IS_MANAGED: case CU_POINTER_ATTRIBUTE_MAPPED:
      case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        *(unsigned *)data[i] = 0; break;
      default: return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}
