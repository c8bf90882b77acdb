/* module.c: module images (simcuda_image_t in place of a fatbin), modules and their
 * functions, context-independent libraries and kernels, parameter layout and
 * function attributes. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"

#define DEFAULT_DYN_SHARED 49152
#define OPTIN_DYN_SHARED 101376

/* ---- images ---- */
static CUresult check_image(const void *image) {
  const simcuda_image_t *img = image;
  if (img->version != SIMCUDA_IMAGE_VERSION || (img->n_kernels && !img->kernels)) return CUDA_ERROR_INVALID_IMAGE;
  for (uint32_t i = 0; i < img->n_kernels; i++) {
    const simcuda_kernel_t *k = &img->kernels[i];
    if (!k->name || !k->fn || (k->n_params && (!k->param_size || !k->param_align))) return CUDA_ERROR_INVALID_IMAGE;
    for (unsigned p = 0; p < k->n_params; p++) {
      unsigned a = k->param_align[p];
      if (!a || (a & (a - 1)) || !k->param_size[p]) return CUDA_ERROR_INVALID_IMAGE;
    }
  }
  return CUDA_SUCCESS;
}

/* A twin image (its kernels join the twin registry; its table is copied), or a
 * real image whose PTX the interpreter runs. *src: one reference; nothing of the
 * caller's image is used once this returns. */
static CUresult image_open(const void *image, sim_ptxsrc_t **src) {
  if (!image) return CUDA_ERROR_INVALID_VALUE;
  uint64_t magic;
  memcpy(&magic, image, sizeof magic);
  *src = NULL;
  if (magic == SIMCUDA_IMAGE_MAGIC) {
    CUresult r = check_image(image);
    if (r) return r;
    const simcuda_image_t *img = image;
    sim_twins_add(img->kernels, img->n_kernels);
    return sim_ptxsrc_copy_twins(img, src);
  }
  return sim_ptxsrc_open(image, src);
}

/* Offsets follow the CUDA ABI: each parameter at the next multiple of its alignment. */
static CUresult layout_make(const simcuda_kernel_t *k, sim_layout_t *lay) {
  lay->k = k;
  lay->offsets = calloc(k->n_params ? k->n_params : 1, sizeof *lay->offsets);
  if (!lay->offsets) return CUDA_ERROR_OUT_OF_MEMORY;
  size_t off = 0;
  for (unsigned p = 0; p < k->n_params; p++) {
    size_t a = k->param_align[p];
    off = (off + a - 1) & ~(a - 1);
    lay->offsets[p] = off;
    off += k->param_size[p];
  }
  lay->param_bytes = off;
  if (off > 32764) return CUDA_ERROR_INVALID_IMAGE; /* the CUDA 12.1+ parameter limit */
  return CUDA_SUCCESS;
}

/* ---- modules ---- */
/* A function goes when its handle is gone and no launch or graph holds it; only
 * then its module (code, kernel table, variables) may go. */
static void func_free(sim_obj_t *o) {
  sim_func_t *f = (sim_func_t *)o;
  sim_ptxfunc_free(f);
  free(f->lay.offsets);
  if (f->kernel) sim_obj_unref(&f->kernel->obj);
  sim_obj_unref(&f->mod->obj);
  free(f);
}

static void module_free(sim_obj_t *o) {
  sim_module_t *m = (sim_module_t *)o;
  sim_ptxmod_unload(m);
  sim_ptxsrc_unref(m->src);
  free(m->funcs);
  sim_obj_unref(&m->obj.ctx->obj);
  free(m);
}

/* A module load that failed: the functions made so far, then the module. */
static CUresult module_fail(sim_module_t *m, CUresult r) {
  for (unsigned i = 0; m->funcs && i < m->n; i++)
    if (m->funcs[i]) sim_obj_unref(&m->funcs[i]->obj);
  sim_obj_unref(&m->obj);
  return r;
}

