/* util.c: the helpers of simtest.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

#include "simtest.h"

const char *st_errname(CUresult r) {
  const char *s = NULL;
  if (cuGetErrorName(r, &s) != CUDA_SUCCESS || !s) return "?";
  return s;
}

CUcontext st_setup(void) {
  CUcontext c;
  CK(cuInit(0));
  CK(cuDevicePrimaryCtxRetain(&c, 0));
  CK(cuCtxSetCurrent(c));
  return c;
}

CUfunction st_func(CUmodule m, const char *name) {
  CUfunction f;
  CK(cuModuleGetFunction(&f, m, name));
  return f;
}

void st_fill(CUfunction fill, CUdeviceptr p, unsigned v, unsigned n) {
  void *args[] = {&p, &v, &n};
  CK(cuLaunchKernel(fill, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
}

void st_gate_fn(void *gate) {
  st_gate_t *g = gate;
  atomic_store(&g->entered, 1);
  while (!atomic_load(&g->open)) st_sleep_ms(1);
}

void st_gate_open(st_gate_t *g) { atomic_store(&g->open, 1); }

double st_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void st_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void *sym(const char *name) {
  void *p = dlsym(RTLD_DEFAULT, name);
  if (!p) FT_FAIL_("simulator entry point %s not found", name);
  return p;
}

int st_inject(const char *spec) { return ((simcuda_inject_fn)sym("simcudaInject"))(spec); }
int st_flip_now(uint64_t a, unsigned b, int s) { return ((simcuda_flip_now_fn)sym("simcudaFlipNow"))(a, b, s); }
void st_clear_faults(void) { ((simcuda_clear_faults_fn)sym("simcudaClearFaults"))(); }
simcuda_stats_t st_stats(void) {
  simcuda_stats_t s;
  ((simcuda_get_stats_fn)sym("simcudaGetStats"))(&s);
  return s;
}
void st_reset_stats(void) { ((simcuda_reset_stats_fn)sym("simcudaResetStats"))(); }
int st_set_flip_rate(double rate, uint64_t seed) {
  return ((simcuda_set_flip_rate_fn)sym("simcudaSetFlipRate"))(rate, seed);
}
