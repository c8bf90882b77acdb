/* array.c: CUDA arrays (cuArrayCreate, cuArray3DCreate, their descriptors,
 * cuArrayDestroy) and the device limits they are checked against. An array's
 * memory is one device allocation the program never sees, laid out packed
 * (x fastest, then rows, then slices or layers): copies (copy.c), texture and
 * surface objects (texobj.c) reach it through sim_array_get. */
#include <stdlib.h>
#include <string.h>

#include "exec.h"

struct sim_array_s {
  sim_obj_t obj;
  sim_array_info_t info;
};

/* The texture and surface limits of the simulated device (an H100's, as the
 * Programming Guide's table for compute capability 9.0 gives them): device.c
 * answers cuDeviceGetAttribute with them, array creation checks against them. */
int sim_array_limit(CUdevice_attribute a) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: return 65536;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT: return 65536;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: return 512;
    default: return -1;
  }
}

/* Within the texture limits (a, b, c: the attributes of width, height, depth or
 * layers; 0: that extent must be 0), and the surface ones (s*) with SURFACE_LDST. */
static bool fits(const CUDA_ARRAY3D_DESCRIPTOR *d, CUdevice_attribute a, CUdevice_attribute b, CUdevice_attribute c,
                 CUdevice_attribute sa, CUdevice_attribute sb, CUdevice_attribute sc) {
  size_t e[3] = {d->Width, d->Height, d->Depth};
  CUdevice_attribute t[3] = {a, b, c}, s[3] = {sa, sb, sc};
  bool surf = d->Flags & CUDA_ARRAY3D_SURFACE_LDST;
  for (unsigned i = 0; i < 3; i++) {
    if (!t[i] ? e[i] != 0 : (e[i] == 0 || e[i] > (size_t)sim_array_limit(t[i]))) return false;
    if (surf && t[i] && e[i] > (size_t)sim_array_limit(s[i])) return false;
  }
  return true;
}

