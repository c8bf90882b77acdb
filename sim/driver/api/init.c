/* init.c: cuInit, driver version and error names (the devices: device.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_all(void) {
  sim_options_read();
  sim_mem_init();
  sim_pool_init(sim_opt.threads);
  sim_launch_jit_init();
  sim_inject_init(getenv("SIMCUDA_FLIP"));
  sim_fliprate_init(getenv("SIMCUDA_FLIP_RATE"));
  atexit(sim_stats_at_exit);
  atomic_store(&sim_initialized, 1);
}

CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  pthread_once(&init_once, init_all);
  sim_injection_load(); /* outside the once: the library may call the driver */
  return CUDA_SUCCESS;
}

/* The simulator's own calls that start the driver when the program has not yet. */
__attribute__((visibility("default"))) int simcudaInject(const char *spec) {
  if (!atomic_load(&sim_initialized)) cuInit(0);
  return sim_inject_add(spec);
}

__attribute__((visibility("default"))) int simcudaSetFlipRate(double flips_per_gib_per_s, uint64_t s) {
  if (!atomic_load(&sim_initialized)) cuInit(0);
  return sim_fliprate_set(flips_per_gib_per_s, s);
}

CUresult cuDriverGetVersion(int *v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = SIM_DRIVER_VERSION; /* valid before cuInit, as on the real driver */
  return CUDA_SUCCESS;
}

/* ---- errors ---- */
CUresult cuGetErrorName(CUresult error, const char **pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
#define SIM_ERR(name, str) case name: *pStr = #name; return CUDA_SUCCESS;
#include "errors.def"
#undef SIM_ERR
    default: *pStr = NULL; return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuGetErrorString(CUresult error, const char **pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
#define SIM_ERR(name, str) case name: *pStr = str; return CUDA_SUCCESS;
#include "errors.def"
#undef SIM_ERR
    default: *pStr = NULL; return CUDA_ERROR_INVALID_VALUE;
  }
}

/* ---- profiler control: no profiler attaches to the simulator; the calls succeed
 * as they do on a GPU without one ---- */
CUresult cuProfilerStart(void) {
  SIM_CHECK_INIT();
  return CUDA_SUCCESS;
}
CUresult cuProfilerStop(void) {
  SIM_CHECK_INIT();
  return CUDA_SUCCESS;
}
