/* texobj.c: texture objects (cuTexObjectCreate/Destroy/GetResourceDesc/
 * GetTextureDesc; the runtime's cudaCreateTextureObject calls them) over linear
 * and pitched 2-D device memory and CUDA arrays (array.c), surface objects over
 * arrays (cuSurfObjectCreate/Destroy/GetResourceDesc), and their lookup by the
 * interpreter's tex, tld4 (texture.c), txq, suq (texquery.c), suld, sust and sured
 * (surface.c). Mipmapped arrays and resource views are not modelled: refused with
 * CUDA_ERROR_NOT_SUPPORTED, logged.
 * Handles of both kinds are indexes + 1 into one table (a handle is never reused
 * while the process lives, so a stale one is not mistaken for a newer object). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "exec.h"

typedef struct {
  sim_ctx_t *ctx; /* NULL: destroyed */
  CUDA_RESOURCE_DESC res;
  CUDA_TEXTURE_DESC tex;
  sim_tex_t t;
} texobj_t;

static pthread_rwlock_t tab_lock = PTHREAD_RWLOCK_INITIALIZER;
static texobj_t *tab;
static size_t n_tab, cap_tab;
static size_t n_linear; /* live texture objects on linear or pitched memory (under the lock) */

/* A texture object whose texels global stores can write. */
static bool on_linear(const texobj_t *o) { return !o->t.surface && !o->t.dims; }

unsigned sim_texfmt_of(CUarray_format f, unsigned *size) {
  switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: *size = 1; return SIM_TEXFMT_U8;
    case CU_AD_FORMAT_UNSIGNED_INT16: *size = 2; return SIM_TEXFMT_U16;
    case CU_AD_FORMAT_UNSIGNED_INT32: *size = 4; return SIM_TEXFMT_U32;
    case CU_AD_FORMAT_SIGNED_INT8: *size = 1; return SIM_TEXFMT_S8;
    case CU_AD_FORMAT_SIGNED_INT16: *size = 2; return SIM_TEXFMT_S16;
    case CU_AD_FORMAT_SIGNED_INT32: *size = 4; return SIM_TEXFMT_S32;
    case CU_AD_FORMAT_HALF: *size = 2; return SIM_TEXFMT_F16;
    case CU_AD_FORMAT_FLOAT: *size = 4; return SIM_TEXFMT_F32;
    default: return 0;
  }
}

static CUresult sampling(const CUDA_TEXTURE_DESC *tex, sim_tex_t *t);
static CUresult add(const texobj_t *o, CUtexObject *out);

/* The layout of the array resource res (for a surface: made with SURFACE_LDST). */
static CUresult describe_array(const CUDA_RESOURCE_DESC *res, bool surface, sim_tex_t *t) {
  sim_array_info_t a;
  if (res->flags || !sim_array_get(res->res.array.hArray, &a)) return CUDA_ERROR_INVALID_VALUE;
  if (surface && !(a.desc.Flags & CUDA_ARRAY3D_SURFACE_LDST)) return CUDA_ERROR_INVALID_VALUE;
  unsigned es;
  t->fmt = (uint8_t)sim_texfmt_of(a.desc.Format, &es);
  t->channels = (uint8_t)a.desc.NumChannels;
  t->ptr = a.dev;
  t->width = a.desc.Width;
  t->height = a.rows;
  t->depth = a.slices;
  t->pitch = a.pitch;
  t->slice = a.slice;
  t->layered = (a.desc.Flags & CUDA_ARRAY3D_LAYERED) != 0;
  t->gather = (a.desc.Flags & CUDA_ARRAY3D_TEXTURE_GATHER) != 0;
  t->dims = (uint8_t)(a.desc.Height ? (a.desc.Depth && !t->layered ? 3 : 2) : 1);
  t->surface = surface;
  return CUDA_SUCCESS;
}

