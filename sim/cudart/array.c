/* array.c: CUDA arrays, 3-D copies, texture and surface objects in the runtime
 * (cudaMallocArray, cudaMalloc3DArray, cudaFreeArray, cudaArrayGetInfo,
 * cudaMemcpy2DToArray/FromArray, cudaMemcpy3D, cudaCreateTextureObject,
 * cudaCreateSurfaceObject and their destroy and query calls): each translated to
 * the driver's descriptors and entry points, which do the checking. */
#include <stdint.h>
#include <string.h>

#include "simrt.h"

#define DP(p) ((CUdeviceptr)(uintptr_t)(p))

/* ---- channel descriptions and array formats ---- */
static const struct {
  enum cudaChannelFormatKind kind;
  int bits;
  CUarray_format fmt;
} simrt_formats[] = {
    {cudaChannelFormatKindUnsigned, 8, CU_AD_FORMAT_UNSIGNED_INT8},
    {cudaChannelFormatKindUnsigned, 16, CU_AD_FORMAT_UNSIGNED_INT16},
    {cudaChannelFormatKindUnsigned, 32, CU_AD_FORMAT_UNSIGNED_INT32},
    {cudaChannelFormatKindSigned, 8, CU_AD_FORMAT_SIGNED_INT8},
    {cudaChannelFormatKindSigned, 16, CU_AD_FORMAT_SIGNED_INT16},
    {cudaChannelFormatKindSigned, 32, CU_AD_FORMAT_SIGNED_INT32},
    {cudaChannelFormatKindFloat, 16, CU_AD_FORMAT_HALF},
    {cudaChannelFormatKindFloat, 32, CU_AD_FORMAT_FLOAT},
};

/* What the header's cudaCreateChannelDesc<T> templates call. */
SIMRT_API struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                             enum cudaChannelFormatKind f) {
  return (struct cudaChannelFormatDesc){x, y, z, w, f};
}

/* The driver's format and channel count of a channel description: channels of
 * one size, x first, 1, 2 or 4 of them; false otherwise. */
static bool simrt_format_of(const struct cudaChannelFormatDesc *d, CUarray_format *f, unsigned *ch) {
  int b[4] = {d->x, d->y, d->z, d->w};
  unsigned n = 0;
  while (n < 4 && b[n]) n++;
  for (unsigned i = n; i < 4; i++)
    if (b[i]) return false;
  for (unsigned i = 1; i < n; i++)
    if (b[i] != b[0]) return false;
  if (n != 1 && n != 2 && n != 4) return false;
  for (size_t i = 0; i < sizeof simrt_formats / sizeof simrt_formats[0]; i++)
    if (simrt_formats[i].kind == d->f && simrt_formats[i].bits == b[0]) {
      *f = simrt_formats[i].fmt;
      *ch = n;
      return true;
    }
  return false;
}

/* Bytes per element of an array (0 for a handle the driver does not know). */
static size_t simrt_elem_of(cudaArray_const_t a, CUDA_ARRAY3D_DESCRIPTOR *d) {
  if (SIMRT_DCALL(simrt_drv(0), cuArray3DGetDescriptor, d, (CUarray)(uintptr_t)a) != CUDA_SUCCESS) return 0;
  for (size_t i = 0; i < sizeof simrt_formats / sizeof simrt_formats[0]; i++)
    if (simrt_formats[i].fmt == d->Format) return (size_t)simrt_formats[i].bits / 8 * d->NumChannels;
  return 0;
}

/* ---- arrays ---- */
SIMRT_API cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                        struct cudaExtent extent, unsigned int flags) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  if (!array || !desc) return simrt_ret(cudaErrorInvalidValue);
  CUDA_ARRAY3D_DESCRIPTOR d = {extent.width, extent.height, extent.depth, 0, 0, flags};
  if (!simrt_format_of(desc, &d.Format, &d.NumChannels)) return simrt_ret(cudaErrorInvalidChannelDescriptor);
  CUarray a;
  CUresult r = SIMRT_DCALL(simrt_drv(0), cuArray3DCreate, &a, &d);
  if (r == CUDA_SUCCESS) *array = (cudaArray_t)a;
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                                      size_t height, unsigned int flags) {
  return cudaMalloc3DArray(array, desc, (struct cudaExtent){width, height, 0}, flags);
}

