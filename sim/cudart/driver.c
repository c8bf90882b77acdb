/* driver.c: reaches the driver the way the real runtime does: dlopen("libcuda.so.1"),
 * dlsym("cuGetProcAddress_v2"), then every entry point through it (never linked). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "simrt.h"

#define SIMRT_CUDA_VERSION 13000

static simrt_drv_t simrt_tables[2];
static PFN_cuGetProcAddress_v12000 simrt_gpa;
static void *simrt_drv_handle;
static cudaError_t simrt_load_err = cudaSuccess;
static pthread_once_t simrt_load_once = PTHREAD_ONCE_INIT;

static void simrt_resolve(simrt_drv_t *t, cuuint64_t flags) {
  CUdriverProcAddressQueryResult q;
  void *p;
#define SIMRT_DRV(name, pfn, ptds)                                                 \
  p = NULL;                                                                        \
  if (simrt_gpa(#name, &p, SIMRT_CUDA_VERSION, flags, &q) != CUDA_SUCCESS ||       \
      q != CU_GET_PROC_ADDRESS_SUCCESS)                                            \
    p = NULL;                                                                      \
  memcpy(&t->name, &p, sizeof p);
#include "drv.def"
#undef SIMRT_DRV
}

static void simrt_load(void) {
  /* RTLD_LOCAL: the driver's symbols must not satisfy anyone else's lookups. */
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    /* What the real runtime reports when no driver is installed. */
    simrt_load_err = cudaErrorInsufficientDriver;
    return;
  }
  simrt_drv_handle = h;
  void *p = dlsym(h, "cuGetProcAddress_v2");
  if (!p) {
    simrt_load_err = cudaErrorInsufficientDriver;
    return;
  }
  memcpy(&simrt_gpa, &p, sizeof p);
  simrt_resolve(&simrt_tables[0], CU_GET_PROC_ADDRESS_LEGACY_STREAM);
  simrt_resolve(&simrt_tables[1], CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
}

cudaError_t simrt_driver_load(void) {
  pthread_once(&simrt_load_once, simrt_load);
  return simrt_load_err;
}

const simrt_drv_t *simrt_drv(int ptds) { return &simrt_tables[ptds ? 1 : 0]; }

PFN_cuGetProcAddress_v12000 simrt_getproc(void) { return simrt_gpa; }

void *simrt_driver_sym(const char *name) {
  if (simrt_driver_load() != cudaSuccess || !simrt_drv_handle) return NULL;
  return dlsym(simrt_drv_handle, name);
}

CUresult simrt_missing_entry(const char *name) {
  simrt_warn("the driver has no entry point %s (cuGetProcAddress_v2 did not find it)", name);
  return CUDA_ERROR_NOT_SUPPORTED;
}
