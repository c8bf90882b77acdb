/* texobj.c: texture objects (cuTexObjectCreate/Destroy/GetResourceDesc/
 * GetTextureDesc; the runtime's cudaCreateTextureObject calls them) over linear
 * and pitched 2-D device memory, and their lookup by the interpreter's tex
 * (texture.c). CUDA arrays, mipmapped arrays, resource views and surface objects
 * are not modelled: refused with CUDA_ERROR_NOT_SUPPORTED, logged. Handles are
 * indexes + 1 into one table (a handle is never reused while the process lives,
 * so a stale one is not mistaken for a newer texture). */
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

static unsigned fmt_of(CUarray_format f, unsigned *size) {
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

/* The sampling description of (res, tex), or a CUresult. */
static CUresult describe(const CUDA_RESOURCE_DESC *res, const CUDA_TEXTURE_DESC *tex, sim_ctx_t *ctx, sim_tex_t *t) {
  memset(t, 0, sizeof *t);
  if (res->resType == CU_RESOURCE_TYPE_ARRAY || res->resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY) {
    sim_log("cuTexObjectCreate: CUDA arrays are not modelled (only linear and pitched 2-D memory)");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (res->flags) return CUDA_ERROR_INVALID_VALUE;
  bool lin = res->resType == CU_RESOURCE_TYPE_LINEAR;
  if (!lin && res->resType != CU_RESOURCE_TYPE_PITCH2D) return CUDA_ERROR_INVALID_VALUE;
  CUarray_format f = lin ? res->res.linear.format : res->res.pitch2D.format;
  unsigned ch = lin ? res->res.linear.numChannels : res->res.pitch2D.numChannels, es = 0;
  t->fmt = (uint8_t)fmt_of(f, &es);
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
  t->linear_filter = tex->filterMode == CU_TR_FILTER_MODE_LINEAR;
  t->normalized = (tex->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
  t->as_integer = (tex->flags & CU_TRSF_READ_AS_INTEGER) != 0 || t->fmt == SIM_TEXFMT_U32 || t->fmt == SIM_TEXFMT_S32;
  if (t->fmt == SIM_TEXFMT_F16 || t->fmt == SIM_TEXFMT_F32) t->as_integer = false;
  if (t->linear_filter && t->as_integer) return CUDA_ERROR_INVALID_VALUE; /* filtering returns floats */
  for (unsigned d = 0; d < 2; d++) {
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
  if (r) return r;
  pthread_rwlock_wrlock(&tab_lock);
  if (n_tab == cap_tab) {
    cap_tab = cap_tab ? cap_tab * 2 : 64;
    tab = realloc(tab, cap_tab * sizeof *tab);
    if (!tab) abort();
  }
  tab[n_tab++] = o;
  *out = (CUtexObject)n_tab;
  pthread_rwlock_unlock(&tab_lock);
  return CUDA_SUCCESS;
}

/* The live object h of ctx (under the lock); NULL when none. */
static texobj_t *find(CUtexObject h, const sim_ctx_t *ctx) {
  return h && h <= n_tab && tab[h - 1].ctx && (!ctx || tab[h - 1].ctx == ctx) ? &tab[h - 1] : NULL;
}

CUresult cuTexObjectDestroy(CUtexObject h) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  pthread_rwlock_wrlock(&tab_lock);
  texobj_t *o = find(h, NULL);
  if (o) o->ctx = NULL;
  pthread_rwlock_unlock(&tab_lock);
  return o ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The descriptors object h was made with (either pointer may be NULL). */
static CUresult descs(CUtexObject h, CUDA_RESOURCE_DESC *res, CUDA_TEXTURE_DESC *tex) {
  pthread_rwlock_rdlock(&tab_lock);
  texobj_t *o = find(h, NULL);
  if (o && res) *res = o->res;
  if (o && tex) *tex = o->tex;
  pthread_rwlock_unlock(&tab_lock);
  return o ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *res, CUtexObject h) {
  return res ? descs(h, res, NULL) : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *tex, CUtexObject h) {
  return tex ? descs(h, NULL, tex) : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *view, CUtexObject h) {
  (void)view, (void)h;
  return CUDA_ERROR_NOT_SUPPORTED; /* never created with one */
}

/* sim_mem_iface_t.tex: the launch's context's object h. */
bool sim_texobj_interp_find(void *launch, uint64_t h, sim_tex_t *out) {
  pthread_rwlock_rdlock(&tab_lock);
  texobj_t *o = find(h, ((sim_launch_t *)launch)->ctx);
  if (o) *out = o->t;
  pthread_rwlock_unlock(&tab_lock);
  return o != NULL;
}
