/* registry.c: what nvcc's generated code registers (fatbins, kernels, variables),
 * the twins the program registers, and their lazy matching into simulator module
 * images loaded context-independently (cuLibraryLoadData), like a CUDA 12+ runtime. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "simrt.h"

/* nvcc's fatbin wrapper (__fatBinC_Wrapper_t in fatbinary_section.h). */
#define SIMRT_FATBINC_MAGIC 0x466243b1

typedef struct simrt_fatbin_s simrt_fatbin_t;
typedef struct simrt_func_s simrt_func_t;

struct simrt_fatbin_s {
  void *handle_slot;       /* first member: the handle nvcc gets is a void ** to it */
  simrt_fatbin_t *next;
  const void *image;       /* nvcc's fatbin wrapper */
  bool real_tried;         /* the real image was offered to the driver */
  CUresult real_err;       /* and what it answered */
  bool unregistered;
  struct simrt_load_s *loads; /* one per build (later ones for twins that came late) */
};

/* A loaded simulator image and the arrays it points to (valid while loaded). */
typedef struct simrt_load_s {
  struct simrt_load_s *next;
  CUlibrary lib;
  simcuda_image_t img;
  simcuda_kernel_t *kernels;
} simrt_load_t;

struct simrt_func_s {
  simrt_func_t *next;
  simrt_fatbin_t *fb;
  const void *host_fun;    /* the host stub's address: the runtime's key */
  char *name;              /* mangled device name */
  const simcuda_kernel_t *twin;
  CUkernel kernel;         /* NULL until loaded */
  bool warned;
};

typedef struct simrt_twins_s {
  struct simrt_twins_s *next;
  const simcuda_kernel_t *k;
  unsigned n;
  bool forwarded;          /* given to the driver's twin registry */
} simrt_twins_t;

static pthread_mutex_t simrt_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static simrt_fatbin_t *simrt_fatbins;
static simrt_func_t *simrt_funcs;
static simrt_twins_t *simrt_twin_sets;

typedef struct simrt_var_s {
  struct simrt_var_s *next;
  const void *host_var;
  char *name;
  simrt_fatbin_t *fb;
} simrt_var_t;
static simrt_var_t *simrt_vars;

/* ---- twins ---- */

static bool simrt_twins_on(void) {
  const char *e = getenv("SIMCUDA_TWINS");
  return !(e && strcmp(e, "0") == 0);
}

static const simcuda_kernel_t *simrt_find_twin(const char *name) {
  if (!simrt_twins_on()) return NULL;
  for (simrt_twins_t *s = simrt_twin_sets; s; s = s->next)
    for (unsigned i = 0; i < s->n; i++)
      if (s->k[i].name && strcmp(s->k[i].name, name) == 0) return &s->k[i];
  return NULL;
}

/* Exported without the libcudart version (a simulator-only entry point): a
 * program's twin file calls it from a constructor, before or after nvcc's
 * registration code: matching happens at first use. */
SIMRT_API void simcudaRegisterTwins(const simcuda_kernel_t *kernels, unsigned n) {
  if (!kernels || n == 0) return;
  pthread_mutex_lock(&simrt_reg_lock);
  for (unsigned i = 0; i < n; i++) {
    const simcuda_twin_fn fn = kernels[i].fn;
    const simcuda_kernel_t *old = kernels[i].name ? simrt_find_twin(kernels[i].name) : NULL;
    if (!kernels[i].name || !fn)
      simrt_warn("simcudaRegisterTwins: entry %u has no name or no function", i);
    else if (old && old->fn != fn)
      simrt_warn("simcudaRegisterTwins: two different twins for %s; the first one wins",
                 kernels[i].name);
  }
  simrt_twins_t *s = calloc(1, sizeof *s); /* forwarded = false */
  if (s) {
    s->k = kernels;
    s->n = n;
    s->next = NULL;
    /* Appended so that the first registration of a name wins. */
    simrt_twins_t **pp = &simrt_twin_sets;
    while (*pp) pp = &(*pp)->next;
    *pp = s;
  }
  pthread_mutex_unlock(&simrt_reg_lock);
}

/* ---- module images ---- */