SIMRT_API cudaError_t cudaFreeArray(cudaArray_t array) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  if (!array) return cudaSuccess; /* "If array is 0, no operation is performed" */
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuArrayDestroy, (CUarray)array));
}

SIMRT_API cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                                       unsigned int *flags, cudaArray_t array) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  CUDA_ARRAY3D_DESCRIPTOR d;
  size_t es = simrt_elem_of(array, &d);
  if (!es) return simrt_ret(cudaErrorInvalidResourceHandle);
  if (desc) {
    int bits = (int)(es / d.NumChannels * 8);
    memset(desc, 0, sizeof *desc);
    desc->x = bits;
    desc->y = d.NumChannels > 1 ? bits : 0;
    desc->z = desc->w = d.NumChannels > 2 ? bits : 0;
    for (size_t i = 0; i < sizeof simrt_formats / sizeof simrt_formats[0]; i++)
      if (simrt_formats[i].fmt == d.Format) desc->f = simrt_formats[i].kind;
  }
  if (extent) *extent = (struct cudaExtent){d.Width, d.Height, d.Depth};
  if (flags) *flags = d.Flags;
  return cudaSuccess;
}

/* ---- 3-D copies (and the 2-D ones to and from arrays, which are 3-D copies of depth 1) ---- */
/* One side of a copy: an array (offsets in elements, x scaled here) or a pitched
 * pointer whose memory type the copy kind gives (as cudaMemcpy2D does). */
static cudaError_t simrt_side3d(cudaArray_const_t arr, struct cudaPos pos, struct cudaPitchedPtr ptr,
                                enum cudaMemcpyKind kind, bool is_dst, CUmemorytype *type, const void **host,
                                CUdeviceptr *dev, CUarray *array, size_t *x, size_t *y, size_t *z, size_t *pitch,
                                size_t *height, size_t *elem) {
  *x = pos.x, *y = pos.y, *z = pos.z;
  if (arr) {
    CUDA_ARRAY3D_DESCRIPTOR d;
    if (!(*elem = simrt_elem_of(arr, &d))) return cudaErrorInvalidValue;
    *type = CU_MEMORYTYPE_ARRAY;
    *array = (CUarray)(uintptr_t)arr;
    *x *= *elem;
    return cudaSuccess;
  }
  if (!ptr.ptr) return cudaErrorInvalidValue;
  bool host_side = kind == cudaMemcpyHostToHost || (kind == cudaMemcpyHostToDevice && !is_dst) ||
                   (kind == cudaMemcpyDeviceToHost && is_dst);
  bool dev_side = kind == cudaMemcpyDeviceToDevice || (kind == cudaMemcpyHostToDevice && is_dst) ||
                  (kind == cudaMemcpyDeviceToHost && !is_dst);
  *type = host_side ? CU_MEMORYTYPE_HOST : dev_side ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_UNIFIED;
  if (host_side) *host = ptr.ptr;
  else *dev = DP(ptr.ptr);
  *pitch = ptr.pitch;
  *height = ptr.ysize;
  return cudaSuccess;
}