/* src: the loaded image (the module takes a reference). */
static CUresult module_load(sim_ctx_t *ctx, sim_ptxsrc_t *src, sim_library_t *lib, sim_module_t **out) {
  CUresult r;
  sim_module_t *m = calloc(1, sizeof *m);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  sim_obj_init(&m->obj, SIM_OBJ_MODULE, ctx, module_free);
  sim_obj_ref(&ctx->obj); /* read when the module goes, perhaps after the context */
  m->ctx_id = ctx->id;
  sim_ptxsrc_ref(src);
  m->src = src;
  m->img = sim_ptxsrc_image(src);
  m->lib = lib;
  if (sim_ptxsrc_module(src) && (r = sim_ptxmod_load(m, ctx))) return module_fail(m, r);
  const simcuda_image_t *img = m->img;
  m->n = img->n_kernels;
  m->funcs = calloc(m->n ? m->n : 1, sizeof *m->funcs);
  if (!m->funcs) return module_fail(m, CUDA_ERROR_OUT_OF_MEMORY);
  for (unsigned i = 0; i < m->n; i++) {
    sim_func_t *f = calloc(1, sizeof *f);
    if (!f) return module_fail(m, CUDA_ERROR_OUT_OF_MEMORY);
    sim_obj_init(&f->obj, SIM_OBJ_FUNC, ctx, func_free);
    sim_obj_ref(&m->obj);
    f->mod = m;
    f->kernel = lib ? lib->kernels[i] : NULL;
    if (f->kernel) sim_obj_ref(&f->kernel->obj);
    atomic_init(&f->max_dyn_shared, DEFAULT_DYN_SHARED);
    atomic_init(&f->cache_config, CU_FUNC_CACHE_PREFER_NONE);
    atomic_init(&f->carveout, -1);
    if (m->progs) { /* the function owns them: a queued launch holds the function */
      f->prog = m->progs[i];
      f->prog_err = m->prog_err[i];
      m->progs[i] = NULL;
      m->prog_err[i] = NULL;
    }
    m->funcs[i] = f;
    if ((r = layout_make(&img->kernels[i], &f->lay))) return module_fail(m, r);
  }
  /* The table takes each function's reference and the module's own. */
  for (unsigned i = 0; i < m->n; i++) sim_handle_add(&m->funcs[i]->obj);
  sim_handle_add(&m->obj);
  *out = m;
  return CUDA_SUCCESS;
}

static void module_unload(sim_module_t *m) {
  for (unsigned i = 0; i < m->n; i++) sim_handle_remove(&m->funcs[i]->obj);
  sim_handle_remove(&m->obj);
}

CUresult cuModuleLoadData(CUmodule *pmod, const void *image) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!pmod) return CUDA_ERROR_INVALID_VALUE;
  sim_ptxsrc_t *src;
  if ((r = image_open(image, &src))) return r;
  sim_module_t *m;
  r = module_load(ctx, src, NULL, &m);
  sim_ptxsrc_unref(src);
  if (r == CUDA_SUCCESS) *pmod = (CUmodule)m;
  return r;
}

/* A module from a file (cuModuleLoad, cuLibraryLoadFromFile): the file's bytes as
 * an image, mapped for the rest of the process (a twin image is used in place). */
static CUresult file_image(const char *path, const void **image) {
  if (!path) return CUDA_ERROR_INVALID_VALUE;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return CUDA_ERROR_FILE_NOT_FOUND;
  struct stat st;
  void *map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size >= 16)
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return CUDA_ERROR_INVALID_IMAGE;
  *image = map;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoad(CUmodule *pmod, const char *fname) {
  SIM_CHECK_INIT();
  if (!pmod) return CUDA_ERROR_INVALID_VALUE;
  const void *image;
  CUresult r = file_image(fname, &image);
  return r ? r : cuModuleLoadData(pmod, image);
}

CUresult cuModuleLoadDataEx(CUmodule *pmod, const void *image, unsigned int n, CUjit_option *opts, void **vals) {
  if (n && (!opts || !vals)) {
    SIM_CHECK_INIT();
    return CUDA_ERROR_INVALID_VALUE;
  }
  return cuModuleLoadData(pmod, image); /* JIT options do not apply to the interpreter */
}

CUresult cuModuleLoadFatBinary(CUmodule *pmod, const void *fatCubin) { return cuModuleLoadData(pmod, fatCubin); }