/* The driver picks a twin over the PTX of a kernel by name: hand it every twin
 * registered so far. Lock held. */
static void simrt_twins_forward(void) {
  void (*fn)(const simcuda_kernel_t *, unsigned) = NULL;
  void *sym = simrt_driver_sym("simcudaDriverRegisterTwins");
  if (!sym) return;
  memcpy(&fn, &sym, sizeof fn);
  for (simrt_twins_t *s = simrt_twin_sets; s; s = s->next)
    if (!s->forwarded) {
      fn(s->k, s->n);
      s->forwarded = true;
    }
}

/* The real image (its PTX runs on the driver's interpreter): offered once; every
 * function of fb the driver finds gets its kernel. Lock held. */
static void simrt_fatbin_load_real(simrt_fatbin_t *fb) {
  if (fb->real_tried || !fb->image) return;
  fb->real_tried = true;
  const simrt_drv_t *d = simrt_drv(0);
  CUlibrary lib = NULL;
  fb->real_err = SIMRT_DCALL(d, cuLibraryLoadData, &lib, fb->image, NULL, NULL, 0, NULL, NULL, 0);
  if (fb->real_err != CUDA_SUCCESS) return;
  simrt_load_t *ld = calloc(1, sizeof *ld);
  if (!ld) abort();
  ld->lib = lib;
  ld->next = fb->loads;
  fb->loads = ld;
  for (simrt_func_t *f = simrt_funcs; f; f = f->next) {
    if (f->fb != fb || f->kernel) continue;
    CUkernel k = NULL;
    if (SIMRT_DCALL(d, cuLibraryGetKernel, &k, lib, f->name) == CUDA_SUCCESS) f->kernel = k;
  }
}

/* Loads fb: its real image first, then one twin image holding every function of fb
 * that has a twin and no kernel yet (an image without PTX). Lock held. */
static cudaError_t simrt_fatbin_load(simrt_fatbin_t *fb) {
  simrt_twins_forward();
  simrt_fatbin_load_real(fb);
  unsigned n = 0;
  for (simrt_func_t *f = simrt_funcs; f; f = f->next) {
    if (f->fb != fb || f->kernel) continue;
    if (!f->twin) f->twin = simrt_find_twin(f->name);
    if (f->twin) n++;
  }
  if (n == 0) return cudaSuccess;
  simrt_load_t *ld = calloc(1, sizeof *ld);
  simcuda_kernel_t *ks = calloc(n, sizeof *ks);
  if (!ld || !ks) {
    free(ld);
    free(ks);
    return cudaErrorMemoryAllocation;
  }
  unsigned i = 0;
  for (simrt_func_t *f = simrt_funcs; f; f = f->next)
    if (f->fb == fb && !f->kernel && f->twin) {
      ks[i] = *f->twin;
      ks[i].name = f->name; /* the registered name, so the module names match nvcc's */
      i++;
    }
  ld->kernels = ks;
  ld->img.magic = SIMCUDA_IMAGE_MAGIC;
  ld->img.version = SIMCUDA_IMAGE_VERSION;
  ld->img.n_kernels = n;
  ld->img.kernels = ks;
  const simrt_drv_t *d = simrt_drv(0);
  CUresult r = SIMRT_DCALL(d, cuLibraryLoadData, &ld->lib, &ld->img, NULL, NULL, 0, NULL, NULL, 0);
  if (r != CUDA_SUCCESS) {
    simrt_warn("cuLibraryLoadData of a simulator image failed (CUresult %d)", (int)r);
    free(ks);
    free(ld);
    return simrt_from_cu(r);
  }
  ld->next = fb->loads;
  fb->loads = ld;
  for (simrt_func_t *f = simrt_funcs; f; f = f->next) {
    if (f->fb != fb || f->kernel || !f->twin) continue;
    CUkernel k = NULL;
    r = SIMRT_DCALL(d, cuLibraryGetKernel, &k, ld->lib, f->name);
    if (r != CUDA_SUCCESS) {
      simrt_warn("cuLibraryGetKernel(%s) failed (CUresult %d)", f->name, (int)r);
      return simrt_from_cu(r);
    }
    f->kernel = k;
  }
  return cudaSuccess;
}