/* The sampling description of (res, tex), or a CUresult. */
static CUresult describe(const CUDA_RESOURCE_DESC *res, const CUDA_TEXTURE_DESC *tex, sim_ctx_t *ctx, sim_tex_t *t) {
  memset(t, 0, sizeof *t);
  if (res->resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY) {
    sim_log("cuTexObjectCreate: mipmapped arrays are not modelled");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  CUresult r;
  if (res->resType == CU_RESOURCE_TYPE_ARRAY) {
    if ((r = describe_array(res, false, t))) return r;
    return sampling(tex, t);
  }
  if (res->flags) return CUDA_ERROR_INVALID_VALUE;
  bool lin = res->resType == CU_RESOURCE_TYPE_LINEAR;
  if (!lin && res->resType != CU_RESOURCE_TYPE_PITCH2D) return CUDA_ERROR_INVALID_VALUE;
  CUarray_format f = lin ? res->res.linear.format : res->res.pitch2D.format;
  unsigned ch = lin ? res->res.linear.numChannels : res->res.pitch2D.numChannels, es = 0;
  t->fmt = (uint8_t)sim_texfmt_of(f, &es);
  if (!t->fmt || (ch != 1 && ch != 2 && ch != 4)) return CUDA_ERROR_INVALID_VALUE;
  t->channels = (uint8_t)ch;
  t->ptr = lin ? res->res.linear.devPtr : res->res.pitch2D.devPtr;
  if (lin) {
    t->width = res->res.linear.sizeInBytes / (es * ch);
    t->height = 1;
    t->pitch = res->res.linear.sizeInBytes;
  } else {
    t->width = res->res.pitch2D.width;
    t->height = res->res.pitch2D.height;
    t->pitch = res->res.pitch2D.pitchInBytes;
    if (t->pitch % 32 || t->width * es * ch > t->pitch) return CUDA_ERROR_INVALID_VALUE;
  }
  uint64_t bytes = t->height ? (t->height - 1) * t->pitch + t->width * es * ch : 0;
  sim_alloc_t a;
  if (!t->width || !t->height || t->ptr % 512 || !sim_mem_find(t->ptr, bytes, &a) || !sim_ctx_reaches(ctx, &a))
    return CUDA_ERROR_INVALID_VALUE;
  t->linear_res = lin;
  t->depth = 1;
  return sampling(tex, t);
}

/* The texture description's part of t (after its resource's). */
static CUresult sampling(const CUDA_TEXTURE_DESC *tex, sim_tex_t *t) {
  t->linear_filter = tex->filterMode == CU_TR_FILTER_MODE_LINEAR;
  t->normalized = (tex->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
  t->as_integer = (tex->flags & CU_TRSF_READ_AS_INTEGER) != 0 || t->fmt == SIM_TEXFMT_U32 || t->fmt == SIM_TEXFMT_S32;
  if (t->fmt == SIM_TEXFMT_F16 || t->fmt == SIM_TEXFMT_F32) t->as_integer = false;
  if (t->linear_filter && t->as_integer) return CUDA_ERROR_INVALID_VALUE; /* filtering returns floats */
  for (unsigned d = 0; d < (t->dims == 3 ? 3u : 2u); d++) {
    if ((unsigned)tex->addressMode[d] > CU_TR_ADDRESS_MODE_BORDER) return CUDA_ERROR_INVALID_VALUE;
    t->addr[d] = (uint8_t)tex->addressMode[d];
  }
  memcpy(t->border, tex->borderColor, sizeof t->border);
  return CUDA_SUCCESS;
}

CUresult cuTexObjectCreate(CUtexObject *out, const CUDA_RESOURCE_DESC *res, const CUDA_TEXTURE_DESC *tex,
                           const CUDA_RESOURCE_VIEW_DESC *view) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!out || !res || !tex) return CUDA_ERROR_INVALID_VALUE;
  if (view) {
    sim_log("cuTexObjectCreate: resource views are not modelled");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  texobj_t o = {.ctx = ctx, .res = *res, .tex = *tex};
  r = describe(res, tex, ctx, &o.t);
  return r ? r : add(&o, out);
}

/* Stores o in the table; its handle in *out. */
static CUresult add(const texobj_t *o, CUtexObject *out) {
  pthread_rwlock_wrlock(&tab_lock);
  if (n_tab == cap_tab) {
    cap_tab = cap_tab ? cap_tab * 2 : 64;
    tab = realloc(tab, cap_tab * sizeof *tab);
    if (!tab) abort();
  }
  tab[n_tab++] = *o;
  n_linear += on_linear(o);
  *out = (CUtexObject)n_tab;
  pthread_rwlock_unlock(&tab_lock);
  return CUDA_SUCCESS;
}

/* The live object h of ctx (under the lock), a surface or a texture; NULL when none. */
static texobj_t *find(CUtexObject h, const sim_ctx_t *ctx, bool surface) {
  return h && h <= n_tab && tab[h - 1].ctx && (!ctx || tab[h - 1].ctx == ctx) && tab[h - 1].t.surface == surface
             ? &tab[h - 1]
             : NULL;
}

static CUresult destroy(CUtexObject h, bool surface) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  pthread_rwlock_wrlock(&tab_lock);
  texobj_t *o = find(h, NULL, surface);
  if (o) o->ctx = NULL, n_linear -= on_linear(o);
  pthread_rwlock_unlock(&tab_lock);
  return o ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuTexObjectDestroy(CUtexObject h) { return destroy(h, false); }

/* The descriptors object h was made with (either pointer may be NULL). */
static CUresult descs(CUtexObject h, bool surface, CUDA_RESOURCE_DESC *res, CUDA_TEXTURE_DESC *tex) {
  pthread_rwlock_rdlock(&tab_lock);
  texobj_t *o = find(h, NULL, surface);
  if (o && res) *res = o->res;
  if (o && tex) *tex = o->tex;
  pthread_rwlock_unlock(&tab_lock);
  return o ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *res, CUtexObject h) {
  return res ? descs(h, false, res, NULL) : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *tex, CUtexObject h) {
  return tex ? descs(h, false, NULL, tex) : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *view, CUtexObject h) {
  (void)view, (void)h;
  return CUDA_ERROR_NOT_SUPPORTED; /* never created with one */
}

/* Surface objects: an array made with CUDA_ARRAY3D_SURFACE_LDST. */
CUresult cuSurfObjectCreate(CUsurfObject *out, const CUDA_RESOURCE_DESC *res) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!out || !res || res->resType != CU_RESOURCE_TYPE_ARRAY) return CUDA_ERROR_INVALID_VALUE;
  texobj_t o = {.ctx = ctx, .res = *res};
  if ((r = describe_array(res, true, &o.t))) return r;
  return add(&o, out);
}

