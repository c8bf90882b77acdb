/* memcpy.c: cudaMemcpy*, cudaMemset* (1-D and 2-D, sync and async, legacy and
 * per-thread default stream). A copy direction maps to the driver call of that
 * direction, so the driver checks that each side really is what the kind claims. */
#include <stdint.h>
#include <string.h>

#include "simrt.h"

#define DP(p) ((CUdeviceptr)(uintptr_t)(p))

static cudaError_t simrt_memcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                                cudaStream_t s, bool async, int ptds) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  if ((unsigned)kind > cudaMemcpyDefault) return simrt_ret(cudaErrorInvalidMemcpyDirection);
  if (n == 0) return cudaSuccess;
  if (!dst || !src) return simrt_ret(cudaErrorInvalidValue);
  const simrt_drv_t *d = simrt_drv(ptds);
  CUstream cs = (CUstream)s;
  CUresult r;
  switch (kind) {
    case cudaMemcpyHostToDevice:
      r = async ? SIMRT_DCALL(d, cuMemcpyHtoDAsync, DP(dst), src, n, cs)
                : SIMRT_DCALL(d, cuMemcpyHtoD, DP(dst), src, n);
      break;
    case cudaMemcpyDeviceToHost:
      r = async ? SIMRT_DCALL(d, cuMemcpyDtoHAsync, dst, DP(src), n, cs)
                : SIMRT_DCALL(d, cuMemcpyDtoH, dst, DP(src), n);
      break;
    case cudaMemcpyDeviceToDevice:
      r = async ? SIMRT_DCALL(d, cuMemcpyDtoDAsync, DP(dst), DP(src), n, cs)
                : SIMRT_DCALL(d, cuMemcpyDtoD, DP(dst), DP(src), n);
      break;
    default: /* HostToHost and Default: unified addressing lets the driver infer. */
      r = async ? SIMRT_DCALL(d, cuMemcpyAsync, DP(dst), DP(src), n, cs)
                : SIMRT_DCALL(d, cuMemcpy, DP(dst), DP(src), n);
      break;
  }
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                                 enum cudaMemcpyKind kind) {
  return simrt_memcpy(dst, src, count, kind, NULL, false, 0);
}
cudaError_t cudaMemcpy_ptds(void *, const void *, size_t, enum cudaMemcpyKind);
SIMRT_API cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
                                      enum cudaMemcpyKind kind) {
  return simrt_memcpy(dst, src, count, kind, NULL, false, 1);
}
SIMRT_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
  return simrt_memcpy(dst, src, count, kind, stream, true, 0);
}
cudaError_t cudaMemcpyAsync_ptsz(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
SIMRT_API cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                           enum cudaMemcpyKind kind, cudaStream_t stream) {
  return simrt_memcpy(dst, src, count, kind, stream, true, 1);
}

/* Memory type of one side of a 2-D copy, from the copy kind. */
static CUmemorytype simrt_side(enum cudaMemcpyKind kind, bool is_dst) {
  switch (kind) {
    case cudaMemcpyHostToHost: return CU_MEMORYTYPE_HOST;
    case cudaMemcpyHostToDevice: return is_dst ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    case cudaMemcpyDeviceToHost: return is_dst ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    case cudaMemcpyDeviceToDevice: return CU_MEMORYTYPE_DEVICE;
    default: return CU_MEMORYTYPE_UNIFIED;
  }
}

static void simrt_set_side(CUDA_MEMCPY2D *c, bool is_dst, CUmemorytype t, const void *p,
                           size_t pitch) {
  if (is_dst) {
    c->dstMemoryType = t;
    c->dstPitch = pitch;
    if (t == CU_MEMORYTYPE_HOST) c->dstHost = (void *)p;
    else c->dstDevice = DP(p);
  } else {
    c->srcMemoryType = t;
    c->srcPitch = pitch;
    if (t == CU_MEMORYTYPE_HOST) c->srcHost = p;
    else c->srcDevice = DP(p);
  }
}