CUresult cuModuleUnload(CUmodule h) {
  SIM_CHECK_INIT();
  sim_module_t *m = (sim_module_t *)sim_handle_get(h, SIM_OBJ_MODULE);
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  CUresult r = CUDA_SUCCESS;
  if (m->lib) r = CUDA_ERROR_NOT_PERMITTED; /* belongs to a library: cuLibraryUnload */
  else module_unload(m);
  sim_obj_unref(&m->obj);
  return r;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule h, const char *name) {
  SIM_CHECK_INIT();
  if (!hfunc || !name) return CUDA_ERROR_INVALID_VALUE;
  sim_module_t *m = (sim_module_t *)sim_handle_get(h, SIM_OBJ_MODULE);
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  CUresult r = CUDA_ERROR_NOT_FOUND;
  for (unsigned i = 0; i < m->n; i++) {
    if (strcmp(m->funcs[i]->lay.k->name, name) == 0) {
      *hfunc = (CUfunction)m->funcs[i];
      r = CUDA_SUCCESS;
      break;
    }
  }
  sim_obj_unref(&m->obj);
  return r;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule h, const char *name) {
  SIM_CHECK_INIT();
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  sim_module_t *m = (sim_module_t *)sim_handle_get(h, SIM_OBJ_MODULE);
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  uint64_t a;
  size_t n;
  CUresult r = CUDA_ERROR_NOT_FOUND; /* twin images carry no __device__ variables */
  if (sim_ptxmod_global(m, name, &a, &n)) {
    if (dptr) *dptr = a;
    if (bytes) *bytes = n;
    r = CUDA_SUCCESS;
  }
  sim_obj_unref(&m->obj);
  return r;
}

CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode) {
  SIM_CHECK_INIT();
  if (!mode) return CUDA_ERROR_INVALID_VALUE;
  *mode = CU_MODULE_EAGER_LOADING;
  return CUDA_SUCCESS;
}

/* ---- libraries and kernels ---- */
static void kernel_free(sim_obj_t *o) {
  sim_kernel_t *k = (sim_kernel_t *)o;
  free(k->lay.offsets);
  free(k);
}

static void library_free(sim_obj_t *o) {
  sim_library_t *l = (sim_library_t *)o;
  for (unsigned i = 0; i < l->n; i++)
    if (l->kernels[i]) sim_obj_unref(&l->kernels[i]->obj);
  for (size_t i = 0; i < l->n_mods; i++) sim_obj_unref(&l->mods[i]->obj);
  sim_ptxsrc_unref(l->src);
  free(l->kernels);
  free(l->mods);
  pthread_mutex_destroy(&l->mu);
  free(l);
}

CUresult cuLibraryLoadFromFile(CUlibrary *plib, const char *path, CUjit_option *jo, void **jv, unsigned int njo,
                               CUlibraryOption *lo, void **lv, unsigned int nlo) {
  SIM_CHECK_INIT();
  if (!plib) return CUDA_ERROR_INVALID_VALUE;
  const void *image;
  CUresult r = file_image(path, &image);
  return r ? r : cuLibraryLoadData(plib, image, jo, jv, njo, lo, lv, nlo);
}