CUresult cuSurfObjectDestroy(CUsurfObject h) { return destroy(h, true); }

CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *res, CUsurfObject h) {
  return res ? descs(h, true, res, NULL) : CUDA_ERROR_INVALID_VALUE;
}

/* sim_mem_iface_t.tex: the launch's context's object h (either kind: the
 * instruction checks which it got). */
bool sim_texobj_interp_find(void *launch, uint64_t h, sim_tex_t *out) {
  pthread_rwlock_rdlock(&tab_lock);
  texobj_t *o = find(h, ((sim_launch_t *)launch)->ctx, false);
  if (!o) o = find(h, ((sim_launch_t *)launch)->ctx, true);
  /* An object whose array was destroyed is no object: its memory may be another's now. */
  sim_array_info_t a;
  if (o && o->res.resType == CU_RESOURCE_TYPE_ARRAY &&
      (!sim_array_get(o->res.res.array.hArray, &a) || a.dev != o->t.ptr))
    o = NULL;
  if (o) *out = o->t;
  pthread_rwlock_unlock(&tab_lock);
  return o != NULL;
}

bool sim_texobj_linear_live(void) {
  pthread_rwlock_rdlock(&tab_lock);
  bool any = n_linear != 0;
  pthread_rwlock_unlock(&tab_lock);
  return any;
}