static cudaError_t simrt_memcpy3d(const struct cudaMemcpy3DParms *p, cudaStream_t s, bool async, int ptds) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  if (!p || (unsigned)p->kind > cudaMemcpyDefault) return simrt_ret(p ? cudaErrorInvalidMemcpyDirection : cudaErrorInvalidValue);
  if ((p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr)) return simrt_ret(cudaErrorInvalidValue);
  CUDA_MEMCPY3D c;
  memset(&c, 0, sizeof c);
  size_t se = 1, de = 1;
  if ((e = simrt_side3d(p->srcArray, p->srcPos, p->srcPtr, p->kind, false, &c.srcMemoryType, &c.srcHost,
                        &c.srcDevice, &c.srcArray, &c.srcXInBytes, &c.srcY, &c.srcZ, &c.srcPitch, &c.srcHeight,
                        &se)) ||
      (e = simrt_side3d(p->dstArray, p->dstPos, p->dstPtr, p->kind, true, &c.dstMemoryType, (const void **)&c.dstHost,
                        &c.dstDevice, &c.dstArray, &c.dstXInBytes, &c.dstY, &c.dstZ, &c.dstPitch, &c.dstHeight,
                        &de)))
    return simrt_ret(e);
  /* The extent's width is in elements when an array takes part, in bytes otherwise. */
  c.WidthInBytes = p->extent.width * (p->srcArray ? se : de);
  c.Height = p->extent.height;
  c.Depth = p->extent.depth;
  if (!c.WidthInBytes || !c.Height || !c.Depth) return cudaSuccess;
  const simrt_drv_t *d = simrt_drv(ptds);
  CUresult r = async ? SIMRT_DCALL(d, cuMemcpy3DAsync, &c, (CUstream)s) : SIMRT_DCALL(d, cuMemcpy3D, &c);
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) { return simrt_memcpy3d(p, NULL, false, 0); }
cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *);
SIMRT_API cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p) { return simrt_memcpy3d(p, NULL, false, 1); }
SIMRT_API cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t s) {
  return simrt_memcpy3d(p, s, true, 0);
}
cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *, cudaStream_t);
SIMRT_API cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t s) {
  return simrt_memcpy3d(p, s, true, 1);
}

/* A 2-D copy to or from an array: offsets in bytes (x) and rows, width in bytes. */
static cudaError_t simrt_memcpy2d_array(cudaArray_const_t arr, size_t woff, size_t hoff, void *ptr, size_t pitch,
                                        size_t width, size_t height, enum cudaMemcpyKind kind, bool to_array,
                                        cudaStream_t s, bool async, int ptds) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  CUDA_ARRAY3D_DESCRIPTOR d;
  size_t es = simrt_elem_of(arr, &d);
  if (!es) return simrt_ret(cudaErrorInvalidResourceHandle);
  if (width > pitch) return simrt_ret(cudaErrorInvalidPitchValue);
  if (woff % es || width % es) return simrt_ret(cudaErrorInvalidValue);
  struct cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  struct cudaPos at = {woff / es, hoff, 0};
  struct cudaPitchedPtr pp = {ptr, pitch, width, height};
  if (to_array) p.dstArray = (cudaArray_t)arr, p.dstPos = at, p.srcPtr = pp;
  else p.srcArray = (cudaArray_t)arr, p.srcPos = at, p.dstPtr = pp;
  p.extent = (struct cudaExtent){width / es, height, 1};
  p.kind = kind;
  return simrt_memcpy3d(&p, s, async, ptds);
}

SIMRT_API cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                          size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind) {
  return simrt_memcpy2d_array(dst, wOffset, hOffset, (void *)src, spitch, width, height, kind, true, NULL, false, 0);
}
SIMRT_API cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                               size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                               cudaStream_t s) {
  return simrt_memcpy2d_array(dst, wOffset, hOffset, (void *)src, spitch, width, height, kind, true, s, true, 0);
}
SIMRT_API cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                            size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind) {
  return simrt_memcpy2d_array(src, wOffset, hOffset, dst, dpitch, width, height, kind, false, NULL, false, 0);
}
SIMRT_API cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                                 size_t hOffset, size_t width, size_t height,
                                                 enum cudaMemcpyKind kind, cudaStream_t s) {
  return simrt_memcpy2d_array(src, wOffset, hOffset, dst, dpitch, width, height, kind, false, s, true, 0);
}
cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t, size_t, size_t, const void *, size_t, size_t, size_t,
                                     enum cudaMemcpyKind);
SIMRT_API cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                               size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind) {
  return simrt_memcpy2d_array(dst, wOffset, hOffset, (void *)src, spitch, width, height, kind, true, NULL, false, 1);
}
cudaError_t cudaMemcpy2DFromArray_ptds(void *, size_t, cudaArray_const_t, size_t, size_t, size_t, size_t,
                                       enum cudaMemcpyKind);
SIMRT_API cudaError_t cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                                 size_t hOffset, size_t width, size_t height,
                                                 enum cudaMemcpyKind kind) {
  return simrt_memcpy2d_array(src, wOffset, hOffset, dst, dpitch, width, height, kind, false, NULL, false, 1);
}

