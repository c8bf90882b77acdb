/* threads.c: many host threads calling the driver at once (allocate, upload,
 * launch, read back, check, free) through -lcuda. `threads T ITER`. */
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "twin_fill.h"

static CUcontext ctx;
static CUfunction fill;
static int iters;
static int errors;

static void *worker(void *arg) {
  unsigned id = (unsigned)(uintptr_t)arg;
  if (cuCtxSetCurrent(ctx) != CUDA_SUCCESS) goto bad;
  CUstream s;
  if (cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) goto bad;
  unsigned host[1024];
  for (int i = 0; i < iters; i++) {
    CUdeviceptr d;
    unsigned v = id * 100000u + (unsigned)i;
    void *params[] = {&d, &v};
    if (cuMemAlloc(&d, sizeof host) != CUDA_SUCCESS) goto bad;
    for (int k = 0; k < 1024; k++) host[k] = 0;
    if (cuMemcpyHtoDAsync(d, host, sizeof host, s) != CUDA_SUCCESS) goto bad;
    if (cuLaunchKernel(fill, 4, 1, 1, 256, 1, 1, 0, s, params, NULL) != CUDA_SUCCESS) goto bad;
    if (cuStreamSynchronize(s) != CUDA_SUCCESS) goto bad;
    if (cuMemcpyDtoH(host, d, sizeof host) != CUDA_SUCCESS) goto bad;
    for (int k = 0; k < 1024; k++)
      if (host[k] != v) goto bad;
    if (cuMemFree(d) != CUDA_SUCCESS) goto bad;
  }
  cuStreamDestroy(s);
  return NULL;
bad:
  __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
  return NULL;
}

int main(int argc, char **argv) {
  int nt = argc > 1 ? atoi(argv[1]) : 8;
  iters = argc > 2 ? atoi(argv[2]) : 50;
  if (nt < 1 || nt > 64 || iters < 1) return 2;
  CUdevice dev;
  CUmodule mod;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
      cuCtxSetCurrent(ctx) || tf_load(&mod, &fill)) {
    fprintf(stderr, "threads: setup failed\n");
    return 1;
  }
  pthread_t t[64];
  for (int i = 0; i < nt; i++) pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
  for (int i = 0; i < nt; i++) pthread_join(t[i], NULL);
  printf("threads: %d x %d iterations, %d errors\n", nt, iters, errors);
  return errors ? 1 : 0;
}