/* The kernel of f, loading on first use; lock held. */
static cudaError_t simrt_func_kernel(simrt_func_t *f, CUkernel *out) {
  if (!f->kernel) {
    cudaError_t e = simrt_init();
    if (e != cudaSuccess) return e;
    e = simrt_fatbin_load(f->fb);
    if (e != cudaSuccess) return e;
  }
  if (!f->kernel) {
    if (!f->warned) {
      if (f->fb->real_err == CUDA_ERROR_NO_BINARY_FOR_GPU)
        simrt_warn("kernel %s: its image carries no PTX (built with -gencode ...,code=sm_XX: no PTX to "
                   "interpret) and no twin is registered: launching it fails with "
                   "cudaErrorNoKernelImageForDevice", f->name);
      else
        simrt_warn("kernel %s: the simulator cannot load its image (CUresult %d) and no twin is "
                   "registered: launching it fails with cudaErrorNoKernelImageForDevice",
                   f->name, (int)f->fb->real_err);
      f->warned = true;
    }
    return cudaErrorNoKernelImageForDevice;
  }
  *out = f->kernel;
  return cudaSuccess;
}

static simrt_func_t *simrt_func_by_host(const void *host_fun) {
  for (simrt_func_t *f = simrt_funcs; f; f = f->next)
    if (f->host_fun == host_fun) return f;
  return NULL;
}

/* A function by the handle __cudaGetKernel gave out: its CUkernel, or for a
 * function without twin the function record itself (a stand-in). */
static simrt_func_t *simrt_func_by_handle(const void *h) {
  for (simrt_func_t *f = simrt_funcs; f; f = f->next)
    if ((const void *)f->kernel == h || (const void *)f == h) return f;
  return NULL;
}

cudaError_t simrt_kernel_of_func(const void *func, CUkernel *out) {
  if (!func) return cudaErrorInvalidDeviceFunction;
  pthread_mutex_lock(&simrt_reg_lock);
  simrt_func_t *f = simrt_func_by_host(func);
  /* CUDA 12+ APIs taking a function also accept a cudaKernel_t cast to void *. */
  if (!f) f = simrt_func_by_handle(func);
  cudaError_t e = f ? simrt_func_kernel(f, out) : cudaErrorInvalidDeviceFunction;
  pthread_mutex_unlock(&simrt_reg_lock);
  return e;
}

cudaError_t simrt_kernel_of_handle(cudaKernel_t h, CUkernel *out) {
  if (!h) return cudaErrorInvalidDeviceFunction;
  pthread_mutex_lock(&simrt_reg_lock);
  simrt_func_t *f = simrt_func_by_handle(h);
  cudaError_t e;
  if (f) {
    e = simrt_func_kernel(f, out);
  } else {
    /* Not one of ours: a CUkernel the program got elsewhere; the driver judges it. */
    *out = (CUkernel)h;
    e = cudaSuccess;
  }
  pthread_mutex_unlock(&simrt_reg_lock);
  return e;
}

/* ---- nvcc registration entry points ---- */

SIMRT_API void **__cudaRegisterFatBinary(void *fatCubin) {
  const int *w = fatCubin;
  if (!w || w[0] != SIMRT_FATBINC_MAGIC)
    simrt_warn("__cudaRegisterFatBinary: %p is not an nvcc fatbin wrapper", fatCubin);
  simrt_fatbin_t *fb = calloc(1, sizeof *fb);
  if (!fb) {
    simrt_warn("__cudaRegisterFatBinary: out of memory");
    abort();
  }
  pthread_mutex_lock(&simrt_reg_lock);
  fb->image = fatCubin;
  fb->next = simrt_fatbins;
  simrt_fatbins = fb;
  pthread_mutex_unlock(&simrt_reg_lock);
  return &fb->handle_slot;
}

/* Modules are loaded lazily at first use (as with CUDA_MODULE_LOADING=LAZY), which
 * also lets twins be registered after this point. */
SIMRT_API void __cudaRegisterFatBinaryEnd(void **fatCubinHandle) { (void)fatCubinHandle; }