/* ---- texture and surface objects ---- */
/* The driver's resource description of r (linear, pitched 2-D or an array). */
static cudaError_t simrt_resource(const struct cudaResourceDesc *r, CUDA_RESOURCE_DESC *out) {
  memset(out, 0, sizeof *out);
  switch (r->resType) {
    case cudaResourceTypeArray:
      out->resType = CU_RESOURCE_TYPE_ARRAY;
      out->res.array.hArray = (CUarray)r->res.array.array;
      return cudaSuccess;
    case cudaResourceTypeLinear:
      out->resType = CU_RESOURCE_TYPE_LINEAR;
      out->res.linear.devPtr = DP(r->res.linear.devPtr);
      out->res.linear.sizeInBytes = r->res.linear.sizeInBytes;
      return simrt_format_of(&r->res.linear.desc, &out->res.linear.format, &out->res.linear.numChannels)
                 ? cudaSuccess
                 : cudaErrorInvalidChannelDescriptor;
    case cudaResourceTypePitch2D:
      out->resType = CU_RESOURCE_TYPE_PITCH2D;
      out->res.pitch2D.devPtr = DP(r->res.pitch2D.devPtr);
      out->res.pitch2D.width = r->res.pitch2D.width;
      out->res.pitch2D.height = r->res.pitch2D.height;
      out->res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
      return simrt_format_of(&r->res.pitch2D.desc, &out->res.pitch2D.format, &out->res.pitch2D.numChannels)
                 ? cudaSuccess
                 : cudaErrorInvalidChannelDescriptor;
    default:
      simrt_warn("texture objects on mipmapped arrays are not simulated");
      return cudaErrorNotSupported;
  }
}

SIMRT_API cudaError_t cudaCreateTextureObject(cudaTextureObject_t *tex, const struct cudaResourceDesc *res,
                                              const struct cudaTextureDesc *td,
                                              const struct cudaResourceViewDesc *view) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  if (!tex || !res || !td) return simrt_ret(cudaErrorInvalidValue);
  if (view) {
    simrt_warn("texture resource views are not simulated");
    return simrt_ret(cudaErrorNotSupported);
  }
  CUDA_RESOURCE_DESC r;
  if ((e = simrt_resource(res, &r))) return simrt_ret(e);
  CUDA_TEXTURE_DESC t;
  memset(&t, 0, sizeof t);
  for (int i = 0; i < 3; i++) t.addressMode[i] = (CUaddress_mode)td->addressMode[i];
  t.filterMode = (CUfilter_mode)td->filterMode;
  /* cudaReadModeElementType returns integer texels as integers */
  t.flags = (td->readMode == cudaReadModeElementType ? CU_TRSF_READ_AS_INTEGER : 0) |
            (td->normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) | (td->sRGB ? CU_TRSF_SRGB : 0);
  t.maxAnisotropy = td->maxAnisotropy;
  memcpy(t.borderColor, td->borderColor, sizeof t.borderColor);
  CUtexObject o;
  CUresult cr = SIMRT_DCALL(simrt_drv(0), cuTexObjectCreate, &o, &r, &t, NULL);
  if (cr == CUDA_SUCCESS) *tex = (cudaTextureObject_t)o;
  return simrt_ret_cu(cr);
}

SIMRT_API cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuTexObjectDestroy, (CUtexObject)tex));
}

SIMRT_API cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surf, const struct cudaResourceDesc *res) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  if (!surf || !res || res->resType != cudaResourceTypeArray) return simrt_ret(cudaErrorInvalidValue);
  CUDA_RESOURCE_DESC r;
  if ((e = simrt_resource(res, &r))) return simrt_ret(e);
  CUsurfObject o;
  CUresult cr = SIMRT_DCALL(simrt_drv(0), cuSurfObjectCreate, &o, &r);
  if (cr == CUDA_SUCCESS) *surf = (cudaSurfaceObject_t)o;
  return simrt_ret_cu(cr);
}

SIMRT_API cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surf) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuSurfObjectDestroy, (CUsurfObject)surf));
}