CUresult cuLibraryLoadData(CUlibrary *plib, const void *code, CUjit_option *jo, void **jv, unsigned int njo,
                           CUlibraryOption *lo, void **lv, unsigned int nlo) {
  SIM_CHECK_INIT();
  if (!plib || (njo && (!jo || !jv)) || (nlo && (!lo || !lv))) return CUDA_ERROR_INVALID_VALUE;
  sim_ptxsrc_t *src;
  CUresult r = image_open(code, &src);
  if (r) return r;
  const simcuda_image_t *img = sim_ptxsrc_image(src);
  sim_library_t *l = calloc(1, sizeof *l);
  if (!l) {
    sim_ptxsrc_unref(src);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  sim_obj_init(&l->obj, SIM_OBJ_LIBRARY, NULL, library_free);
  pthread_mutex_init(&l->mu, NULL);
  l->img = img;
  l->src = src; /* the library keeps the reference */
  l->n = img->n_kernels;
  l->kernels = calloc(l->n ? l->n : 1, sizeof *l->kernels);
  if (!l->kernels) {
    sim_obj_unref(&l->obj);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  for (unsigned i = 0; i < l->n; i++) {
    sim_kernel_t *k = calloc(1, sizeof *k);
    if (!k) {
      sim_obj_unref(&l->obj);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    sim_obj_init(&k->obj, SIM_OBJ_KERNEL, NULL, kernel_free);
    k->lib = l;
    k->idx = i;
    atomic_init(&k->max_dyn_shared, DEFAULT_DYN_SHARED);
    l->kernels[i] = k;
    if ((r = layout_make(&img->kernels[i], &k->lay))) {
      sim_obj_unref(&l->obj);
      return r;
    }
  }
  for (unsigned i = 0; i < l->n; i++) {
    sim_obj_ref(&l->kernels[i]->obj);
    sim_handle_add(&l->kernels[i]->obj);
  }
  sim_handle_add(&l->obj);
  *plib = (CUlibrary)l;
  return CUDA_SUCCESS;
}

CUresult cuLibraryUnload(CUlibrary h) {
  SIM_CHECK_INIT();
  sim_library_t *l = (sim_library_t *)sim_handle_get(h, SIM_OBJ_LIBRARY);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&l->mu);
  for (size_t i = 0; i < l->n_mods; i++) module_unload(l->mods[i]);
  pthread_mutex_unlock(&l->mu);
  for (unsigned i = 0; i < l->n; i++) sim_handle_remove(&l->kernels[i]->obj);
  sim_handle_remove(&l->obj);
  sim_obj_unref(&l->obj);
  return CUDA_SUCCESS;
}

/* The library's module in ctx, loaded on first use (lazy, like CUDA 12 loading). */
static CUresult library_module(sim_library_t *l, sim_ctx_t *ctx, sim_module_t **out) {
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&l->mu);
  sim_module_t *m = NULL;
  for (size_t i = 0; i < l->n_mods && !m; i++)
    if (l->mods[i]->obj.ctx == ctx) m = l->mods[i];
  if (!m) {
    r = module_load(ctx, l->src, l, &m);
    if (r == CUDA_SUCCESS) {
      sim_module_t **nm = realloc(l->mods, (l->n_mods + 1) * sizeof *nm);
      if (!nm) abort();
      l->mods = nm;
      sim_obj_ref(&m->obj); /* the library's */
      l->mods[l->n_mods++] = m;
    }
  }
  pthread_mutex_unlock(&l->mu);
  if (r == CUDA_SUCCESS) *out = m;
  return r;
}

void sim_module_forget_ctx(sim_ctx_t *ctx) {
  sim_obj_t *libs[256];
  size_t n = sim_handle_collect(SIM_OBJ_LIBRARY, NULL, libs, 256);
  for (size_t j = 0; j < n; j++) {
    sim_library_t *l = (sim_library_t *)libs[j];
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < l->n_mods;) {
      if (l->mods[i]->obj.ctx == ctx) {
        sim_obj_unref(&l->mods[i]->obj);
        l->mods[i] = l->mods[--l->n_mods];
      } else {
        i++;
      }
    }
    pthread_mutex_unlock(&l->mu);
    sim_obj_unref(libs[j]);
  }
}

CUresult cuLibraryGetKernel(CUkernel *pk, CUlibrary h, const char *name) {
  SIM_CHECK_INIT();
  if (!pk || !name) return CUDA_ERROR_INVALID_VALUE;
  sim_library_t *l = (sim_library_t *)sim_handle_get(h, SIM_OBJ_LIBRARY);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  CUresult r = CUDA_ERROR_NOT_FOUND;
  for (unsigned i = 0; i < l->n; i++) {
    if (strcmp(l->kernels[i]->lay.k->name, name) == 0) {
      *pk = (CUkernel)l->kernels[i];
      r = CUDA_SUCCESS;
      break;
    }
  }
  sim_obj_unref(&l->obj);
  return r;
}

CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary h) {
  SIM_CHECK_INIT();
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  sim_library_t *l = (sim_library_t *)sim_handle_get(h, SIM_OBJ_LIBRARY);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  *count = l->n;
  sim_obj_unref(&l->obj);
  return CUDA_SUCCESS;
}

CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int n, CUlibrary h) {
  SIM_CHECK_INIT();
  if (!kernels) return CUDA_ERROR_INVALID_VALUE;
  sim_library_t *l = (sim_library_t *)sim_handle_get(h, SIM_OBJ_LIBRARY);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  for (unsigned i = 0; i < n && i < l->n; i++) kernels[i] = (CUkernel)l->kernels[i];
  sim_obj_unref(&l->obj);
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetModule(CUmodule *pmod, CUlibrary h) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!pmod) return CUDA_ERROR_INVALID_VALUE;
  sim_library_t *l = (sim_library_t *)sim_handle_get(h, SIM_OBJ_LIBRARY);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  sim_module_t *m;
  r = library_module(l, ctx, &m);
  if (r == CUDA_SUCCESS) *pmod = (CUmodule)m;
  sim_obj_unref(&l->obj);
  return r;
}

CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary h, const char *name) {
  SIM_CHECK_INIT();
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  sim_library_t *l = (sim_library_t *)sim_handle_get(h, SIM_OBJ_LIBRARY);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  CUresult r = CUDA_ERROR_NOT_FOUND;
  sim_ctx_t *ctx;
  sim_module_t *m;
  uint64_t a;
  size_t n;
  if (sim_ptxsrc_module(l->src) && sim_ctx_current(&ctx) == CUDA_SUCCESS && library_module(l, ctx, &m) == CUDA_SUCCESS &&
      sim_ptxmod_global(m, name, &a, &n)) {
    if (dptr) *dptr = a;
    if (bytes) *bytes = n;
    r = CUDA_SUCCESS;
  }
  sim_obj_unref(&l->obj);
  return r;
}

static sim_kernel_t *kernel_get(CUkernel h) { return (sim_kernel_t *)sim_handle_get(h, SIM_OBJ_KERNEL); }

CUresult sim_func_resolve(sim_ctx_t *ctx, CUfunction h, sim_func_t **out) {
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_FUNC);
  if (o) {
    if (ctx && o->ctx != ctx) {
      sim_obj_unref(o);
      return CUDA_ERROR_INVALID_HANDLE; /* a function of another context */
    }
    *out = (sim_func_t *)o;
    return CUDA_SUCCESS;
  }
  sim_kernel_t *k = kernel_get((CUkernel)h);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  if (!ctx) {
    CUresult r = sim_ctx_current(&ctx);
    if (r) {
      sim_obj_unref(&k->obj);
      return r;
    }
  }
  sim_module_t *m;
  CUresult r = library_module(k->lib, ctx, &m);
  if (r == CUDA_SUCCESS) {
    *out = m->funcs[k->idx];
    sim_obj_ref(&(*out)->obj);
  }
  sim_obj_unref(&k->obj);
  return r;
}

CUresult cuKernelGetFunction(CUfunction *pfunc, CUkernel h) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!pfunc) return CUDA_ERROR_INVALID_VALUE;
  sim_kernel_t *k = kernel_get(h);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  sim_obj_unref(&k->obj);
  sim_func_t *f;
  r = sim_func_resolve(ctx, (CUfunction)h, &f);
  if (r) return r;
  *pfunc = (CUfunction)f;
  sim_obj_unref(&f->obj);
  return CUDA_SUCCESS;
}

CUresult cuKernelGetLibrary(CUlibrary *plib, CUkernel h) {
  SIM_CHECK_INIT();
  if (!plib) return CUDA_ERROR_INVALID_VALUE;
  sim_kernel_t *k = kernel_get(h);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  *plib = (CUlibrary)k->lib;
  sim_obj_unref(&k->obj);
  return CUDA_SUCCESS;
}

CUresult cuKernelGetName(const char **name, CUkernel h) {
  SIM_CHECK_INIT();
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  sim_kernel_t *k = kernel_get(h);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  *name = k->lay.k->name;
  sim_obj_unref(&k->obj);
  return CUDA_SUCCESS;
}

static CUresult param_info(const sim_layout_t *lay, size_t i, size_t *off, size_t *size) {
  if (i >= lay->k->n_params || (!off && !size)) return CUDA_ERROR_INVALID_VALUE;
  if (off) *off = lay->offsets[i];
  if (size) *size = lay->k->param_size[i];
  return CUDA_SUCCESS;
}

CUresult cuKernelGetParamInfo(CUkernel h, size_t i, size_t *off, size_t *size) {
  SIM_CHECK_INIT();
  sim_kernel_t *k = kernel_get(h);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  CUresult r = param_info(&k->lay, i, off, size);
  sim_obj_unref(&k->obj);
  return r;
}

CUresult cuFuncGetParamInfo(CUfunction h, size_t i, size_t *off, size_t *size) {
  SIM_CHECK_INIT();
  sim_func_t *f;
  CUresult r = sim_func_resolve(NULL, h, &f);
  if (r) return r;
  r = param_info(&f->lay, i, off, size);
  sim_obj_unref(&f->obj);
  return r;
}

CUresult cuFuncGetName(const char **name, CUfunction h) {
  SIM_CHECK_INIT();
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  sim_func_t *f;
  CUresult r = sim_func_resolve(NULL, h, &f);
  if (r) return r;
  *name = f->lay.k->name;
  sim_obj_unref(&f->obj);
  return CUDA_SUCCESS;
}

CUresult cuFuncGetModule(CUmodule *pmod, CUfunction h) {
  SIM_CHECK_INIT();
  if (!pmod) return CUDA_ERROR_INVALID_VALUE;
  sim_func_t *f;
  CUresult r = sim_func_resolve(NULL, h, &f);
  if (r) return r;
  *pmod = (CUmodule)f->mod;
  sim_obj_unref(&f->obj);
  return CUDA_SUCCESS;
}

CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction h) {
  SIM_CHECK_INIT();
  if (!state) return CUDA_ERROR_INVALID_VALUE;
  sim_func_t *f;
  CUresult r = sim_func_resolve(NULL, h, &f);
  if (r) return r;
  *state = CU_FUNCTION_LOADING_STATE_LOADED;
  sim_obj_unref(&f->obj);
  return CUDA_SUCCESS;
}

CUresult cuFuncLoad(CUfunction h) {
  SIM_CHECK_INIT();
  sim_func_t *f;
  CUresult r = sim_func_resolve(NULL, h, &f);
  if (r) return r;
  sim_obj_unref(&f->obj);
  return CUDA_SUCCESS;
}

/* ---- attributes ---- */
/* ptx: the PTX target its code was compiled from (the driver reports that, not the
 * device's; CUB picks its tuning policies by it, among those compiled), 0 for twins */
static CUresult attr_get(int *pi, CUfunction_attribute a, atomic_int *max_dyn, int carveout, unsigned ptx) {
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 32; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = ptx ? (int)ptx : sim_opt.sm; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = sim_opt.sm; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = atomic_load(max_dyn); break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = carveout; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

static CUresult attr_set(CUfunction_attribute a, int v, atomic_int *max_dyn, atomic_int *carveout) {
  switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      if (v < 0 || v > OPTIN_DYN_SHARED) return CUDA_ERROR_INVALID_VALUE;
      atomic_store(max_dyn, v);
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      if (v < -1 || v > 100) return CUDA_ERROR_INVALID_VALUE;
      if (carveout) atomic_store(carveout, v);
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      return CUDA_SUCCESS; /* accepted; clusters are not modelled */
    default:
      return CUDA_ERROR_INVALID_VALUE; /* read-only or unknown */
  }
}

/* A function made from a library kernel shares the kernel's settings. */
static atomic_int *func_max_dyn(sim_func_t *f) {
  return f->kernel ? &f->kernel->max_dyn_shared : &f->max_dyn_shared;
}

int sim_func_max_dyn_shared(sim_func_t *f) { return atomic_load(func_max_dyn(f)); }

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute a, CUfunction h) {
  SIM_CHECK_INIT();
  sim_func_t *f;
  CUresult r = sim_func_resolve(NULL, h, &f);
  if (r) return r;
  r = attr_get(pi, a, func_max_dyn(f), atomic_load(&f->carveout), sim_ptxsrc_sm(f->mod->src));
  sim_obj_unref(&f->obj);
  return r;
}

CUresult cuFuncSetAttribute(CUfunction h, CUfunction_attribute a, int v) {
  SIM_CHECK_INIT();
  sim_func_t *f;
  CUresult r = sim_func_resolve(NULL, h, &f);
  if (r) return r;
  r = attr_set(a, v, func_max_dyn(f), &f->carveout);
  sim_obj_unref(&f->obj);
  return r;
}

CUresult cuFuncSetCacheConfig(CUfunction h, CUfunc_cache c) {
  SIM_CHECK_INIT();
  sim_func_t *f;
  CUresult r = sim_func_resolve(NULL, h, &f);
  if (r) return r;
  if ((unsigned)c > CU_FUNC_CACHE_PREFER_EQUAL) r = CUDA_ERROR_INVALID_VALUE;
  else atomic_store(&f->cache_config, (int)c);
  sim_obj_unref(&f->obj);
  return r;
}

CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute a, CUkernel h, CUdevice dev) {
  SIM_CHECK_INIT();
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  sim_kernel_t *k = kernel_get(h);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  CUresult r = attr_get(pi, a, &k->max_dyn_shared, -1, sim_ptxsrc_sm(k->lib->src));
  sim_obj_unref(&k->obj);
  return r;
}

CUresult cuKernelSetAttribute(CUfunction_attribute a, int v, CUkernel h, CUdevice dev) {
  SIM_CHECK_INIT();
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  sim_kernel_t *k = kernel_get(h);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  CUresult r = attr_set(a, v, &k->max_dyn_shared, NULL);
  sim_obj_unref(&k->obj);
  return r;
}

CUresult cuKernelSetCacheConfig(CUkernel h, CUfunc_cache c, CUdevice dev) {
  SIM_CHECK_INIT();
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  sim_kernel_t *k = kernel_get(h);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  sim_obj_unref(&k->obj);
  return (unsigned)c > CU_FUNC_CACHE_PREFER_EQUAL ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