SIMRT_API void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                                      char *deviceFun, const char *deviceName,
                                      int thread_limit, uint3 *tid, uint3 *bid,
                                      dim3 *bDim, dim3 *gDim, int *wSize) {
  simrt_fatbin_t *fb = (simrt_fatbin_t *)fatCubinHandle;
  const char *name = deviceName ? deviceName : deviceFun;
  if (!fb || !hostFun || !name) {
    simrt_warn("__cudaRegisterFunction: invalid arguments");
    return;
  }
  simrt_func_t *f = calloc(1, sizeof *f);
  char *nm = strdup(name);
  if (!f || !nm) {
    simrt_warn("__cudaRegisterFunction: out of memory");
    abort();
  }
  f->fb = fb;
  f->host_fun = hostFun;
  f->name = nm;
  pthread_mutex_lock(&simrt_reg_lock);
  f->next = simrt_funcs;
  simrt_funcs = f;
  pthread_mutex_unlock(&simrt_reg_lock);
}

/* __device__/__constant__ variables: found by name in the fatbin's module. */
SIMRT_API void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                 const char *deviceName, int ext, size_t size, int constant,
                                 int global) {
  simrt_var_t *v = calloc(1, sizeof *v);
  if (!v) return;
  v->host_var = hostVar;
  v->fb = (simrt_fatbin_t *)fatCubinHandle;
  v->name = strdup(deviceName ? deviceName : "?");
  pthread_mutex_lock(&simrt_reg_lock);
  v->next = simrt_vars;
  simrt_vars = v;
  pthread_mutex_unlock(&simrt_reg_lock);
}

SIMRT_API void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                        char *deviceAddress, const char *deviceName, int ext,
                                        size_t size, int constant, int global) {
  __cudaRegisterVar(fatCubinHandle, (char *)hostVarPtrAddress, deviceAddress, deviceName, ext,
                    size, constant, global);
}

/* Initialises the module of a fatbin (nvcc calls it for managed variables);
 * returns nonzero on success. */
SIMRT_API char __cudaInitModule(void **fatCubinHandle) {
  simrt_fatbin_t *fb = (simrt_fatbin_t *)fatCubinHandle;
  if (!fb || simrt_init() != cudaSuccess) return 0;
  pthread_mutex_lock(&simrt_reg_lock);
  cudaError_t e = simrt_fatbin_load(fb);
  pthread_mutex_unlock(&simrt_reg_lock);
  return e == cudaSuccess;
}

SIMRT_API void __cudaUnregisterFatBinary(void **fatCubinHandle) {
  simrt_fatbin_t *fb = (simrt_fatbin_t *)fatCubinHandle;
  if (!fb) return;
  pthread_mutex_lock(&simrt_reg_lock);
  for (simrt_func_t **pp = &simrt_funcs; *pp;) {
    simrt_func_t *f = *pp;
    if (f->fb == fb) {
      *pp = f->next;
      free(f->name);
      free(f);
    } else {
      pp = &f->next;
    }
  }
  for (simrt_load_t *ld = fb->loads; ld;) {
    simrt_load_t *next = ld->next;
    /* Errors ignored: at exit the driver may already be shutting down. */
    if (ld->lib) (void)SIMRT_DCALL(simrt_drv(0), cuLibraryUnload, ld->lib);
    free(ld->kernels);
    free(ld);
    ld = next;
  }
  fb->loads = NULL;
  fb->unregistered = true; /* kept: the program may still hold the handle */
  pthread_mutex_unlock(&simrt_reg_lock);
}

SIMRT_API cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func) {
  if (!kernel) return simrt_ret(cudaErrorInvalidValue);
  CUkernel k = NULL;
  cudaError_t e = simrt_kernel_of_func(func, &k);
  if (e == cudaSuccess) {
    *kernel = (cudaKernel_t)k;
    return cudaSuccess;
  }
  if (e == cudaErrorNoKernelImageForDevice) {
    /* nvcc's stub calls this once and launches whatever handle it got: hand out a
     * stand-in so the launch can name the kernel and re-check for a late twin. */
    pthread_mutex_lock(&simrt_reg_lock);
    *kernel = (cudaKernel_t)(void *)simrt_func_by_host(func);
    pthread_mutex_unlock(&simrt_reg_lock);
  }
  return simrt_ret(e);
}