#define A(x) CU_DEVICE_ATTRIBUTE_MAXIMUM_##x
static CUresult check_desc(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned *elem) {
  const unsigned known = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP |
                         CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_DEPTH_TEXTURE | CUDA_ARRAY3D_COLOR_ATTACHMENT |
                         CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_VIDEO_ENCODE_DECODE;
  if (d->Flags & ~known) return CUDA_ERROR_INVALID_VALUE;
  unsigned es = 0;
  if (!sim_texfmt_of(d->Format, &es)) {
    sim_log("cuArray3DCreate: array format 0x%x is not modelled (8/16/32-bit integers, half, float)", (unsigned)d->Format);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4) return CUDA_ERROR_INVALID_VALUE;
  if (d->Flags & ~(unsigned)(CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_TEXTURE_GATHER)) {
    sim_log("cuArray3DCreate: cubemap, depth, sparse, deferred-mapping, colour-attachment and video arrays are not modelled");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  bool ok;
  if (d->Flags & CUDA_ARRAY3D_TEXTURE_GATHER) /* "texture gather can only be performed on 2D CUDA arrays" */
    ok = !(d->Flags & CUDA_ARRAY3D_LAYERED) &&
         fits(d, A(TEXTURE2D_GATHER_WIDTH), A(TEXTURE2D_GATHER_HEIGHT), 0, A(SURFACE2D_WIDTH), A(SURFACE2D_HEIGHT), 0);
  else if (d->Flags & CUDA_ARRAY3D_LAYERED)
    ok = d->Height ? fits(d, A(TEXTURE2D_LAYERED_WIDTH), A(TEXTURE2D_LAYERED_HEIGHT), A(TEXTURE2D_LAYERED_LAYERS),
                          A(SURFACE2D_LAYERED_WIDTH), A(SURFACE2D_LAYERED_HEIGHT), A(SURFACE2D_LAYERED_LAYERS))
                   : fits(d, A(TEXTURE1D_LAYERED_WIDTH), 0, A(TEXTURE1D_LAYERED_LAYERS), A(SURFACE1D_LAYERED_WIDTH),
                          0, A(SURFACE1D_LAYERED_LAYERS));
  else if (d->Depth)
    ok = fits(d, A(TEXTURE3D_WIDTH), A(TEXTURE3D_HEIGHT), A(TEXTURE3D_DEPTH), A(SURFACE3D_WIDTH), A(SURFACE3D_HEIGHT),
              A(SURFACE3D_DEPTH));
  else if (d->Height)
    ok = fits(d, A(TEXTURE2D_WIDTH), A(TEXTURE2D_HEIGHT), 0, A(SURFACE2D_WIDTH), A(SURFACE2D_HEIGHT), 0);
  else
    ok = fits(d, A(TEXTURE1D_WIDTH), 0, 0, A(SURFACE1D_WIDTH), 0, 0);
  if (!ok) return CUDA_ERROR_INVALID_VALUE;
  *elem = es * d->NumChannels;
  return CUDA_SUCCESS;
}
#undef A

static void array_destroy(sim_obj_t *o) {
  sim_array_t *a = (sim_array_t *)o;
  sim_mem_free_device(a->info.dev, false);
  free(a);
}

static CUresult create(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d, bool is3d) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!out || !d) return CUDA_ERROR_INVALID_VALUE;
  unsigned es;
  if ((r = check_desc(d, &es))) return r;
  sim_array_t *a = calloc(1, sizeof *a);
  if (!a) return CUDA_ERROR_OUT_OF_MEMORY;
  sim_array_info_t *i = &a->info;
  i->desc = *d;
  i->is3d = is3d;
  i->elem = es;
  i->pitch = d->Width * es;
  i->rows = d->Height ? d->Height : 1;
  i->slices = d->Depth ? d->Depth : 1;
  i->slice = i->pitch * i->rows;
  if ((r = sim_mem_alloc_device(ctx, ctx->dev, i->slice * i->slices, &i->dev))) {
    free(a);
    return r;
  }
  sim_obj_init(&a->obj, SIM_OBJ_ARRAY, ctx, array_destroy);
  sim_handle_add(&a->obj); /* takes the first reference */
  *out = (CUarray)a;
  return CUDA_SUCCESS;
}

CUresult cuArray3DCreate_v2(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d) { return create(out, d, true); }

CUresult cuArrayCreate_v2(CUarray *out, const CUDA_ARRAY_DESCRIPTOR *d) {
  if (!d) return create(out, NULL, false);
  CUDA_ARRAY3D_DESCRIPTOR d3 = {d->Width, d->Height, 0, d->Format, d->NumChannels, 0};
  return create(out, &d3, false);
}

bool sim_array_get(CUarray h, sim_array_info_t *out) {
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_ARRAY);
  if (!o) return false;
  *out = ((sim_array_t *)o)->info;
  sim_obj_unref(o);
  return true;
}

CUresult cuArrayDestroy(CUarray h) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_ARRAY);
  if (!o) return CUDA_ERROR_INVALID_VALUE;
  sim_ctx_sync(o->ctx); /* queued copies may still use its memory, as with cuMemFree */
  sim_obj_unref(o);
  return sim_handle_destroy(h, SIM_OBJ_ARRAY) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The live array h for a descriptor query (d: where it goes, NULL: an error). */
static CUresult query(const void *d, CUarray h, sim_array_info_t *i) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  return d && sim_array_get(h, i) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray h) {
  sim_array_info_t i;
  CUresult r = query(d, h, &i);
  if (!r) *d = i.desc;
  return r;
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *d, CUarray h) {
  sim_array_info_t i;
  CUresult r = query(d, h, &i);
  if (!r) *d = (CUDA_ARRAY_DESCRIPTOR){i.desc.Width, i.desc.Height, i.desc.Format, i.desc.NumChannels};
  return r;
}