static cudaError_t simrt_memcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                                  size_t width, size_t height, enum cudaMemcpyKind kind,
                                  cudaStream_t s, bool async, int ptds) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  if ((unsigned)kind > cudaMemcpyDefault) return simrt_ret(cudaErrorInvalidMemcpyDirection);
  if (width == 0 || height == 0) return cudaSuccess;
  if (width > dpitch || width > spitch) return simrt_ret(cudaErrorInvalidPitchValue);
  if (!dst || !src) return simrt_ret(cudaErrorInvalidValue);
  CUDA_MEMCPY2D c;
  memset(&c, 0, sizeof c);
  simrt_set_side(&c, true, simrt_side(kind, true), dst, dpitch);
  simrt_set_side(&c, false, simrt_side(kind, false), src, spitch);
  c.WidthInBytes = width;
  c.Height = height;
  const simrt_drv_t *d = simrt_drv(ptds);
  CUresult r = async ? SIMRT_DCALL(d, cuMemcpy2DAsync, &c, (CUstream)s)
                     : SIMRT_DCALL(d, cuMemcpy2D, &c);
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                   size_t width, size_t height, enum cudaMemcpyKind kind) {
  return simrt_memcpy2d(dst, dpitch, src, spitch, width, height, kind, NULL, false, 0);
}
cudaError_t cudaMemcpy2D_ptds(void *, size_t, const void *, size_t, size_t, size_t,
                              enum cudaMemcpyKind);
SIMRT_API cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src,
                                        size_t spitch, size_t width, size_t height,
                                        enum cudaMemcpyKind kind) {
  return simrt_memcpy2d(dst, dpitch, src, spitch, width, height, kind, NULL, false, 1);
}
SIMRT_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                        size_t spitch, size_t width, size_t height,
                                        enum cudaMemcpyKind kind, cudaStream_t stream) {
  return simrt_memcpy2d(dst, dpitch, src, spitch, width, height, kind, stream, true, 0);
}
cudaError_t cudaMemcpy2DAsync_ptsz(void *, size_t, const void *, size_t, size_t, size_t,
                                   enum cudaMemcpyKind, cudaStream_t);
SIMRT_API cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
                                             size_t spitch, size_t width, size_t height,
                                             enum cudaMemcpyKind kind, cudaStream_t stream) {
  return simrt_memcpy2d(dst, dpitch, src, spitch, width, height, kind, stream, true, 1);
}

static cudaError_t simrt_memset(void *p, int value, size_t n, cudaStream_t s, bool async,
                                int ptds) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  if (n == 0) return cudaSuccess;
  const simrt_drv_t *d = simrt_drv(ptds);
  unsigned char v = (unsigned char)value;
  CUresult r = async ? SIMRT_DCALL(d, cuMemsetD8Async, DP(p), v, n, (CUstream)s)
                     : SIMRT_DCALL(d, cuMemsetD8, DP(p), v, n);
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  return simrt_memset(devPtr, value, count, NULL, false, 0);
}
cudaError_t cudaMemset_ptds(void *, int, size_t);
SIMRT_API cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) {
  return simrt_memset(devPtr, value, count, NULL, false, 1);
}
SIMRT_API cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                                      cudaStream_t stream) {
  return simrt_memset(devPtr, value, count, stream, true, 0);
}
cudaError_t cudaMemsetAsync_ptsz(void *, int, size_t, cudaStream_t);
SIMRT_API cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count,
                                           cudaStream_t stream) {
  return simrt_memset(devPtr, value, count, stream, true, 1);
}

static cudaError_t simrt_memset2d(void *p, size_t pitch, int value, size_t w, size_t h,
                                  cudaStream_t s, bool async, int ptds) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  if (w == 0 || h == 0) return cudaSuccess;
  if (w > pitch && h > 1) return simrt_ret(cudaErrorInvalidPitchValue);
  const simrt_drv_t *d = simrt_drv(ptds);
  unsigned char v = (unsigned char)value;
  CUresult r = async ? SIMRT_DCALL(d, cuMemsetD2D8Async, DP(p), pitch, v, w, h, (CUstream)s)
                     : SIMRT_DCALL(d, cuMemsetD2D8, DP(p), pitch, v, w, h);
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                   size_t height) {
  return simrt_memset2d(devPtr, pitch, value, width, height, NULL, false, 0);
}
cudaError_t cudaMemset2D_ptds(void *, size_t, int, size_t, size_t);
SIMRT_API cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width,
                                        size_t height) {
  return simrt_memset2d(devPtr, pitch, value, width, height, NULL, false, 1);
}
SIMRT_API cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                        size_t height, cudaStream_t stream) {
  return simrt_memset2d(devPtr, pitch, value, width, height, stream, true, 0);
}
cudaError_t cudaMemset2DAsync_ptsz(void *, size_t, int, size_t, size_t, cudaStream_t);
SIMRT_API cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value,
                                             size_t width, size_t height, cudaStream_t stream) {
  return simrt_memset2d(devPtr, pitch, value, width, height, stream, true, 1);
}