SIMRT_API cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr) {
  return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

/* ---- symbols (__device__ and __constant__ variables) ----
 * They live in the driver's module of the real image (cuLibraryGetGlobal). */

static cudaError_t simrt_symbol_addr(const void *symbol, const char *api, CUdeviceptr *addr, size_t *size) {
  cudaError_t e = simrt_init();
  if (e != cudaSuccess) return e;
  pthread_mutex_lock(&simrt_reg_lock);
  simrt_var_t *v = NULL;
  for (simrt_var_t *x = simrt_vars; x && !v; x = x->next)
    if (x->host_var == symbol) v = x;
  if (!v) {
    pthread_mutex_unlock(&simrt_reg_lock);
    return cudaErrorInvalidSymbol;
  }
  simrt_fatbin_t *fb = v->fb;
  e = fb ? simrt_fatbin_load(fb) : cudaErrorInvalidSymbol;
  CUresult r = CUDA_ERROR_NOT_FOUND;
  for (simrt_load_t *ld = fb ? fb->loads : NULL; ld && r != CUDA_SUCCESS; ld = ld->next)
    if (!ld->kernels) r = SIMRT_DCALL(simrt_drv(0), cuLibraryGetGlobal, addr, size, ld->lib, v->name);
  pthread_mutex_unlock(&simrt_reg_lock);
  if (r != CUDA_SUCCESS) {
    simrt_warn("%s(%s): the variable is not in a module the simulator loaded (CUresult %d)", api, v->name, (int)r);
    return cudaErrorInvalidSymbol;
  }
  return cudaSuccess;
}

SIMRT_API cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
  CUdeviceptr a;
  size_t n;
  cudaError_t e = simrt_symbol_addr(symbol, "cudaGetSymbolAddress", &a, &n);
  if (e == cudaSuccess && devPtr) *devPtr = (void *)(uintptr_t)a;
  return simrt_ret(e);
}

SIMRT_API cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
  CUdeviceptr a;
  size_t n;
  cudaError_t e = simrt_symbol_addr(symbol, "cudaGetSymbolSize", &a, &n);
  if (e == cudaSuccess && size) *size = n;
  return simrt_ret(e);
}

static cudaError_t simrt_symbol_copy(const void *symbol, size_t count, size_t offset, const char *api,
                                     void **dev) {
  CUdeviceptr a;
  size_t n;
  cudaError_t e = simrt_symbol_addr(symbol, api, &a, &n);
  if (e != cudaSuccess) return e;
  if (offset > n || count > n - offset) return cudaErrorInvalidValue;
  *dev = (void *)(uintptr_t)(a + offset);
  return cudaSuccess;
}

SIMRT_API cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind) {
  void *dev;
  cudaError_t e = simrt_symbol_copy(symbol, count, offset, "cudaMemcpyToSymbol", &dev);
  if (e != cudaSuccess) return simrt_ret(e);
  return cudaMemcpy(dev, src, count, kind == cudaMemcpyDefault ? cudaMemcpyDefault : kind);
}

SIMRT_API cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind) {
  void *dev;
  cudaError_t e = simrt_symbol_copy(symbol, count, offset, "cudaMemcpyFromSymbol", &dev);
  if (e != cudaSuccess) return simrt_ret(e);
  return cudaMemcpy(dst, dev, count, kind);
}

SIMRT_API cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                              size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream) {
  void *dev;
  cudaError_t e = simrt_symbol_copy(symbol, count, offset, "cudaMemcpyToSymbolAsync", &dev);
  if (e != cudaSuccess) return simrt_ret(e);
  return cudaMemcpyAsync(dev, src, count, kind, stream);
}

SIMRT_API cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream) {
  void *dev;
  cudaError_t e = simrt_symbol_copy(symbol, count, offset, "cudaMemcpyFromSymbolAsync", &dev);
  if (e != cudaSuccess) return simrt_ret(e);
  return cudaMemcpyAsync(dst, dev, count, kind, stream);
}
